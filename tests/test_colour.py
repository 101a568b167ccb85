"""Colour every reader tells apart: each figure's text reads at WCAG's 4.5:1 on JupyterLab's
light background and, turned by the dark theme's filter, on its dark one; and no two series
in one axes are told apart by colour alone where a colour-blind reader sees them alike.

Colour blindness is simulated with Machado, Oliveira and Fernandes (2009), severity 1.0,
applied to linear RGB; "alike" is a CIELAB distance under CLOSE (the palette's closest pair
for normal vision is about 30 apart)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from figure_walk import drawn_texts, positions, render
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_hex, to_rgb, to_rgba
from matplotlib.lines import Line2D

from emqsim.figures import catalogue, style

TITLES = list(catalogue.SOURCES)
#: Machado et al. 2009, full severity
MACHADO = {
    "protanopia": np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
}
CLOSE = 20.0
#: frames per figure for the colour walks (colours do not change with size)
SAMPLE = 10


def _linear(rgb):
    c = np.asarray(rgb, dtype=float)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def _lab(linear):
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ linear
    xyz = xyz / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def seen_as(colour, kind: str):
    """CIELAB of `colour` as a reader with `kind` of colour blindness sees it."""
    return _lab(np.clip(MACHADO[kind] @ _linear(to_rgb(colour)), 0.0, 1.0))


def alike(a, b, kind: str) -> bool:
    return float(np.linalg.norm(seen_as(a, kind) - seen_as(b, kind))) < CLOSE


# -- contrast -------------------------------------------------------------------------------


def test_contrast_rule_itself():
    # the palette's orange as text was 2.25:1 on white; its ink is the same hue, darker
    assert round(style.contrast(style.ORANGE, style.LIGHT_BG), 2) == 2.25
    assert style.ink(style.ORANGE) == "#9C6C00"
    assert round(style.contrast("#9C6C00", style.LIGHT_BG), 2) == 4.61
    assert style.contrast(style.dark(style.ink(style.ORANGE)), style.DARK_BG) >= 4.5
    # the dark filter turns white to black and keeps a blue blue
    assert style.dark("#FFFFFF") == "#000000" and style.dark("#000000") == "#ffffff"
    r, g, b = to_rgb(style.dark(style.BLUE))
    assert b > r and b > g


def _text_colours(fig) -> set[tuple]:
    """(colour as seen, background it sits on) for every text the figure draws."""
    out = set()
    for t in drawn_texts(fig):
        rgba = to_rgba(t.get_color(), t.get_alpha())
        patch = t.get_bbox_patch()
        bg = to_rgb(patch.get_facecolor()) if patch is not None and patch.get_facecolor()[3] > 0.5 else None
        out.add((to_hex(rgba, keep_alpha=True), None if bg is None else to_hex(bg), t.get_text()[:40]))
    return out


def _on(colour: str, bg) -> float:
    """Contrast of a possibly translucent colour drawn over `bg`."""
    r, g, b, a = to_rgba(colour)
    over = np.array(to_rgb(bg))
    return style.contrast(tuple(a * np.array([r, g, b]) + (1 - a) * over), bg)


@pytest.mark.parametrize("title", TITLES)
def test_every_text_reads_on_light_and_dark(title):
    bad = []
    for values in positions(title, SAMPLE):
        fig, _ = render(title, values)
        for colour, box, text in _text_colours(fig.view.ax.figure):
            light = box or style.LIGHT_BG
            darkbg = style.dark(box) if box else style.DARK_BG
            for name, bg, c in (("light", light, colour), ("dark", darkbg, style.dark(colour[:7]) + colour[7:])):
                ratio = _on(c, bg)
                if ratio < style.MIN_CONTRAST:
                    bad.append((name, text, colour, round(ratio, 2)))
    assert sorted(set(bad)) == []


# -- colour blindness ----------------------------------------------------------------------


def _series(ax) -> list[tuple]:
    """(name, colour, marker, line style) for every series drawn in `ax` with data."""
    out = []
    for line in ax.get_lines():
        if not line.get_visible() or len(np.atleast_1d(line.get_xdata())) == 0:
            continue
        marker = str(line.get_marker())
        marker = "none" if marker in ("None", "none", "", " ") else (marker, line.get_fillstyle()
                                                                      if to_rgba(line.get_markerfacecolor())[3] else "hollow")
        ls = str(line.get_linestyle())
        ls = "none" if ls in ("None", "none", "", " ") else ls
        out.append((line.get_label(), to_hex(line.get_color()), marker, ls))
    for c in ax.collections:
        if not c.get_visible():
            continue
        if isinstance(c, PathCollection) and len(c.get_offsets()):
            face = c.get_facecolor()
            filled = len(face) and face[0][3] > 0
            colour = face[0] if filled else c.get_edgecolor()[0]
            path = c.get_paths()[0]
            out.append((c.get_label(), to_hex(colour), (np.round(path.vertices, 2).tobytes(), bool(filled)), "none"))
        elif isinstance(c, LineCollection) and len(c.get_segments()):
            offset, dashes = c.get_linestyle()[0]
            out.append((c.get_label(), to_hex(c.get_color()[0]), "none", repr(dashes)))
    return out


def _confusable(fig) -> list[tuple]:
    found = []
    for ax in fig.axes:
        for a, b in itertools.combinations(_series(ax), 2):
            if a[2:] != b[2:] or a[1] == b[1]:   # told apart by marker or dash, or one series
                continue
            for kind in MACHADO:
                if alike(a[1], b[1], kind):
                    found.append((kind, a[0], a[1], b[0], b[1]))
    return found


def test_simulation_sees_the_old_overlap_lines_alike():
    # 05's skip (green) and replace (pink) lines: distinct hues, one grey under deuteranopia
    assert alike(style.GREEN, style.PURPLE, "deuteranopia")
    assert not alike(style.BLUE, style.VERMILLION, "deuteranopia")


@pytest.mark.parametrize("title", TITLES)
def test_no_two_series_differ_by_colour_alone(title):
    found = set()
    for values in positions(title, SAMPLE):
        fig, _ = render(title, values)
        found.update(_confusable(fig.view.ax.figure))
    assert sorted(found) == []


def test_the_panel_carries_the_dark_rule_and_the_figure_its_class():
    fig = catalogue.figure("03 wake latency")
    panel = fig.panel()
    kids = list(panel.box.children)
    at = kids.index(fig.live.image)
    assert style.FIGURE_CLASS in fig.live.image._dom_classes
    assert kids[at - 1].value == f"<style>{style.DARK_CSS}</style>"
    assert style.DARK_CSS == ("body[data-jp-theme-light='false'] .emqsim-figure img, "
                              "body[data-jp-theme-light='false'] img.emqsim-figure "
                              "{ filter: invert(1) hue-rotate(180deg); }")
    # transparent: Lab's own background shows through, light or dark
    assert fig.view.ax.figure.patch.get_alpha() == 0.0
