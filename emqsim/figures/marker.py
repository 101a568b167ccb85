"""View of lesson 03's wake figure (`emqsim.lessons.marker` computes it).

Per job, in release order: a grey bar for the wait of a worker that polls every N, a green
dot for the wait of one parked on the marker, the poll interval and the polling worker's
mean wait as lines labelled at the right edge.
"""

from __future__ import annotations

from ..lessons.marker import JOBS
from .style import ROLE, figure_title, fit_width, freeze_labels, ink, narrow, narrow_axes, scale, spread
from .view import View


class WakeView(View):
    """Per job: the wait before it starts, woken by the marker (0) or by a poll (up to N)."""

    width, height = 9.0, 3.4
    narrow_height = 3.6

    def __init__(self, ax=None):
        super().__init__(ax)
        ax, jobs = self.ax, JOBS
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        self._layout = None
        x = list(range(1, jobs + 1))
        self.bars = list(ax.bar(x, [0] * jobs, width=0.7, color=ROLE["poll"], zorder=2).patches)
        self.dots, = ax.plot(x, [0] * jobs, ls="none", marker="o", ms=ms, color=ROLE["marker"], zorder=4)
        self.limit = ax.axhline(0, color=ROLE["now"], ls="--", lw=lw * 0.6, zorder=3)
        self.mean = ax.axhline(0, color=ROLE["poll"], ls=":", lw=lw, zorder=3)
        ax.set_xlim(0.3, jobs + 0.7)
        ax.set_ylabel("start \u2212 release (s)")
        ax.spines[["top", "right"]].set_visible(False)
        # direct labels at the right edge instead of a legend (a legend is laid out on every redraw)
        right = jobs + 1.0
        small = fs * (0.7 if narrow() else 0.8)
        self._limit_text = ax.text(right, 0, "", color=ink(ROLE["now"]), fontsize=small, va="center", clip_on=False)
        self._mean_text = ax.text(right, 0, "", color=ink(ROLE["poll"]), fontsize=small, va="center", clip_on=False)
        self._marker_text = ax.text(right, 0, "", color=ink(ROLE["marker"]), fontsize=small, va="center",
                                    clip_on=False)
        if narrow():
            self._title = figure_title(ax, fs * 0.9)
            narrow_axes(ax, fs, xlabel=0.7)
            ax.figure.subplots_adjust(left=0.15, right=0.64, top=0.78, bottom=0.2)
        else:
            self._title = ax.set_title("", fontsize=fs, loc="left", y=1.0)
            ax.figure.subplots_adjust(left=0.09, right=0.74, top=0.88, bottom=0.16)
        self.track(*self.bars, self.dots, self.limit, self.mean, self._limit_text, self._mean_text,
                   self._marker_text, self._title)

    def _lay_out(self, frame) -> None:
        """The y range and the x label: the same in every frame, set at the first."""
        layout = (frame.bottom, frame.top, frame.xlabel)
        if layout == self._layout:
            return
        self.ax.set_ylim(frame.bottom, frame.top)
        # on a phone the label's remark in brackets goes under it
        self.ax.set_xlabel(frame.xlabel.replace(" (", "\n(", 1) if self.narrow_layout else frame.xlabel)
        freeze_labels(self.ax)
        self._layout = layout
        self.live.invalidate()

    def draw(self, frame) -> None:
        self._lay_out(frame)
        for bar, v in zip(self.bars, frame.bars):
            bar.set_height(v)
        self.dots.set_ydata(frame.marker)
        self.limit.set_ydata([frame.limit] * 2)
        self.mean.set_ydata([frame.mean] * 2)
        self._limit_text.set_y(frame.limit)
        self._limit_text.set_text(frame.limit_label)
        self._mean_text.set_y(frame.mean)
        self._mean_text.set_text(frame.mean_label)
        self._marker_text.set_y(frame.marker_top)
        self._marker_text.set_text(frame.marker_label)
        ends = [self._limit_text, self._mean_text, self._marker_text]
        if self.narrow_layout:    # on a phone a long label takes two lines
            for text in ends:
                fit_width(text, seps=(": ", ", "), smallest=1.0)
        spread(ends)
        self._title.set_text(frame.title)
        fit_width(self._title, lines=3 if self.narrow_layout else 2)
