"""JupyterLab on a 390x844 phone (issue 30): a page's live panels, run there with the file browser
folded away, draw the narrow layout (the panel's width watcher ticks its hidden checkbox and the
kernel sends the narrow picture) and none is wider than its output area: readouts wrap, a
drop-down and the picture stay inside the column, every label shows whole."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import VIEWPORT  # noqa: E402
from test_lab import OPEN_MS, WIDGET_OUTPUTS, errors_on_page, kernel_ready, lab_page, run_all, strip_outputs  # noqa: E402,F401
from test_voila_phone import _MEASURE_JS, PHONE, assert_panels_fit  # noqa: E402

from emqsim.figures.controls import NARROW_CLASS, PANEL_CLASS  # noqa: E402

#: 03 has a drop-down of long names and a readout of long lines; 05 five lanes and a wide readout
PAGES = ("03_start_to_start", "05_overlap")


@pytest.mark.parametrize("name", PAGES)
def test_on_a_phone_lab_panels_are_narrow_and_fit(lab, lab_page, artifacts, name):
    page = lab_page
    strip_outputs(lab.root / f"{name}.ipynb")
    # opened and run at the desktop size (on a phone Lab's toolbar hides the kernel's indicator
    # the run waits on), then turned into a phone, the file browser folded away (Ctrl+B)
    page.set_viewport_size(VIEWPORT)
    page.goto(lab.url(f"/lab/tree/{name}.ipynb?reset"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    kernel_ready(page)
    run_all(page)
    assert errors_on_page(page) == []
    page.set_viewport_size(PHONE)
    page.keyboard.press("Control+b")
    page.wait_for_timeout(500)
    page.wait_for_function("n => document.querySelectorAll(n).length > 0", arg=f".{PANEL_CLASS}", timeout=OPEN_MS)
    # every panel told the kernel it is narrow (the watcher runs once the panel is on screen)
    panels = page.locator(f".{PANEL_CLASS}")
    for n in range(panels.count()):
        panels.nth(n).scroll_into_view_if_needed()
        page.wait_for_function("p => p.querySelector('.{} input').checked".format(NARROW_CLASS),
                               arg=panels.nth(n).element_handle(), timeout=OPEN_MS)
    page.wait_for_timeout(1500)       # the narrow pictures arrive
    measured = page.evaluate(_MEASURE_JS)
    assert len(measured) == panels.count() > 0
    assert_panels_fit(name, measured)
    out = page.locator(WIDGET_OUTPUTS).first
    out.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"lab-phone-{name}.png")
