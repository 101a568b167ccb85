"""The course book read on a 1366x900 desktop (issue 30, a reviewer's fourth pass): Play or a step
of a slider pressed with the figure above the window brings the picture into view, as Show me
does (05's lanes played out of sight for the whole run); no code cell of any page scrolls
sideways (07's Lord Howe cell was cut at `"20`); and the sidebar names every page plainly."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PAGES, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import _IN_VIEW_JS, open_page  # noqa: E402

from emqsim.site import pages  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

#: how long a smooth scroll may take before the picture is measured
SCROLL_MS = 1200

# bring the element's top just under the theme's sticky header: the picture above it is then out of sight
_TO_TOP_JS = """e => { const head = Math.max(0, ...[...document.querySelectorAll('.bd-header, .bd-header-article')]
    .filter(h => ['sticky', 'fixed'].includes(getComputedStyle(h).position)).map(h => h.getBoundingClientRect().bottom));
  scrollBy({top: e.getBoundingClientRect().top - head - 10, behavior: 'instant'}); }"""


@pytest.mark.parametrize("how", ["play", "step"])
@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_play_or_a_step_brings_the_figure_into_view(static_site, book_page, path, how):
    page = book_page
    players = open_page(page, static_site, path.stem, DESKTOP)
    with_play = [n for n in range(players.count()) if players.nth(n).locator("button.emqsim-play").count()]
    if not with_play:
        pytest.skip(f"{path.stem} has no figure with Play")
    for n in with_play:
        player = ready(page, n)
        img = player.locator("img.emqsim-frame")
        play = player.locator("button.emqsim-play").first
        play.evaluate(_TO_TOP_JS)
        page.wait_for_timeout(100)
        assert not img.evaluate(_IN_VIEW_JS), (path.stem, n, "the picture was in view before: nothing tested")
        if how == "play":
            play.click()
        else:
            slider = play.locator("xpath=..").locator("input.emqsim-slider")
            slider.focus()
            page.keyboard.press("ArrowRight")
        page.wait_for_timeout(SCROLL_MS)
        assert img.evaluate(_IN_VIEW_JS), (path.stem, player.get_attribute("data-figure"), how, img.bounding_box())
        if player.get_attribute("data-playing"):
            play.click()    # paused: the next figure's Play is the only one running
    assert page.errors == [] and page.outside == []


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_no_code_cell_scrolls_sideways_on_a_desktop(static_site, book_page, path):
    """At 1366x900 a code cell's long line (07's Lord Howe cell, cut at `"20`) scrolled in its box:
    it wraps, as the printouts do (player.css, one rule for both), on the pages beside the course
    too (the glossary, the references)."""
    page = book_page
    open_page(page, static_site, path.stem, DESKTOP)
    wide = page.evaluate("""() => [...document.querySelectorAll('article div.cell_input pre')]
        .filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => [e.scrollWidth, e.clientWidth, e.textContent.split('\\n')[0].slice(0, 40)])""")
    assert wide == [], path.stem


def test_the_sidebar_names_the_course_pages_plainly(static_site, book_page):
    """"The course pages, checked" told a student neither which pages nor checked how; the sidebar
    and the page's own heading give one plainer name (a second name in the sidebar only read as
    a different page)."""
    page = book_page
    open_page(page, static_site, "00_start_here", DESKTOP)
    names = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('nav.bd-docs-nav a')]
        .map(a => [a.getAttribute('href').split('#')[0], a.textContent.trim()]))""")
    heading = pages.title_of(nbformat.read(ROOT / "notebooks" / "course_pages_checked.ipynb", as_version=4))
    assert names["course_pages_checked.html"] == "Course pages vs the code" == heading
    assert not [n for n in names.values() if "checked" in n], names
