"""Every notebook in JupyterLab, in a real browser: run all cells, then move every live figure's
slider with the keyboard and check that the readout gives the engine's new answer and the
figure's image changed.

Notebooks are found in notebooks/ and sliders in the page, so a new notebook is covered as
soon as it exists (a figure with drop-downs and no slider gets each drop-down moved instead;
a figure with a Play button gets it pressed). Where `EXPECTED` has an entry, the readout
must equal the text the package computes here, in the test process, for the slider's new
value; elsewhere the readout and the image must at least change. One screenshot per notebook goes to test-artifacts/.
"""

from __future__ import annotations

import re

import nbformat
import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import NOTEBOOKS  # noqa: E402
from figure_page import FIGURE_SLIDERS, WIDGET_VIEW, choose, move, play_moves_slider  # noqa: E402
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from emqsim.figures.controls import PLAY_CLASS  # noqa: E402
from emqsim.timefmt import at  # noqa: E402

RUN_ALL_MS = 180_000     # the slowest notebook (02: 10,000 fires) runs in about 10 s here
OPEN_MS = 60_000


# -- what the readout must say after one ArrowRight: notebook -> figure slider index ->
#    (slider label, slider value shown after the move, the package's readout for that value)

def _cron_interval_0849():
    from emqsim.figures.cron_interval import readout

    return readout(at("2026-11-30 08:49"), "cron")


def _registry_rows_after_1():
    from emqsim.figures.registry_rows import build

    return build(fires=2).update(1)  # the state after 1 fire does not depend on how many follow


def _cadence_run_5():
    from emqsim.figures.cadence_drift import cadence_view

    return cadence_view().update(run=5)


def _slip_tick_1500():
    from emqsim.figures.cadence_drift import slip_view

    return slip_view().update(tick=1500)


def _wake_poll_40s():
    from emqsim.figures.marker import wake_view

    return wake_view().update(poll=40_000)


def _missed_down_0931():
    from emqsim.figures.missed import missed_view

    return missed_view().update(down=at("2026-11-30 09:31"))


def _overlap_run_21():
    from emqsim.figures.overlap import overlap_view

    return overlap_view().update(run=21)


EXPECTED = {
    "01_cron_vs_interval": {0: ("now", "08:49", _cron_interval_0849)},
    "02_one_row_rewritten": {0: ("fires elapsed", "1", _registry_rows_after_1)},
    "03_start_to_start": {0: ("run (min)", "5", _cadence_run_5),
                          1: ("pump tick", "1.5 s", _slip_tick_1500),
                          2: ("poll every", "40 s", _wake_poll_40s)},
    "04_missed_slots": {0: ("pump down", "09:31", _missed_down_0931)},
    "05_overlap": {0: ("run (min)", "21", _overlap_run_21)},
}

def _time_zones(zone: str, day: str):
    from emqsim.figures.time_zones import readout

    return lambda: readout(zone, day)


#: drop-down figures: notebook -> drop-down index (in page order) -> (label, option shown after
#: the move, the package's readout then); 07's readouts carry cron-parser's recorded rule
EXPECTED_CHOICES = {
    "07_cron_time_zones": {0: ("zone", "Europe/London", _time_zones("Europe/London", "2026-10-25")),
                           1: ("day", "2026-10-26 \u00b7 the day after clocks go back",
                               _time_zones("Europe/London", "2026-10-26"))},
}

#: an output area whose content is a rendered widget view
WIDGET_OUTPUTS = ".jp-Notebook .jp-OutputArea-output:has(> .jupyter-widgets)"
ERROR_TEXTS = ("Error displaying widget", "Traceback (most recent call last)")


def widget_outputs(path) -> int:
    """How many live-figure (widget) outputs the committed notebook holds."""
    nb = nbformat.read(path, as_version=4)
    return sum(WIDGET_VIEW in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


def strip_outputs(path) -> None:
    """Clear the served copy's outputs and counts, so 'every cell numbered' means 'ran now'."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


def kernel_ready(page) -> None:
    """Wait until the notebook's kernel is connected and idle: the toolbar's indicator says idle
    before the kernel has even started, the status bar's 'Idle' only once it answers."""
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=OPEN_MS)
    page.wait_for_function(
        r"""() => [...document.querySelectorAll('.jp-StatusBar-Item')]
                 .some(e => /\|\s*Idle$/.test(e.textContent.trim()))""", timeout=OPEN_MS)


def _started(page, timeout: int) -> bool:
    """Has any code cell started ([*]) or run ([n]) within `timeout` ms?"""
    try:
        page.wait_for_function(
            r"""() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
                     .some(p => /^\[(\*|\d+)\]:$/.test(p.textContent.trim()))""", timeout=timeout)
        return True
    except PlaywrightTimeout:
        return False


def run_all(page) -> None:
    """Run every cell through the Run menu; wait until each code cell is numbered (or one failed).

    A click that lands while the kernel is still connecting runs nothing: it is tried again."""
    for attempt in range(3):
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator('.lm-Menu-item[data-command="runmenu:run-all"]').click()
        if _started(page, 15_000):
            break
    else:
        pytest.fail("Run > Run All Cells started no cell in 3 tries")
    page.wait_for_function(
        """() => {
             const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
             const done = prompts.length > 0 && prompts.every(p => /^\\[\\d+\\]:$/.test(p.textContent.trim()));
             const failed = [...document.querySelectorAll('.jp-OutputArea-output')]
               .some(o => o.innerText.includes('Traceback (most recent call last)'));
             return done || failed;
           }""", timeout=RUN_ALL_MS)
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=RUN_ALL_MS)


def errors_on_page(page) -> list[str]:
    """Error texts in any output: widget errors, tracebacks, error lines on stderr."""
    found = []
    for out in page.locator(".jp-Notebook .jp-OutputArea-output").all():
        text = out.inner_text()
        stderr = out.get_attribute("data-mime-type") == "application/vnd.jupyter.stderr"
        if any(e in text for e in ERROR_TEXTS) or (stderr and re.search(r"\b\w+Error\b", text)):
            found.append(text[:600])
    return found


NOTEBOOK_PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


@pytest.fixture
def lab_page(lab, page):
    """A page on the lab server; its kernel is stopped afterwards."""
    yield page
    page.close()
    lab.shutdown_kernels()


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[p.stem for p in NOTEBOOK_PATHS])
def test_notebook_in_jupyterlab(lab, lab_page, artifacts, path):
    page = lab_page
    name = path.stem
    expected_widgets = widget_outputs(path)
    served = lab.root / path.name
    strip_outputs(served)

    page.goto(lab.url(f"/lab/tree/{path.name}?reset"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    kernel_ready(page)
    run_all(page)
    assert errors_on_page(page) == []

    # each widget output renders as a widget (a failed one shows an error text instead)
    page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length >= n",
                           arg=[WIDGET_OUTPUTS, expected_widgets], timeout=OPEN_MS)
    figures = page.locator(WIDGET_OUTPUTS)
    assert figures.count() == expected_widgets

    table = EXPECTED.get(name, {})
    index, first = 0, None
    for f in range(figures.count()):
        figure = figures.nth(f)
        if figure.locator("img.widget-image").count() == 0:
            continue  # a widget output that is not a figure
        first = first if first is not None else figure
        figure.scroll_into_view_if_needed()
        sliders = figure.locator(FIGURE_SLIDERS)
        for s in range(sliders.count()):
            m = move(page, figure, sliders.nth(s))
            assert m.src_after != m.src_before, f"{name} slider {index} ({m.label}): the figure did not redraw"
            assert m.texts_after != m.texts_before, f"{name} slider {index} ({m.label}): the readout did not change"
            if index in table:
                label, shown, readout = table[index]
                assert (m.label, m.after) == (label, shown), f"{name}: EXPECTED[{index}] is out of date"
                assert readout() in m.texts_after
            index += 1
        if sliders.count() == 0:  # a figure driven by drop-downs only: try each of them once
            selects = figure.locator(".widget-dropdown select")
            assert selects.count(), f"{name}: a live figure with neither a slider nor a drop-down"
            for d in range(selects.count()):
                m = choose(page, figure, selects.nth(d))
                if d in EXPECTED_CHOICES.get(name, {}):
                    label, shown, readout = EXPECTED_CHOICES[name][d]
                    shown_now = m.after.replace("\xa0", " ")      # the browser shows the label's spaces as nbsp
                    assert (m.label, shown_now) == (label, shown), f"{name}: EXPECTED_CHOICES[{d}] is out of date"
                    assert readout() in m.texts_after
                assert m.src_after != m.src_before and m.texts_after != m.texts_before, (name, m.label)
        if figure == first:  # the picture of the notebook: its first figure, just moved
            figure.screenshot(path=artifacts / f"{name}-figure.png")
        if figure.locator(f".{PLAY_CLASS}").count():
            before, after = play_moves_slider(page, figure)
            assert float(after) > float(before), f"{name}: Play did not move the slider"
    assert index >= len(table), f"{name}: the page has {index} figure sliders, EXPECTED names {len(table)}"
    assert errors_on_page(page) == []
    assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()

    if first is not None:
        first.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"{name}.png")
