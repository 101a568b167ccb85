"""The course book's readout box, in a real browser (issue 30, a reviewer's read of main at
fdf125e): the undocked readout's box was as tall as the figure's tallest text, so 02's and 05's
short readouts sat in a box half empty. The box now fits the text it shows, at most one blank
line of slack (the rows under it still never move: test_site_still_and_calm)."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PHONE, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import open_page  # noqa: E402

#: the slack the readout's box may keep under its text, in lines
SLACK_LINES = 1

# the readout's box height, the lines its text takes (distinct line tops of its text), its line
# height and its padding and border
_READOUT_JS = """root => {
  const e = root.querySelector('pre.emqsim-readout'), s = getComputedStyle(e);
  const r = document.createRange(); r.selectNodeContents(e);
  const tops = new Set([...r.getClientRects()].filter(x => x.height > 0).map(x => Math.round(x.top)));
  const edge = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth']
    .reduce((a, k) => a + parseFloat(s[k]), 0);
  return {box: e.getBoundingClientRect().height, lines: tops.size, line: parseFloat(s.lineHeight), edge,
          docked: root.classList.contains('emqsim-docked'), frame: root.dataset.frame};
}"""


def _slack_lines(player) -> tuple[float, dict]:
    got = player.evaluate(_READOUT_JS)
    assert got["lines"] >= 1 and got["line"] > 0, got
    return (got["box"] - got["edge"]) / got["line"] - got["lines"], got


@pytest.mark.parametrize("size", {"desktop": DESKTOP, "phone": PHONE})
@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_the_readout_box_fits_its_text(static_site, book_page, path, size):
    """02's keys held 4 lines in a box of 7 at 1366x900, 05's pile-up 6 lines in a box of 13:
    each figure's undocked readout, as the page opens and after its first control moves a step
    and back, is at most its text and one line."""
    page = book_page
    players = open_page(page, static_site, path.stem, {"desktop": DESKTOP, "phone": PHONE}[size])
    loose = []
    for n in range(players.count()):
        player = ready(page, n)
        control = player.locator("input.emqsim-slider:not([disabled])").first
        for move in (0, 1, -1):
            if move:
                if not control.count():
                    break
                # moved by its value, as a drag moves it
                control.evaluate("""(e, d) => { e.value = String(Math.max(0, Math.min(Number(e.max),
                    Number(e.value) + d))); e.dispatchEvent(new Event('input')); }""", move)
                page.wait_for_timeout(50)
            slack, got = _slack_lines(player)
            if got["docked"]:
                continue     # docked, its height is the dock's (test_site_phone_reading)
            if slack > SLACK_LINES + 0.05:
                loose.append((player.get_attribute("data-figure"), move, round(slack, 2), got))
    assert loose == [], (path.stem, size, loose)
    assert page.errors == [] and page.outside == []
