"""Every notebook as `make present` serves it to a class: Voila with the course's template, in
presenter mode, on a 1280x720 projector.

Per page: nothing is requested from outside the machine (every request is routed, one that
leaves 127.0.0.1 is refused and fails the test); the prose is at least 20 px, the widgets'
labels at least 18 px, the readouts in a monospace font; each panel, scrolled so its first
control is at the top, shows every control and the figure's x-axis (the image's bottom) within
the 720 px; each readout is a polite live region and the figure's image carries the frame's
alt text; every link in the prose is underlined; axe (npm axe-core, tests/browser/node_modules) finds no serious or critical violation.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import BIN, NOTEBOOKS, ROOT, Server, _copy_notebooks, free_port, stop, wait_http  # noqa: E402
from figure_page import WIDGET_VIEW, figure_title, move  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402
from emqsim.figures.controls import READOUT_CLASS, SPEED_CLASS  # noqa: E402

PROJECTOR = {"width": 1280, "height": 720}
RENDER_MS = 180_000          # Voila runs the whole notebook before it shows the page
AXE = Path(__file__).parent / "node_modules" / "axe-core" / "axe.min.js"
LOCAL = ("http://127.0.0.1", "ws://127.0.0.1", "data:", "blob:", "about:")
PAGES = sorted(p.name for p in NOTEBOOKS.glob("*.ipynb"))
CONTROLS = (f".widget-slider:not(.{SPEED_CLASS}), .widget-toggle-buttons, .widget-dropdown, .widget-text, "
            ".widget-play")


def panels_in(name: str) -> int:
    """How many live panels the notebook shows: its code cells whose output is a widget view."""
    cells = json.loads((NOTEBOOKS / name).read_text())["cells"]
    return sum(any(WIDGET_VIEW in o.get("data", {}) for o in c.get("outputs", ())) for c in cells
               if c["cell_type"] == "code")


@pytest.fixture(scope="module")
def present(tmp_path_factory):
    """`make present`: Voila with the course's presenter template, EMQSIM_PRESENT=1, every notebook."""
    tmp = tmp_path_factory.mktemp("present")
    root = _copy_notebooks(tmp / "notebooks")
    port = free_port()
    env = {**os.environ, "EMQSIM_PRESENT": "1", "JUPYTER_PATH": str(ROOT / "share")}
    cmd = [str(BIN / "voila"), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1", "--template=emqsim-present",
           str(root)]
    log = tmp / "voila.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=root, stdin=subprocess.DEVNULL,
                                env=env)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status", proc, log)
        yield Server(f"http://127.0.0.1:{port}", "", root, log)
    finally:
        stop(proc)


@pytest.fixture
def projector(browser_context):
    p = browser_context.new_page()
    p.set_viewport_size(PROJECTOR)
    yield p
    if not p.is_closed():
        p.close()


_PANEL_JS = """(panel) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
  const img = panel.querySelector('img.widget-image');
  const pre = panel.querySelector('pre.%s');
  return {
    controls: [...panel.querySelectorAll('%s')].map(box),
    image: box(img), alt: img.getAttribute('alt'), data_alt: pre.getAttribute('data-alt'),
    readout: pre.innerText, readout_id: pre.id,
    live: [pre.getAttribute('aria-live'), pre.parentElement.getAttribute('aria-live')],
    font: getComputedStyle(pre).fontFamily,
  };
}""" % (READOUT_CLASS, CONTROLS)


def _axe(page) -> list:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run()).violations.map(v => "
                          "({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}))")
    return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("name", PAGES)
def test_a_page_on_a_projector(present, projector, artifacts, name):
    if not AXE.exists():
        pytest.skip("no tests/browser/node_modules/axe-core (cd tests/browser && npm ci --ignore-scripts)")
    page = projector
    outside: list[str] = []

    def route(r):
        if r.request.url.startswith(LOCAL):
            r.continue_()
        else:
            outside.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.goto(present.url(f"/voila/render/{name}"), timeout=RENDER_MS)
    count = panels_in(name)
    page.wait_for_function(f"document.querySelectorAll('img.widget-image[alt]').length >= {count}",
                           timeout=RENDER_MS)
    body = page.inner_text("body")
    assert "Error displaying widget" not in body and "Traceback" not in body
    sizes = page.evaluate("""() => ({
      prose: [...document.querySelectorAll('.jp-RenderedMarkdown p')].map(e => parseFloat(getComputedStyle(e).fontSize)),
      labels: [...document.querySelectorAll('.widget-label')].map(e => parseFloat(getComputedStyle(e).fontSize)),
    })""")
    assert sizes["prose"] and min(sizes["prose"]) >= 20, sizes["prose"]
    # links in prose are underlined (emqsim.css), not told apart by colour alone: axe's
    # link-in-text-block saw that only on some loads, so it is read off the page here
    links = page.evaluate("() => [...document.querySelectorAll('.jp-RenderedMarkdown a[href]:not(.anchor-link)')]"
                          ".map(a => [a.getAttribute('href'), getComputedStyle(a).textDecorationLine])")
    assert [href for href, line in links if line != "underline"] == []
    assert not sizes["labels"] or min(sizes["labels"]) >= 18, sizes["labels"]
    panels = page.locator(".jupyter-widgets.widget-vbox", has=page.locator(f"pre.{READOUT_CLASS}"))
    shown = []
    for i in range(count):
        panel = panels.nth(i)
        panel.evaluate("(p, sel) => [...p.querySelectorAll(sel)].reduce((a, e) => e.getBoundingClientRect().top "
                       "< a.getBoundingClientRect().top ? e : a).scrollIntoView({block: 'start'})", CONTROLS)
        state = panel.evaluate(_PANEL_JS)
        tops = [c[0] for c in state["controls"]] + [state["image"][0]]
        bottoms = [c[1] for c in state["controls"]] + [state["image"][1]]
        # (scrolling lands within a pixel of the top: the controls may start a fraction above it)
        assert min(tops) > -1 and max(bottoms) <= PROJECTOR["height"], (name, i, state["controls"], state["image"])
        assert state["image"][3] <= PROJECTOR["width"]
        assert "monospace" in state["font"]
        assert state["live"] == ["polite", "polite"]
        assert state["alt"] and state["alt"] == state["data_alt"]
        model = catalogue.model(figure_title(state["readout_id"]))
        if not callable(getattr(model, "describe", None)):   # else the model's own description
            assert state["alt"] == state["readout"].splitlines()[0]
        shown.append(round(max(bottoms) - min(tops)))
        page.screenshot(path=artifacts / f"present-{Path(name).stem}-{i}.png")
    assert _axe(page) == []
    assert outside == [], f"requests that left the machine: {outside}"
    print(f"{name}: panels from first control to x-axis {shown} px of {PROJECTOR['height']}")


def test_the_alt_text_follows_a_move(present, projector):
    """04: pump up offers only restarts from pump down on (91 positions), and a move of it gives
    the image the new frame's alt text."""
    page = projector
    page.goto(present.url("/voila/render/04_missed_slots.ipynb"), timeout=RENDER_MS)
    page.wait_for_selector("img.widget-image[alt]", state="attached", timeout=RENDER_MS)
    panel = page.locator(".jupyter-widgets.widget-vbox", has=page.locator(f"pre.{READOUT_CLASS}")).first
    up = panel.locator(".widget-slider", has=page.locator(".widget-label", has_text="pump up")).first
    assert up.locator(".noUi-handle").get_attribute("aria-valuemax") == "90.0"
    assert up.locator(".noUi-handle").get_attribute("aria-label") == "pump up"
    m = move(page, panel, up)
    assert (m.before, m.after) == ("10:10", "10:11")
    alt = panel.locator("img.widget-image").get_attribute("alt")
    from emqsim.figures import catalogue
    from emqsim.lessons.course import on_day

    model = catalogue.model("04 missed slots")
    assert alt == model.describe(model.frame(up=on_day("10:11")))   # the lesson's words for 10:11
    assert alt.startswith("Pump down 09:30 to 10:11: 09:37, 09:52 and 10:07 missed")
