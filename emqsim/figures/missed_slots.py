"""Missed slots, drawn: seven catch-up policies on one time axis, a lane each.

The lesson (`emqsim.lessons.missed_slots`) computes each policy's runs after the outage the
sliders set; this view only places them.
"""

from __future__ import annotations

import textwrap

import numpy as np
from matplotlib import transforms
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D

from ..lessons.course import EVERY
from ..lessons.missed_slots import GRID, LABELS, POLICIES, ROW, VIEW, MissedFrame
from .style import (BLUE, GREY, MIN_TEXT_PX, ORANGE, READ_PX, VERMILLION, figure_title, fit_width, freeze_labels, ink,
                    legible, min_font, narrow, scale, time_axis)
from . import band
from .view import View, mark_reach


#: characters a line of the key's names on a phone
WRAP = 20
#: a lane's slot marks (rings, crosses, squares) stand this many rows under its releases: a
#: slot and the late release that stands for it are minutes apart, and on one line the 10:07
#: ring and the 10:10 dot were one blot (issue 30)
DROP = 0.3
#: points of air between two release dots of a lane: dots nearer in time than their width and
#: this (09:51 and 09:52; on a phone anything within five minutes) touched, so the later one
#: stands a dot higher, at its true time (issue 30)
GAP = 1.5
#: points short of its release where a link rises to it: a late job released at pump up rose
#: on the band's right edge and read as the band's border (issue 30); this far back (more than
#: a stroke's width and 2 CSS px of air in both layouts) it rises beside the edge, into the
#: side of its dot
TURN = 4.0
#: releases of a lane this many ms apart or less are one catch-up burst (a second apart each):
#: one dot, its count beside it, as no width could show them apart
BURST = 1000
#: CSS px of air between a count's white face and its burst's dot, where the site shows it
COUNT_AIR = 1.5


def _wrap(text: str, width: int = WRAP) -> str:
    """`text` broken into lines of at most `width` characters, its own breaks kept."""
    return "\n".join(part for line in text.split("\n") for part in textwrap.wrap(line, width))


def _xy(points, drop: float = 0.0) -> np.ndarray:
    """The points inside the view's time window (one past it would stand half outside the
    plot), `drop` rows lower."""
    xy = np.array(points, dtype=float).reshape(-1, 2)
    xy = xy[(xy[:, 0] >= VIEW[0]) & (xy[:, 0] <= VIEW[1])]
    xy[:, 1] -= drop
    return xy


def _joined(links, placed: dict | None = None, turn: float = 0.0) -> list:
    """Each link from a slot's mark, under the lane, to its release on the lane: along the
    slots' line, up `turn` ms short of the release (square turns: a slanted line made each site
    frame a twelfth larger) to the height `placed` gives the release's dot, and into the dot."""
    placed = placed or {}
    out = []
    for a, b in links:
        y = placed.get(tuple(b), b[1])
        out.append([(a[0], a[1] - DROP), (b[0] - turn, b[1] - DROP), (b[0] - turn, y), (b[0], y)])
    return out


def placed(released, reach: float, step: float) -> tuple[list, dict]:
    """The release dots to draw and the height of each release's dot. A burst (releases
    `BURST` ms apart or less) is one dot, at its first instant; a dot nearer in time than
    `reach` (ms) to one already placed in its lane goes up `step` rows, to the lowest level
    that is clear, its x kept true."""
    dots, where = [], {}
    for y in sorted({int(p[1]) for p in released}):
        levels: list[float] = []          # the last dot's instant at each level
        prev = first = None
        for x in sorted(int(p[0]) for p in released if int(p[1]) == y):
            if prev is not None and x - prev <= BURST:
                where[(x, y)] = where[(first, y)]
                prev = x
                continue
            k = next((i for i, last in enumerate(levels) if x - last >= reach), len(levels))
            levels[k:k + 1] = [x]
            where[(x, y)] = y + k * step
            dots.append((x, where[(x, y)]))
            prev = first = x
    return dots, where


class MissedView(View):
    """Seven lanes on one time axis, one per policy: each release a dot on the lane's line (a
    catch-up burst one dot and its count; a dot too near the one before it a level higher); a
    late job's slot a ring just under it, joined to its release by a thin line; a skipped slot
    a cross there, joined to the release that skipped it; a missed slot that got neither a grey
    square there. The outage is shaded and
    the :07 slots are dotted verticals, so a lane that keeps its phase stays on them."""

    width, height = 10.0, 5.4
    narrow_height = 5.0

    def __init__(self, ax=None):
        super().__init__(ax)
        ax = self.ax
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        for s in GRID:
            ax.axvline(s, color=ORANGE, ls=":", lw=lw * 0.6, zorder=0)
        self.band = band.span(ax, VIEW[0], VIEW[0], face=band.READ_FACE)   # the marks in it are read against it
        # solid, over the band: at half alpha the link where a job is released at pump up ran
        # down the band's grey edge and read as part of it (issue 30)
        self.links = LineCollection([], colors=BLUE, linewidths=lw * 0.6, zorder=2)
        ax.add_collection(self.links)
        self.skip_links = LineCollection([], colors=VERMILLION, linewidths=lw * 0.6, linestyles=":")
        ax.add_collection(self.skip_links)
        self.collapsed = ax.scatter([], [], s=(ms * 0.9) ** 2, marker="s", facecolors="none", edgecolors=GREY,
                                    linewidths=lw * 0.5, zorder=3)
        self.slots = ax.scatter([], [], s=(ms * 1.5) ** 2, facecolors="none", edgecolors=BLUE,
                                linewidths=lw * 0.6, zorder=3)
        self.released = ax.scatter([], [], s=ms ** 2, color=BLUE, zorder=4)
        self.skipped = ax.scatter([], [], s=(ms * 1.3) ** 2, color=VERMILLION, marker="X", zorder=5)
        # a count stands above and left of its burst's dot, clear of the dot after it (a minute
        # later, raised a level) that a count centred over the burst stood on, and just over
        # the dot's top: a fixed share of a row higher it stood as near the lane above's rings
        # and read as that lane's (issue 30)
        self.counts = [ax.text(VIEW[0], ROW[p], "", fontsize=fs * 0.75, color=ink(BLUE), va="bottom",
                               ha="right", zorder=6, bbox=band.TEXT_BOX) for p in POLICIES]
        time_axis(ax, *VIEW, step=2 * EVERY if narrow() else EVERY, label="time")
        small = fs * (0.7 if narrow() else 0.75)
        ax.tick_params(axis="x", labelsize=fs * (0.7 if narrow() else 0.8))
        ax.set_ylim(-0.6, len(POLICIES) - 0.4)
        # each label two lines, the policy and who does it that way: on a phone too, where three
        # lines (wrapped to a narrower margin) ran into the next lane's label (issue 30)
        ax.set_yticks([ROW[p] for p in POLICIES], [LABELS[p] for p in POLICIES], fontsize=small)
        ax.spines[["top", "right"]].set_visible(False)
        grid = Line2D([], [], color=ORANGE, ls=":", lw=lw * 0.6)
        handles = [self.released, (self.slots, self.links), self.skipped, self.collapsed, self.band, grid]
        names = ["release: a job", "the slot a late job stands for", "skipped: past the deadline",
                 "missed slot, no job: never written", "pump down", "the :07 slots"]
        if narrow():   # the key in two columns at the figure's foot, the title at its top edge
            ax.legend(handles, [_wrap(n) for n in names], loc="lower left", bbox_to_anchor=(0.0, 0.0), bbox_transform=ax.figure.transFigure,
                      ncol=2, fontsize=small, frameon=False, handlelength=1.5, columnspacing=0.8)
            ax.xaxis.label.set_fontsize(fs * 0.8)
            self.title = figure_title(ax, fs * 0.9)
        else:
            # the key at the figure's foot: its text at `READ_PX` the lanes need all the height
            # the axis labels leave them
            ax.legend(handles, names, loc="lower center", bbox_to_anchor=(0.5, 0.0), bbox_transform=ax.figure.transFigure,
                      ncol=3, fontsize=fs * 0.75, frameon=False)
            self.title = ax.set_title("", fontsize=fs, loc="left")
        # the lane labels, times, counts and key are read off: `READ_PX` on the desktop, where at
        # the floor the lane labels painted 9 px tall (issue 30); a phone's frame paints the floor
        # crisp, and there the floor holds
        legible(ax.figure, MIN_TEXT_PX if narrow() else READ_PX)
        self._place_counts(ms)
        if narrow():
            ax.figure.subplots_adjust(left=self._label_margin(), right=0.96, top=0.92, bottom=0.31)
        else:   # a lane's labels a line and a half apart at `READ_PX`: the lanes take the height
            ax.figure.subplots_adjust(left=self._label_margin() if fs < 12 else 0.2, right=0.97 if fs < 12 else 0.96,
                                      top=0.94 if fs < 12 else 0.92, bottom=0.2 if fs < 12 else 0.22)
        self._margin()
        freeze_labels(ax)
        self.track(self.band, self.links, self.skip_links, self.collapsed, self.slots, self.released,
                   self.skipped, *self.counts, self.title)

    def _place_counts(self, ms: float) -> None:
        """Each count's offset from its burst's dot: up by the dot's half size and `GAP`, just
        over its top (higher, it reads as the lane above's, issue 30), and left by the dot's
        reach, `GAP`, the white face padded round the text and `COUNT_AIR` CSS px. Set once
        `legible` has sized the text: left by the dot and `GAP` alone, the face's corner
        touched the dot on the site (the text's own extent cleared it)."""
        ax = self.ax
        fig = ax.figure
        air = min_font(fig.get_figwidth(), "narrow" if narrow() else "normal", COUNT_AIR)   # points
        for t in self.counts:
            face = t.get_bbox_patch().get_boxstyle().pad * t.get_fontsize()
            left = mark_reach(self.released) + GAP + face + air
            t.set_transform(transforms.offset_copy(ax.transData, fig=fig, x=-left, y=ms / 2 + GAP, units="points"))

    def _label_margin(self) -> float:
        """The left margin, as a share of the figure's width, that holds the widest lane label
        and its tick's pad: measured, so it follows the font the layout draws in."""
        ax = self.ax
        fig = ax.figure                  # measured at the size drawn, once `legible` raised the text
        renderer = fig.canvas.get_renderer()
        widest = max(t.get_window_extent(renderer).width for t in ax.get_yticklabels())
        tick = ax.yaxis.get_major_ticks()[0]
        pad = (tick.get_pad() + tick.tick1line.get_markersize()) * fig.dpi / 72
        return (widest + pad + 4) / fig.bbox.width

    def _margin(self) -> None:
        """Room past the view's last minute for the widest mark's half width and a little air: a
        release on the view's edge (epoch's 11:15) was cut in half by the axes (issue 30). The
        axes grow right by that much and the time axis by as many minutes, so every other mark
        stays on the pixel it had (and the site's frames keep their size)."""
        ax = self.ax
        fig = ax.figure
        half = max(mark_reach(c) for c in (self.collapsed, self.slots, self.released, self.skipped))   # points
        box = ax.get_position()
        room = (half + 2.0) / 72 / fig.get_figwidth()                 # figure fractions
        ax.set_position([box.x0, box.y0, box.width + room, box.height])
        ax.set_xlim(VIEW[0], VIEW[1] + room / box.width * (VIEW[1] - VIEW[0]))

    def _scale(self) -> tuple[float, float]:
        """Two dots' least distance apart in ms (their width and `GAP`), and that distance in
        rows: measured in points, so the same at every dpi the figure is saved at."""
        ax = self.ax
        (x0, y0), (x1, y1) = ax.transData.transform([(VIEW[0], 0), (VIEW[0] + 60_000, 1)])
        points = 72 / ax.figure.dpi
        apart = 2 * mark_reach(self.released) + GAP
        return apart / ((x1 - x0) * points / 60_000), apart / ((y1 - y0) * points)

    def _turn(self) -> float:
        """`TURN` points in ms on the time axis, at the size drawn."""
        ax = self.ax
        x0, x1 = ax.transData.transform([(VIEW[0], 0), (VIEW[0] + 60_000, 0)])[:, 0]
        return TURN * ax.figure.dpi / 72 * 60_000 / (x1 - x0)

    def draw(self, frame: MissedFrame) -> None:
        dots, where = placed(_xy(frame.released), *self._scale())
        self.released.set_offsets(np.array(dots, dtype=float).reshape(-1, 2))
        self.slots.set_offsets(_xy(frame.rings, DROP))
        turn = self._turn()
        self.links.set_segments(_joined(frame.links, where, turn))
        self.skipped.set_offsets(_xy(frame.skips, DROP))
        self.skip_links.set_segments(_joined(frame.skip_links, where, turn))
        self.collapsed.set_offsets(_xy(frame.collapsed, DROP))
        for text, (label, x) in zip(self.counts, frame.counts):
            text.set_text(label)
            text.set_x(x)
        self.band.set_x(frame.band[0])
        self.band.set_width(frame.band[1])
        self.title.set_text(frame.title)
        if self.narrow_layout:
            fit_width(self.title)
