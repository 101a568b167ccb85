"""A view and its model, paired: the state a notebook cell moves, drawn after each move.

A view makes its artists on an Axes once and `draw(frame)` updates the ones that moved;
it computes nothing. `Figure` keeps the control values a reader has set, asks the model
for the frame, hands it to the view and returns the readout, so a notebook cell, the panel,
the static site and a test all go the same way: values -> model.frame -> view.draw.
"""

from __future__ import annotations

from .live import Live
from .style import new_figure


class View:
    """Base of every view: `ax` to draw on, `live` to show it. A subclass makes its artists in
    `__init__` (calling `self.track(...)` with the ones that move) and updates them in `draw`."""

    width, height = 9.0, 3.4

    def __init__(self, ax=None):
        if ax is None:
            _, ax = new_figure(self.width, self.height)
        self.ax = ax
        self.live: Live | None = None

    def track(self, *moving) -> Live:
        """Name the artists that move; everything else is cached as the static layer."""
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
        view.draw(self.frame)

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
        self.view.draw(frame)
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
