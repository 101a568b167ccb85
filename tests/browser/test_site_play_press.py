"""Play as a reader presses it on the course book, in a real browser (issue 30): the press is
answered at once, by the figure's first step, not one interval later (a step figure's 2 s), and a
press is never lost, wherever the button stands in the window (pressed in the window's last 45 px,
the page moved between the pointer's down and up, and the click was lost). A file of its own, so
the two browser workers share it out with the rest."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import SIZES, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import open_page  # noqa: E402


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_play_pressed_at_the_window_s_bottom_steps_at_once(static_site, book_page, path, size):
    """Each Play, its button 4 px above the window's bottom, pressed by the mouse: the figure has
    moved when the press is done. Before, the press was lost on 9 of these 10 pages and sizes
    (h62r), and where it was not, the first step came one interval later (01, 02 and 03)."""
    page = book_page
    players = open_page(page, static_site, path.stem, SIZES[size])
    lost, pressed = [], 0
    for n in range(players.count()):
        player = ready(page, n)
        for b in range(player.locator("button.emqsim-play").count()):
            play = player.locator("button.emqsim-play").nth(b)
            play.evaluate("e => { const r = e.getBoundingClientRect(); scrollBy(0, r.bottom + 4 - innerHeight); }")
            page.wait_for_timeout(100)
            box = play.bounding_box()
            before = player.get_attribute("data-frame")
            page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            if player.get_attribute("data-frame") == before:
                lost.append((n, b, round(box["y"]), bool(player.get_attribute("data-playing"))))
            player.evaluate("r => r.querySelectorAll('button.emqsim-play').forEach(p => { if (r.hasAttribute('data-playing')) p.click(); })")
            pressed += 1
    if not pressed:
        pytest.skip(f"{path.stem}: no Play")
    assert lost == [], (path.stem, size, lost)
    assert page.errors == [] and page.outside == []
