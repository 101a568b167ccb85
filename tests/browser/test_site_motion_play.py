"""Motion where the idea is motion (issue 30, item 9), on the built site with no kernel: pressing
Play on 02's and 05's "watch it move" strips moves the tokens (the frame changes) and the readout
and the picture's alt text name where each job now is, the model's own words for the moment the
slider shows. Screenshots of each strip at 1366x900 and 390x844, light and dark, are kept in
test-artifacts/ for a reader to look at."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PHONE, book_page, ready  # noqa: E402,F401

from emqsim.figures import catalogue  # noqa: E402

STRIPS = {"02_one_row_rewritten": "02 watch a job move", "05_overlap": "05 watch the runs pile up"}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
#: a job's place as the readout says it: its slot's time, then where it is
PLACE = re.compile(r"\b\d\d:\d\d (next in the registry|in the delayed set|in the wait list|at a worker|done)\b")
PLAY_MS = 20_000


def strip_on(page, static_site, stem: str, size: dict, theme: str = "light"):
    page.emulate_media(color_scheme=theme)
    page.set_viewport_size(size)
    page.goto((static_site / f"{stem}.html").as_uri())
    players = page.locator(".emqsim-player")
    titles = [players.nth(i).get_attribute("data-figure") for i in range(players.count())]
    player = ready(page, titles.index(STRIPS[stem]))
    player.scroll_into_view_if_needed()
    return player


def shown(player) -> dict:
    return player.evaluate("""root => ({frame: root.getAttribute('data-frame'),
        src: root.querySelector('img.emqsim-frame').getAttribute('src'),
        alt: root.querySelector('img.emqsim-frame').getAttribute('alt'),
        readout: root.querySelector('pre.emqsim-readout').textContent,
        label: root.querySelector('.emqsim-control[data-name="step"] output.emqsim-value').textContent})""")


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("stem", STRIPS)
def test_play_moves_the_tokens_and_the_readout_names_each_jobs_place(static_site, book_page, stem, size):
    page = book_page
    player = strip_on(page, static_site, stem, SIZES[size])
    model = catalogue.model(STRIPS[stem])
    before = shown(player)
    assert before["label"] == model.moments[0].label()
    play = player.locator("button.emqsim-play")
    play.click()
    page.wait_for_function("([r, f]) => r.getAttribute('data-frame') !== f && r.hasAttribute('data-playing')",
                           arg=[player.element_handle(), before["frame"]], timeout=PLAY_MS, polling=50)
    # let it walk a few steps: the job leaves the registry for the wait list, then a worker
    page.wait_for_function("""root => root.querySelector('.emqsim-control[data-name="step"] input.emqsim-slider').value >= 3""",
                           arg=player.element_handle(), timeout=PLAY_MS, polling=50)
    play.click()   # pause
    page.wait_for_function("root => !root.hasAttribute('data-playing')", arg=player.element_handle(), timeout=PLAY_MS)
    after = shown(player)
    assert after["src"] != before["src"] and after["readout"] != before["readout"]
    step = [m.label() for m in model.moments].index(after["label"])
    frame = model.frame(step=step)
    assert after["readout"] == frame.readout
    assert after["alt"] == model.describe(frame)
    # one line a lane, each naming where its jobs are; by the third step a job has reached a worker
    lanes = after["readout"].splitlines()[1:]
    assert len(lanes) == len(frame.lanes) and all(PLACE.search(line) for line in lanes)
    assert any(t.place in ("worker", "done") for lane in frame.lanes for t in lane.tokens)
    assert page.errors == [] and page.outside == []


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("stem", STRIPS)
def test_screenshots_of_the_strips(static_site, book_page, artifacts, stem, size, theme):
    """The strip as a student sees it, moved to a moment where jobs overlap or travel (kept for
    reading; the picture is the frame the readout describes)."""
    page = book_page
    player = strip_on(page, static_site, stem, SIZES[size], theme)
    model = catalogue.model(STRIPS[stem])
    slider = player.locator('.emqsim-control[data-name="step"] input.emqsim-slider')
    target = model.challenge and next(k for k in range(len(model.moments)) if model.challenge.check(model.frame(step=k)))
    slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", target)
    page.wait_for_function("([r, v]) => r.getAttribute('data-frame') !== null && "
                           "r.querySelector('img.emqsim-frame').complete", arg=[player.element_handle(), target])
    assert shown(player)["readout"] == model.frame(step=target).readout
    page.screenshot(path=artifacts / f"motion-{stem[:2]}-{size}-{theme}.png")
