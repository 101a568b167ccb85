"""A wrap on a 390x844 phone (issue 30, the last read): which_policy's table broke the inline code
`buffer-one` in two. A table's short inline code is one unbroken chip, and no page is wider than
the phone."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from emqsim.site.pages import SHORT_NAME  # noqa: E402
from test_site_book import PHONE, book_page  # noqa: E402,F401
from test_site_student import open_page  # noqa: E402

# the distinct line tops of an element's text
_LINES_JS = """e => { const r = document.createRange(); r.selectNodeContents(e);
  return new Set([...r.getClientRects()].filter(x => x.width > 0 && x.height > 0).map(x => Math.round(x.top))).size; }"""


@pytest.mark.parametrize("stem", ["which_policy", "05_overlap", "ref_scripts", "ref_peers_missed_slots",
                                  "course_pages_checked"])
def test_a_tables_inline_code_is_never_broken(static_site, book_page, stem):
    """No short name in a table cell's inline code spans two line boxes at 390 px, and the page is
    no wider than the phone."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    codes = page.locator(".bd-article table td code, .bd-article table th code")
    assert codes.count() > 0, stem
    broken = [c.text_content() for c in codes.all()
              if len(c.text_content()) <= SHORT_NAME and " " not in c.text_content() and c.evaluate(_LINES_JS) > 1]
    assert broken == [], (stem, broken)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], stem
    assert page.errors == [] and page.outside == []
