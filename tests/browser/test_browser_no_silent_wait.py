"""No silent waits, in a real JupyterLab, on notebook 02's slider: one long move to 10,000 fires
says in the readout how far it has come, and a drag over every
position, as fast as the keyboard can, is caught up within seconds of the last key without
walking through every position it passed.

On the panel before `Mover`, the first part fails: the readout went straight from 0 fires to
10,000 with nothing in between. The second part passed on it too (3.6 to 5.1 s, 35 images for
154 positions), because Lab's widget sends only its latest value while the kernel is busy;
the panel's own coalescing is held by tests/test_no_silent_wait.py. Measured with it: caught up
2.3 to 4.0 s after the last key, 45 images drawn.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from figure_page import FIGURE_SLIDERS, expected_readout, state  # noqa: E402
from test_lab import OPEN_MS, WIDGET_OUTPUTS, kernel_ready, run_all, strip_outputs  # noqa: E402

#: the figure must show the slider's last position this soon after the last key (seconds)
CATCH_UP_S = 8.0


@pytest.fixture
def lab_page(lab, page):
    yield page
    page.close()
    lab.shutdown_kernels()


@pytest.mark.alone
def test_a_long_move_says_how_far_it_is_and_a_fast_drag_is_caught_up(lab, lab_page, artifacts):
    page = lab_page
    name = "02_one_row_rewritten.ipynb"
    strip_outputs(lab.root / name)
    page.goto(lab.url(f"/lab/tree/{name}?reset"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    kernel_ready(page)
    run_all(page)
    figure = page.locator(WIDGET_OUTPUTS).first
    figure.scroll_into_view_if_needed()
    figure.evaluate(
        """root => { window.__emqsimSaid = [];
                    const pre = root.querySelector('.widget-html-content pre[id]').parentElement;
                    new MutationObserver(() => window.__emqsimSaid.push(pre.innerText))
                      .observe(pre, {childList: true, subtree: true, characterData: true}); }""")
    handle = figure.locator(f"{FIGURE_SLIDERS} .noUi-handle").first
    handle.focus()

    # one move to 10,000 fires: a walk of 9,000 fires, which says so once it has taken the panel's
    # patience (0.3 s of real time; on an idle machine the walk may take less, so the patience
    # is set to 0 in the kernel: whether it says so is then the panel's doing, not the machine's)
    in_kernel(lab, name, "panel = next(w.__self__ for w in fig._watchers if hasattr(w.__self__, 'mover'))\n"
                         "panel.mover.patience = 0")
    handle.press("End")
    _caught_up(page, figure, 10_000)
    said = page.evaluate("() => window.__emqsimSaid")
    progress = [t for t in said if t.startswith("computing: ")]
    assert progress and progress[-1] == "computing: 10,000 of 10,000 fires made", said[:8]

    # back to 0, then every position to the end, each a change of the slider
    handle.press("Home")
    _caught_up(page, figure, 0)
    positions = int(float(handle.get_attribute("aria-valuemax")) - float(handle.get_attribute("aria-valuenow")))
    assert positions == 154
    figure.locator("img.widget-image").evaluate(
        """img => { window.__emqsimDrawn = 0;
                   new MutationObserver(ms => { window.__emqsimDrawn += ms.length; })
                     .observe(img, {attributes: true, attributeFilter: ['src']}); }""")
    for _ in range(positions):
        handle.press("ArrowRight", delay=0)
    assert figure.locator(".widget-readout").first.inner_text().strip() == "10,000"
    waited, distinct = _caught_up(page, figure, 10_000)
    drawn = page.evaluate("() => window.__emqsimDrawn")
    print(f"caught up {waited:.1f} s after the last key, through {len(distinct)} readouts; {drawn} images drawn")
    figure.screenshot(path=artifacts / "02-after-a-fast-drag.png")
    assert len(distinct) < 30, f"the figure walked through {len(distinct)} readouts on its way: {distinct[:5]}..."
    assert drawn < positions


def in_kernel(lab, notebook: str, code: str) -> None:
    """Run `code` in the kernel of `notebook`'s session, through its connection file."""
    import json
    import urllib.request

    from jupyter_client import BlockingKernelClient, find_connection_file

    req = urllib.request.Request(lab.url("/api/sessions"), headers={"Authorization": f"token {lab.token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        kernel = next(s["kernel"]["id"] for s in json.load(r) if s["path"].endswith(notebook))
    client = BlockingKernelClient(connection_file=find_connection_file(kernel))
    client.load_connection_file()
    client.start_channels()
    try:
        reply = client.execute_interactive(code, timeout=60)
    finally:
        client.stop_channels()
    assert reply["content"]["status"] == "ok", reply["content"]


def _caught_up(page, figure, fires: int) -> tuple[float, list]:
    """Wait (at most CATCH_UP_S) until the readout is the model's for `fires`; returns how long
    that took and the readouts seen on the way."""
    pressed = time.monotonic()
    readouts = []
    while time.monotonic() - pressed < CATCH_UP_S:
        shown, expected, values = expected_readout(figure)
        readouts.append(shown)
        if values == {"fires": fires} and shown == expected:
            break
        page.wait_for_timeout(100)
    waited = time.monotonic() - pressed
    assert shown == expected and values == {"fires": fires}, (
        f"{waited:.1f} s after the key the figure shows {shown!r}, not the model's {expected!r}")
    assert state(figure)["src"]
    return waited, list(dict.fromkeys(readouts))
