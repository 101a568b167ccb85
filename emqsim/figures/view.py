"""A view and its model, paired: the state a notebook cell moves, drawn after each move.

A view makes its artists on an Axes once and `draw(frame)` updates the ones that moved;
it computes nothing. `Figure` keeps the control values a reader has set, asks the model
for the frame, hands it to the view and returns the readout, so a notebook cell, the panel,
the static site and a test all go the same way: values -> model.frame -> view.draw.
"""

from __future__ import annotations

from .live import Live
from .style import NARROW_WIDTH, legible, narrow, new_figure


def drawn_texts(fig) -> list:
    """Every text a rendering of `fig` shows: visible, not blank, tick labels only for the
    ticks the axis draws, none inside a hidden Axes. Call after the figure was drawn."""
    from matplotlib.text import Text

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
        parent = getattr(t, "axes", None)
        if parent is not None and not parent.get_visible():
            continue
        out.append(t)
    return out


def smallest_font(fig) -> float:
    """The smallest font size, in points, of the texts a rendering of `fig` shows: with the
    figure's width in inches, what says how tall its text stands on a page."""
    return min(t.get_fontsize() for t in drawn_texts(fig))


def mark_reach(coll) -> float:
    """How far a scatter's mark reaches from its centre, in points: its marker's outline at its
    size and half its edge. The views keep marks apart and away from texts by it, at any dpi."""
    import numpy as np

    return float(np.abs(coll.get_paths()[0].vertices).max() * np.sqrt(coll.get_sizes()[0])
                 + coll.get_linewidths()[0] / 2)


class View:
    """Base of every view: `ax` to draw on, `live` to show it. A subclass makes its artists in
    `__init__` (calling `self.track(...)` with the ones that move) and updates them in `draw`."""

    width, height = 9.0, 3.4
    #: the figure's height in the narrow layout (a phone), `NARROW_WIDTH` inches wide
    narrow_height = 3.2

    @classmethod
    def size(cls) -> tuple[float, float]:
        """The figure's width and height in inches, in the layout figures are built in now."""
        return (NARROW_WIDTH, cls.narrow_height) if narrow() else (cls.width, cls.height)

    def __init__(self, ax=None):
        if ax is None:
            _, ax = new_figure(*self.size())
        #: drawn for a phone: kept, since `draw` runs after the layout's block has ended
        self.narrow_layout = narrow()
        self.ax = ax
        self.live: Live | None = None

    def track(self, *moving) -> Live:
        """Name the artists that move; everything else is cached as the static layer. Every
        text is raised to the legible floor first (`style.legible`)."""
        legible(self.ax.figure)
        self.live = Live(self.ax.figure, moving=moving)
        return self.live

    def draw(self, frame) -> None:  # pragma: no cover - every view defines it
        raise NotImplementedError


class Figure:
    """A model, a view of it, and the values a reader has set (the defaults at first)."""

    def __init__(self, model, view: View):
        self.model, self.view = model, view
        self.values = model.defaults()
        self.frame = model.frame_at(self.values)
        self._watchers: list = []
        self._draw(self.frame)

    def _draw(self, frame) -> None:
        """The view draws the frame; any text it sized below the legible floor is raised."""
        self.view.draw(frame)
        legible(self.view.ax.figure)

    def watch(self, callback) -> None:
        """Call `callback(figure)` after every update: a panel keeps its widgets in step."""
        self._watchers.append(callback)

    def unwatch(self, callback) -> None:
        """Stop calling `callback` (a panel that was closed)."""
        if callback in self._watchers:
            self._watchers.remove(callback)

    def update(self, **changes) -> str:
        """Set some controls (the others keep their values), redraw; returns the readout.
        Every value is checked before any is kept."""
        values = self.model.values(self.values, **changes)
        frame = self.model.frame_at(values)
        self.values, self.frame = values, frame
        self._draw(frame)
        for callback in self._watchers:
            callback(self)
        return frame.readout

    def describe(self) -> str:
        """The current picture in words (its alt text), from the model's frame."""
        return self.model.describe(self.frame)

    @property
    def live(self) -> Live:
        return self.view.live

    def static(self):
        """The current picture as an ordinary output, seen without a kernel."""
        return self.view.live.static()

    def png(self) -> bytes:
        """The current picture as PNG bytes (the static site's frames)."""
        return self.view.live.refresh()

    def panel(self):
        from .controls import Panel

        return Panel(self)
