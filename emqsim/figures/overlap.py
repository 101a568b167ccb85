"""The overlap figure: five lanes of runs (one per policy) against time, and the runs at once.

Draws `emqsim.lessons.overlap.OverlapFrame`s. The axes, lane labels and legend are the
static layer, laid out from the frame's layout on the first draw (it is the same for every
run length, so the slider never moves them); a move redraws the bars, marks, lane counts,
runs-at-once lines (a strip per policy) and the run length in the title.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from .style import (BLACK, BLUE, GREEN, GREY, LIGHT_BG, ORANGE, PURPLE, READ_PX, ROLE, VERMILLION, floor_of, ink, legible, narrow,
                    new_figure, scale, time_axis)
from . import band
from .view import View, mark_reach

#: each policy's colour in the runs-at-once plot and on its lane label
COLOUR = {"allow": BLUE, "skip": GREEN, "buffer-one": ORANGE, "replace": PURPLE, "forbid": BLACK}
#: and its dash there: under deuteranopia skip's green and replace's pink look one grey
DASH = {"allow": "-", "skip": "--", "buffer-one": "-.", "replace": ":", "forbid": (0, (5, 1, 1, 1, 1, 1))}
#: the runs-at-once plot gives each policy a strip of its own, in the lanes' order, from 0 to the
#: most runs at once: counts this far apart between one strip's top and the next one's 0 (issue
#: 30: nudged a tenth apart in one plot, the five lines lay tangled at 0-1 and none could be told;
#: at 1.0 a count took under 7 CSS px, too close to tell the faint lines apart, h70r)
STRIP_GAP = 0.5
#: a strip's fill under its count, the line's colour this opaque: each strip reads as one shape
STRIP_FILL = 0.25
#: the faint guide line at each whole count inside a strip: this opaque, this share of a line's
#: width. The strips have no numbered ticks: numbered at 1 and at the top, five strips read
#: "3 1 3 1 ..." down the axis, no 0 or 2, each 3 on the 0 line of the strip above (issue 30,
#: h68r); a strip's scale is its guide lines, its most at once is written by its name
GUIDE_ALPHA, GUIDE_WIDTH = 0.45, 0.3

BAR = 0.72        # a bar's height, in rows
GAP = 1.2         # between two lanes, in rows
#: and on a phone: room for the skip marks under a lane and the next lane's header
NARROW_GAP = 1.1
#: a phone's lane header fits on one line when the name and its peers are this short (forbid)
ONE_LINE = 20
#: and a header line of peers holds this many characters at most, so it ends before the shaded
#: span past the last release (issue 30: "Temporal Skip · APScheduler max_instances=1" ran into it)
PEER_LINE = 38
#: the skip marks sit this far below a lane's last row, clear of its bars (at 0.75 forbid's
#: crosses painted touching the bar above on the site's 69 dpi desktop frame, issue 30)
SKIP_BAND = 0.9
#: rows under the last lane's skip marks, so its crosses clear the x axis (issue 30: at 0.3
#: and on a phone 0.6, the forbid lane's crosses sat on the axis line; at 0.8 a phone's stood
#: under 1 CSS px from it, and at 1.0 under 2 once the headers took twelve lines)
FLOOR, NARROW_FLOOR = 0.6, 1.1
#: rows between a phone's lane header and the bars under it: at 0.25 a cancel cross on the
#: top row touched the header's text (issue 30)
HEAD_GAP = 0.4
#: and on a phone, where a row is fewer points tall than a cross is wide
NARROW_SKIP_BAND = 1.3
#: on a phone the runs-at-once plot's height, in the lanes' fourths, and the lanes' top: the
#: lanes' headers take twelve lines since the Kubernetes lanes say "Kubernetes" (issue 30, "K8s"
#: was unknown to a first reader), and at 0.85 the headers stood on the runs. The plot's five
#: strips take the room its key at the figure's foot took, which their names make needless
NARROW_GOING, NARROW_TOP = 1.75, 0.87
#: and on a desktop, whose figure is taller for the strips than the lanes need: at 2.3 a count
#: took 6.7 CSS px (h70r). A phone's is not: taller, it left 05's docked readout short of its
#: text, so its strips gain only by the narrower gap between them (`STRIP_GAP`)
GOING = 3.4
#: on a phone, ems between a lane's name and its count, on the header's first line
COUNT_EM = 1.0
#: on a phone, a strip's name stands this many counts over its 0 and this many ems before its
#: most: at 1.15 and 0.2 the box under "buffer-one" touched its line and the name its most (h70r)
NAME_LIFT, NAME_SPACE = 1.3, 0.5
#: between the title's head and its bold run length, in ems of the head
TITLE_SPACE = 0.4
#: a skip cross's size, in markers: smaller on a phone, so it fits between a bar and the axis
SKIP_MARK, NARROW_SKIP_MARK = 1.1, 0.8


class OverlapView(View):
    """Five lanes of runs (one per policy) against time, and the runs running at once.

    A bar is a run from start to finish: sky blue if it completed, hatched vermillion up to
    the cross if it was cancelled; a dotted line before a bar is its wait from release to
    start; a black x is a slot whose release produced nothing. Below, each policy has a strip
    of its own, named at its right with the most it holds ("3 at once"), where a step line counts
    its runs running at each instant over a faint guide line at each count.
    Without `going_ax` (an `ax` given alone) the runs-at-once plot is left out.
    """

    width, height = 10.5, 8.4
    narrow_height = 6.0

    def __init__(self, ax=None, going_ax=None):
        if ax is None:
            _, (ax, going_ax) = new_figure(*self.size(), nrows=2, sharex=True,
                                           gridspec_kw={"height_ratios": [4, NARROW_GOING if narrow() else GOING]})
        super().__init__(ax)
        self.going_ax = going_ax
        self.layout = None
        self.top: dict[str, float] = {}
        self.rows: dict[str, int] = {}
        sc = scale()
        self.fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        self.lw = lw
        phone = narrow()
        self.gap = NARROW_GAP if phone else GAP
        self.skip_band = NARROW_SKIP_BAND if phone else SKIP_BAND
        #: the smaller texts' size (lane names, counts, keys): on a phone the course's smallest
        self.small = self.fs * (0.7 if phone else 0.75)

        handles = [Patch(facecolor=ROLE["run"], edgecolor=BLACK, lw=lw * 0.3),
                   Patch(facecolor="white", edgecolor=VERMILLION, hatch="///", lw=lw * 0.5),
                   Line2D([], [], ls="none", marker="X", color=VERMILLION, ms=ms),
                   Line2D([], [], ls=":", color=BLACK, lw=lw * 0.8),
                   Line2D([], [], ls="none", marker="x", color=BLACK, ms=ms, mew=lw * 0.8)]
        names = ["run, completed", "run, cancelled", "cancelled here", "waiting to start", "slot skipped"]
        if phone:   # the key across the figure under the title, in rows of three
            ax.legend(handles, names, loc="upper left", bbox_to_anchor=(0.0, 0.95), bbox_transform=ax.figure.transFigure,
                      ncol=3, fontsize=self.small, frameon=False, handlelength=1.4, columnspacing=0.8)
        else:
            ax.legend(handles, names, loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=5, fontsize=self.fs * 0.75,
                      frameon=False, handlelength=1.6, columnspacing=0.8)
        ax.tick_params(axis="y", length=0)
        # on a phone the lanes' names stand in headers from the left edge: no y axis there
        ax.spines[["top", "right", "left"] if phone else ["top", "right"]].set_visible(False)

        # moving: the runs, their waits and cancels, the skips, the counts
        self.done = PolyCollection([], facecolors=ROLE["run"], edgecolors=BLACK, linewidths=lw * 0.3, zorder=3)
        self.cut = PolyCollection([], facecolors="white", edgecolors=VERMILLION, hatch="///",
                                  linewidths=lw * 0.5, zorder=3)
        self.waits = LineCollection([], colors=BLACK, linewidths=lw * 0.8, linestyles=":", zorder=2)
        for c in (self.done, self.cut, self.waits):
            ax.add_collection(c)
        self.cancels = ax.scatter([], [], s=ms ** 2, marker="X", color=VERMILLION, zorder=4)
        self.skips = ax.scatter([], [], s=(ms * (NARROW_SKIP_MARK if phone else SKIP_MARK)) ** 2, marker="x", color=BLACK, linewidths=lw * 0.8,
                                zorder=4)
        # a lane's count: at its right on a desktop, past the plot; on a phone after the lane's
        # name on its header's first line (`lay_out`), clear of the shaded span and the runs
        self.labels = {p: ax.text(1.01, 0, "", transform=ax.get_yaxis_transform(),
                                  fontsize=self.small if phone else self.fs * 0.72, color=ink(COLOUR[p]),
                                  va="bottom" if phone else "center", ha="left")
                       for p in COLOUR}
        self.lines = {}
        #: each policy's strip in the runs-at-once plot: its 0, in that plot's data (`lay_out`)
        self.base: dict[str, float] = {}
        #: each strip's name, at its right: past the plot on a desktop, inside it on a phone
        self.strip_names: dict[str, object] = {}
        #: and the most runs at once in the strip at this run length ("3 at once"), on its name's
        #: line, after it (`_name_rows`)
        self.peaks: dict[str, object] = {}
        self.fills = None
        if going_ax is not None:
            for p in COLOUR:
                self.lines[p], = going_ax.plot([], [], drawstyle="steps-post", color=COLOUR[p], ls=DASH[p], lw=lw * 0.8,
                                               label=p)
                # a phone's name stands over the strip's right end, where every count has
                # come down to 0 or 1 (the last release is long past): above the 1, clear of it
                self.strip_names[p] = going_ax.text(0.995 if phone else 1.01, 0, p, transform=going_ax.get_yaxis_transform(),
                                                    fontsize=self.small if phone else self.fs * 0.72,
                                                    color=ink(COLOUR[p]), ha="right" if phone else "left",
                                                    va="bottom" if phone else "center")
                self.peaks[p] = going_ax.text(0.995 if phone else 1.01, 0, "", transform=going_ax.get_yaxis_transform(),
                                              fontsize=self.small if phone else self.fs * 0.72, color=ink(COLOUR[p]),
                                              ha="right" if phone else "left", va="bottom" if phone else "center")
                if phone:   # on the page's ground: over the shaded span its ink read 3.85:1 (h67r)
                    for t in (self.strip_names[p], self.peaks[p]):
                        t.set_bbox(dict(boxstyle="square,pad=0.1", fc=LIGHT_BG, ec="none"))
            self.fills = PolyCollection([], facecolors=[COLOUR[p] for p in COLOUR], edgecolors="none",
                                        alpha=STRIP_FILL, zorder=1.5)
            going_ax.add_collection(self.fills)
            going_ax.spines[["top", "right"]].set_visible(False)
            if phone:   # the plot as wide as the lanes, its name above it
                self._going_title = going_ax.set_title("running at once", fontsize=self.small, loc="left", pad=2)
                going_ax.tick_params(labelsize=self.small)
            else:
                going_ax.set_ylabel("running\nat once", fontsize=self.fs * 0.8)
        fig = ax.figure
        # the title is static but for the run length, drawn just after it: less text to draw per move
        head = self.fs * (0.7 if phone else 1.0)
        self._head = fig.text(0.01, 0.985, "", fontsize=head, va="top", ha="left")
        # an Axes' child, not the figure's: a saved figure (the static output) leaves out the
        # figure's own animated artists, and this one moves
        self._title = ax.text(0.01, 0.985, "", transform=fig.transFigure, fontsize=head, va="top", ha="left",
                              weight="bold", clip_on=False)
        if phone:   # the lanes across the figure, each named in a header above its runs
            fig.subplots_adjust(left=0.07, right=0.97, top=NARROW_TOP, bottom=0.1, hspace=0.2)
        else:   # room for the lane names and counts at `READ_PX`
            fig.subplots_adjust(left=0.25 if self.fs < 12 else 0.26, right=0.8, top=0.86, bottom=0.1, hspace=0.12)
        self._static: list = []
        #: on a phone, the vertical grid drawn lane by lane below each header (None elsewhere)
        self.grid = None
        #: every artist a move changes; all else is the cached background
        self.track(self.done, self.cut, self.waits, self.cancels, self.skips, *self.labels.values(),
                   *self.lines.values(), *self.peaks.values(), *([self.fills] if self.fills is not None else []),
                   self._title)

    # -- the static layer, from the frame's layout ---------------------------------------------

    def lay_out(self, layout) -> None:
        """Place the lanes, the time axis and the fixed text for `layout` (once: every frame of
        a model shares it)."""
        if layout == self.layout:
            return
        ax, going_ax, fs, lw = self.ax, self.going_ax, self.fs, self.lw
        for artist in self._static:
            artist.remove()
        self._static = []
        self.layout = layout
        heads = self._headers(layout) if self.narrow_layout else {}
        head = self._head_rows(layout, heads) if heads else 0.0
        y = 0.0
        for p, n in zip(layout.policies, layout.rows):
            y += head * len(heads.get(p, ()))
            self.top[p], self.rows[p] = y, n
            y += n - 1 + self.skip_band + self.gap
        for p in layout.policies[1:]:
            rule = self.top[p] - head * len(heads.get(p, ())) - self.gap / 2 - 0.05
            self._static.append(ax.axhline(rule, color=GREY, lw=lw * 0.4))
        for a in (ax, going_ax):
            if a is not None:
                self._static.append(band.span(a, layout.end, layout.hi))
        # lanes read top down; on a phone the last lane's skip marks keep clear of the axis
        ax.set_ylim(y - self.gap + (NARROW_FLOOR if self.narrow_layout else FLOOR), -0.5)
        if heads:   # a phone: each lane's name in lines above it, its count after the name
            ax.set_yticks([])
            fig = ax.figure
            renderer = fig.canvas.get_renderer()
            size = max(self.small, floor_of(fig))      # as shown: `legible` raises small text to the floor
            for p in layout.policies:
                lines = [ax.text(0.0, self.top[p] - BAR / 2 - HEAD_GAP - head * (len(heads[p]) - 1 - i), line,
                                 transform=ax.get_yaxis_transform(), fontsize=size, color=ink(COLOUR[p]),
                                 va="bottom", ha="left") for i, line in enumerate(heads[p])]
                self._static += lines
                # an em past the name, where nothing is under it: at the header's right end the
                # count stood on the shaded span past the last release (issue 30)
                right = lines[0].get_window_extent(renderer).x1 + COUNT_EM * size * fig.dpi / 72
                self.labels[p].set_fontsize(size)
                self.labels[p].set_position((ax.transAxes.inverted().transform((right, 0))[0], lines[0].get_position()[1]))
        else:
            ax.set_yticks([self.mid(p) for p in layout.policies], layout.names, fontsize=self.small)
            for label, p in zip(ax.get_yticklabels(), layout.policies):
                label.set_color(ink(COLOUR[p]))
            for p in layout.policies:
                self.labels[p].set_y(self.mid(p))
        bottom = going_ax if going_ax is not None else ax
        # on a phone a tick every other step, so the labels keep apart
        time_axis(bottom, layout.lo, layout.hi, step=layout.tick * (2 if self.narrow_layout else 1), label="time")
        # under the axis, not in a lane: any lane may have a run in the shaded part
        bottom.set_xlabel(f"{bottom.get_xlabel()}{chr(10) if self.narrow_layout else ' · '}{layout.after}")
        if self.narrow_layout:
            bottom.xaxis.label.set_fontsize(self.small)
            bottom.tick_params(axis="x", labelsize=self.small)
        ax.set_xlim(layout.lo, layout.hi)
        for a in (ax, going_ax):
            if a is not None:
                a.set_xticks(layout.grid, minor=True)
                a.grid(axis="x", which="both", color=GREY, alpha=0.3)
        self.grid = None
        if heads:   # a phone: the grid lane by lane, under each header, not through its text
            ax.grid(False, axis="x", which="both")
            xs = sorted({float(x) for x in (*ax.get_xticks(), *layout.grid) if layout.lo <= x <= layout.hi})
            ends = [self.top[q] - head * len(heads[q]) - self.gap / 2 - 0.05 for q in layout.policies[1:]]
            ends.append(ax.get_ylim()[0])
            segments = [[(x, self.top[p] - BAR / 2 - 0.15), (x, end)]
                        for p, end in zip(layout.policies, ends) for x in xs]
            self.grid = LineCollection(segments, colors=GREY, alpha=0.3, linewidths=plt.rcParams["grid.linewidth"],
                                       zorder=0.5)
            ax.add_collection(self.grid)
            self._static.append(self.grid)
        if going_ax is not None:
            ax.tick_params(axis="x", labelbottom=False)
            self._strips(layout)
        self._head.set_text(layout.title)
        if not self.narrow_layout:
            legible(ax.figure, READ_PX)
        if going_ax is not None:
            self._name_rows()
        # no freeze_labels: moves only blit over the cached static layer, which is drawn once,
        # so the axis labels are never placed again and a full draw here would only cost time
        fig = ax.figure
        extent = self._head.get_window_extent(renderer=fig.canvas.get_renderer())
        right = fig.transFigure.inverted().transform(extent.p1)[0]
        # a space's width after it, in the head's own size (a fixed 0.008 of the figure was 2.8
        # CSS px on a phone: "takes10 min")
        space = TITLE_SPACE * self._head.get_fontsize() / 72 / fig.get_figwidth()
        self._title.set_x(right + space)
        self.live.invalidate()

    def _strips(self, layout) -> None:
        """One strip per policy in the runs-at-once plot, top down in the lanes' order, each from
        0 to the most runs at once at any run length (one scale for all): a grey line at its 0, a
        faint one at each count above, no numbers on the axis; its name and its most at once
        (`draw`) at its right."""
        going_ax, most = self.going_ax, layout.most
        pitch = most + STRIP_GAP
        n = len(layout.policies)
        self.base = {p: (n - 1 - i) * pitch for i, p in enumerate(layout.policies)}
        going_ax.set_ylim(-0.25, (n - 1) * pitch + most + 0.25)
        going_ax.set_yticks([])
        going_ax.set_yticks([], minor=True)
        guides = LineCollection([[(0, b + k), (1, b + k)] for b in self.base.values() for k in range(1, most + 1)],
                                transform=going_ax.get_yaxis_transform(), colors=GREY, alpha=GUIDE_ALPHA,
                                linewidths=self.lw * GUIDE_WIDTH, zorder=1)
        going_ax.add_collection(guides)
        self._static.append(guides)
        # the scale said once, in words: the guide lines are the counts
        counts = ", ".join(str(k) for k in range(1, most + 1))
        if self.narrow_layout:
            self._going_title.set_text(f"running at once, faint lines at {counts}")
        else:
            going_ax.set_ylabel(f"running at once\n(faint lines at {counts})", fontsize=self.fs * 0.8)
        for p, b in self.base.items():
            self._static.append(going_ax.axhline(b, color=GREY, lw=self.lw * 0.4, zorder=1))

    def _name_rows(self) -> None:
        """A strip's name and its most at once on one line: on a phone inside the plot over the
        strip's 1 at its right end, where every count has come down to 0 or 1 (the last release is
        long past), each on a box of the page's ground; on a desktop past the plot, beside the
        strip's middle. The mosts stand in a column (at the plot's edge on a phone, past the
        longest name on a desktop), so they read down as one list; the names stay put as they move.
        Text at its size as shown: after `legible` (a desktop) or at the floor (a phone)."""
        going_ax, most = self.going_ax, self.layout.most
        fig = going_ax.figure
        renderer = fig.canvas.get_renderer()
        to_axes = going_ax.transAxes.inverted().transform
        phone = self.narrow_layout
        if phone:
            size = max(self.small, floor_of(fig))
            for t in (*self.strip_names.values(), *self.peaks.values()):
                t.set_fontsize(size)
        size = self.peaks[self.layout.policies[0]].get_fontsize()
        space = to_axes((size * fig.dpi / 72 * (NAME_SPACE if phone else 1.0), 0))[0] - to_axes((0, 0))[0]
        widest = _peak_text(most)       # the widest the most will be
        column = None
        if not phone:
            column = max(self.strip_names[p].get_window_extent(renderer).x1 for p in self.base)
            column = to_axes((column, 0))[0] + space
        for p, b in self.base.items():
            name, peak = self.strip_names[p], self.peaks[p]
            y = b + NAME_LIFT if phone else b + most / 2
            name.set_y(y)
            peak.set_y(y)
            peak.set_va(name.get_va())
            if phone:
                peak.set_text(widest)
                left = to_axes((peak.get_window_extent(renderer).x0, 0))[0]
                name.set_x(left - space)
            else:
                peak.set_x(column)

    @staticmethod
    def _headers(layout) -> dict[str, tuple[str, ...]]:
        """A lane's header on a phone: its policy's name (the count follows it on the line), then
        the peers that share it; one line for a short one."""
        out = {}
        for p, name in zip(layout.policies, layout.names):
            parts = name.split("\n")
            whole = " \u00b7 ".join(parts)
            if len(whole) <= ONE_LINE:
                out[p] = (whole,)
                continue
            lines: list[str] = []
            for peer in " \u00b7 ".join(parts[1:]).split(" \u00b7 "):
                if lines and len(lines[-1]) + 3 + len(peer) <= PEER_LINE:
                    lines[-1] += " \u00b7 " + peer
                elif peer:
                    lines.append(peer)
            out[p] = (parts[0], *lines)
        return out

    def _head_rows(self, layout, heads) -> float:
        """A header line's height in rows of the lanes' axis: a line of `small` text, 1.2 times its
        size, whatever the rows' height comes to once the headers take their share."""
        fig = self.ax.figure
        height = self.ax.get_position().height * fig.get_figheight() * 72        # points
        lanes = sum(n - 1 + self.skip_band for n in layout.rows) + self.gap * (len(layout.rows) - 1) + NARROW_FLOOR + 0.5
        line = max(self.small, floor_of(fig)) * 1.25     # `legible` raises small text to the floor
        lines = sum(len(h) for h in heads.values())
        rows = lanes / (1 - lines * line / height)                            # the axis' span, in rows
        return line / (height / rows)

    def y(self, policy: str, row: int) -> float:
        """The centre line of a row of a policy's lane."""
        return self.top[policy] + row

    def mid(self, policy: str) -> float:
        """The middle of a policy's lane, skip band included: where its labels go."""
        return self.top[policy] + (self.rows[policy] - 1 + self.skip_band) / 2

    def skip_y(self, policy: str) -> float:
        """The line under a lane's rows where its skipped slots are marked."""
        return self.top[policy] + self.rows[policy] - 1 + self.skip_band

    # -- a move ------------------------------------------------------------------------------

    def draw(self, frame) -> None:
        self.lay_out(frame.layout)
        done, cut, waits, cancels, skips = [], [], [], [], []
        fills: dict[str, list] = {}
        h = BAR / 2
        for m in frame.marks:
            p = m.policy
            for bars, into in ((m.done, done), (m.cut, cut)):
                for start, end, row in bars:
                    y = self.y(p, row)
                    into.append([(start, y - h), (start, y + h), (end, y + h), (end, y - h)])
            cancels += [(end, self.y(p, row)) for _, end, row in m.cut]
            waits += [[(released, self.y(p, row)), (started, self.y(p, row))] for released, started, row in m.waits]
            skips += [(s, self.skip_y(p)) for s in m.skipped]
            self.labels[p].set_text(m.label.replace("\n", ", ") if self.narrow_layout else m.label)
            if p in self.lines:
                self.lines[p].set_data(m.going_at, np.asarray(m.going, dtype=float) + self.base[p])
                fills[p] = _under_steps(m.going_at, m.going, self.base[p])
                self.peaks[p].set_text(_peak_text(max(m.going)))
        if self.fills is not None:     # in `COLOUR`'s order, the fills' colours
            self.fills.set_verts([fills.get(p, [(0, 0)]) for p in COLOUR])
        self.done.set_verts(done)
        self.cut.set_verts(cut)
        self.waits.set_segments(waits)
        self.cancels.set_offsets(np.array(cancels, dtype=float).reshape(-1, 2))
        self.skips.set_offsets(np.array(skips, dtype=float).reshape(-1, 2))
        self._title.set_text(frame.title)

    # -- what the crowding checks read ---------------------------------------------------------

    def bar_boxes(self) -> list[tuple[float, float, float, float]]:
        """Every bar's box in pixels (x0, y0, x1, y1), its edge's half width around it."""
        out = []
        for coll in (self.done, self.cut):
            edge = coll.get_linewidths()[0] / 2 * self.ax.figure.dpi / 72 if len(coll.get_linewidths()) else 0.0
            for path in coll.get_paths():
                xy = self.ax.transData.transform(path.vertices)
                out.append((xy[:, 0].min() - edge, xy[:, 1].min() - edge, xy[:, 0].max() + edge, xy[:, 1].max() + edge))
        return out

    def mark_boxes(self) -> list[tuple[str, tuple[float, float, float, float]]]:
        """Every cancel and skip mark's box in pixels, named "cancel" or "skip": its marker's
        own extent at its size, its stroke's half width around it."""
        dpi = self.ax.figure.dpi / 72
        out = []
        for kind, coll in (("cancel", self.cancels), ("skip", self.skips)):
            offsets = coll.get_offsets()
            if not len(offsets):
                continue
            half = mark_reach(coll) * dpi
            out += [(kind, (x - half, y - half, x + half, y + half)) for x, y in self.ax.transData.transform(offsets)]
        return out


def _peak_text(n: int) -> str:
    """A strip's most runs at once, as written by its name."""
    return f"{n} at once"


def _under_steps(at, counts, base: float) -> list[tuple[float, float]]:
    """The outline of the area under a steps-post line through (`at`, `counts`), raised to `base`."""
    out = [(float(at[0]), base)]
    for x0, x1, n in zip(at, at[1:], counts):
        out += [(float(x0), base + n), (float(x1), base + n)]
    return out + [(float(at[-1]), base)]
