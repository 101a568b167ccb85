"""JupyterLab's dark theme: the figure follows it. A PNG cannot change its own colours, so the
panel carries a rule (`style.DARK_CSS`) that turns the figure's image when Lab says its theme
is dark; the figure's background is transparent, so Lab's own shows through. Checked here in
Lab set to "JupyterLab Dark" (a temporary settings folder), with a screenshot to look at."""

from __future__ import annotations

import io

import nbformat
import pytest
from matplotlib.colors import to_hex
from conftest import LAB_SETTINGS, running_lab

from emqsim.figures import style

OPEN_MS = 90_000
THEME = {"@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": "JupyterLab Dark"}}
CELL = ('from emqsim.figures import catalogue\ncatalogue.figure("03 slip over cycles").panel()')
#: a figure with questions, for their feedback
ASK_CELL = 'from emqsim.figures import catalogue\ncatalogue.figure("04 missed slots").panel()'


@pytest.fixture(scope="module")
def dark_lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab-dark")
    root = tmp / "notebooks"
    root.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "dark.ipynb")
    nb.cells = [nbformat.v4.new_code_cell(ASK_CELL)]
    nbformat.write(nb, root / "ask.ipynb")
    with running_lab(tmp, root, {**LAB_SETTINGS, **THEME}) as server:
        yield server


def _run_first_cell(page, url: str) -> None:
    """Open `url` in the dark Lab, wait for its kernel, and run the notebook's first cell."""
    page.goto(url, timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=OPEN_MS)
    # the kernel answers (the toolbar says idle before it has started; the status bar only after)
    page.wait_for_function(
        r"""() => [...document.querySelectorAll('.jp-StatusBar-Item')]
                 .some(e => /\|\s*Idle$/.test(e.textContent.trim()))""", timeout=OPEN_MS)
    page.locator(".jp-Notebook .jp-CodeCell").first.click()
    page.keyboard.press("Shift+Enter")


def test_figure_follows_the_dark_theme(dark_lab, page, artifacts):
    from PIL import Image

    _run_first_cell(page, dark_lab.url("/lab/tree/dark.ipynb?reset"))
    try:
        img = page.wait_for_selector(f"img.widget-image.{style.FIGURE_CLASS}", timeout=OPEN_MS)
    except Exception:
        page.screenshot(path=artifacts / "lab-dark-failed.png")
        raise
    page.wait_for_timeout(500)
    # the theme's background is the one the contrast rule measures text against
    background = page.evaluate(
        "() => getComputedStyle(document.body).getPropertyValue('--jp-layout-color0').trim().toLowerCase()")
    assert to_hex(background) == to_hex(style.DARK_BG)
    assert img.evaluate("e => getComputedStyle(e).filter") == style.DARK_FILTER
    page.screenshot(path=artifacts / "lab-dark.png")
    shot = Image.open(io.BytesIO(img.screenshot(path=artifacts / "lab-dark-figure.png"))).convert("L")
    pixels = list(shot.getdata())
    dark = sum(p < 60 for p in pixels) / len(pixels)
    light = sum(p > 170 for p in pixels) / len(pixels)
    # mostly Lab's dark background, with light text and marks on it (a white slab was ~0 dark)
    assert dark > 0.7 and light > 0.005


def test_feedback_and_challenge_read_on_the_dark_theme(dark_lab, page, artifacts):
    """The challenge line and a question's feedback at least 4.5:1 on Lab's dark background
    (the panel's fixed #333 and green were written for a white one: 1.5:1 and 3.7:1 there)."""
    from test_site_student import MIN_CONTRAST, contrast_of

    _run_first_cell(page, dark_lab.url("/lab/tree/ask.ipynb?reset"))
    line = page.wait_for_selector(".emqsim-challenge [role=status]", timeout=OPEN_MS)
    page.wait_for_timeout(300)
    low = {"challenge": contrast_of(line)}
    box = page.locator(".emqsim-question").first
    box.locator("input[type=radio]").first.check()
    box.locator(".emqsim-check").click()
    out = page.wait_for_selector(".emqsim-feedback [role=status][style]", timeout=OPEN_MS)
    low["feedback"] = contrast_of(out)
    page.screenshot(path=artifacts / "lab-dark-feedback.png")
    assert {k: round(v, 2) for k, v in low.items() if v < MIN_CONTRAST} == {}
