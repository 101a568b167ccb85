"""The step-by-step view: its text lines drawn from cached glyphs, pixel for pixel what plain text draws.

Issue 29 asks every figure move to take at most 100 ms at the 95th percentile; the step figures
spent about 90% of a move rasterising the same glyphs again. These tests hold the two things the
cache must keep: the picture (every pixel, at every position of a walk, both layouts) and the
saving (a position drawn again rasterises nothing)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.backends.backend_agg import RendererAgg  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402
from tests.figure_walk import positions  # noqa: E402

TITLES = ("03 the marker, step by step", "02 the keys, step by step")


def _pixels(fig) -> np.ndarray:
    fig.png()
    return np.asarray(fig.view.ax.figure.canvas.buffer_rgba()).copy()


def _walk(title: str, layout: str) -> list[np.ndarray]:
    fig = catalogue.figure(title, layout=layout)
    out = [_pixels(fig)]
    for values in positions(title, 8):
        fig.update(**values)
        out.append(_pixels(fig))
    return out


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_cached_text_draws_the_pixels_plain_text_draws(title, layout, monkeypatch):
    cached = _walk(title, layout)
    from emqsim.figures import glyphs

    monkeypatch.setattr(glyphs.CachedText, "draw", Text.draw)
    plain = _walk(title, layout)
    assert len(cached) == len(plain)
    for i, (a, b) in enumerate(zip(cached, plain)):
        assert a.shape == b.shape
        assert np.array_equal(a, b), f"frame {i}: {int((a != b).any(axis=2).sum())} pixels differ"


def _rasterised(monkeypatch) -> dict:
    """A running count of glyphs rasterised: by Agg's own text path and by the glyph cache."""
    count = {"agg": 0}
    original = RendererAgg._draw_text_glyphs_and_boxes

    def counting(self, gc, x, y, angle, glyphs, boxes):
        glyphs = list(glyphs)
        count["agg"] += len(glyphs)
        return original(self, gc, x, y, angle, glyphs, boxes)

    monkeypatch.setattr(RendererAgg, "_draw_text_glyphs_and_boxes", counting)
    return count


def _total(count) -> int:
    try:
        from emqsim.figures import glyphs
    except ImportError:
        return count["agg"]
    return count["agg"] + glyphs.stats["rasterised"]


def test_a_position_drawn_again_rasterises_no_glyph(monkeypatch):
    title = TITLES[0]
    fig = catalogue.figure(title)
    walk = positions(title, 12)
    for values in walk:
        fig.update(**values)
        fig.png()
    count = _rasterised(monkeypatch)
    before = _total(count)
    for values in reversed(walk):
        fig.update(**values)
        fig.png()
    assert _total(count) - before == 0


def test_a_layout_without_painting_leaves_the_renderer_as_it_found_it():
    """`Figure.draw_without_rendering` swaps the renderer's draw_text for a no-op and puts the
    method back after: the cached text must not take it away in between."""
    fig = catalogue.figure(TITLES[0])
    f = fig.view.ax.figure
    for artist in fig.live.moving:
        artist.set_animated(False)
    f.draw_without_rendering()
    f.draw_without_rendering()
    assert "draw_text" not in vars(f.canvas.get_renderer())


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_no_line_is_cut(title, layout):
    """Issue 30: the keys figure's lines were cut with "…" (the script's name and role, comments,
    the lit line, the call, key names, values): on a phone first, then still on the desktop,
    where 02's call `HSET emq:{demo}:repeat:reports rule schedule …` lost its fields. At every
    slider position, in both layouts, each frame wraps them instead: no drawn line ends cut, the
    lit line, the call and the reply show whole, and every line stays inside the figure's width
    (a column wraps inside itself, never into the other)."""
    from tests.figure_walk import every_frame, model as walked_model

    found = []
    for values, v, renderer in every_frame(title, layout):
        f = v.ax.figure
        lines = [t for t in v.src_lines + v.key_lines if t.get_text()]
        for t in lines:
            if t.get_window_extent(renderer).x1 > f.bbox.x1:
                found.append(("leaves the figure", t.get_text(), values))
        cut = [t.get_text() for t in lines if t.get_text().endswith("…")]
        if cut:
            found.append(("cut", cut[0], values))
        shown = "".join("".join(t.get_text().split()) for t in lines)
        frame = walked_model(title).frame(**values)
        if frame.step:
            lit = dict(frame.source)[frame.lit]
            for what, text in (("call", frame.command), ("reply", str(frame.reply)), ("lit line", lit)):
                if "".join(text.split()) not in shown:
                    found.append((f"{what} not whole", text[:40], values))
    assert found == []


def test_the_unlit_code_reads_at_the_enhanced_contrast():
    """Issue 30: on the desktop the keys figure's code, small grey monospace, read pale at
    ink()'s 4.5:1. The unlit lines now stand at 7:1 on the light background and, turned, on the
    dark one, and stay lighter than the lit line's colour."""
    from emqsim.figures import script_steps as view
    from emqsim.figures.style import DARK_BG, LIGHT_BG, contrast, dark

    assert contrast(view.SOFT, LIGHT_BG) >= 7.0 and contrast(dark(view.SOFT), DARK_BG) >= 7.0
    assert contrast(view.SOFT, LIGHT_BG) < contrast(view.PLAIN, LIGHT_BG)


@pytest.mark.parametrize("title", TITLES)
def test_no_blank_band_under_a_narrow_step(title):
    """Issue 30: on a phone a step with few keys (02's first call: "keys of the queue: none
    yet") left about a third of the figure blank under its last line, pushing the questions
    far down. At every slider position the source now takes the rows the keys leave, so the
    band under the lowest drawn line is at most 8% of the figure's height, and the keys still
    come whole where they fit."""
    from tests.figure_walk import every_frame

    found = []
    for values, v, renderer in every_frame(title, "narrow"):
        f = v.ax.figure
        drawn = [t.get_window_extent(renderer).y0 for t in v.src_lines if t.get_text()]
        blank = (min(drawn) - f.bbox.y0) / f.bbox.height
        if blank > 0.08:
            found.append((round(blank, 3), values))
    assert found == []
