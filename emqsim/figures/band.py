"""A shaded span of time (a pump's down time, the part of a plot past its window), drawn so it
reads on the light page and under the dark theme's filter.

A grey face alone does not: grey at a quarter's alpha over white is a near-white that the
site's palette merges into white, and that `style.DARK_FILTER` turns near-black, the dark
page's own colour (issue 30). So the face is joined by grey hatching, mid grey in both themes.
"""

from __future__ import annotations

from matplotlib.colors import to_rgba

from .style import GREY

#: the face's and the hatching's alpha over the page, and the hatch's pattern
FACE, LINES, HATCH = 0.2, 0.7, "//"
#: the other way, where a figure's own hatching (05's cancelled runs, "///") leans this one
OTHER = "\\\\"
#: a text over a span stands on a box of the page's colour, so no hatch line runs through it
#: (the filter turns the box with the page)
TEXT_BOX = {"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"}


def span(ax, x0: float, x1: float, hatch: str = HATCH, **kw):
    """A shaded span from `x0` to `x1` across `ax`'s height (matplotlib's `axvspan`)."""
    return ax.axvspan(x0, x1, facecolor=to_rgba(GREY, FACE), edgecolor=to_rgba(GREY, LINES), hatch=hatch, lw=0, **kw)
