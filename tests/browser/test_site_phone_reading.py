"""The course book read on a 390x844 phone (issue 30, a reviewer's second pass): a figure too tall
to stick (05's overlapping run, 02's keys step by step) stays in view with the control in use while
it plays or steps, its readout read whole above the docked controls; no printed result nor code
cell, nor a code block of the text, must be scrolled sideways to be read; and no printout nor
code block on a 1366x900 desktop either (a third pass: 07's table lost its columns off the box's
edge; a fourth: a code block of the text still scrolled there)."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PHONE, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import _SETTLED_JS, THEMES, open_page  # noqa: E402

#: the share of the picture that must be inside the window, above the docked controls
IN_VIEW = 0.9
#: the pages whose printouts the reviewer had to scroll sideways, and every lesson for code cells
PRINTOUT_PAGES = ("03_start_to_start", "04_missed_slots", "06_faults", "07_cron_time_zones")
#: the pages whose printouts the reviewer had to scroll sideways on a desktop
DESKTOP_PRINTOUT_PAGES = ("01_cron_vs_interval", "02_one_row_rewritten", "03_start_to_start", "04_missed_slots",
                          "05_overlap", "06_faults", "07_cron_time_zones")
LESSONS = ("00_start_here", "01_cron_vs_interval", "02_one_row_rewritten", "03_start_to_start",
           "04_missed_slots", "05_overlap", "06_faults", "07_cron_time_zones")

# the share of the picture seen: inside the window, under the sticky header, above the player's
# controls where they stand over it
_SEEN_JS = """root => {
  const r = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  const head = Math.max(0, ...[...document.querySelectorAll('.bd-header, .bd-header-article')]
    .filter(h => ['sticky', 'fixed'].includes(getComputedStyle(h).position)).map(h => h.getBoundingClientRect().bottom));
  const c = root.querySelector('.emqsim-controls').getBoundingClientRect();
  const bottom = Math.min(innerHeight, c.top < r.bottom && c.bottom > r.top ? c.top : innerHeight);
  return Math.max(0, Math.min(r.bottom, bottom) - Math.max(r.top, head)) / r.height;
}"""

# whether the element is inside the window and is what the reader touches at its centre
_TOUCHABLE_JS = """e => { const r = e.getBoundingClientRect();
  if (r.top < 0 || r.bottom > innerHeight) return false;
  const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return at !== null && (at === e || e.contains(at)); }"""


def _figure(page, title: str):
    players = page.locator(".emqsim-player")
    for n in range(players.count()):
        if players.nth(n).get_attribute("data-figure") == title:
            return ready(page, n)
    raise AssertionError(f"no figure {title!r} on the page")


#: the tall figures a phone docks, and how a reader sets them going
TALL_PRESSES = [
    ("05_overlap", "05 an overlapping run", "play"),
    ("02_one_row_rewritten", "02 the keys, step by step", "step"),
    ("02_one_row_rewritten", "02 the keys, step by step", "play"),
    ("03_start_to_start", "03 the marker, step by step", "step"),
]


def _pressed_from_the_middle(page, static_site, stem: str, title: str, how: str, theme: str):
    """Open `stem` on a phone, bring the tall figure `title`'s Play (`how` "play") or slider
    ("step") to the middle of the window, as the reviewer had it (the picture's top above the
    window), and press it: (the player, the control pressed)."""
    open_page(page, static_site, stem, PHONE, theme)
    player = _figure(page, title)
    assert player.evaluate("r => r.classList.contains('emqsim-tall')"), "the figure sticks: nothing to test"
    control = player.locator("button.emqsim-play" if how == "play" else "input.emqsim-slider:not([disabled])").first
    control.evaluate("e => { const r = e.getBoundingClientRect(); scrollBy(0, r.top - innerHeight / 2); }")
    page.wait_for_timeout(100)
    if how == "play":
        control.click()
    else:
        control.focus()
        page.keyboard.press("ArrowRight")
    return player, control


# how far (CSS px) the picture's bottom reaches under the docked controls and their readout: the
# readout docked 4 lines tall over the last 45 px of 02's keys and 05's line-style key
_PICTURE_UNDER_DOCK_JS = """root => {
  const r = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  const c = root.querySelector('.emqsim-controls').getBoundingClientRect();
  return {docked: root.classList.contains('emqsim-docked'), under: r.bottom - c.top,
          picture: [Math.round(r.top), Math.round(r.bottom)], dock: Math.round(c.top)};
}"""


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem, title, how", TALL_PRESSES)
def test_a_tall_figure_stays_in_view_while_it_plays_or_steps(static_site, book_page, stem, title, how, theme):
    """Too tall to stick, the figure scrolled with the page: Play pressed below it changed the
    lanes out of sight. The reader comes to the control from the page above (the figure's top
    partly gone), presses it, and sees the picture and the control together."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, how, theme)
    for when in (1200, 1500):       # after the scroll, and after more frames have played
        page.wait_for_timeout(when)
        seen = player.evaluate(_SEEN_JS)
        assert seen >= IN_VIEW, (stem, how, theme, round(seen, 2))
        assert control.evaluate(_TOUCHABLE_JS), (stem, how, theme, control.bounding_box())
        under = player.evaluate(_PICTURE_UNDER_DOCK_JS)
        assert under["docked"] and under["under"] <= 0.5, (stem, how, theme, when, under)
    if how == "play" and player.get_attribute("data-playing"):
        control.click()     # pause: it stays where it is, in reach
        assert control.evaluate(_TOUCHABLE_JS)
    assert page.errors == [] and page.outside == []


# the readout's box: inside the window, under the sticky header, its text whole (nothing scrolled
# out of it), and what the reader sees at its corners and middle is the readout, not the controls
_READOUT_SEEN_JS = """root => {
  const e = root.querySelector('pre.emqsim-readout'), r = e.getBoundingClientRect();
  const head = Math.max(0, ...[...document.querySelectorAll('.bd-header, .bd-header-article')]
    .filter(h => ['sticky', 'fixed'].includes(getComputedStyle(h).position)).map(h => h.getBoundingClientRect().bottom));
  const xs = [r.left + 4, r.left + r.width / 2, r.right - 4], ys = [r.top + 4, r.top + r.height / 2, r.bottom - 4];
  const covered = xs.flatMap(x => ys.map(y => document.elementFromPoint(x, y)))
    .filter(at => at === null || !(at === e || e.contains(at))).length;
  return {inside: r.top >= head - 1 && r.bottom <= innerHeight + 1, whole: e.scrollHeight <= e.clientHeight + 1,
          covered, box: [Math.round(r.top), Math.round(r.bottom), head, innerHeight]};
}"""


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem, title, how", [
    ("05_overlap", "05 an overlapping run", "play"),
    ("02_one_row_rewritten", "02 the keys, step by step", "step"),
])
def test_the_readout_is_read_whole_while_a_tall_figure_plays(static_site, book_page, stem, title, how, theme):
    """The docked controls stood over the readout under the picture: 05's stopped at "nothing
    completes: each run is", its forbid line gone; 02's at "call: EXISTS ... ->", its reply gone.
    Played (05) or stepped (02), the readout is in the window, nothing over it; where the room
    under the whole picture is short of its text, it shows 1 whole line at least and the rest
    scrolls inside it, a keyboard reader able to focus it (the picture is never covered)."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, how, theme)
    page.wait_for_timeout(1200)
    if how == "play":
        control.click()     # paused, so the frame read is the one measured
        page.wait_for_timeout(100)
    seen = player.evaluate(_READOUT_SEEN_JS)
    assert seen["inside"] and seen["covered"] == 0, (stem, theme, seen)
    if not seen["whole"]:
        got = player.evaluate(_READOUT_LINES_JS)
        assert got["docked"] and got["lines"] > 0.95, (stem, theme, seen, got)
        assert player.locator("pre.emqsim-readout").get_attribute("tabindex") == "0", (stem, theme)
    text = player.locator("pre.emqsim-readout").inner_text()
    assert text.strip() and player.locator("pre.emqsim-readout").evaluate("e => e.scrollTop") == 0, text
    assert page.errors == [] and page.outside == []


#: the figures a phone docks whose readouts were cut while docked, and their sliders
DOCKED_WHOLE = [("04_missed_slots", "04 missed slots"), ("05_overlap", "05 an overlapping run")]


@pytest.mark.parametrize("stem, title", DOCKED_WHOLE)
def test_a_docked_readout_is_read_whole_at_every_frame(static_site, book_page, stem, title):
    """Docked under 04's and 05's pictures, the readout showed 17 of 04's 18 lines and 10 of 05's
    12 to 14, the forbid line out of the box unless the reader scrolled it (issue 30, h61r). With
    the rows not in use hidden, the row in use on one line: Play pressed, then the slider walked
    through every position, the docked readout holds its whole text, in the window, uncovered."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, "play", "light")
    page.wait_for_timeout(300)
    if player.get_attribute("data-playing"):
        control.click()     # paused: the walk below sets each frame
    slider = player.locator("input.emqsim-slider:not([disabled])").first
    cut = []
    for at in range(int(slider.get_attribute("max") or 0) + 1):
        slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", at)
        page.wait_for_timeout(30)
        seen = player.evaluate(_READOUT_SEEN_JS)
        if not (seen["whole"] and seen["inside"] and seen["covered"] == 0):
            cut.append((at, player.get_attribute("data-frame"), seen))
    assert player.evaluate("r => r.classList.contains('emqsim-docked')")
    assert cut == [], (stem, len(cut), cut[:3])
    assert page.errors == [] and page.outside == []


def _wider_than_box(page, selector: str) -> list:
    return page.evaluate("""sel => [...document.querySelectorAll(sel)]
        .filter(e => !e.closest('.emqsim-player') && e.scrollWidth > e.clientWidth + 1)
        .map(e => [e.scrollWidth, e.clientWidth, e.textContent.split('\\n')[0].slice(0, 40)])""", selector)


@pytest.mark.parametrize("stem", PRINTOUT_PAGES)
def test_no_printout_is_scrolled_sideways_on_a_phone(static_site, book_page, stem):
    """Printed results run 60-220 characters a line: on a phone they wrap inside their box, in
    type of at least 11 CSS px."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    pres = "article div.cell_output div.output pre"
    assert page.locator(pres).count() > 1     # the figure's readout, and the printouts
    assert _wider_than_box(page, pres) == [], stem
    smallest = page.evaluate("""sel => Math.min(...[...document.querySelectorAll(sel)]
        .filter(e => !e.closest('.emqsim-player')).map(e => parseFloat(getComputedStyle(e).fontSize)))""", pres)
    assert smallest >= 11, smallest


@pytest.mark.parametrize("stem", LESSONS)
def test_no_code_line_is_cut_on_a_phone(static_site, book_page, stem):
    """A code cell's long line (the first cell's comment "the figure below stays where you put
    it") was cut at the box's edge: on a phone it wraps."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    assert _wider_than_box(page, "article div.cell_input pre") == [], stem


@pytest.mark.parametrize("stem", DESKTOP_PRINTOUT_PAGES)
def test_no_printout_is_scrolled_sideways_on_a_desktop(static_site, book_page, stem):
    """At 1366x900 the printouts' box is 757 px and their lines up to 1920: 07's "Where the
    counts differ" lost its last columns. They wrap there too, in the theme's own type size."""
    page = book_page
    open_page(page, static_site, stem, DESKTOP)
    pres = "article div.cell_output div.output pre"
    assert page.locator(pres).count() > 1
    assert _wider_than_box(page, pres) == [], stem
    sizes = page.evaluate("""sel => [...new Set([...document.querySelectorAll(sel)]
        .filter(e => !e.closest('.emqsim-player')).map(e => getComputedStyle(e).fontSize))]""", pres)
    assert len(sizes) == 1 and float(sizes[0].rstrip("px")) >= 12, sizes


def test_no_code_block_of_the_text_is_cut_on_a_phone(static_site, book_page):
    """00's shell command (`emqsim trace --every 15m ...`, 513 px in a 356 px box) and the code
    in its folds scrolled sideways: with the folds open, every code block wraps on a phone."""
    page = book_page
    open_page(page, static_site, "00_start_here", PHONE)
    folds = page.locator("article details")
    assert folds.count() >= 2
    page.evaluate("() => document.querySelectorAll('article details').forEach(d => { d.open = true; })")
    blocks = "article div.highlight pre"
    text_blocks = page.evaluate("""sel => [...document.querySelectorAll(sel)]
        .filter(e => !e.closest('div.cell_input')).map(e => e.textContent.slice(0, 30))""", blocks)
    assert any(t.startswith("emqsim trace") for t in text_blocks), text_blocks
    assert _wider_than_box(page, blocks) == []


@pytest.mark.parametrize("stem", LESSONS)
def test_no_pre_scrolls_sideways_on_a_desktop(static_site, book_page, stem):
    """A code block of the text (issue 30: 00's `emqsim trace` command, the code in its folds)
    wrapped on a phone but still scrolled sideways at 1366x900: every <pre> of the article, the
    readouts and the folds' code with them, now wraps at every width, as the printouts do."""
    page = book_page
    open_page(page, static_site, stem, DESKTOP)
    page.evaluate("() => document.querySelectorAll('article details').forEach(d => { d.open = true; })")
    assert page.locator("article pre").count() > 0
    wide = page.evaluate("""() => [...document.querySelectorAll('article pre')]
        .filter(e => e.scrollWidth > e.clientWidth + 1)
        .map(e => [e.scrollWidth, e.clientWidth, e.textContent.split('\\n')[0].slice(0, 40)])""")
    assert wide == [], stem
    # and none could: every one wraps (00's text code blocks fit today's lines, and wrap as well)
    assert page.evaluate("""() => [...new Set([...document.querySelectorAll('article pre')]
        .map(e => getComputedStyle(e).whiteSpace))]""") == ["pre-wrap"], stem


# the docked readout's text area, in lines of its text: a whole number when no line is cut; what
# shows, from the text's first line down to the box's inner edge (a scrolled box shows its text in
# its bottom padding too), in lines; and the lines its text takes (distinct line tops)
_READOUT_LINES_JS = """root => { const e = root.querySelector('pre.emqsim-readout'), s = getComputedStyle(e);
  const inner = e.clientHeight - parseFloat(s.paddingTop) - parseFloat(s.paddingBottom);
  const r = document.createRange(); r.selectNodeContents(e);
  const tops = new Set([...r.getClientRects()].filter(x => x.height > 0).map(x => Math.round(x.top)));
  return {docked: root.classList.contains('emqsim-docked'), lines: inner / parseFloat(s.lineHeight),
          shown: (e.clientHeight - parseFloat(s.paddingTop)) / parseFloat(s.lineHeight), text: tops.size,
          scrolls: e.scrollHeight > e.clientHeight + 1}; }"""
#: the lines a docked readout shows at least: the picture is never drawn narrower for more (its
#: text then under the 10 px floor), the rest of the readout scrolls
DOCKED_LINES = 1


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem, title, how", TALL_PRESSES)
def test_the_docked_readout_shows_whole_lines(static_site, book_page, stem, title, how, theme):
    """While 02's keys played, the docked readout's last line was cut in half: where the window
    leaves it less than its tallest text, its box holds a whole number of lines. Then (the last
    read, issue 30) the top of a third line showed, cut, in the box's bottom padding under 2
    lines, the call and the keys out of sight: what shows is whole lines, 1 at least, the rest
    scrolling inside the box (the picture is not drawn narrower for more)."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, how, theme)
    for when in (600, 900):
        page.wait_for_timeout(when)
        got = player.evaluate(_READOUT_LINES_JS)
        assert got["docked"], (stem, how, theme)
        assert abs(got["lines"] - round(got["lines"])) < 0.05, (stem, how, theme, got)
        assert abs(got["shown"] - round(got["shown"])) < 0.05, (stem, how, theme, got)
        assert round(got["shown"]) >= min(DOCKED_LINES, got["text"]), (stem, how, theme, got)
    if how == "play" and player.get_attribute("data-playing"):
        control.click()
    assert page.errors == [] and page.outside == []


# the docked readout: whether its text is whole in its box (nothing to scroll to), the box's height,
# whether it scrolls, and the room left between the picture's bottom and the docked rows' top
_DOCKED_WHOLE_JS = """root => { const e = root.querySelector('pre.emqsim-readout');
  const r = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  const c = root.querySelector('.emqsim-controls').getBoundingClientRect();
  return {docked: root.classList.contains('emqsim-docked'), whole: e.scrollHeight <= e.clientHeight + 1,
          text: e.scrollHeight, box: e.clientHeight, frame: root.dataset.frame, overflow: getComputedStyle(e).overflowY,
          room: Math.round(e.getBoundingClientRect().height + parseFloat(getComputedStyle(e).marginBottom)),
          left: c.top - r.bottom, line: parseFloat(getComputedStyle(e).lineHeight)}; }"""


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem, title, how", [
    ("05_overlap", "05 an overlapping run", "play"),
    ("05_overlap", "05 watch the runs pile up", "play"),
    ("02_one_row_rewritten", "02 the keys, step by step", "step"),
])
def test_the_docked_readout_is_whole_at_every_frame(static_site, book_page, stem, title, how, theme):
    """Docked at 390x844, 05's run showed 139 px of its 194 px of readout and scrolled inside its
    box, 02's keys 3 lines of up to 10 (the last read): the docked box is as tall as the tallest
    text where that fits under the whole picture, so at every frame its slider reaches the whole
    readout shows, its box and the blank under it of one height (the rows under it never move;
    the box fits its text, test_site_readout_gap), the picture still clear
    of it (test_a_tall_figure_stays_in_view_while_it_plays_or_steps). Where it does not fit (the
    picture is never drawn narrower: its text then fell under the 10 px floor), the box takes
    every whole line left under the picture, no line cut, and the rest scrolls inside it, a
    keyboard reader able to focus it."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, how, theme)
    page.wait_for_timeout(1200)
    if how == "play" and player.get_attribute("data-playing"):
        control.click()
    slider = player.locator("input.emqsim-slider").first
    heights = set()
    for v in range(int(slider.get_attribute("max")) + 1):
        slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", v)
        got = player.evaluate(_DOCKED_WHOLE_JS)
        assert got["docked"], (stem, title, theme, v)
        heights.add(got["room"])     # its box and the blank under a shorter text (player.js fitDocked)
        if not got["whole"]:
            # no room for one more whole line under the picture, the box scrolls, and a keyboard
            # reader can reach it
            assert got["left"] < got["line"] and got["overflow"] == "auto", (title, theme, v, got)
            assert player.locator("pre.emqsim-readout").get_attribute("tabindex") == "0", (title, theme)
            lines = player.evaluate(_READOUT_LINES_JS)
            assert abs(lines["shown"] - round(lines["shown"])) < 0.05 and lines["scrolls"], (title, theme, v, lines)
            assert round(lines["shown"]) >= 1, (title, theme, v, lines)
    assert len(heights) == 1, (title, theme, sorted(heights))
    under = player.evaluate(_PICTURE_UNDER_DOCK_JS)
    assert under["under"] <= 0.5, (title, theme, under)
    assert page.errors == [] and page.outside == []


# the picture's width as drawn (CSS px)
_PICTURE_WIDTH_JS = "root => root.querySelector('img.emqsim-frame').getBoundingClientRect().width"


@pytest.mark.parametrize("stem, title, how", [
    ("05_overlap", "05 an overlapping run", "play"),
    ("02_one_row_rewritten", "02 the keys, step by step", "step"),
])
def test_a_docked_picture_is_never_narrower_than_at_rest(static_site, book_page, stem, title, how):
    """Docked, the picture was drawn down to 0.8 of its width so the readout fitted under it: its
    smallest text then painted 8 CSS px, under the course's 10 (issue 30). At every frame the
    docked picture keeps the width it has at rest; the readout scrolls instead."""
    page = book_page
    open_page(page, static_site, stem, PHONE)
    rest = _figure(page, title).evaluate(_PICTURE_WIDTH_JS)
    player, control = _pressed_from_the_middle(page, static_site, stem, title, how, "light")
    page.wait_for_timeout(1200)
    if how == "play" and player.get_attribute("data-playing"):
        control.click()
    slider = player.locator("input.emqsim-slider").first
    narrower = []
    for v in range(int(slider.get_attribute("max")) + 1):
        slider.evaluate("(e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }", v)
        assert player.evaluate("r => r.classList.contains('emqsim-docked')"), (title, v)
        width = player.evaluate(_PICTURE_WIDTH_JS)
        if width < rest - 0.5:
            narrower.append((v, round(width, 1)))
    assert (round(rest, 1), narrower[:3]) == (round(rest, 1), []), title
    assert page.errors == [] and page.outside == []


# whether any of the player's control rows stands over its picture (the docked bar over the lanes)
_ROWS_OVER_PICTURE_JS = """root => { const r = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  const c = root.querySelector('.emqsim-controls').getBoundingClientRect();
  return {docked: root.classList.contains('emqsim-docked'), over: Math.max(0, r.bottom - c.top),
          picture: [Math.round(r.top), Math.round(r.bottom)], rows: [Math.round(c.top), Math.round(c.bottom)]}; }"""


@pytest.mark.parametrize("scroll", ["wheel", "key"])
@pytest.mark.parametrize("stem, title", [
    ("02_one_row_rewritten", "02 one row rewritten"),
    ("02_one_row_rewritten", "02 the keys, step by step"),
    ("05_overlap", "05 an overlapping run"),
])
def test_the_dock_goes_when_the_reader_scrolls_after_play(static_site, book_page, stem, title, scroll):
    """The figure stayed docked until the whole player left the window: a reader who stopped Play
    and scrolled back up to reread the text saw the docked readout and control bar over the
    picture (02's first figure: the bar at 686-844 px over a picture at 510-838; on 02's keys and
    05 over the whole picture). Stopped, a scroll by the reader undocks it, and the picture moves
    by what the reader scrolled, no more (the page does not jump as it undocks)."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, "play", "light")
    page.wait_for_timeout(1200)
    if player.get_attribute("data-playing"):
        control.click()     # pause
    page.wait_for_timeout(300)
    assert player.evaluate("r => r.classList.contains('emqsim-docked')"), title
    before = player.evaluate("r => [r.querySelector('img.emqsim-frame').getBoundingClientRect().top, scrollY]")
    if scroll == "wheel":
        page.mouse.move(195, 300)
        page.mouse.wheel(0, -450)
    else:
        page.keyboard.press("PageUp")   # focus on the pause button: the page scrolls
    page.wait_for_timeout(800)
    got = player.evaluate(_ROWS_OVER_PICTURE_JS)
    after = player.evaluate("r => [r.querySelector('img.emqsim-frame').getBoundingClientRect().top, scrollY]")
    assert not got["docked"] and got["over"] == 0, (title, scroll, got)
    scrolled = before[1] - after[1]
    assert scrolled > 20, (title, scroll, before, after)
    assert abs((after[0] - before[0]) - scrolled) < 1, (title, scroll, before, after)
    assert page.errors == [] and page.outside == []


@pytest.mark.parametrize("size", ["phone", "desktop"])
@pytest.mark.parametrize("stem, title, name", [
    ("02_one_row_rewritten", "02 the keys, step by step", "design"),
    ("07_cron_time_zones", "07 cron across daylight saving", "zone"),
    ("07_cron_time_zones", "07 cron across daylight saving", "day"),
])
def test_a_drop_down_change_brings_the_picture_into_view(static_site, book_page, stem, title, name, size):
    """A slider's step and Play brought the picture into view; a drop-down's change did not: on a
    phone 02's design left the picture's top at -304 px, 07's zone at -96 px; on a desktop 07's
    stayed at -83 px. Changed from the middle of the window, a drop-down brings the picture into
    view as a slider's step does."""
    page = book_page
    open_page(page, static_site, stem, PHONE if size == "phone" else DESKTOP)
    player = _figure(page, title)
    select = player.locator(f"select.emqsim-choice[data-name={name}]")
    select.evaluate("e => { const r = e.getBoundingClientRect(); scrollBy(0, r.top - innerHeight / 2); }")
    page.wait_for_timeout(100)
    start = player.evaluate(_SEEN_JS)
    select.select_option(index=(select.evaluate("s => s.selectedIndex") + 1) % select.locator("option").count())
    page.wait_for_timeout(1200)
    seen = player.evaluate(_SEEN_JS)
    top = player.evaluate("r => Math.round(r.querySelector('img.emqsim-frame').getBoundingClientRect().top)")
    assert seen >= IN_VIEW, (title, name, size, round(start, 2), round(seen, 2), top)
    assert page.errors == [] and page.outside == []


# the docked player's control rows: which are drawn (display none leaves no box), and the slider in use
_ROWS_JS = """root => [...root.querySelectorAll('.emqsim-control')].map(e => [e.dataset.name, e.getClientRects().length > 0])"""
#: the lines a docked readout shows at least where its whole text has no room (issue 30)
DOCKED_READ_LINES = 3


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("stem, title", [
    ("02_one_row_rewritten", "02 the keys, step by step"),
    ("04_missed_slots", "04 missed slots"),
    ("05_overlap", "05 an overlapping run"),
])
def test_a_docked_readout_has_room_on_a_phone(static_site, book_page, stem, title, theme):
    """Docked at 390x844 under a picture that keeps its width, the readout got what the rows left:
    02's keys showed 2 lines, 05's run 139 of its 166 px, 04's as little. Docked, where the readout
    would be cut (these three's are) only the row in use stays, the others hidden (out of the
    focus order too, back when the figure undocks): the readout shows whole, or 3 whole lines at
    least, and the slider in use is seen and touchable."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, stem, title, "step", theme)
    page.wait_for_timeout(1200)
    got = player.evaluate(_READOUT_LINES_JS)
    whole = player.evaluate(_DOCKED_WHOLE_JS)
    assert got["docked"], (stem, theme)
    assert whole["whole"] or round(got["shown"]) >= DOCKED_READ_LINES, (stem, theme, got, whole)
    assert abs(got["shown"] - round(got["shown"])) < 0.05, (stem, theme, got)
    assert control.evaluate(_TOUCHABLE_JS), (stem, theme, control.bounding_box())
    assert player.evaluate(_PICTURE_UNDER_DOCK_JS)["under"] <= 0.5, (stem, theme)
    rows = player.evaluate(_ROWS_JS)
    in_use = control.evaluate("e => e.closest('.emqsim-control').dataset.name")
    assert [name for name, drawn in rows if drawn] == [in_use], (stem, theme, rows)
    page.mouse.move(195, 300)
    page.mouse.wheel(0, -450)       # the reader scrolls: undocked, every row is back
    page.wait_for_timeout(800)
    assert not player.evaluate("r => r.classList.contains('emqsim-docked')"), (stem, theme)
    assert all(drawn for _, drawn in player.evaluate(_ROWS_JS)), (stem, theme)
    assert page.errors == [] and page.outside == []


# each control of the docked player: drawn, in the window and what the reader touches at its centre
_CONTROLS_TOUCHABLE_JS = """root => [...root.querySelectorAll('.emqsim-control')].map(row => {
  const e = row.querySelector('input.emqsim-slider, select'), r = e.getBoundingClientRect();
  const at = r.height ? document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) : null;
  return [row.dataset.name, r.top >= 0 && r.bottom <= innerHeight && at !== null && (at === e || e.contains(at))]; })"""


def test_a_docked_figure_keeps_every_row_its_readout_leaves_room_for(static_site, book_page):
    """06's challenge needs all three controls (setup, crash, restart after): docked on a phone
    with only the row in use, the reader had to scroll (undock) before each next one. Its readout
    shows whole with all three rows docked, so after each control's step every row is drawn, in
    the window, uncovered and operable, and the figure stays docked."""
    page = book_page
    player, control = _pressed_from_the_middle(page, static_site, "06_faults", "06 crash between two writes",
                                               "step", "light")
    page.wait_for_timeout(1200)
    whole = player.evaluate(_DOCKED_WHOLE_JS)
    assert whole["docked"] and whole["whole"], whole
    for name in ("setup", "crash", "delay"):
        rows = player.evaluate(_CONTROLS_TOUCHABLE_JS)
        assert rows == [["setup", True], ["crash", True], ["delay", True]], (name, rows)
        frame = player.get_attribute("data-frame")
        use = player.locator(f".emqsim-control[data-name={name}]").locator("input.emqsim-slider, select")
        if use.evaluate("e => e.tagName") == "SELECT":
            use.select_option(index=(use.evaluate("s => s.selectedIndex") + 1) % use.locator("option").count())
        else:
            use.focus()
            page.keyboard.press("ArrowRight")
        page.wait_for_timeout(900)
        assert player.get_attribute("data-frame") != frame, name     # it moved the figure
        assert player.evaluate(_DOCKED_WHOLE_JS)["docked"], name
    assert player.evaluate(_CONTROLS_TOUCHABLE_JS) == [["setup", True], ["crash", True], ["delay", True]]
    assert page.errors == [] and page.outside == []


# after Show me: the picture in the window, and where each control row's centre is, what the
# reader touches there (the row's own, or nothing: the row below the window)
_AFTER_SHOW_ME_JS = """root => {
  const head = Math.max(0, ...[...document.querySelectorAll('.bd-header, .bd-header-article')]
    .filter(h => ['sticky', 'fixed'].includes(getComputedStyle(h).position)).map(h => h.getBoundingClientRect().bottom));
  const p = root.querySelector('img.emqsim-frame').getBoundingClientRect();
  const sticky = getComputedStyle(root.querySelector('.emqsim-stage')).position === 'sticky';
  const rows = [...root.querySelectorAll('.emqsim-control')].map(e => {
    const r = e.getBoundingClientRect(), y = r.top + r.height / 2;
    const at = y >= 0 && y < innerHeight ? document.elementFromPoint(r.left + r.width / 2, y) : null;
    return [e.dataset.name, at !== null && e.contains(at) ? 'touchable' : at === null ? 'out' : at.className || at.tagName,
            Math.round(r.top)]; });
  return {picture: p.top >= head - 1 && p.bottom <= innerHeight + 1, sticky, rows}; }"""


@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_show_me_leaves_the_controls_uncovered_on_a_phone(static_site, book_page, path):
    """After 03's wake-latency Show me, pressed while reading its question, the poll slider stayed under the
    sticky picture (its readout reported on top of it): the changed figure was seen, not the
    control that moved. On a phone, after every Show me, the picture is in the window and no
    control row of its figure is under the picture or readout; where the stage sticks, each row
    is in the window and touchable (a figure too tall to stick may leave its rows below it)."""
    page = book_page
    page.emulate_media(reduced_motion="reduce")
    players = open_page(page, static_site, path.stem, PHONE)
    bad = []
    for n in range(players.count()):
        player = ready(page, n)
        for q, button in enumerate(player.locator("button.emqsim-show-me").all()):
            # as the reader reads it: the question at the top, under the sticky picture
            button.evaluate("b => b.closest('fieldset').scrollIntoView({block: 'start'})")
            button.click()
            page.wait_for_function(_SETTLED_JS, arg=player.locator("img.emqsim-frame").element_handle(), timeout=3000)
            page.wait_for_timeout(300)
            got = player.evaluate(_AFTER_SHOW_ME_JS)
            allowed = ("touchable",) if got["sticky"] else ("touchable", "out")
            if not got["picture"] or any(state not in allowed for _, state, _ in got["rows"]):
                bad.append((player.get_attribute("data-figure"), q, got))
    assert bad == [], bad
    assert page.errors == [] and page.outside == []
