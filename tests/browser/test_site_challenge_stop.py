"""A challenge is met where the reader stops, on the built site with no kernel (issue 30, item 10).

On 02's "watch a job move" strip the only control is a step slider with Play; when the line
ticked at every frame Play showed, pressing Play alone met "find the moment ..." at step 5 of 9
(h68r), with nothing to find. Now the line keeps its words while Play runs and is judged when Play
stops (paused, or at its end, where no goal is met: test_challenge_positions) and on every move by
hand (the slider's keys)."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, book_page  # noqa: E402,F401
from test_site_motion_play import PLAY_MS, STRIPS, strip_on  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402

STEM = "02_one_row_rewritten"

#: Installed on the player before Play is pressed: for each step Play shows, the slider's
#: position and the line's data-met as they stand once that step is drawn; every change to the
#: line (its words or its data-met) with whether Play was running then; and, with `pauseAt`, a
#: press of pause in the same turn as the step that reaches it (before Play's next tick).
WATCH = """(root, pauseAt) => {
  const line = root.querySelector('p.emqsim-challenge');
  const slider = root.querySelector('.emqsim-control[data-name="step"] input.emqsim-slider');
  const seen = [], changes = [];
  root.emqsimSeen = seen; root.emqsimChanges = changes;
  new MutationObserver(() => {
    changes.push({playing: root.hasAttribute('data-playing'), met: line.getAttribute('data-met')});
  }).observe(line, {attributes: true, childList: true, characterData: true, subtree: true});
  new MutationObserver(records => {
    if (!records.some(r => r.attributeName === 'data-frame')) return;
    const at = Number(slider.value), playing = root.hasAttribute('data-playing');
    seen.push({at: at, playing: playing, met: line.getAttribute('data-met')});
    if (playing && at === pauseAt) root.querySelector('button.emqsim-play').click();
  }).observe(root, {attributes: true, attributeFilter: ['data-frame']});
}"""


def state(player) -> dict:
    return player.evaluate("""root => ({
        at: Number(root.querySelector('.emqsim-control[data-name="step"] input.emqsim-slider').value),
        playing: root.hasAttribute('data-playing'),
        met: root.querySelector('p.emqsim-challenge').getAttribute('data-met'),
        line: root.querySelector('p.emqsim-challenge').textContent,
        seen: root.emqsimSeen, changes: root.emqsimChanges})""")


def meeting(model) -> list[int]:
    return [k for k in range(len(model.moments)) if model.challenge.check(model.frame(step=k))]


def test_play_run_to_its_end_leaves_the_goal_unticked_though_it_passed_the_moment(static_site, book_page):
    page = book_page
    player = strip_on(page, static_site, STEM, DESKTOP)
    model = catalogue.model(STRIPS[STEM])
    assert meeting(model) == [5] and len(model.moments) == 9
    goal = f"Challenge: {model.challenge.goal}".replace("`", "")
    assert state(player)["line"] == goal and state(player)["met"] == "0"
    player.evaluate(WATCH, -1)
    player.locator("button.emqsim-play").click()
    page.wait_for_function("root => !root.hasAttribute('data-playing') && root.getAttribute('data-frame') !== null "
                           "&& root.querySelector('input.emqsim-slider').value === '8'",
                           arg=player.element_handle(), timeout=PLAY_MS, polling=50)
    s = state(player)
    # Play showed every step, the meeting one among them, and the line never changed meanwhile
    assert [e["at"] for e in s["seen"]] == list(range(1, 9))
    assert [e["met"] for e in s["seen"]] == ["0"] * 8
    assert s["changes"] == []
    assert s["met"] == "0" and s["line"] == goal
    # stepped back by hand onto the moment, the line ticks; one more step back, it no longer does
    slider = player.locator('.emqsim-control[data-name="step"] input.emqsim-slider')
    slider.focus()
    for _ in range(3):
        slider.press("ArrowLeft")
    s = state(player)
    assert s["at"] == 5 and s["met"] == "1" and s["line"].startswith("\u2713 Challenge met: ")
    slider.press("ArrowLeft")
    assert state(player)["at"] == 4 and state(player)["met"] == "0" and state(player)["line"] == goal
    assert page.errors == [] and page.outside == []


def test_pausing_play_on_the_moment_ticks_the_goal(static_site, book_page):
    page = book_page
    player = strip_on(page, static_site, STEM, DESKTOP)
    player.evaluate(WATCH, 5)
    player.locator("button.emqsim-play").click()
    page.wait_for_function("root => !root.hasAttribute('data-playing') && root.emqsimSeen.length >= 5",
                           arg=player.element_handle(), timeout=PLAY_MS, polling=50)
    s = state(player)
    # at step 5 while Play ran the line was still the goal; paused there, it ticks, once
    assert s["seen"] == [{"at": k, "playing": True, "met": "0"} for k in range(1, 6)]
    assert s["at"] == 5 and not s["playing"]
    assert s["met"] == "1" and s["line"].startswith("\u2713 Challenge met: ")
    assert [c["playing"] for c in s["changes"]][-1] is False and all(not c["playing"] for c in s["changes"])
    # a step forward by hand moves off the moment: the goal again
    slider = player.locator('.emqsim-control[data-name="step"] input.emqsim-slider')
    slider.focus()
    slider.press("ArrowRight")
    assert state(player)["at"] == 6 and state(player)["met"] == "0"
    assert page.errors == [] and page.outside == []

