"""The course book (`make html`) in a real browser, as readers meet it: a contents sidebar,
previous/next, search and a dark theme; on a 390x844 phone the figure and its readout stay in
view above the control being dragged and every control is a 24x24 px touch target (WCAG 2.2,
2.5.8); readouts are polite live regions, each picture's alt text says what it shows, the
controls come first in each player's tab order, and axe finds no serious or critical
violation at 1366x900 or 390x844; nothing is asked from outside the machine; and on Chromium's
Fast-3G throttling from a local server a control moves the figure within 2 s of the request.
A phone gets the frames drawn for it (the narrow layout), 3 device pixels to the CSS px; a desktop
the normal ones; neither fetches the other's; on both the smallest figure text stands at least 10
CSS px tall.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import NOTEBOOKS  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402
from emqsim.site import pages  # noqa: E402

PAGES = sorted(NOTEBOOKS.glob("*.ipynb"))
def _has_a_figure(path) -> bool:
    """Whether a notebook shows a figure panel (a code cell the site replaces by its player)."""
    cells = json.loads(path.read_text())["cells"]
    return any(isinstance(c.get("metadata", {}).get("emqsim"), dict) and c["metadata"]["emqsim"].get("figure")
               for c in cells if c["cell_type"] == "code")


#: the pages with a player; the rest are text pages (00, 08 since it tells the course in words,
#: the glossary and reference pages). A test over a page without one checked nothing of ours:
#: axe, given no player to look inside, read the whole page, the theme's search button too.
WITH_PLAYERS = [p for p in PAGES if _has_a_figure(p)]
DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}
SIZES = {"desktop": DESKTOP, "phone": PHONE}
LOAD_MS = 30_000
#: npm's axe-core (tests/browser/package.json: `cd tests/browser && npm ci --ignore-scripts`)
AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
#: Chromium's "Fast 3G" preset, as DevTools defines it
FAST_3G = {"offline": False, "latency": 150, "downloadThroughput": 1.6e6 / 8, "uploadThroughput": 750e3 / 8}
FAST_3G_BUDGET_S = 2.0
#: the smallest figure text a reader meets, in CSS px, at 1366x900 and on a 390x844 phone (issue 30)
MIN_TEXT_PX = 10.0
#: device pixels per CSS px a phone frame holds at least (device pixel ratio 3: crisp)
PHONE_DENSITY = 3.0


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(static_site):
    """The built site on a local HTTP server (127.0.0.1, a free port); its base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(static_site)))
    server.handle_error = lambda request, address: None   # a browser closing a connection early
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def book_page(browser_context):
    """A page that fails any request leaving the machine, and records errors it logs."""
    p = browser_context.new_page()
    p.errors, p.outside = [], []
    p.on("console", lambda m: p.errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: p.errors.append(str(e)))

    def route(r):
        url = urlparse(r.request.url)
        if url.scheme in ("file", "data") or url.hostname == "127.0.0.1":
            r.continue_()
        else:
            p.outside.append(r.request.url)
            r.abort()

    p.route("**/*", route)
    yield p
    p.close()


def ready(page, n: int = 0):
    player = page.locator(".emqsim-player").nth(n)
    page.wait_for_function("root => root.getAttribute('data-ready') === '1'", arg=player.element_handle(),
                           timeout=LOAD_MS, polling=50)
    return player


def first_slider(player):
    """The player's first control that moves (a slider, else a drop-down)."""
    return player.locator("input.emqsim-slider:not([disabled]), select.emqsim-choice:not([disabled])").first


def step(control) -> None:
    """Move a slider one position with the keyboard, or pick a drop-down's next option."""
    if control.evaluate("e => e.tagName") == "SELECT":
        n = control.evaluate("s => s.selectedIndex")
        control.select_option(index=n + 1 if n + 1 < control.locator("option").count() else n - 1)
    else:
        control.focus()
        control.press("ArrowLeft" if control.evaluate("r => Number(r.value) >= Number(r.max)") else "ArrowRight")


def moved(page, player, before: str):
    page.wait_for_function("([r, f]) => r.getAttribute('data-frame') !== f", arg=[player.element_handle(), before],
                           timeout=LOAD_MS, polling=50)


def test_the_book_has_contents_previous_next_search_and_a_dark_theme(static_site, served, book_page):
    page = book_page
    page.set_viewport_size(DESKTOP)
    page.goto((static_site / "02_one_row_rewritten.html").as_uri())
    nav = page.locator("nav.bd-docs-nav a.reference.internal")
    hrefs = nav.evaluate_all("as => as.map(a => a.getAttribute('href'))")
    # the contents list every page; the page shown links to itself as "#"
    # in reading order, group by group as the index heads them (pages.GROUPS, pages.in_reading_order)
    assert hrefs == ["index.html", *(f"{p.stem}.html" if p.stem != "02_one_row_rewritten" else "#"
                                     for p in pages.in_reading_order(PAGES))]
    assert page.locator("a.left-prev").get_attribute("href") == "01_cron_vs_interval.html"
    assert page.locator("a.right-next").get_attribute("href") == "03_start_to_start.html"
    # <details> blocks stay folded until opened
    assert page.locator("details").count() >= 1
    assert page.locator("details[open]").count() == 0
    assert page.errors == []
    # search finds the pages from disk (there Chromium will not let it fetch the pages'
    # summaries: it logs that) and, with summaries, from a server
    for base in (static_site.as_uri(), served):
        page.goto(f"{base}/search.html?q=overlap")
        page.wait_for_function("() => document.querySelectorAll('#search-results li').length > 0",
                               timeout=LOAD_MS)
        assert "05_overlap.html" in page.locator("#search-results").inner_html()
    page.errors.clear()
    # dark: the theme follows the reader's system, and the player's colours follow the theme
    page.emulate_media(color_scheme="dark")
    page.goto((static_site / "01_cron_vs_interval.html").as_uri())
    player = ready(page)
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    bg = player.locator(".emqsim-stage").evaluate("e => getComputedStyle(e).backgroundColor")
    assert bg not in ("rgb(255, 255, 255)", "rgba(0, 0, 0, 0)"), bg
    page.emulate_media(color_scheme="light")
    assert page.errors == [] and page.outside == []


@pytest.mark.parametrize("path", WITH_PLAYERS, ids=[p.stem for p in WITH_PLAYERS])
def test_on_a_phone_figure_and_readout_stay_above_the_control_and_targets_are_24px(static_site, book_page, path):
    page = book_page
    page.set_viewport_size(PHONE)
    page.goto((static_site / f"{path.stem}.html").as_uri())
    players = page.locator(".emqsim-player")
    for n in range(players.count()):
        player = ready(page, n)
        slider = first_slider(player)
        row = slider.locator("xpath=ancestor::div[@data-kind][1]")
        row.evaluate("r => r.scrollIntoView({block: 'end'})")
        page.wait_for_timeout(100)
        stage = player.locator(".emqsim-stage").bounding_box()
        img = player.locator("img.emqsim-frame").bounding_box()
        out = player.locator("pre.emqsim-readout").bounding_box()
        box = slider.bounding_box()
        name = f"{path.stem} player {n}"
        assert img["y"] >= 0 and out["y"] >= img["y"] + img["height"] - 1, name      # readout under the figure
        assert stage["y"] + stage["height"] <= box["y"] + 1, (name, stage, box)      # ...both above the slider
        assert box["y"] + box["height"] <= PHONE["height"] + 1, (name, box)
        before = player.get_attribute("data-frame")
        step(slider)
        moved(page, player, before)
        small = player.evaluate("""root => [...root.querySelectorAll('input, select, button')]
            .filter(e => !e.disabled && e.offsetParent !== null)
            .map(e => [e.className || e.type, e.getBoundingClientRect()])
            .filter(([, r]) => r.width < 24 || r.height < 24)
            .map(([c, r]) => `${c} ${Math.round(r.width)}x${Math.round(r.height)}`)""")
        assert small == [], (name, small)
    assert page.errors == [] and page.outside == []


# the first element a Tab reaches inside an element, in document order
_FIRST_TAB_JS = """root => {
  const all = [...root.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
    .filter(e => !e.disabled && e.tabIndex >= 0 && e.offsetParent !== null);
  const e = all[0];
  return e ? (e.closest('.emqsim-controls') ? 'control' : e.tagName + '.' + e.className) : null;
}"""

# the alt text the build wrote for the frame shown: the model's description, else the readout
_ALT_JS = """root => {
  const t = JSON.parse(root.querySelector('script.emqsim-data').textContent);
  const f = t.frames[Number(root.getAttribute('data-frame'))];
  return f.length > 3 ? t.alts[f[3]] : t.readouts[f[1]];
}"""

# every control labelled: a <label for> with text, or an aria-label
_UNLABELLED_JS = """root => [...root.querySelectorAll('.emqsim-controls input, .emqsim-controls select')]
  .filter(e => !(e.labels && [...e.labels].some(l => l.textContent.trim())) && !e.getAttribute('aria-label'))
  .map(e => e.className)"""


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_every_page_is_accessible(static_site, book_page, artifacts, path, size):
    if not AXE.is_file():
        pytest.skip(f"no {AXE} (cd tests/browser && npm ci --ignore-scripts)")
    page = book_page
    page.set_viewport_size(SIZES[size])
    page.goto((static_site / f"{path.stem}.html").as_uri())
    players = page.locator(".emqsim-player")
    for n in range(players.count()):
        player = ready(page, n)
        title = player.get_attribute("data-figure")
        readout = player.locator("pre.emqsim-readout")
        assert readout.get_attribute("aria-live") == "polite"
        alt = player.locator("img.emqsim-frame").get_attribute("alt")
        assert alt and title not in alt and alt == player.evaluate(_ALT_JS), (title, alt)
        assert player.evaluate(_FIRST_TAB_JS) == "control", title
        assert player.evaluate(_UNLABELLED_JS) == [], title
        # after a move the alt text is the new frame's
        before = player.get_attribute("data-frame")
        step(first_slider(player))
        moved(page, player, before)
        assert player.locator("img.emqsim-frame").get_attribute("alt") == player.evaluate(_ALT_JS)
    assert page.errors == [] and page.outside == []
    page.add_script_tag(path=str(AXE))   # from disk, axe cannot read the stylesheets: it logs that
    violations = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
        .violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')}`)""")
    assert violations == [], violations
    assert page.outside == []
    if path.stem == "01_cron_vs_interval":   # the README's pictures of the site (docs/site-*.png)
        page.evaluate("window.scrollTo(0, 0)")
        players.first.locator(".emqsim-controls").evaluate("r => r.scrollIntoView({block: 'end'})")
        page.wait_for_timeout(300)
        page.screenshot(path=str(artifacts / f"site-book-{size}.png"))


# the set of pictures a player shows and the height of its smallest text in CSS px, from the
# facts the build wrote on that set's element (the figure's width in inches, its smallest font in
# points) and the width the picture is shown at: pt / 72 x (CSS px shown per inch of figure);
# also what the normal set would give at that width
_TEXT_PX_JS = """root => {
  const img = root.querySelector('img.emqsim-frame');
  const source = root.querySelector('picture source');
  const narrow = !!source && img.currentSrc.includes('/_static/frames/narrow/');
  const width = img.getBoundingClientRect().width;
  const px = e => Number(e.dataset.minFontPt) / 72 * width / Number(e.dataset.figWidthIn);
  return {narrow: narrow, width: width, px: px(narrow ? source : img), normal: px(img),
          density: img.naturalWidth / width};
}"""


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES)
def test_figure_text_is_10_css_px_and_each_screen_fetches_one_frame_set(static_site, book_page, size, theme):
    """In each theme: the dark one's output box had 8 px of padding a side, which showed a
    desktop's 727 px figures at 711 px, resampled and soft."""
    page = book_page
    page.emulate_media(color_scheme=theme)
    page.set_viewport_size(SIZES[size])
    asked = []
    page.on("request", lambda r: asked.append(r.url) if "/_static/frames/" in r.url else None)
    shown = {}
    for path in WITH_PLAYERS:
        page.goto((static_site / f"{path.stem}.html").as_uri())
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        players = page.locator(".emqsim-player")
        for n in range(players.count()):
            player = ready(page, n)
            img = player.locator("img.emqsim-frame").element_handle()
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img, timeout=LOAD_MS)
            got = player.evaluate(_TEXT_PX_JS)
            before = player.get_attribute("data-frame")
            step(first_slider(player))              # a move, and the pictures asked for ahead of it
            moved(page, player, before)
            page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=img, timeout=LOAD_MS)
            after = player.evaluate(_TEXT_PX_JS)
            shown[player.get_attribute("data-figure")] = (got["narrow"], after["narrow"], round(got["px"], 2),
                                                          round(got["normal"], 2), round(got["width"]),
                                                          round(after["density"], 2))
    print(f"{size} {theme}: figure -> (narrow set shown, after a move, smallest text CSS px, with the normal set, "
          f"picture CSS px wide, picture px per CSS px): {shown}")
    assert {t: px for t, (_, _, px, *_) in shown.items() if not px >= MIN_TEXT_PX} == {}
    narrow = [u for u in asked if "/_static/frames/narrow/" in u]
    assert len(shown) == len(catalogue.SOURCES)   # every live figure of the course, once
    if size == "phone":
        assert all(a and b for a, b, *_ in shown.values()), shown
        assert {t: d for t, (*_, d) in shown.items() if not d >= PHONE_DENSITY} == {}
        assert len(narrow) == len(asked) > 0
    else:
        assert not any(a or b for a, b, *_ in shown.values()), shown
        # drawn at the width shown, one pixel per CSS px: not resampled by the browser (soft text)
        assert {t: d for t, (*_, d) in shown.items() if d != 1.0} == {}
        assert narrow == [] and asked
    assert page.errors == [] and page.outside == []


def _first_move_on_fast_3g(served, browser_context, stem, size) -> float:
    """Seconds from the request for the page to the figure moved by its first control, on the
    page's own clock, over Chromium's Fast-3G throttling with the cache off, at `size`."""
    page = browser_context.new_page()
    try:
        page.set_viewport_size(size)
        cdp = browser_context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Network.emulateNetworkConditions", FAST_3G)
        page.goto(f"{served}/{stem}.html", wait_until="commit")
        player = ready(page)
        before = player.get_attribute("data-frame")
        step(first_slider(player))
        moved(page, player, before)
        return page.evaluate("performance.now()") / 1000
    finally:
        page.close()


@pytest.mark.alone
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("stem", ["02_one_row_rewritten", "04_missed_slots"])
def test_a_control_moves_the_figure_within_2_s_on_fast_3g(served, browser_context, stem, size):
    """Within the budget on the better of two cold loads: the link is throttled the same both
    times, but the browser shares this machine's cores with whatever else runs, which only
    ever adds time. On a phone too, which fetches the narrow frames instead."""
    tries = []
    for _ in range(2):
        tries.append(_first_move_on_fast_3g(served, browser_context, stem, SIZES[size]))
        if tries[-1] <= FAST_3G_BUDGET_S:
            break
    print(f"{stem} ({size}): on Fast 3G the first control moved the figure "
          + ", then ".join(f"{t:.2f} s" for t in tries) + " after the request")
    assert min(tries) <= FAST_3G_BUDGET_S, f"{stem}: the first control moved the figure {min(tries):.2f} s after the request"
