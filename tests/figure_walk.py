"""What the figure tests walk: each figure of the catalogue at the positions the static site
renders (a deterministic sample when there are many), and the text each frame draws.

Used by test_figure_text.py (overlap, clipping, size), test_colour.py (contrast, colour
blindness) and test_describe.py."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from matplotlib.text import Text  # noqa: E402

from emqsim.figures import catalogue, style  # noqa: E402

#: frames per figure at most: every position when fewer, else evenly spaced ones, the first
#: and last included (the site's own list, `model.reachable()`, is the source)
SAMPLE = 24


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


def drawn_texts(fig) -> list[Text]:
    """Every text a rendering of `fig` shows: visible, not blank, tick labels only for the
    ticks the axis draws. Call after `fig.canvas.draw()`."""
    ticks: set[int] = set()
    skip: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                skip.update((id(tick.label1), id(tick.label2)))
            if not axis.get_visible():      # a twin's shared axis draws nothing
                continue
            for tick in axis._update_ticks():
                for label in (tick.label1, tick.label2):
                    if tick.get_visible() and label.get_visible():
                        ticks.add(id(label))
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip():
            continue
        if id(t) in skip and id(t) not in ticks:
            continue
        if _hidden(t):
            continue
        out.append(t)
    return out


def _hidden(artist) -> bool:
    """True when an artist's parents (a legend, an axis) are hidden."""
    parent = getattr(artist, "axes", None)
    if parent is not None and not parent.get_visible():
        return True
    return False


def render(title: str, values: dict, *, presenter: bool = False, layout: str = "normal"):
    """The figure `title` at `values`, drawn: (Figure, renderer)."""
    style.present(presenter)
    try:
        fig = catalogue.figure(title, layout=layout) if layout != "normal" else catalogue.figure(title)
        fig.update(**values)
        canvas = fig.view.ax.figure.canvas
        canvas.draw()
        for artist in fig.live.moving:    # animated artists are left out of canvas.draw
            artist.set_animated(False)
        canvas.draw()
        return fig, canvas.get_renderer()
    finally:
        style.present(False)
