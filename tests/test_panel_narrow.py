"""A figure's panel on a phone (issue 30, item 8): Lab and Voila showed the desktop picture
shrunk. The browser says through the panel's hidden checkbox that the panel's box is narrow;
the panel then draws its figure in the narrow layout (a twin of the figure over the same
model), and only that layout on each move, so a move costs one rendering as before."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

pytest.importorskip("ipywidgets")

from PIL import Image  # noqa: E402

from emqsim.figures import catalogue, controls  # noqa: E402
from emqsim.site import player  # noqa: E402

TITLE = "02 watch a job move"


def size(png: bytes) -> tuple[int, int]:
    return Image.open(io.BytesIO(png)).size


def narrow_px(title: str) -> int:
    """The narrow layout's width in pixels as a kernel draws it."""
    width_in = catalogue.figure(title, layout="narrow").view.ax.figure.get_figwidth()
    return round(width_in * controls.KERNEL_NARROW_DPI)


def test_a_narrow_panel_shows_the_narrow_layout_and_draws_only_it():
    fig = catalogue.figure(TITLE)
    panel = fig.panel()
    normal = size(fig.live.image.value)
    assert panel._twin is None                       # a wide panel never draws the narrow layout
    assert normal[0] == round(fig.view.ax.figure.get_figwidth() * fig.view.ax.figure.dpi)

    panel.narrow.value = True                       # the browser's click: the box is narrow
    assert size(fig.live.image.value)[0] == narrow_px(TITLE) != normal[0]
    slider = panel.widgets["step"]
    before = fig.live.image.value
    slider.value = slider.options[3][1]             # a move draws the narrow layout of the new frame
    twin = panel.twin()
    assert twin.values == fig.values and twin.frame is fig.frame
    assert fig.live.image.value != before and size(fig.live.image.value)[0] == narrow_px(TITLE)

    panel.narrow.value = False                      # wide again: the normal layout, same frame
    assert size(fig.live.image.value) == normal
    panel.close()
    assert panel._twin is None


def test_the_panel_watches_its_width_at_the_sites_phone_width():
    fig = catalogue.figure(TITLE)
    panel = fig.panel()
    assert controls.PANEL_CLASS in panel.box._dom_classes
    assert controls.NARROW_CLASS in panel.narrow._dom_classes and panel.narrow.layout.display == "none"
    watcher = next(k for k in panel.box.children if "ResizeObserver" in getattr(k, "value", ""))
    assert f"&lt;={controls.NARROW_PX})" in watcher.value and controls.NARROW_CLASS in watcher.value
    # the same width as the static site's phone frames
    assert player.NARROW_MEDIA == f"(max-width: {controls.NARROW_PX}px)"
    panel.close()


def test_the_narrow_twin_places_its_texts_at_the_resolution_it_is_shown_at():
    """05's head ("... each run takes") and its value are placed by measuring the head: measured
    at one resolution and drawn at the kernel's narrow one, they overlapped ("takes10 min" in
    Voila on a phone). The value starts at least 2 px after the head, as drawn."""
    panel = catalogue.figure("05 an overlapping run").panel()
    panel.narrow.value = True
    view = panel.twin().view
    fig = view.ax.figure
    assert fig.dpi == controls.KERNEL_NARROW_DPI
    renderer = fig.canvas.get_renderer()
    head, value = (t.get_window_extent(renderer=renderer) for t in (view._head, view._title))
    assert view._head.get_text().endswith("takes") and view._title.get_text().endswith("min")
    assert value.x0 - head.x1 >= 2, (head.x1, value.x0)
    panel.close()
