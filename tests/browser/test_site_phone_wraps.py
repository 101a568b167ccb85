"""Two wraps on a 390x844 phone (issue 30, the last read): a slider's value ("09:00 register" on
02) broke over two lines and stood over its slider's label, and which_policy's table broke the
inline code `buffer-one` in two. A value is one line, clear of its label; a table's inline code
is one unbroken chip, the table scrolling inside its own box, and no page is wider than the phone."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import PHONE, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import open_page  # noqa: E402

#: a name this long or shorter is one chip (player.js SHORT_NAME); a longer one (a seed file's
#: path) may break at its joints, to keep a phone's table inside its column
SHORT_NAME = 12

# the distinct line tops of an element's text
_LINES_JS = """e => { const r = document.createRange(); r.selectNodeContents(e);
  return new Set([...r.getClientRects()].filter(x => x.width > 0 && x.height > 0).map(x => Math.round(x.top))).size; }"""

# each slider's value: its lines and whether its box overlaps its row's label
_VALUES_JS = """(root, lines) => [...root.querySelectorAll('.emqsim-control')].flatMap(row => {
  const v = row.querySelector('output.emqsim-value'), l = row.querySelector(':scope > .emqsim-label');
  if (!v || !l || !v.textContent.trim()) return [];
  const a = v.getBoundingClientRect(), b = l.getBoundingClientRect();
  const over = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return [{text: v.textContent, lines: lines(v), over}]; })"""


@pytest.mark.parametrize("path", [p for p in WITH_PLAYERS if p.stem.startswith("02")], ids=lambda p: p.stem)
def test_a_slider_value_is_one_line_clear_of_its_label(static_site, book_page, path):
    """Every slider of the page swept through its positions: each value shown is on one line and
    its box does not overlap its label's."""
    page = book_page
    players = open_page(page, static_site, path.stem, PHONE)
    bad = []
    for n in range(players.count()):
        player = ready(page, n)
        sliders = player.locator("input.emqsim-slider:not([disabled])")
        for k in range(sliders.count()):
            slider = sliders.nth(k)
            for v in range(int(slider.get_attribute("max")) + 1):
                slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", v)
                got = player.evaluate(f"root => ({_VALUES_JS})(root, {_LINES_JS})")
                bad += [(player.get_attribute("data-figure"), g) for g in got if g["lines"] > 1 or g["over"]]
    assert bad[:5] == [], (path.stem, len(bad))
    assert page.errors == [] and page.outside == []


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
