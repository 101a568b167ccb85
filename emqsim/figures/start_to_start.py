"""Views of lesson 03's figures (`emqsim.lessons.start_to_start` computes them).

`CadenceView` lays four runs of an every-15-min schedule on two lanes, start-to-start on top
and start-to-finish below, the measure chosen lit and the other greyed. `SlipView` draws the
slip of each release from its slot on the clock against the run number, one line per rule,
on a logarithmic axis (the rules differ by orders of magnitude).

`WakeView`, the page's second half, draws per job, in release order, a grey bar for the
wait of a worker that polls every N, a green dot for the wait of one parked on the marker,
and the poll interval and the polling worker's mean wait as lines labelled at the right edge.
"""

from __future__ import annotations

import textwrap

from matplotlib.collections import LineCollection

from ..lessons.start_to_start import FIRES, JOBS, LANES, SLIP_RULES
from .style import (READ_PX, figure_title, fit_width, freeze_labels, GREY, ink, min_font, narrow, narrow_axes, ROLE,
                    scale, spread, time_axis)
from .view import View

#: lane heights, top lane first
LANE_Y = {"schedule": 1, "finish": 0}
#: on a phone the top lane stands higher: a lane's start times may take two rows there, and the
#: finish lane's second row would meet the top lane's gap label
NARROW_LANE_Y = {"schedule": 1.4, "finish": 0}
#: a greyed lane's alpha (its marks; its text is drawn whole in DIM_TEXT, to stay legible)
DIM = 0.35
DIM_TEXT = ink(GREY)


#: a start time's height over its lane's centre, and the height of its second row when the
#: times of a lane stand too close for one (a phone's 15 min is narrower than "09:00")
LABEL_Y, LABEL_ROW = 0.27, 0.23
#: and on a phone, where the rows' labels stand `READ_PX` tall
NARROW_LABEL_ROW = 0.26
#: the least gap between two start times on a row, in em
LABEL_GAP = 0.35


def _label_size(ax, size: float) -> float:
    """`size` points, or more where that would stand under `READ_PX` CSS px on the site: the labels
    the page's questions are read from (start times, gaps, line ends), on a phone too."""
    return max(size, min_font(ax.figure.get_figwidth(), px=READ_PX))


def _face(ax) -> dict:
    """A white box, tight round its text: a grid line stops at its edge. The figure is
    transparent, but the site lays it on white in both themes (player.css, which inverts the
    whole in the dark one) and Lab's dark theme inverts it too: white is the page under it."""
    return dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none")


def _gap(texts) -> float:
    """`LABEL_GAP` em of the largest of `texts`, in pixels: the least gap between two labels
    stacked at a line's end (two pixels let two-line labels read as one block of four)."""
    texts = list(texts)
    return LABEL_GAP * max(t.get_fontsize() for t in texts) * texts[0].figure.dpi / 72


class CadenceView(View):
    """Two lanes of run bars: start-to-start on top, start-to-finish below; one lane lit."""

    width, height = 9.0, 3.4
    narrow_height = 3.5

    def __init__(self, ax=None):
        super().__init__(ax)
        ax, fires = self.ax, FIRES
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        self._layout = None
        self.lane_y = NARROW_LANE_Y if narrow() else LANE_Y
        ax.set_ylim(-0.7, 2.25 if narrow() else 1.75)
        ax.spines[["top", "right"]].set_visible(False)
        self.bars, self.starts, self.labels, self.gaps, self.gap_text = {}, {}, {}, {}, {}
        for rule in LANES:
            y, c = self.lane_y[rule], ROLE[rule]
            self.bars[rule] = list(ax.barh([y] * fires, [0] * fires, left=[0] * fires, height=0.4,
                                           color=c, edgecolor="white", zorder=3).patches)
            self.starts[rule], = ax.plot([0] * fires, [y] * fires, ls="none", marker="|",
                                         ms=ms * 2.6, mew=lw, color=c, zorder=4)
            # a run's start time: on a phone smaller, so four fit a lane
            # each on a box of the page's colour, so a grid line stops at its edge (issue 30)
            self.labels[rule] = [ax.text(0, y + LABEL_Y, "", fontsize=_label_size(ax, fs * (0.7 if narrow() else 0.85)),
                                         ha="left",
                                         va="bottom", bbox=_face(ax),
                                         color=ink(c), zorder=5) for _ in range(fires)]
            self.gaps[rule] = ax.add_collection(LineCollection([], colors=c, linewidths=lw * 0.7,
                                                               linestyles=":", zorder=2))
            self.gap_text[rule] = ax.text(0, y - 0.36, "", fontsize=_label_size(ax, fs * 0.75), ha="center", va="top",
                                          color=ink(c), zorder=5, bbox=_face(ax))
        # direct labels and fixed title/label positions: a legend or an auto-placed label
        # is laid out again on every redraw, which costs more than the marks themselves
        if narrow():
            self._title = figure_title(ax, fs)
            ax.tick_params(labelsize=fs * 0.7)
            ax.figure.subplots_adjust(left=0.31, right=0.95, top=0.74, bottom=0.17)
        else:
            self._title = ax.set_title("", fontsize=fs, loc="left", y=1.0)
            ax.figure.subplots_adjust(left=0.22 if fs < 12 else 0.3, right=0.95, top=0.88, bottom=0.2)
        self.track(self._title, *(a for rule in LANES for a in (*self.bars[rule], self.starts[rule],
                                                                *self.labels[rule], self.gaps[rule],
                                                                self.gap_text[rule])))

    def _lay_out(self, frame) -> None:
        """The time axis and the lane names: the same in every frame, set at the first."""
        layout = (frame.span, frame.lane_names)
        if layout == self._layout:
            return
        time_axis(self.ax, *frame.span, step=1_800_000 if self.narrow_layout else 900_000, label="time")
        names = list(frame.lane_names)
        if self.narrow_layout:   # a phone's margin holds about 15 characters a line at the legible floor
            names = ["\n".join(p for line in n.split("\n") for p in textwrap.wrap(line, 15)) for n in names]
        self.ax.set_yticks([self.lane_y[r] for r in LANES], names)
        freeze_labels(self.ax)
        self._layout = layout
        self.live.invalidate()

    def draw(self, frame) -> None:
        self._lay_out(frame)
        for lane in frame.lanes:
            rule, y = lane.rule, self.lane_y[lane.rule]
            colour, alpha = (ROLE[rule], 1.0) if lane.lit else (GREY, DIM)
            text_colour = ink(ROLE[rule]) if lane.lit else DIM_TEXT
            for bar, st, fi in zip(self.bars[rule], lane.starts, lane.finishes):
                bar.set_x(st)
                bar.set_width(fi - st)
                bar.set_facecolor(colour)
                bar.set_alpha(alpha)
            self.starts[rule].set_xdata(lane.starts)
            self.starts[rule].set_color(colour)
            self.starts[rule].set_alpha(alpha)
            for text, st, label in zip(self.labels[rule], lane.starts, lane.labels):
                text.set_position((st, y + LABEL_Y))
                text.set_text(label)
                text.set_color(text_colour)
            self._stagger(self.labels[rule], y)
            self.gaps[rule].set_segments([[(a, y - 0.3), (b, y - 0.3)] for a, b in lane.gaps])
            self.gaps[rule].set_color(colour)
            self.gaps[rule].set_alpha(alpha)
            self.gap_text[rule].set_x(lane.gap_at)
            self.gap_text[rule].set_text(lane.gap_text)
            self.gap_text[rule].set_color(text_colour)
            self._right_of_axis(self.gap_text[rule])
        self._title.set_text(frame.title)
        fit_width(self._title)

    def _stagger(self, labels, y: float) -> None:
        """Lift a start time to a second row when it would come within `LABEL_GAP` em of the
        one before on its row (issue 30: on a phone a lane read "09:0009:1509:3009:45"): the
        times alternate between two rows, each still at its own start."""
        renderer = self.ax.figure.canvas.get_renderer()
        ends = [-float("inf"), -float("inf")]     # right edge, in pixels, of the last on each row
        for text in labels:
            if not text.get_text():
                continue
            gap = LABEL_GAP * text.get_fontsize() * self.ax.figure.dpi / 72
            box = text.get_window_extent(renderer)
            row = 0 if box.x0 >= ends[0] + gap else 1 if box.x0 >= ends[1] + gap else 0
            text.set_y(y + LABEL_Y + row * (NARROW_LABEL_ROW if self.narrow_layout else LABEL_ROW))
            ends[row] = box.x1

    def _right_of_axis(self, text, pad: float = 3.0) -> None:
        """Slide a text centred on its gap right until it starts `pad` points past the y axis:
        on a phone "15 min from the start" was wider than its gap and the axis ran through it
        (issue 30)."""
        ax = self.ax
        box = text.get_window_extent(ax.figure.canvas.get_renderer())
        short = ax.bbox.x0 + pad * ax.figure.dpi / 72 - box.x0
        if short > 0:
            x = ax.transData.transform((text.get_position()[0], 0))[0] + short
            text.set_x(ax.transData.inverted().transform((x, 0))[0])


def _narrow_end(label: str) -> str:
    """A line's end label as a phone's margin holds it (about 20 characters a line): the rule
    over what it counts from, and a long lateness broken after its first words."""
    rule, late = label.split("\n")
    return "\n".join([rule.replace(": ", ":\n", 1), *textwrap.wrap(late, 20)])


class SlipView(View):
    """Slip of each release from its on-the-clock slot, against the run number, per rule."""

    width, height = 9.0, 3.6
    narrow_height = 3.6
    YTICKS = [(1, "\u2264 1 ms"), (10, "10 ms"), (100, "100 ms"), (1000, "1 s"), (10_000, "10 s"),
              (60_000, "1 min"), (600_000, "10 min"), (3_600_000, "1 h"), (36_000_000, "10 h")]

    def __init__(self, ax=None):
        super().__init__(ax)
        ax = self.ax
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        self._layout = None
        self.lines, self.ends = {}, {}
        for rule in SLIP_RULES:
            self.lines[rule], = ax.plot([], [], color=ROLE[rule], lw=lw, marker="o", ms=ms * 0.45)
            # each line is labelled at its end: the rule, its formula, its slip by the last run
            self.ends[rule] = ax.text(0, 1, "", color=ink(ROLE[rule]), fontsize=_label_size(ax, fs * (0.7 if narrow() else 0.8)),
                                      ha="left",
                                      va="center", clip_on=False, linespacing=1.1)
        ax.set_yscale("log")
        ax.set_yticks([v for v, _ in self.YTICKS], [t for _, t in self.YTICKS])
        ax.minorticks_off()
        ax.set_ylabel("how late each run is released")
        ax.grid(axis="y", color=GREY, alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
        if narrow():
            self._title = figure_title(ax, fs * 0.9)
            narrow_axes(ax, fs)
            ax.figure.subplots_adjust(left=0.22, right=0.64, top=0.76, bottom=0.14)
        else:
            # room over the axes for a title of two lines, 2 CSS px or more under the frame's
            # edge (at tick 0 the second line pushed the first onto the edge, issue 30), its
            # last line's descenders clear of a line's end label at the axes' top
            self._title = ax.set_title("", fontsize=fs, loc="left", y=1.0, pad=9)
            ax.figure.subplots_adjust(left=0.14 if fs < 12 else 0.19, right=0.74, top=0.85, bottom=0.16)
        self.track(self._title, *self.lines.values(), *self.ends.values())

    def _lay_out(self, frame) -> None:
        """The axes' ranges and the x label, set again only when a frame changes them."""
        layout = (len(frame.runs), frame.top, frame.xlabel)
        if layout == self._layout:
            return
        cycles = len(frame.runs)
        self.ax.set_ylim(0.6, frame.top)
        self.ax.set_xlim(0, cycles + 1)
        self.ax.set_xlabel(frame.xlabel)
        for text in self.ends.values():
            text.set_x(cycles + 1.5)
        freeze_labels(self.ax)
        self._layout = layout
        self.live.invalidate()

    def draw(self, frame) -> None:
        self._lay_out(frame)
        for line in frame.lines:
            self.lines[line.rule].set_data(frame.runs, line.drawn)
            self.ends[line.rule].set_y(line.drawn[-1])
            self.ends[line.rule].set_text(_narrow_end(line.label) if self.narrow_layout else line.label)
        spread(self.ends.values(), pad=_gap(self.ends.values()))
        self._title.set_text(frame.title)
        fit_width(self._title, lines=3 if self.narrow_layout else 2)


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
        small = _label_size(ax, fs * (0.7 if narrow() else 0.8))
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
            for text in ends:   # at 11 CSS px "parked on the marker:" alone is wider than the margin
                fit_width(text, seps=(": ", ", ", " "), smallest=1.0, lines=3)
        spread(ends, pad=_gap(ends))
        self._title.set_text(frame.title)
        fit_width(self._title, lines=3 if self.narrow_layout else 2)
