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


@pytest.mark.parametrize("text,n", [
    (" " * 44 + "eventStreamKey, prefix, timestamp, priorityCounterKey, isPaused)", 42),
    (" " * 12 + "local jobs = rcall(\"ZRANGEBYSCORE\", delayedKey, 0, (timestamp + 1) * 0x1000", 30),
    ("    if (#jobs > 0) then", 12),
])
def test_a_wrapped_line_breaks_no_word_shorter_than_its_row(text, n):
    """The reader's read of 03 (issue 30): a deep continuation line drew `eventSt` / `reamKey`.
    Every word that fits in a third of a row stays whole, and every row stays within `n`."""
    from emqsim.figures.script_steps import _wrap

    rows = _wrap(text, n)
    assert all(len(r) <= n for r in rows)
    assert [w for r in rows for w in r.split()] == text.split()


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


#: the empty rows a phone's step figure may leave under its last line: a source line wrapped
#: over three rows (03's and 02's step 25, where the HMGET's key is opened) cannot take two
BLANK_ROWS = 2


@pytest.mark.parametrize("title", TITLES)
def test_no_blank_band_under_a_narrow_step(title):
    """Issue 30: on a phone a step with few keys (02's first call: "keys of the queue: none
    yet") left about a third of the figure blank under its last line (11 of its 35 rows),
    pushing the questions far down. At every slider position the source now takes the rows the
    keys leave, so at most `BLANK_ROWS` rows stand empty under the last drawn line (fewer than
    one more source line, wrapped, would take), and the keys still come whole where they fit."""
    from tests.figure_walk import every_frame

    found = []
    for values, v, _ in every_frame(title, "narrow"):
        texts = [t.get_text() for t in v.src_lines]
        blank = len(texts) - max(i + 1 for i, t in enumerate(texts) if t)
        if blank > BLANK_ROWS:
            found.append((blank, values))
    assert found == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_a_key_the_call_names_is_opened_though_unchanged(title, layout):
    """Issue 30, a student's read: 03's first marker question asks how many members the take's
    ZADD adds, and its Show me lands on that call (`ZADD bull:demo:marker 0 0`), which changes
    nothing; the figure opened only changed keys, so the marker stood closed and its one member
    unseen. At every step whose call names an unchanged key, the key's name is followed by its
    first entry (or by the column's "… more lines", when the column is full)."""
    from emqsim.figures.script_steps import _prefix, _short
    from tests.figure_walk import every_frame, model as walked_model

    closed, seen = [], 0
    for values, v, _ in every_frame(title, layout):
        frame = walked_model(title).frame(**values)
        rows = [text for text, _ in v._key_rows(frame)]
        for k in frame.keys:
            if k.key not in frame.command.split()[1:] or k.state != "same" or not k.entries:
                continue
            name = _short(k.key, _prefix(frame.keys))
            head = next((i for i, r in enumerate(rows) if r.split()[:1] == [name]), None)
            if head is None:
                continue
            head += 1
            while head < len(rows) and "(" not in rows[head] and rows[head].endswith(")"):
                head += 1   # the rest of a wrapped name line: "  entries)"
            if head == len(rows) or rows[head].lstrip().startswith("…"):
                continue
            seen += 1
            first = k.entries[0]
            if rows[head].split()[:1] != [first.name or "value"]:   # "   0 = 0", unmarked
                closed.append((values.get("step"), k.key, rows[head]))
    assert seen and closed == []
