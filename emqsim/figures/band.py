"""A shaded span of time (a pump's down time, the part of a plot past its window), drawn so it
reads on the light page and under the dark theme's filter.

A grey face alone does not: grey at a sixth's alpha over white is a near-white that the
site's palette merges into white, and a quarter's that `style.DARK_FILTER` turns near-black,
the dark page's own colour (issue 30). So the face is a little stronger and the span has grey
edges, mid grey in both themes. Hatching read as well but made each site frame a seventh
larger, past the site's budget.
"""

from __future__ import annotations

from matplotlib.colors import to_rgba

from .style import GREY

#: the face's alpha over the page, and the edges' width in points
FACE, EDGE = 0.3, 0.8
#: a stronger face, for a span the reader reads marks against (04's pump down, 07's repeated
#: hour): at `FACE` the face stood 1.3:1 from the page in each theme, and near black, under the
#: dark filter, that read as no shade at all (issue 30); at this alpha it stands over 1.5:1 on
#: the light page, the site's dark one and Lab's, and 04's grey squares inside it still read
#: (1.9:1, light)
READ_FACE = 0.45
#: a text over a span stands on a box of the page's colour: the face under it would take its
#: contrast below the text's minimum (the filter turns the box with the page)
TEXT_BOX = {"boxstyle": "square,pad=0.1", "facecolor": "white", "edgecolor": "none"}


def span(ax, x0: float, x1: float, face: float = FACE, **kw):
    """A shaded span from `x0` to `x1` across `ax`'s height (matplotlib's `axvspan`), its face
    at alpha `face`."""
    return ax.axvspan(x0, x1, facecolor=to_rgba(GREY, face), edgecolor=GREY, lw=EDGE, **kw)
