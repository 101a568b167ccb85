"""What the figure tests walk: each figure of the catalogue at the positions the static site
renders (a deterministic sample when there are many), and the text and series each frame draws.

`walk` renders a figure's sample once per process, in a size and layout, and keeps what the
checks read (texts with their boxes and colours, series with their marks): the overlap and
clipping check (test_figure_text.py) and the colour checks (test_colour.py) share it, and
test_describe.py uses `render`."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import functools  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402
from matplotlib.collections import LineCollection, PathCollection  # noqa: E402
from matplotlib.colors import to_hex, to_rgb, to_rgba  # noqa: E402

from emqsim.figures import catalogue, style  # noqa: E402
from emqsim.figures.view import drawn_texts  # noqa: E402,F401  (the walks' texts: the build's own rule)

#: frames per figure at most: every position when fewer, else evenly spaced ones, the first
#: and last included (the site's own list, `model.reachable()`, is the source)
SAMPLE = 24
#: frames per figure for the text and colour walks
WALK = 12


def positions(title: str, sample: int = SAMPLE) -> list[dict]:
    """The value sets the site renders for `title`, evenly sampled down to `sample`, the
    defaults always among them."""
    model = catalogue.model(title)
    every, _ = model.reachable()
    if len(every) > sample:
        step = (len(every) - 1) / (sample - 1)
        every = [every[round(i * step)] for i in range(sample)]
    defaults = model.defaults()
    return every if defaults in every else [defaults, *every]


@dataclass(frozen=True)
class Drawn:
    """A text as a frame shows it: its string, its box in pixels, its colour (with alpha, as
    hex), the colour of the box drawn behind it (None without one) and its size in points."""

    text: str
    box: tuple[float, float, float, float]
    colour: str
    background: str | None
    size: float

    @classmethod
    def of(cls, t, renderer) -> "Drawn":
        b = t.get_window_extent(renderer)
        patch = t.get_bbox_patch()
        bg = to_rgb(patch.get_facecolor()) if patch is not None and patch.get_facecolor()[3] > 0.5 else None
        return cls(t.get_text(), (b.x0, b.y0, b.x1, b.y1), to_hex(to_rgba(t.get_color(), t.get_alpha()), keep_alpha=True),
                   None if bg is None else to_hex(bg), t.get_fontsize())


def series(fig) -> tuple:
    """Per Axes, (name, colour, marker, line style) of every series drawn in it with data:
    what tells two series apart besides their colour."""
    return tuple(tuple(_series(ax)) for ax in fig.axes)


def _series(ax) -> list[tuple]:
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


@functools.lru_cache(maxsize=None)
def model(title: str):
    """One model per title for every size and layout: a frame is data, the same whatever draws
    it, so the walks of a figure at three sizes compute each frame once."""
    return catalogue.model(title)


@functools.lru_cache(maxsize=None)
def _figure(title: str, presenter: bool, layout: str):
    """One figure per title, size and layout, moved from frame to frame as the site moves its
    own (so a walk builds each view once, on the title's one model)."""
    style.present(presenter)
    try:
        fig = catalogue.figure(title, model(title), layout=layout)
    finally:
        style.present(False)
    for artist in fig.live.moving:    # animated artists are left out of canvas.draw
        artist.set_animated(False)
    return fig


def render(title: str, values: dict, *, presenter: bool = False, layout: str = "normal", pixels: bool = False):
    """The figure `title` at `values`, laid out: (Figure, renderer). The same Figure object comes
    back for every call with the same title, size and layout: use it before the next call.

    The checks read artists (texts, their boxes and colours, series), not pixels, so by default
    the draw runs with the renderer's painting switched off (`draw_without_rendering`: the same
    layout and draw callbacks, half the time); `pixels=True` paints as `canvas.draw` does.
    test_figure_text holds the two to the same boxes."""
    fig = _figure(title, presenter, layout)
    style.present(presenter)
    try:
        fig.update(**values)
        f = fig.view.ax.figure
        if pixels:
            f.canvas.draw()
        else:
            f.draw_without_rendering()
        return fig, f.canvas.get_renderer()
    finally:
        style.present(False)


def every_frame(title: str, layout: str = "normal"):
    """Every reachable position of the figure `title` (every slider stop, not a sample), laid
    out in `layout`: yields (values, the figure's view, renderer), the checks that must hold
    at each stop (a label on a mark, a mark cut at the edge, a line cut) reading the view.
    Not cached: a cached generator is spent after its first walk, and a second test walking
    the same figure would check nothing."""
    every, _ = catalogue.model(title).reachable()
    assert every, f"{title}: no position to walk"
    for values in every:
        fig, renderer = render(title, values, layout=layout)
        yield values, fig.view, renderer


def walk(title: str, presenter: bool = False, layout: str = "normal", sample: int = WALK) -> tuple:
    """What each test reads off the frames at `positions(title, sample)`, rendered once per
    process for every test that asks: per frame (values, texts), each text a `Drawn`."""
    out = []
    for values in positions(title, sample):
        fig, renderer = render(title, values, presenter=presenter, layout=layout)
        f = fig.view.ax.figure
        out.append((values, tuple(Drawn.of(t, renderer) for t in drawn_texts(f)), (f.bbox.width, f.bbox.height),
                    series(f)))
    return tuple(out)
