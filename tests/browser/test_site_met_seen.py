"""The challenge's met line never stale while Play runs, and meeting a challenge moves nothing the
reader holds, on the built site (issue 30).

A "met" line left up while Play ran read met at frames that are not (h71r): Play started, the line
says the plain goal again; it is judged where Play stops. Brought into view when met, the line took
the slider in use under 01's sticky picture on a phone and 04's picture out of the window (h72r):
the page does not scroll to it; the controls' last line says "✓ Challenge met" while the line is
out of sight, docked or not (h73r). Docked, a held control's row (disabled, never in use) takes no
room in the docked bar, and a design picked from the list docks with the step row (h73r)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PHONE, book_page  # noqa: E402,F401
from test_site_phone_reading import _figure  # noqa: E402
from test_site_student import MIN_CONTRAST, contrast_of, open_page  # noqa: E402

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
        assert player.evaluate(_MARK_JS)["text"] == ""     # the line in view says it: no mark
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


# the docked bar's met mark: its text, whether it shows whole in the window and uncovered, and
# where the control row in use stands
_MARK_JS = """root => {
  const m = root.querySelector('p.emqsim-met-mark');
  if (!m) return null;
  const r = m.getBoundingClientRect(), row = root.querySelector('.emqsim-control[data-using]');
  const at = document.elementFromPoint(r.right - 4, r.top + r.height / 2);
  return {text: m.textContent, shown: getComputedStyle(m).display !== 'none',
          whole: r.top >= 0 && r.bottom <= innerHeight + 0.5 && r.height > 0,
          uncovered: at !== null && (at === m || m.contains(at)), height: Math.round(r.height),
          row: row ? Math.round(row.getBoundingClientRect().top) : null,
          line: Math.round(root.querySelector('p.emqsim-challenge').getBoundingClientRect().bottom)};
}"""

def _step_to_met(page, player, name: str, wait_ms: int) -> tuple[list, str]:
    """The slider `name` stepped by the keyboard's right arrow until the frame shown meets the
    challenge: each step's (met, the mark as _MARK_JS reads it), and the challenge's bits."""
    bits = _data(player)["challenge"]["bits"]
    slider = _slider(player, name)
    slider.scroll_into_view_if_needed()
    slider.focus()
    seen = []
    for _ in range(int(slider.get_attribute("max") or 0)):
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(wait_ms)
        seen.append((bits[int(player.get_attribute("data-frame"))] == "1", player.evaluate(_MARK_JS)))
        if seen[-1][0]:
            break
    return seen, bits


DOCKED_CHALLENGES = [("04_missed_slots", "04 missed slots", "up"),
                     ("05_overlap", "05 watch the runs pile up", "step")]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("stem, title, name", DOCKED_CHALLENGES)
def test_a_docked_bar_says_when_the_challenge_is_met(static_site, book_page, stem, title, name, theme):
    """h71r, h72r: on a phone a docked figure's met line is under the docked bar, below the window,
    when the step that meets it is taken; scrolled to, it took the control in use out of sight. The
    bar's last line reads "✓ Challenge met" at a met frame, in the window and legible, blank at
    others and while Play runs, and the row in use never moves as it changes."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    open_page(page, static_site, stem, PHONE, theme)
    player = _figure(page, title)
    seen, _ = _step_to_met(page, player, name, 120)
    assert player.evaluate("r => r.classList.contains('emqsim-docked')")
    assert seen and seen[-1][0], f"{stem}: no met frame reached by the arrow key"
    before = [m for met, m in seen if not met]
    met_mark = seen[-1][1]
    assert before and all(m["shown"] and m["text"] == "" for m in before), before[:2]
    assert met_mark["text"] == "\u2713 Challenge met" and met_mark["whole"] and met_mark["uncovered"], met_mark
    assert met_mark["line"] > page.viewport_size["height"], met_mark    # the line itself not whole in sight
    assert {m["row"] for m in before} == {met_mark["row"]}, (before, met_mark)
    assert {m["height"] for m in before} == {met_mark["height"]}, (before, met_mark)
    assert contrast_of(player.locator("p.emqsim-met-mark")) >= MIN_CONTRAST
    player.locator("button.emqsim-play").first.click()
    page.wait_for_timeout(50)
    assert player.evaluate(_MARK_JS)["text"] == ""
    if player.get_attribute("data-playing") is not None:
        player.locator("button.emqsim-play").first.click()
    assert page.errors == [] and page.outside == []


def test_on_a_desktop_the_controls_say_met_when_the_line_is_below_the_window(static_site, book_page):
    """h73r: at 1366x900, 04's met line stood at 889-1006 px when the keyboard's step met it, its
    text out of the window. A line under the controls' rows reads "✓ Challenge met" there, in the
    window; blank and taking no room before, and a step off it."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    open_page(page, static_site, "04_missed_slots", DESKTOP)
    player = _figure(page, "04 missed slots")
    marks, bits = _step_to_met(page, player, "up", 200)
    met, mark = marks[-1]
    assert met and mark["line"] > page.viewport_size["height"], mark    # the line not whole in the window
    assert mark["text"] == "\u2713 Challenge met" and mark["whole"] and mark["uncovered"], mark
    # blank, it takes no room: the rows and the line under them stand as before
    assert all(m["text"] == "" and m["height"] == 0 for was_met, m in marks if not was_met)
    assert contrast_of(player.locator("p.emqsim-met-mark")) >= MIN_CONTRAST
    page.keyboard.press("ArrowRight")
    page.wait_for_timeout(200)
    if bits[int(player.get_attribute("data-frame"))] == "0":
        assert player.evaluate(_MARK_JS)["text"] == ""
    assert page.errors == [] and page.outside == []


STEP_FIGURES = [("02_one_row_rewritten", "02 the keys, step by step"),
                ("03_start_to_start", "03 the marker, step by step")]

# each control row: its name, shown, whole in the window, and what is at its left is its own
_ROWS_JS = """r => [...r.querySelectorAll('.emqsim-control')].map(c => {
    const b = c.getBoundingClientRect(), hit = document.elementFromPoint(b.left + 20, b.top + b.height / 2);
    return [c.dataset.name, getComputedStyle(c).display !== 'none', b.top >= 0 && b.bottom <= innerHeight + 0.5,
            hit !== null && c.contains(hit), Math.round(b.height)]; })"""


@pytest.mark.parametrize("stem, title", STEP_FIGURES)
def test_a_design_picked_on_a_phone_docks_with_its_step_row(static_site, book_page, stem, title):
    """h73r: on a phone, picking the other design in 02's and 03's step-by-step figures docked them
    with the drop-down alone in the crowded bar, the step slider and Play 150 px below the window,
    though the challenge asks for a step. Picked from the list or by the keyboard's arrows, the bar
    holds the drop-down and the step row, each on one line, in the window and uncovered, and the
    drop-down keeps the keyboard's focus; the readout keeps whole lines."""
    page = book_page
    for how in ("list", "keys"):
        open_page(page, static_site, stem, PHONE)
        player = _figure(page, title)
        select = player.locator("select.emqsim-choice").first
        select.scroll_into_view_if_needed()
        if how == "list":
            select.select_option(index=1)
        else:
            select.focus()
            page.keyboard.press("ArrowDown")
        page.wait_for_timeout(900)
        assert player.evaluate("r => r.classList.contains('emqsim-docked')"), how
        rows = player.evaluate(_ROWS_JS)
        assert [(name, whole, free) for name, shown, whole, free, _ in rows if shown] == [
            ("design", True, True), ("step", True, True)], (how, rows)
        assert all(height < 50 for _, shown, _, _, height in rows if shown), (how, rows)   # one line each
        if how == "keys":
            assert player.evaluate("r => document.activeElement === r.querySelector('select.emqsim-choice')")
        box = player.evaluate("""r => { const e = r.querySelector('pre.emqsim-readout'), s = getComputedStyle(e);
            return [e.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom), parseFloat(s.lineHeight)]; }""")
        assert box[0] >= box[1] and abs(box[0] / box[1] - round(box[0] / box[1])) < 0.05, (how, box)
    assert page.errors == [] and page.outside == []


def test_a_docked_mark_follows_its_line_in_and_out_of_view(static_site, book_page):
    """h74r: on a phone, 02's first figure docked with its player's end in the window: the met line
    stood whole under the bar (562-732 px) and the bar's mark said it again right above it. The
    mark is blank while the line is in view, and says it once the page moves the line out."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    open_page(page, static_site, "02_one_row_rewritten", PHONE)
    player = _figure(page, "02 one row rewritten")
    seen, _ = _step_to_met(page, player, "fires", 60)
    page.wait_for_timeout(300)
    assert seen[-1][0] and player.evaluate("r => r.classList.contains('emqsim-docked')")
    line = _line(player)
    assert line["whole"], line      # the case h74r saw: the line in view, under the docked bar
    assert player.evaluate(_MARK_JS)["text"] == ""
    page.evaluate("window.scrollBy(0, -300)")      # the page moved: the line under the bar
    page.wait_for_timeout(300)
    assert not _line(player)["whole"] and player.evaluate(_MARK_JS)["text"] == "\u2713 Challenge met"
    assert page.errors == [] and page.outside == []
