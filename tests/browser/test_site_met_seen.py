"""The challenge's met line never stale while Play runs, and meeting a challenge moves nothing the
reader holds, on the built site (issue 30).

A "met" line left up while Play ran read met at frames that are not (h71r): Play started, the line
says the plain goal again; it is judged where Play stops. Brought into view when met, the line took
the slider in use under 01's sticky picture on a phone and 04's picture out of the window (h72r):
the page does not scroll to it. Docked, a held control's row (disabled, never in use) takes no
room in the docked bar."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PHONE, book_page  # noqa: E402,F401
from test_site_phone_reading import _figure  # noqa: E402
from test_site_student import open_page  # noqa: E402

PLAY_MS = 30_000

# where the line stands against what covers the window's edges: the sticky header, a sticky
# stage, the docked controls; and what the reader touches at its middle
_LINE_JS = """root => {
  const line = root.querySelector('p.emqsim-challenge'), r = line.getBoundingClientRect();
  const head = Math.max(0, ...[...document.querySelectorAll('.bd-header, .bd-header-article')]
    .filter(h => ['sticky', 'fixed'].includes(getComputedStyle(h).position)).map(h => h.getBoundingClientRect().bottom));
  const stage = root.querySelector('.emqsim-stage');
  const top = getComputedStyle(stage).position === 'sticky' ? Math.max(head, stage.getBoundingClientRect().bottom) : head;
  const c = root.querySelector('.emqsim-controls').getBoundingClientRect();
  const underDock = c.top < r.bottom - 0.5 && c.bottom > r.top + 0.5;
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  const p = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  return {picture: p.top >= head - 0.5 && p.bottom <= Math.min(innerHeight, underDock ? innerHeight : c.top) + 0.5,
          met: line.getAttribute('data-met'), text: line.textContent, top: Math.round(r.top),
          bottom: Math.round(r.bottom), clear: Math.round(top), vh: innerHeight, underDock,
          docked: root.classList.contains('emqsim-docked'), scrollY: Math.round(scrollY),
          whole: r.top >= top - 0.5 && r.bottom <= innerHeight + 0.5 && !underDock
                 && at !== null && (at === line || line.contains(at))};
}"""


def _data(player) -> dict:
    return json.loads(player.locator("script.emqsim-data").text_content())


def _slider(player, name: str):
    return player.locator(f'.emqsim-control[data-name="{name}"] input.emqsim-slider')


def _line(player) -> dict:
    return player.evaluate(_LINE_JS)


def _set(page, slider, at: int) -> None:
    """A move by hand to slider position `at` (as a drag ends there)."""
    slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", at)
    page.wait_for_timeout(150)


_WATCH_PLAY = """(root, pauseAt) => {
  const line = root.querySelector('p.emqsim-challenge');
  const slider = root.querySelector('input.emqsim-slider:not([disabled])');
  const seen = [];
  root.emqsimSeen = seen;
  new MutationObserver(records => {
    if (!records.some(r => r.attributeName === 'data-frame')) return;
    const at = Number(slider.value), playing = root.hasAttribute('data-playing');
    seen.push({at: at, playing: playing, met: line.getAttribute('data-met'), goal: line.innerHTML});
    if (playing && at === pauseAt) root.querySelector('button.emqsim-play').click();
  }).observe(root, {attributes: true, attributeFilter: ['data-frame']});
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_play_started_from_a_met_frame_shows_the_goal_until_it_stops(static_site, book_page, size):
    """05's pile-up met at step 5, Play pressed: the line reads the goal at once and at every frame
    Play shows (not met at 6, 7, ...), and is judged again where Play is paused."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    open_page(page, static_site, "05_overlap", PHONE if size == "phone" else DESKTOP)
    player = _figure(page, "05 watch the runs pile up")
    goal = _data(player)["challenge"]["goal"]
    slider = _slider(player, "step")
    slider.scroll_into_view_if_needed()
    _set(page, slider, 5)
    assert _line(player)["met"] == "1"
    player.evaluate(_WATCH_PLAY, 8)
    player.locator("button.emqsim-play").click()
    now = player.evaluate("r => ({playing: r.hasAttribute('data-playing'), "
                          "met: r.querySelector('p.emqsim-challenge').getAttribute('data-met'), "
                          "line: r.querySelector('p.emqsim-challenge').innerHTML})")
    assert now == {"playing": True, "met": "0", "line": goal}
    page.wait_for_function("root => !root.hasAttribute('data-playing') && root.emqsimSeen.length >= 3",
                           arg=player.element_handle(), timeout=PLAY_MS, polling=50)
    seen = player.evaluate("r => r.emqsimSeen")
    assert [(s["at"], s["playing"], s["met"]) for s in seen] == [(k, True, "0") for k in (6, 7, 8)]
    assert all(s["goal"] == goal for s in seen)
    assert _line(player)["met"] == "0" and player.locator("p.emqsim-challenge").inner_html() == goal
    # pressed again from step 8 on to the end and back by hand onto 5: met, seen
    _set(page, slider, 4)
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(300)
    assert _line(player)["met"] == "1"
    assert page.errors == [] and page.outside == []


def test_a_held_row_is_not_in_the_docked_bar(static_site, book_page):
    """04 on a phone: its two held controls (disabled, at their defaults) never in use; docked,
    their rows take no room, whether or not the readout crowds the bar."""
    page = book_page
    open_page(page, static_site, "04_missed_slots", PHONE)
    player = _figure(page, "04 missed slots")
    slider = _slider(player, "up")
    slider.scroll_into_view_if_needed()
    slider.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(500)
    assert player.evaluate("r => r.classList.contains('emqsim-docked')")
    # as it stands, and with the bar not crowded (a readout with room for its text)
    for crowded in (True, False):
        if not crowded:
            player.evaluate("r => r.removeAttribute('data-crowded')")
        rows = player.evaluate("""r => [...r.querySelectorAll('.emqsim-control')].map(c =>
            [c.dataset.name, c.dataset.held || '', getComputedStyle(c).display === 'none'])""")
        assert rows == [["down", "1", True], ["up", "", False], ["deadline", "1", True]], (crowded, rows)
    assert page.errors == [] and page.outside == []


def test_a_line_already_in_view_is_met_with_no_scroll(static_site, book_page):
    """A guard, not a fix: on a desktop 05's pile-up shows its picture and its line together;
    the step that meets the challenge, and a step off it and back, scroll nothing."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    open_page(page, static_site, "05_overlap", DESKTOP)
    player = _figure(page, "05 watch the runs pile up")
    slider = _slider(player, "step")
    slider.scroll_into_view_if_needed()
    _set(page, slider, 4)
    page.wait_for_timeout(300)
    start = _line(player)
    assert start["met"] == "0" and start["whole"] and start["picture"], start
    slider.focus()
    for k, met in (("ArrowRight", "1"), ("ArrowLeft", "0"), ("ArrowRight", "1")):
        page.keyboard.press(k)
        page.wait_for_timeout(300)
        now = _line(player)
        assert now["met"] == met and now["whole"] and now["scrollY"] == start["scrollY"], (k, start, now)
    assert page.errors == [] and page.outside == []


def test_meeting_the_challenge_leaves_the_slider_in_use_in_view_on_a_phone(static_site, book_page):
    """h72r: on 01 on a phone, the interval rule picked, "now" dragged onto 08:44 met the challenge,
    and the page scrolled its met line into view: the slider stood at 301-329 px under the sticky
    picture (56-375 px). A drag's end (a press, then input) onto the met position scrolls nothing:
    the slider stays clear of the stage, the picture whole in view."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    open_page(page, static_site, "01_cron_vs_interval", PHONE)
    player = _figure(page, "01 cron vs interval")
    mode = player.locator('.emqsim-control[data-name="mode"]')
    if mode.locator("select").count():
        mode.locator("select").select_option("1")
    else:
        mode.get_by_text("interval").first.click()
    page.wait_for_timeout(300)
    slider = _slider(player, "now")
    slider.scroll_into_view_if_needed()
    _set(page, slider, 43)
    page.wait_for_timeout(500)
    assert _line(player)["met"] == "0"
    slider.dispatch_event("pointerdown")
    _set(page, slider, 44)
    page.wait_for_timeout(900)
    at = slider.evaluate("""e => { const r = e.getBoundingClientRect();
      const stage = e.closest('.emqsim-player').querySelector('.emqsim-stage').getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return {top: r.top, stage: stage.bottom, free: hit === e, vh: innerHeight}; }""")
    line = _line(player)
    assert line["met"] == "1", line
    assert at["free"] and at["top"] >= at["stage"] - 0.5 and at["top"] < at["vh"], at
    assert line["picture"], line
    assert page.errors == [] and page.outside == []
