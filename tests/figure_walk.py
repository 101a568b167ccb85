"""What the figure tests walk: each figure of the catalogue at the positions the static site
renders (a deterministic sample when there are many), and the text each frame draws.

Used by test_figure_text.py (overlap, clipping, size), test_colour.py (contrast, colour
blindness) and test_describe.py."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from emqsim.figures import catalogue, style  # noqa: E402
from emqsim.figures.view import drawn_texts  # noqa: E402,F401  (the walks' texts: the build's own rule)

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
