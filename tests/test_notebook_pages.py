"""How each notebook page is laid out: a Summary and the way on at its end, each live figure shown
once, and after Run All every panel at the defaults its prose describes.

Read from the committed notebooks (sources and stored outputs), so no kernel is needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from test_notebook_words import body  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def _figure(cell: dict) -> str | None:
    meta = cell.get("metadata", {}).get("emqsim")
    return meta.get("figure") if cell["cell_type"] == "code" and isinstance(meta, dict) else None


def _images(cell: dict) -> int:
    return sum("image/png" in out.get("data", {}) for out in cell.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_ends_with_a_summary_and_a_link_to_the_next(path):
    cells = _cells(path)
    summary = _text(cells[-2])
    assert cells[-2]["cell_type"] == "markdown" and summary.startswith("## Summary\n"), \
        f"{path.name}: the cell before Sources is not '## Summary'"
    bullets = re.findall(r"^- ", body(summary), re.M)   # the recap in full may sit folded below
    assert 3 <= len(bullets) <= 5, f"{path.name}: its Summary has {len(bullets)} bullets, not 3 to 5"
    i = NOTEBOOKS.index(path)
    nxt = NOTEBOOKS[(i + 1) % len(NOTEBOOKS)].name   # the last one leads back to the start
    assert re.search(rf"\]\({re.escape(nxt)}\)", summary), f"{path.name}: its Summary does not link to {nxt}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_live_figure_shows_once(path):
    """A panel cell holds one output: the widget, with the figure as PNG beside it for a reader
    without a kernel (the site puts its player there); no other cell shows a still copy."""
    for cell in _cells(path):
        if cell["cell_type"] != "code":
            continue
        if _figure(cell):
            outs = cell.get("outputs", [])
            assert len(outs) == 1 and WIDGET_VIEW in outs[0].get("data", {}) and _images(cell) == 1, \
                f"{path.name} {cell['id']}: a panel cell should hold one widget output with its PNG"
        else:
            assert _images(cell) == 0, f"{path.name} {cell['id']}: a still copy of a figure outside its panel"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_moves_a_live_figure(path):
    """Printed examples come from the model (`model.frame(...)`), so after Run All each panel
    still shows its defaults, the state the prose around it describes."""
    cells = _cells(path)
    names = set()
    for cell in cells:
        if cell["cell_type"] == "code":
            names |= set(re.findall(r"^(\w+)\s*=\s*catalogue\.figure\(", _text(cell), re.M))
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for name in names:
            assert not re.search(rf"\b{name}\.(update|panel\(\)\.widgets)\b|\b{name}\.values\[", _text(cell)), \
                f"{path.name} {cell['id']}: moves the live figure {name!r}"
        assert not re.search(r"\.widgets\[[^]]+\]\.value\s*=", _text(cell)), \
            f"{path.name} {cell['id']}: sets a panel's control"


def test_a_panel_displays_as_its_widget_with_the_figure_beside_it():
    import base64

    from emqsim.figures import catalogue

    fig = catalogue.figure("03 wake latency")
    data = fig.panel()._repr_mimebundle_()
    assert set(data) == {"text/plain", WIDGET_VIEW, "image/png"}
    assert base64.b64decode(data["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"
