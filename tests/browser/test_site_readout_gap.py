"""The readout right under its picture once the reader drives a figure (issue 30, h68r's read):
the room that keeps the readout's tallest text's height once a control is in hand (player.js
reserve, hold) stood the text box at its bottom, so a short text sat under a blank band: 110 px
under 05's pile-up on a desktop, 57 px under 02's and 03's keys, 84 px under 03's on a phone. And
docked on a phone, the readout's box kept the tallest text's height, 02's keys' and 05's pile-up's
short texts over 6 empty lines. The blank a reserve keeps goes under the text: the box starts
under the picture, and a docked box ends at most one line under its text; the slider in use
still holds still from step to step."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import SIZES, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import open_page  # noqa: E402

#: the most the readout's box may stand under its picture, CSS px (its own top margin is 5 on a
#: desktop, 2 on a phone)
GAP_PX = 8
#: the empty lines a docked readout's box may show under its text
DOCKED_SLACK_LINES = 1
#: the steps the reader takes with the arrow key, as h68r did
STEPS = 4
#: how far (CSS px) the slider in use may move between steps: none, but sub-pixel rounding
STILL_PX = 0.5

# the readout's box top under the picture's bottom, the empty lines its box shows under its text,
# and whether it is docked
_GAP_JS = """root => {
  const p = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  const e = root.querySelector('pre.emqsim-readout'), r = e.getBoundingClientRect(), s = getComputedStyle(e);
  const t = document.createRange(); t.selectNodeContents(e);
  const bottom = r.bottom - parseFloat(s.paddingBottom) - parseFloat(s.borderBottomWidth);
  return {gap: r.top - p.bottom, slack: (bottom - t.getBoundingClientRect().bottom) / parseFloat(s.lineHeight),
          docked: root.classList.contains('emqsim-docked'), frame: root.dataset.frame};
}"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_the_readout_starts_under_its_picture_once_driven(static_site, book_page, path, size):
    """Each figure at rest, then its first slider taken by the keyboard and stepped 4 times (07's
    drop-down moved 4 choices on): the readout's box starts at most 8 px under the picture
    (docked, it stands with the controls at the window's bottom: its box then shows at most one
    empty line under its text), and the control stands still from the first step to the last."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")     # a scroll that brings the picture is instant
    players = open_page(page, static_site, path.stem, SIZES[size])
    far, loose, moved, driven = [], [], [], 0
    for n in range(players.count()):
        player = ready(page, n)
        title = player.get_attribute("data-figure")
        rest = player.evaluate(_GAP_JS)
        if rest["gap"] > GAP_PX:
            far.append((title, "at rest", round(rest["gap"], 1)))
        # its first slider, else (07's) its first drop-down
        control = player.locator("input.emqsim-slider:not([disabled]), select.emqsim-choice:not([disabled])").first
        if not control.count():
            continue
        driven += 1
        control.scroll_into_view_if_needed()
        control.focus()
        tops = []
        for _ in range(STEPS):
            if control.evaluate("e => e.tagName") == "SELECT":
                control.select_option(index=(control.evaluate("e => e.selectedIndex") + 1) % control.locator("option").count())
            else:
                page.keyboard.press("ArrowRight")
            page.wait_for_timeout(100)
            tops.append(control.evaluate("e => e.getBoundingClientRect().top"))
        page.wait_for_timeout(300)      # the last picture loaded
        got = player.evaluate(_GAP_JS)
        if got["docked"]:
            if got["slack"] > DOCKED_SLACK_LINES + 0.05:
                loose.append((title, round(got["slack"], 2), got["frame"]))
        elif got["gap"] > GAP_PX:
            far.append((title, "driven", round(got["gap"], 1), got["frame"]))
        # the first step may bring the figure into view (or dock it): from then on nothing moves
        if max(tops[1:]) - min(tops[1:]) > STILL_PX:
            moved.append((title, [round(y, 1) for y in tops]))
        control.blur()
    assert driven, path.stem
    assert far == [], (path.stem, size, far)
    assert loose == [], (path.stem, size, loose)
    assert moved == [], (path.stem, size, moved)
    assert page.errors == [] and page.outside == []
