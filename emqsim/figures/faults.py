"""The view of lesson 06: one crash between the pump's two writes, on a timeline.

Jobs in production order against time: each job's slot (ring) and release (dot). A slot
produced twice shows as two rows with rings at the same time, joined by a vermillion line;
the crash and the restart are vertical lines, broken where they would cross a mark or a
label, the pump's down time shaded (its edges, along those lines, broken with them). Every position
and label comes from `emqsim.lessons.faults.FaultsModel`.
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.path import Path

from .style import (BLACK, BLUE, GREEN, GREY, LIGHT_BG, ORANGE, READ_PX, SHOWN_PX, VERMILLION, fit_width,
                    freeze_labels, ink, legible, narrow, narrow_axes, scale, time_axis)
from . import band
from .view import View, mark_reach

#: the y axis's floor and its room above the last job's row, in rows
FLOOR, TOP = -0.7, 1.7
#: where a slot with no job is marked: a whole row under the first job's, as far from it as
#: two jobs are from each other (half a row apart, on a phone a refused cross at job 1 stood on it)
UNSERVED_Y = 0.0


#: points of air between two marks of a lane: touching reads as one blot (issue 30)
GAP = 1.5
#: CSS px of air, where the site shows the figure, between the crash or restart line's stroke
#: and its label: at 0.25 em from the line's centre, at a 1 min restart the two lines stood
#: between "crash" and "restart 10:01" and the three read as touching; at 0.5 em (4 to 5.5 CSS
#: px) a reader of the built site still saw each label end on its line (issue 30)
BESIDE = 8.0
#: CSS px of air, where the site shows the figure, between a crash or restart line's end and the
#: mark or label it stops for: at 2 pt (2.4 CSS px on a phone) the gap round a 1 min restart's
#: raised duplicate read as none, the lines as running on through it (issue 30)
LINE_CLEAR = 4.0
#: the legend's name for the cross: a re-fire that came with its slot's job id
REFUSED_NAME = "re-fire, same id"
#: CSS px of air between a crash or restart line's end and a refused re-fire's cross or its
#: stem: the cross stands at the restart, on the restart line's course, and stopped
#: `LINE_CLEAR` short of it the two lines read as running into it (issue 30)
REFUSED_CLEAR = 8.0
#: ems of a job-id label's font between it and the outer edge of a mark level with it (its
#: ring's stroke included): 2 pt of air, one or two pixels where the site shows the frame, read
#: as the label touching its job's ring (issue 30)
ID_CLEAR = 0.5


def _points(pairs) -> np.ndarray:
    return np.array(pairs, dtype=float).reshape(-1, 2)


class FaultsView(View):
    """Rings, dots, diamonds and crosses for one run; crash, restart and down time as lines."""

    width, height = 9.5, 3.6
    narrow_height = 3.9

    def __init__(self, ax=None):
        super().__init__(ax)
        ax = self.ax
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        self.down = band.span(ax, 0, 0)
        self.crash_line = ax.axvline(0, color=BLACK, ls="--", lw=lw * 0.7)
        self.restart_line = ax.axvline(0, color=GREEN, ls="-.", lw=lw * 0.7)
        self.lag = LineCollection([], colors=BLUE, linewidths=lw * 0.6)
        ax.add_collection(self.lag)
        self.twin_links = LineCollection([], colors=VERMILLION, linewidths=lw, linestyles=":")
        ax.add_collection(self.twin_links)
        # a diamond or cross raised off its ring's row: a stem in its colour from the ring's
        # stroke, over it, so it is read as that ring's and not as a job of its own (issue 30:
        # at a 1 min restart the raised 10:01 diamond stood level with job 7)
        self.leaders = LineCollection([], linewidths=lw, zorder=4.5, capstyle="butt")
        ax.add_collection(self.leaders)
        self._stem_colours: list = []
        # a ring is filled with the page's ground: what runs under it (the crash line, the dotted
        # link between a slot's two jobs) stops at its stroke, not read through it as a "!" (issue 30)
        self.slots = ax.scatter([], [], s=(ms * 1.6) ** 2, facecolors=LIGHT_BG, edgecolors=BLUE,
                                linewidths=lw * 0.6, zorder=3)
        self.released = ax.scatter([], [], s=ms ** 2, color=BLUE, zorder=4)
        self.twins = ax.scatter([], [], s=(ms * 1.2) ** 2, color=VERMILLION, marker="D", zorder=5)
        self.refused = ax.scatter([], [], s=(ms * 1.3) ** 2, color=ORANGE, marker="X", zorder=5)
        self.unserved = ax.scatter([], [], s=(ms * 1.3) ** 2, color=BLACK, marker="x", zorder=5, clip_on=False)
        self.ids = [ax.text(0, 0, "", fontsize=fs * 0.75, color=ink(VERMILLION), va="center", zorder=6)
                    for _ in range(2)]
        self.crash_text = ax.text(0, 0, "crash", fontsize=fs * 0.75, color=BLACK, ha="right", va="top")
        self.restart_text = ax.text(0, 0, "", fontsize=fs * 0.75, color=ink(GREEN), ha="left", va="top")
        ax.set_ylabel("job, in the order produced")
        ax.spines[["top", "right"]].set_visible(False)
        # a short legend: every glyph is drawn again on each move, and text is most of a move's cost.
        # The cross is named for what it marks, not for what the enqueue did with it: "refused: id
        # taken", beside 06's question on slot ids, was its answer (issue 30); no ring and no row
        # of its own tell that it made no job, and the readout says it was turned away
        handles = [(self.slots, self.released), self.twins, self.refused, self.unserved, self.down]
        names = ["slot (ring), release (dot)", "same slot, new id", REFUSED_NAME, "slot with no job", "pump down"]
        if narrow():   # the key under the axes, across the figure
            ax.legend(handles, names, loc="lower left", bbox_to_anchor=(0.0, 0.0), bbox_transform=ax.figure.transFigure,
                      ncol=2, fontsize=fs * 0.7, frameon=False, handlelength=1.5, columnspacing=0.8)
            narrow_axes(ax, fs, ticks=0.8)
            self._title = ax.set_title("", fontsize=fs * 0.9, loc="left")
            ax.figure.subplots_adjust(left=0.14, right=0.96, top=0.9, bottom=0.34)
        else:
            ax.legend(handles, names, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=fs * 0.75, frameon=False)
            self._title = ax.set_title("", fontsize=fs, loc="left")
            ax.figure.subplots_adjust(left=0.07, right=0.75, top=0.9, bottom=0.15)
            # every text at `READ_PX` on the desktop: at the floor the key painted 7 px tall and
            # read small (issue 30); a phone's frame, 3 pixels a CSS px, paints the floor crisp
            legible(ax.figure, READ_PX)
        self._layout = None
        self.track(self.down, self.crash_line, self.restart_line, self.lag, self.twin_links, self.leaders, self.slots,
                   self.released, self.twins, self.refused, self.unserved, *self.ids, self.crash_text,
                   self.restart_text, self._title)

    @property
    def moving(self) -> list:
        return self.live.moving

    def _axes(self, layout) -> None:
        """The time window and the job rows: set once, again only if a frame brings others."""
        ax = self.ax
        time_axis(ax, *layout.window, step=layout.tick, label="time")
        ax.set_xticks(layout.grid, minor=True)
        ax.grid(axis="x", which="minor", color=GREY, alpha=0.3)
        # a slot with no job is marked on the floor, y = UNSERVED_Y: the floor stands below it, so its
        # cross never sits on the x axis (issue 30); the crash and restart labels get a row of
        # their own above the last job, clear of its marks
        ax.set_ylim(FLOOR, layout.rows + TOP)
        ax.set_yticks([1, 5, 10])
        for text in (self.crash_text, self.restart_text):
            text.set_y(self._label_row(layout))
        freeze_labels(ax)
        self._layout = layout
        self.live.invalidate()

    def draw(self, frame) -> None:
        if frame.layout != self._layout:
            self._axes(frame.layout)
        self.slots.set_offsets(_points(frame.slots))
        # this frame's rings and dots first: the diamonds and crosses are placed clear of them
        self.twins.set_offsets(np.empty((0, 2)))
        self.released.set_offsets(_points(frame.released))
        twins = _points(frame.twins)
        moved = self._clear_of_rings(twins)
        # a twin's release dot lies under its diamond: it moves with it
        shift = {tuple(a): tuple(b) for a, b in zip(twins, moved)}
        self.released.set_offsets(_points([shift.get(tuple(p), tuple(p)) for p in _points(frame.released)]))
        # a moved diamond stays joined to its ring: the lag line runs to where it is drawn
        self.lag.set_segments([[shift.get(tuple(map(float, p)), p) for p in seg] for seg in frame.lag])
        self.twins.set_offsets(moved)
        self.twin_links.set_segments([list(seg) for seg in frame.twin_links])
        refused = _points(frame.refused)
        raised = self._clear_of_rings(refused, self.refused)
        self.refused.set_offsets(raised)
        self._lead(frame.slots, (twins, moved, VERMILLION), (refused, raised, ORANGE))
        self.unserved.set_offsets(_points([(x, UNSERVED_Y) for x, _ in frame.unserved]))
        self.down.set_x(frame.crashed)
        self.down.set_width(frame.restarted - frame.crashed)
        self.restart_text.set_text(frame.restart_text.strip())
        self.restart_text.set_y(self._label_row())
        self._beside(self.crash_text, frame.crashed, -1)
        self._beside(self.restart_text, frame.restarted, 1)
        self._title.set_text(frame.title)
        if self.narrow_layout:
            fit_width(self._title, seps=(": ", ", "))
            self._keep_restart_inside(frame.restarted)
        self._keep_crash_inside(frame.crashed, frame.restarted)
        marks = self.mark_boxes()
        for text, (label, x, y, ha) in zip(self.ids, frame.ids):
            text.set_text(label)
            text.set_position((x, y))
            text.set_horizontalalignment(ha)
        labels = []
        for text in self.ids:
            if text.get_text():
                labels.append(self._clear_of(text, marks, (frame.crashed, frame.restarted)))
        # each line stands clear of its own label; the other's label, moved under the crash's
        # on a phone past a late restart's line, it goes round (issue 30: struck through)
        renderer = self.ax.figure.canvas.get_renderer()
        # the labels and the refused crosses (with their stems) keep more air than `LINE_CLEAR`:
        # their boxes are grown by the difference
        heads = [self._grown(t.get_window_extent(renderer).extents, BESIDE)
                 for t in (self.crash_text, self.restart_text)]
        stems = self._stem_boxes()
        refused = self._refused_boxes()
        holes = [*self._gapped(self.crash_line, frame.crashed, marks + labels + stems + heads + refused),
                 *self._gapped(self.restart_line, frame.restarted, marks + labels + stems + heads + refused)]
        self._hollow_span(holes)

    def _css(self) -> float:
        """Pixels of this frame to one CSS px where the site shows it."""
        fig = self.ax.figure
        return fig.dpi * fig.get_figwidth() / SHOWN_PX["narrow" if self.narrow_layout else "normal"]

    def _grown(self, box, clear: float, across: float = 0.0) -> tuple[float, float, float, float]:
        """A pixel box grown so that a line stopping `LINE_CLEAR` CSS px short of the grown box
        stops `clear` CSS px short of the box itself, and widened by `across` CSS px more so
        that a line passing that near its side is broken for it too."""
        css = self._css()
        more = max(clear - LINE_CLEAR, 0.0) * css
        wide = more + across * css
        x0, y0, x1, y1 = box
        return (x0 - wide, y0 - more, x1 + wide, y1 + more)

    def _refused_boxes(self) -> list[tuple[float, float, float, float]]:
        """Each refused re-fire's cross and its stem (if it has one) as pixel boxes, grown to
        `REFUSED_CLEAR`: the crash and restart lines stop that far from them."""
        ax = self.ax
        offsets = self.refused.get_offsets()
        if not len(offsets):
            return []
        reach = mark_reach(self.refused) * ax.figure.dpi / 72
        boxes = [(x - reach, y - reach, x + reach, y + reach) for x, y in ax.transData.transform(offsets)]
        boxes += [b for b, colour in zip(self._stem_boxes(), self._stem_colours) if colour == ORANGE]
        # widened to the whole `REFUSED_CLEAR`: on a phone the crash line, 5 min left of a
        # cross, passed its side 5.6 CSS px off and was not broken
        return [self._grown(b, REFUSED_CLEAR, LINE_CLEAR) for b in boxes]

    def _hollow_span(self, holes) -> None:
        """The down time's shading left out where a line stops (`holes`, pixel boxes round each
        line's gaps): its grey edges run along the crash and restart lines, and went on through
        their gaps, so at a short restart the lines read as unbroken (issue 30)."""
        ax = self.ax
        x0, y0, x1, y1 = ax.bbox.extents
        # what is kept, as rectangles in columns between the holes' sides: holes round two lines
        # a minute apart overlap, and a hole drawn in a ring of its own would come back there
        cuts = sorted({x0, x1, *(min(max(x, x0), x1) for a, _, c, _ in holes for x in (a, c))})
        rings = []
        for left, right in zip(cuts, cuts[1:]):
            at = y0
            for lo, hi in sorted((b, d) for a, b, c, d in holes if a < right and left < c):
                if lo > at:
                    rings.append([(left, at), (right, at), (right, lo), (left, lo), (left, at)])
                at = max(at, hi)
            if at < y1:
                rings.append([(left, at), (right, at), (right, y1), (left, y1), (left, at)])
        codes = [Path.MOVETO, Path.LINETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY] * len(rings)
        to_axes = ax.transAxes.inverted()
        path = Path(to_axes.transform(np.concatenate(rings)), codes)
        self.down.set_clip_path(path, ax.transAxes)

    def _stem_boxes(self) -> list[tuple[float, float, float, float]]:
        """Each stem's box in pixels, its line's half width around it: the crash and restart
        lines stop short of it (issue 30: at a 1 min restart both ran along the stem to the
        raised 10:01 diamond and hid it)."""
        ax = self.ax
        half = self.leaders.get_linewidths()[0] / 2 * ax.figure.dpi / 72
        out = []
        for seg in self.leaders.get_segments():
            (x0, y0), (x1, y1) = ax.transData.transform([seg[0], seg[-1]])
            out.append((min(x0, x1) - half, min(y0, y1), max(x0, x1) + half, max(y0, y1)))
        return out

    def _lead(self, slots, *marks) -> None:
        """A stem from each ring to its mark (`marks`: (true, drawn, colour) per kind) when the
        mark was raised or lowered off the ring's row; a mark left on its row has none. It
        starts on the ring's stroke, not at its centre: drawn across a hollow ring (its release
        moved off with the diamond) it read as a line through the ring (issue 30)."""
        ax = self.ax
        ring_at = {float(n): (float(x), float(n)) for x, n in slots}
        # the middle of the ring's stroke, in pixels from its centre
        rim = (mark_reach(self.slots) - self.slots.get_linewidths()[0] / 2) * ax.figure.dpi / 72
        segments, colours = [], []
        for true, drawn, colour in marks:
            for (_, y), (x, dy) in zip(true, drawn):
                if dy != y and float(y) in ring_at:
                    start, end = ax.transData.transform([ring_at[float(y)], (x, dy)])
                    far = np.hypot(*(end - start))
                    if far > rim:
                        start = start + (end - start) * rim / far
                    segments.append([tuple(ax.transData.inverted().transform(start)), (x, dy)])
                    colours.append(colour)
        self.leaders.set_segments(segments)
        self.leaders.set_color(colours or [VERMILLION])
        self._stem_colours = colours     # each stem's, in order: the refused crosses' keep more air

    def _clear_of_rings(self, twins: np.ndarray, marks=None, pad: float = GAP) -> np.ndarray:
        """Each twin's diamond (or each mark of `marks`, a refused re-fire's cross) that would
        stand on or touch a mark already drawn (a ring, a dot, another diamond), raised or
        lowered to the nearest height half a row off a job's row that is clear, its x kept true
        (issue 30: at a 1 min restart the 10:01 diamond touched its 10:00 ring; moving it right
        had told a later time). Up first: the row above is a slot later, while the row under
        holds the same slot's first ring."""
        if not len(twins):
            return twins
        ax = self.ax
        dpi = ax.figure.dpi / 72
        marks = self.twins if marks is None else marks
        own = mark_reach(marks) * dpi
        ring = mark_reach(self.slots) * dpi
        taken = [(x, y, mark_reach(c) * dpi, c is self.released) for c in (self.slots, self.released, self.twins)
                 for x, y in (ax.transData.transform(c.get_offsets()) if len(c.get_offsets()) else [])]
        out = np.array(twins, dtype=float)
        step = own + ring + pad * dpi
        row = ax.transData.transform((0, 1))[1] - ax.transData.transform((0, 0))[1]
        for i, (px, py) in enumerate(ax.transData.transform(twins)):
            # its own release dot, drawn under it, moves with it: not an obstacle
            others = [(x, y, r) for x, y, r, dot in taken if not (dot and (x, y) == (px, py))]

            def clear(y: float) -> bool:
                return all(max(abs(x - px), abs(yy - y)) >= r + own + pad * dpi - 1e-6 for x, yy, r in others)

            # a moved mark goes half a row off a row, where no job stands (issue 30: raised a
            # whole step it stood level with the next job's and read as one more job), then by
            # whole steps if no half row near is clear
            heights = [py + h * row for h in (0.5, 1.5, -0.5, -1.5)] + [py + k * step for k in (1, -1, 2, -2)]
            y = py
            if not clear(py):
                y = next((h for h in heights if clear(h)), heights[-1])
            if y != py:      # only a moved mark leaves its data (a round trip is not exact)
                out[i, 1] = ax.transData.inverted().transform((px, y))[1]
            taken.append((px, y, own, False))
        return out

    def mark_boxes(self) -> list[tuple[float, float, float, float]]:
        """Every mark's box in pixels (x0, y0, x1, y1): its marker's own extent at its size,
        its edge's half width around it. What no label and no crash or restart line may cross."""
        ax = self.ax
        fig = ax.figure
        boxes = []
        for coll in (self.slots, self.released, self.twins, self.refused, self.unserved):
            offsets = coll.get_offsets()
            if not len(offsets):
                continue
            half = mark_reach(coll) * fig.dpi / 72
            boxes += [(x - half, y - half, x + half, y + half) for x, y in ax.transData.transform(offsets)]
        return boxes

    def _clear_of(self, text, marks, lines, pad: float = 2.0) -> tuple[float, float, float, float]:
        """Move a job-id label off every mark and the crash and restart lines (issue 30: a label
        stood on its own slot's ring, a line ran through it): away from the job it names, past
        what it covers plus `ID_CLEAR` em from a mark, `pad` points from a line, until it covers
        nothing. Returns its box, `pad` points round it."""
        ax = self.ax
        fig = ax.figure
        renderer = fig.canvas.get_renderer()
        step = pad * fig.dpi / 72
        air = ID_CLEAR * self._em(text)
        half = max(self.crash_line.get_linewidth(), self.restart_line.get_linewidth()) / 2 * fig.dpi / 72
        bottom, top = ax.bbox.y0, ax.bbox.y1
        rules = [(x - half - step, bottom, x + half + step, top)
                 for x in (ax.transData.transform((v, 0))[0] for v in lines)]
        # a mark's box widened by the air it keeps beside a label on its level; not heightened:
        # a row is about a label's height, so a ring a row up or down would push the label far
        # from its job along the time axis, where it reads as another job's
        grown = [(m[0] - air, m[1], m[2] + air, m[3]) for m in marks]
        left = text.get_horizontalalignment() == "right"    # the label stands left of its job
        for _ in range(8):
            box = text.get_window_extent(renderer)
            hit = [m for m in grown + rules if m[0] < box.x1 and box.x0 < m[2] and m[1] < box.y1 and box.y0 < m[3]]
            if not hit:
                break
            px, py = ax.transData.transform(text.get_position())
            if left:
                px -= box.x1 - min(m[0] for m in hit)
            else:
                px += max(m[2] for m in hit) - box.x0
            text.set_position(ax.transData.inverted().transform((px, py)))
        box = text.get_window_extent(renderer)
        return (box.x0 - step, box.y0 - step / 2, box.x1 + step, box.y1 + step / 2)

    def _gapped(self, line, x, boxes) -> list[tuple[float, float, float, float]]:
        """A crash or restart line at `x`, broken where it would cross a mark or a label: the
        line stops `LINE_CLEAR` CSS px short of each and goes on past it (issue 30: the lines ran
        through the 09:30 rings). Gaps closer than a mark's size run into one. Returns each gap's
        box in pixels, as wide as the line and the span's edge under it."""
        ax = self.ax
        fig = ax.figure
        px = ax.transData.transform((x, 0))[0]
        half = line.get_linewidth() / 2 * fig.dpi / 72
        step = LINE_CLEAR * self._css()
        gaps = sorted((b[1] - step, b[3] + step) for b in boxes if b[0] - half < px < b[2] + half)
        y0, y1 = ax.bbox.y0, ax.bbox.y1
        merged: list[list[float]] = []
        for lo, hi in gaps:
            if merged and lo <= merged[-1][1] + 3 * step:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        ys, at = [], y0
        for lo, hi in merged:
            if lo > at:
                ys += [at, lo, np.nan]
            at = max(at, hi)
        if at < y1:
            ys += [at, y1]
        to_axes = (np.array(ys) - y0) / (y1 - y0) if ys else np.array([np.nan])
        line.set_data(np.full(len(to_axes), float(x)), to_axes)
        reach = max(half, self.down.get_linewidth() / 2 * fig.dpi / 72) + 1
        return [(px - reach, lo, px + reach, hi) for lo, hi in merged]

    def _beside(self, text, x: float, side: int) -> None:
        """`text` beside the vertical line at `x`, `BESIDE` CSS px clear of its stroke, on its
        left (`side` -1) or its right (1): the crash's label left of its line, the restart's right
        of its own, so the two stand twice that apart however short the restart (issue 30: at a
        1 min restart "crash" and "restart 09:01", spaced by blanks, touched)."""
        ax = self.ax
        half = max(self.crash_line.get_linewidth(), self.restart_line.get_linewidth()) / 2
        pad = BESIDE * self._css() + half * ax.figure.dpi / 72
        px = ax.transData.transform((x, 0))[0] + side * pad
        text.set_x(ax.transData.inverted().transform((px, 0))[0])
        text.set_horizontalalignment("left" if side > 0 else "right")

    def _em(self, text) -> float:
        """`text`'s font size in pixels."""
        return text.get_fontsize() * self.ax.figure.dpi / 72

    def _label_row(self, layout=None) -> float:
        """The y, in data units, of the crash's and restart's labels when they stand side by side:
        the row above the last job (`layout`'s, the frame's drawn now by default)."""
        return (layout or self._layout).rows + TOP - 0.1

    def _drop_restart_label(self) -> None:
        """The restart's label a line and a half under the crash's, so the two never meet when
        they stand on the same side of a line (`_keep_crash_inside`, `_keep_restart_inside`)."""
        text, ax = self.restart_text, self.ax
        px, y = ax.transData.transform((0, self._label_row()))
        text.set_y(ax.transData.inverted().transform((px, y - 1.5 * self._em(text)))[1])

    def _keep_crash_inside(self, x: float, restarted: float) -> None:
        """A crash at the plot's left edge (the first fire) left "crash" over the y axis: it goes
        right of its line, and the restart's label a line and a half under it."""
        text, ax = self.crash_text, self.ax
        renderer = ax.figure.canvas.get_renderer()
        air = BESIDE * self._css()
        if text.get_window_extent(renderer).x0 >= ax.bbox.x0 + air:
            return
        self._beside(text, x, 1)
        # a restart soon after would run its line through the word: right of that line instead
        restart = ax.transData.transform((restarted, 0))[0]
        if ax.transData.transform((x, 0))[0] < restart < text.get_window_extent(renderer).x1 + air:
            self._beside(text, restarted, 1)
        self._drop_restart_label()

    def _keep_restart_inside(self, x: float) -> None:
        """On a phone a late restart's label would leave the figure: it goes to the left of its
        line (at `x`), a line and a half lower than the crash's label."""
        text, ax = self.restart_text, self.ax
        text.set_y(self._label_row())
        if text.get_window_extent(ax.figure.canvas.get_renderer()).x1 <= ax.figure.bbox.x1 - 2:
            return
        self._beside(text, x, -1)
        self._drop_restart_label()
