"""The course site on a phone and in the dark theme (issue 30, items 2, 3 and 8), in a real
browser: the control row holds still while Play runs (its readout above changed height from
frame to frame and moved Play and the slider by up to 150 px on a phone; the button's label
moved the slider sideways); in the dark theme
the figure is no white panel on a dark page, and its texts keep their contrast; every column
of the course-pages table can be read on a phone. Screenshots of each page's first figure at
both sizes and in both themes are kept in test-artifacts/ for a reader to look at."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from test_site_book import DESKTOP, PAGES, PHONE, SIZES, WITH_PLAYERS, book_page, ready  # noqa: E402,F401
from test_site_student import _luminance, open_page  # noqa: E402

from emqsim.figures import style  # noqa: E402

#: how far (CSS px) a control may move while Play runs: none, but sub-pixel rounding
STILL_PX = 0.5
PLAY_MS = 60_000

# record where the Play row, Play and its slider stand in the window at every frame shown
_WATCH_JS = """root => { const row = root.querySelector('button.emqsim-play').closest('.emqsim-control');
  root.__ys = () => { const s = row.querySelector('input.emqsim-slider').getBoundingClientRect();
    return [row, row.querySelector('button.emqsim-play'), row.querySelector('input.emqsim-slider')]
      .map(e => e.getBoundingClientRect().top).concat([s.left, s.right]); };
  root.__seen = [root.__ys()];
  new MutationObserver(() => root.__seen.push(root.__ys())).observe(root, {attributes: true, attributeFilter: ['data-frame']});
}"""
# then every position of that slider in turn, as Play at speed 1 shows them
_SWEEP_JS = """root => { const s = root.querySelector('button.emqsim-play').closest('.emqsim-control')
    .querySelector('input.emqsim-slider');
  for (let v = 0; v <= Number(s.max); v++) { s.value = String(v); s.dispatchEvent(new Event('input')); root.__seen.push(root.__ys()); }
  return root.__seen; }"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_the_control_row_holds_still_while_play_runs(static_site, book_page, path, size):
    """Each figure with Play (02's and 05's strips among them): Play run at its fastest over its
    last three steps to its end, then every position of its slider shown; the row, Play and the slider never move,
    up or down, nor sideways: "pause" is wider than "play", and the slider beside the button
    shifted 27 px and shrank on a phone while Play ran (the last read, issue 30). Watched from
    the first tick: pressing Play may scroll the page once, to dock a tall figure."""
    page = book_page
    players = open_page(page, static_site, path.stem, SIZES[size])
    moved, played = [], 0
    for n in range(players.count()):
        player = ready(page, n)
        play = player.locator("button.emqsim-play")
        if not play.count():
            continue
        played += 1
        play.evaluate("b => b.closest('.emqsim-control').scrollIntoView({block: 'center'})")
        page.wait_for_timeout(100)
        player.locator("input.emqsim-speed").evaluate("e => { e.value = e.max; e.dispatchEvent(new Event('input')); }")
        # Play starts three of its steps before the end (the sweep below shows every position):
        # its start, its steps and its stop are all watched, without waiting through the rest
        step = int(player.locator("input.emqsim-speed").input_value())
        play.evaluate("""(b, step) => { const s = b.closest('.emqsim-control').querySelector('input.emqsim-slider');
            s.value = String(Math.max(0, Number(s.max) - 3 * step)); s.dispatchEvent(new Event('input')); }""", step)
        # a figure too tall to stick on a phone is brought into view, its controls docked, when
        # Play starts (player.js dock): that one scroll, instant under reduced motion, is done
        # before the watch begins; from then on nothing may move
        page.emulate_media(reduced_motion="reduce")
        play.click()
        player.evaluate(_WATCH_JS)
        page.wait_for_function("r => !r.hasAttribute('data-playing')", arg=player.element_handle(), timeout=PLAY_MS)
        page.wait_for_timeout(200)   # the last picture loaded
        player.evaluate("r => r.__seen.push(r.__ys())")
        seen = player.evaluate(_SWEEP_JS)
        assert len(seen) > 3
        spread = [max(y[i] for y in seen) - min(y[i] for y in seen) for i in range(5)]
        if max(spread) > STILL_PX:
            moved.append((player.get_attribute("data-figure"), [round(d, 1) for d in spread]))
    if path.stem[:2] in ("02", "05"):
        assert played >= 2, path.stem    # the strip and the page's figure
    assert moved == [], (path.stem, size, moved)
    assert page.errors == [] and page.outside == []


def _mean_luminance(png: bytes) -> float:
    from PIL import Image, ImageStat

    grey = Image.open(io.BytesIO(png)).convert("L")
    return ImageStat.Stat(grey).mean[0] / 255


def _rgb(css: str) -> list[float]:
    return [float(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3]]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_in_the_dark_theme_the_figure_is_calm(static_site, book_page, artifacts, path, size):
    """Dark theme: the stage behind the figure is the page's own dark background, and the
    picture is turned by the dark filter Lab uses (style.DARK_FILTER: the hue kept, and every
    text colour `style.ink` gives reads at 4.5:1 after it), so it shows dark; the light theme
    keeps the picture as drawn."""
    page = book_page
    for theme in ("light", "dark"):
        players = open_page(page, static_site, path.stem, SIZES[size], theme)
        for n in range(players.count()):
            player = ready(page, n)
            img = player.locator("img.emqsim-frame")
            page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=img.element_handle(), timeout=10_000)
            got = player.evaluate("""r => { const s = r.querySelector('.emqsim-stage'), i = r.querySelector('img.emqsim-frame');
                return {stage: getComputedStyle(s).backgroundColor, page: getComputedStyle(document.body).backgroundColor,
                        filter: getComputedStyle(i).filter, pad: getComputedStyle(i).paddingLeft}; }""")
            img.scroll_into_view_if_needed()
            shot = img.screenshot()
            if n == 0:
                (artifacts / f"calm-{path.stem[:2]}-{size}-{theme}.png").write_bytes(page.screenshot())
            bright = _mean_luminance(shot)
            if theme == "dark":
                assert got["filter"].replace(" ", "") == style.DARK_FILTER.replace(" ", ""), (path.stem, n, got)
                assert _luminance(_rgb(got["stage"])) < 0.05, (path.stem, n, got)
                assert got["stage"] == got["page"], (path.stem, n, got)
                assert got["pad"] == "0px", (path.stem, n, got)    # no band of the theme's grey around it
                assert bright < 0.3, (path.stem, n, bright)    # a dark picture, not a white panel
            else:
                assert got["filter"] == "none", (path.stem, n, got)
                assert bright > 0.7, (path.stem, n, bright)
    assert page.errors == [] and page.outside == []


def test_every_figure_text_colour_reads_on_the_dark_figure():
    """What the filter makes of each colour a figure's text is drawn in (style.ink of the
    palette and black) stands at least 4.5:1 on what it makes of the figure's white."""
    palette = [style.BLACK, style.ORANGE, style.SKY, style.GREEN, style.YELLOW, style.BLUE, style.VERMILLION,
               style.PURPLE, style.GREY]
    ground = style.dark("#FEFEFE")     # the frames' background, as compressed
    low = {c: round(style.contrast(style.dark(style.ink(c)), ground), 2) for c in palette}
    assert {c: r for c, r in low.items() if r < style.MIN_CONTRAST} == {}


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_on_a_phone_every_table_column_can_be_read(static_site, book_page, artifacts, path):
    """course_pages_checked's first table stood 472 px wide in a 358 px column, its second
    column out of sight to the right (a seed file's name kept the first 364 px wide; 05's and
    ref_scripts' tables likewise): on every page, folds opened, every cell of every table lies
    inside its table's box, the names in code breaking at their joints (pages.breakable)."""
    page = book_page
    open_page(page, static_site, path.stem, PHONE)
    page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
    page.wait_for_timeout(100)
    tables = page.evaluate("""() => [...document.querySelectorAll('article table')].map(t => {
        const box = t.parentElement.getBoundingClientRect();
        return [...t.rows].flatMap(r => [...r.cells]).filter(c => { const b = c.getBoundingClientRect();
            return b.right > box.right + 1 || b.left < box.left - 1; }).map(c => c.innerText.slice(0, 40)); })""")
    assert [hidden for hidden in tables if hidden] == [], path.stem
    if path.stem == "course_pages_checked":
        assert len(tables) >= 5
        page.locator("article table").first.scroll_into_view_if_needed()
        page.screenshot(path=artifacts / f"table-{path.stem}-phone.png")
    assert page.errors == [] and page.outside == []
