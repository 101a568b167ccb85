"""JupyterLab's dark theme: the figure follows it. A PNG cannot change its own colours, so the
panel carries a rule (`style.DARK_CSS`) that turns the figure's image when Lab says its theme
is dark; the figure's background is transparent, so Lab's own shows through. Checked here in
Lab set to "JupyterLab Dark" (a temporary settings folder), with a screenshot to look at."""

from __future__ import annotations

import io
import json
import os
import secrets
import subprocess

import nbformat
import pytest
from matplotlib.colors import to_hex
from conftest import BIN, PROJECT_LAB_SETTINGS, LAB_SETTINGS, Server, free_port, stop, wait_http

from emqsim.figures import style

OPEN_MS = 90_000
THEME = {"@jupyterlab/apputils-extension/themes.jupyterlab-settings": {"theme": "JupyterLab Dark"}}
CELL = 'from emqsim.figures import catalogue\ncatalogue.figure("03 slip over cycles").panel()'


@pytest.fixture(scope="module")
def dark_lab(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("lab-dark")
    root = tmp / "notebooks"
    root.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(CELL)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, root / "dark.ipynb")
    settings = tmp / "settings"
    for name, values in {**LAB_SETTINGS, **THEME}.items():
        (settings / name).parent.mkdir(parents=True, exist_ok=True)
        (settings / name).write_text(json.dumps(values))
    port, token = free_port(), secrets.token_hex(16)
    cmd = [str(BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
           f"--LabApp.app_settings_dir={PROJECT_LAB_SETTINGS}", "--ServerApp.port_retries=0"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = tmp / "lab.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=root, stdin=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", proc, log)
        yield Server(f"http://127.0.0.1:{port}", token, root, log)
    finally:
        stop(proc)


def test_figure_follows_the_dark_theme(dark_lab, page, artifacts):
    from PIL import Image

    page.goto(dark_lab.url("/lab/tree/dark.ipynb?reset"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=OPEN_MS)
    # the kernel answers (the toolbar says idle before it has started; the status bar only after)
    page.wait_for_function(
        r"""() => [...document.querySelectorAll('.jp-StatusBar-Item')]
                 .some(e => /\|\s*Idle$/.test(e.textContent.trim()))""", timeout=OPEN_MS)
    page.locator(".jp-Notebook .jp-CodeCell").first.click()
    page.keyboard.press("Shift+Enter")
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
