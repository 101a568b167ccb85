"""Jobs as tokens, drawn: a strip of places (registry, wait list, worker, done), one row per lane.

Draws `emqsim.lessons.motion.MotionFrame`s. The boxes, headings, lane names and key names are
the static layer, laid out from the first frame; a move redraws the tokens, their labels, the
arrows of the tokens that just moved and the clock. A token is a mark with its label to its
right, off the mark: a hollow diamond for the registry's next run (no job yet), filled when its
release was refused and it stays due, a filled disc for a job, a square for a job done, and a
red cross over a dropped one: over the diamond of a slot skipped (no job was made), over the disc
of a job cancelled. A ring goes round a token that just moved, with an arrow from where it was.
Told apart by shape, not by colour alone, so a phone, whose boxes have no room for the words
("skipped", "cancelled", "refused") the desktop writes after the time, shows the same marks and
a key to them. The view computes no position in time: the model says where each token is and
its row in its box (`Token.rank`); the view stacks them, and routes each arrow round the tokens
it does not join (`route`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import ConnectionStyle, FancyArrowPatch, FancyBboxPatch
from matplotlib.path import Path

from . import glyphs
from .style import BLACK, BLUE, GREEN, GREY, MIN_TEXT_PX, READ_PX, SKY, VERMILLION, ink, narrow, scale
from .view import View

#: tokens shown in one box; past it the newest `CAP - 1` and a count of the rest
CAP = 3
#: arrows kept for the tokens that moved in one step (five lanes, two moves each at most)
ARROWS = 12
BOX = "#F4F4F4"
#: the grey of the texts on a box, or beside one: read on the box's fill
SOFT_TEXT = ink(GREY, BOX)
#: every text's size, in CSS px where the site shows the figure (desktop, phone): `style.READ_PX`
#: on the desktop, where the floor's times read as 7-8 px text (issue 30); the floor on a phone,
#: whose five columns of 4 in have no room for more: labels reached the next box
TEXT_PX = {False: READ_PX, True: MIN_TEXT_PX}
#: ems of air, at the least, between a token's label and every mark (the ring a moved token
#: gets included) and every edge of its box: on a phone the times touched their marks (issue 30)
LABEL_AIR = 0.3
#: a token's mark size, in font sizes (desktop, phone), and its edge's width, in the course's
#: line widths: a phone's box, 5.5 em wide, holds the ring, the label's air, the time and the
#: box's inset only with marks a little smaller
MARK, MARK_EDGE = {False: 0.95, True: 0.8}, 0.6
#: the registry's diamond, as a multiple of a mark's size: its tips reach 0.71 of its size, and
#: at a mark's size (and an edge of a whole line) they touched the ring round it; as far as a disc
DIAMOND = 0.71
#: the red cross over a dropped token, as a multiple of a mark's size, and its edge: it reaches
#: past the mark it strikes
CROSS, CROSS_EDGE = 1.05, 0.9
#: the ring round a token that just moved, as a multiple of a token's mark size (desktop,
#: phone), and its edge
RING, RING_EDGE = {False: 1.6, True: 1.55}, 0.7
#: ems of air, at the least, between that ring and its box's edge: 0.2 em read as touching the
#: box's edge on a phone (issue 30)
AIR = 0.25
#: ems of air, at the least, between two tokens stacked in a box, a ring round either included:
#: at `AIR` a phone showed a done square and the ring under it about 1 px apart (issue 30)
STACK_AIR = 0.32
#: ems of air an arrow keeps, where it can, from every token it does not join (mark, ring and
#: label): a phone's arrows ran 1 px under a worker's "09:00" and across a done square (issue 30)
ROUTE_AIR = 0.6
#: ems an arrow drops, at the least, under the line of the token's old place (`Dip`): under the
#: labels' half line and the air they keep; and ems left of the new token its last leg starts, at
#: the least, long enough to show past the ring and the arrow's head
DIP, RISE = 0.95, 1.6
#: ems left of a token lower down a `Dip` with a fall comes down: right of the labels of the box
#: before (a phone's end 1.65 em left of the next box's marks) and clear of the new box's marks
FALL = 1.25
#: in inches, a key name's start from its box's left edge: the room every text keeps from
#: each edge of its box (a label nearer the right edge read as running out of it)
INSET = 0.06
#: how each kind of token is marked: (marker, face, edge); `STRUCK` kinds get a cross over it
MARKS = {"next": ("D", "none", BLUE), "refused": ("D", BLUE, BLUE), "job": ("o", SKY, BLACK),
         "done": ("s", GREEN, BLACK), "skipped": ("D", "none", BLUE), "cancelled": ("o", SKY, BLACK),
         "dropped": ("X", VERMILLION, VERMILLION)}
STRUCK = ("skipped", "cancelled")
#: the phone's key to the marks its labels do not name, in the order the desktop's words come
KEY = (("refused", "refused, kept due"), ("skipped", "skipped"), ("cancelled", "cancelled"))


def kind(token) -> str:
    """Which mark a token gets: the registry's next run (refused or not), a job, a job done, a
    job dropped (a slot skipped, a job cancelled)."""
    if token.place == "registry":
        return "refused" if token.note == "refused" else "next"
    if token.place == "dropped":
        return token.note if token.note in STRUCK else "dropped"
    return token.place if token.place == "done" else "job"


def shown_row(rank: int, among: int) -> int:
    """The row (0 at the top) at which a box of `among` tokens shows its `rank`-th: past `CAP`
    the oldest are counted on the top row, where an arrow from one of them starts."""
    hidden = among - CAP + 1 if among > CAP else 0
    return max(rank - hidden + 1, 0) if hidden else rank


class Dip(ConnectionStyle.Arc3):
    """An arrow's path from a token's old place to its new one (always rightwards), in three
    straight legs: down and right at 60 degrees to a track `depth` pixels under the old place,
    along it, and up into the new token from its left, from `reach` pixels before it: at 30
    degrees, steeper from a deeper track (a slope of 45 ran through the labels of the box
    before). It leaves under the labels of the line it leaves (a straight one ran through them),
    runs along a line clear of the tokens it passes (`route`) and comes in through the air left
    of the new token's mark; the arrow's shrinking (its ends clear of the rings) is the base
    class's. With `fall`, a path along the line it leaves, down in the air between two boxes and
    across into a token lower down (a slope into it ran by the tokens stacked over it)."""

    def __init__(self, depth: float, reach: float, fall: bool = False):
        super().__init__()
        self.depth, self.reach, self.fall = depth, reach, fall

    def connect(self, posA, posB):
        return Path(self.legs(posA, posB), [Path.MOVETO] + [Path.LINETO] * 3)

    def legs(self, posA, posB) -> list[tuple[float, float]]:
        """The path's four corners, in pixels: the track ends where the last leg starts, sloping
        down to it when the new token lies under the track's 30-degree reach."""
        (x1, y1), (x2, y2) = posA, posB
        track, run = y1 - self.depth, min(self.reach, (x2 - x1) / 2)
        if self.fall:     # along the old place's line, down `reach` before the token, into it
            return [(x1, y1), (x2 - run, y1), (x2 - run, y2), (x2, y2)]
        end = min(track, y2 - run * 0.577)
        return [(x1, y1), (x1 + (y1 - track) * 0.577, track), (x2 - run, end), (x2, y2)]


class MotionView(View):
    """Lanes of places with tokens in them; `lanes` and `places` size the strip (the model's);
    `legend` (a strip whose tokens carry notes) gives a phone its key to the marks."""

    width = 9.0
    lanes, places, keys, legend = 2, 4, False, False

    @classmethod
    def size(cls) -> tuple[float, float]:
        w = 4.0 if narrow() else cls.width
        return w, cls._height(narrow())

    @classmethod
    def _head(cls, phone: bool) -> float:
        """Inches above the headings: the clock (on a phone the subtitle under it, and the key)."""
        return (0.62 + (cls._row(phone) * 1.2 if cls.legend else 0.0)) if phone else 0.42

    @classmethod
    def _height(cls, phone: bool) -> float:
        row = cls._row(phone)
        lane = (1 if cls.keys else 0) * row + CAP * cls._pitch(row * 72 / 1.45, scale()["line"], phone) + 0.12
        head = cls._head(phone) + row * 1.3
        return round(head + cls.lanes * (lane + 0.08) + 0.05, 2)

    @staticmethod
    def _row(phone: bool) -> float:
        """One text line's height, in inches: the figure's font (`TEXT_PX`) x 1.45."""
        from .style import min_font

        return min_font(4.0 if phone else 9.0, "narrow" if phone else "normal", TEXT_PX[phone]) * 1.45 / 72

    @staticmethod
    def _reaches(fs: float, lw: float, phone: bool) -> tuple[float, float]:
        """How far, in points, the ring and a stacked token's mark (a disc, a square, a cross: the
        registry's one diamond is never stacked) reach from their centre, half their edge included,
        at font size `fs` and line width `lw`: a cross reaches past the mark it strikes."""
        ms = fs * MARK[phone]
        return RING[phone] * ms / 2 + lw * RING_EDGE / 2, max(ms / 2 + lw * MARK_EDGE / 2,
                                                               CROSS * ms / 2 + lw * CROSS_EDGE / 2)

    @classmethod
    def _pitch(cls, fs: float, lw: float, phone: bool) -> float:
        """Inches between two tokens of a box: a text line, or more when a ring round one would
        come nearer the next than `STACK_AIR` em."""
        ring, mark = cls._reaches(fs, lw, phone)
        return max(fs * 1.45, ring + mark + STACK_AIR * fs) / 72

    def __init__(self, ax=None):
        super().__init__(ax)
        ax = self.ax
        fig = ax.figure
        self.phone = narrow()
        self.w, self.h = fig.get_size_inches()
        ax.set_position([0, 0, 1, 1])
        ax.set_xlim(0, self.w)
        ax.set_ylim(0, self.h)
        ax.set_axis_off()
        ax.xaxis.set_visible(False)
        ax.yaxis.set_visible(False)
        from .style import PRESENTER_FIGSIZE, min_font, presenting

        # `TEXT_PX` where the site shows it; in presenter mode all of it grows with the figure
        grow = PRESENTER_FIGSIZE if presenting() else 1.0
        self.fs = min_font(4.0 if self.phone else self.width, "narrow" if self.phone else "normal",
                           TEXT_PX[self.phone]) * grow
        self.row = self.fs * 1.45 / 72
        self.lw = scale()["line"]
        self.pitch = self._pitch(self.fs, self.lw, self.phone)
        #: how far the ring and a stacked mark reach from a mark's centre, in points (`_reaches`)
        self.ring, self.reach = self._reaches(self.fs, self.lw, self.phone)
        #: the space between two boxes, halved (a phone's columns are narrow: labels stay inside)
        self.pad = 0.02 if self.phone else 0.04
        #: a label's start from its mark's centre, in points: past the ring, `LABEL_AIR` em and a
        #: hair (the label's box starts at its position)
        self.gap = self.ring + (LABEL_AIR + 0.02) * self.fs
        self.laid = False
        # moving: the clock, the tokens (one series per kind), the crosses over the dropped
        # ones, the rings of the moved ones, their labels, the counts of what a full box
        # hides, the arrows
        self.clock = glyphs.text(ax, 0.08, self.h - 0.08, "", fontsize=self.fs * 1.25, fontweight="bold",
                                 va="top", color=BLACK)
        ms = self.fs * MARK[self.phone]
        self.marks = {k: self._mark(k, ms) for k in MARKS}
        self.crosses = self._cross(ms)
        (self.rings,) = ax.plot([], [], ls="none", marker="o", ms=ms * RING[self.phone], mfc="none", mec=BLACK,
                                mew=self.lw * RING_EDGE, zorder=5)
        self.labels = []
        self.more = []
        self.arrows = []
        # an arrow starts on the ring's line round the place its token left: within 0.3 em of
        # the mark it had there (at the ring's outside, 0.35 em off, it read as from empty space)
        for _ in range(ARROWS):
            a = FancyArrowPatch((0, 0), (0, 0), arrowstyle="-|>", mutation_scale=self.fs * 1.1, color=ink(GREY),
                                lw=self.lw * 0.6, zorder=3, visible=False, shrinkA=ms * RING[self.phone] / 2,
                                shrinkB=self.ring + 1)
            ax.add_patch(a)
            self.arrows.append(a)

    def _mark(self, k: str, ms: float, xs=(), ys=()):
        """A series of `k`'s marks (`MARKS`), at mark size `ms`."""
        m, face, edge = MARKS[k]
        (line,) = self.ax.plot(list(xs), list(ys), ls="none", color=edge, marker=m,
                               ms=ms * (DIAMOND if m == "D" else 1.0), mfc=face, mec=edge, mew=self.lw * MARK_EDGE,
                               zorder=4)
        return line

    def _cross(self, ms: float, xs=(), ys=()):
        """A series of the red crosses laid over the `STRUCK` kinds' marks."""
        (line,) = self.ax.plot(list(xs), list(ys), ls="none", color=VERMILLION, marker="x", ms=ms * CROSS, mec=VERMILLION,
                               mew=self.lw * CROSS_EDGE, zorder=4.5)
        return line

    # -- the static layer, from the first frame ---------------------------------------------

    def _layout(self, frame) -> None:
        ax, fs, row = self.ax, self.fs, self.row
        lanes = frame.lanes
        # on a phone a hyphenated name takes two lines ("buffer-" over "one"): its column's room
        # goes to the boxes, whose labels stood 2 CSS px from their right edge
        names = {lane.name: lane.name.replace("-", "-\n", 1) if self.phone else lane.name for lane in lanes}
        self.name_w = max(len(line) for n in names.values() for line in n.split("\n")) * fs * 0.58 / 72 + 0.12
        left, right = self.name_w, self.w - 0.05
        n = len(frame.headings)
        self.col_w = (right - left) / n
        top = self.h - self._head(self.phone)
        if self.phone:   # under the clock
            under = self.h - 0.08 - self.fs * 1.25 * 1.4 / 72
            glyphs.text(ax, 0.08, under, frame.subtitle, fontsize=fs, va="top", color=SOFT_TEXT)
            if self.legend:
                self._key(0.08, under - row * 1.15)
        else:            # across from it, at the right
            glyphs.text(ax, self.w - 0.08, self.h - 0.08, frame.subtitle, fontsize=fs, va="top", ha="right",
                        color=SOFT_TEXT)
        for i, heading in enumerate(frame.headings):
            glyphs.text(ax, left + (i + 0.5) * self.col_w, top - row * 0.2, heading, fontsize=fs, ha="center",
                        va="top", color=BLACK, fontweight="bold")
        top -= row * 1.3
        # a rule under the headings, as thick as the course's lines
        ax.add_line(Line2D([left + 0.04, right], [top + row * 0.15] * 2, color=GREY, lw=self.lw * 0.5))
        keys = any(k for lane in lanes for _, k in lane.places)
        lane_h = (1 if keys else 0) * row + CAP * self.pitch + 0.12
        self.cells = {}
        for j, lane in enumerate(lanes):
            y1 = top - j * (lane_h + 0.08)
            y0 = y1 - lane_h
            glyphs.text(ax, 0.06, (y0 + y1) / 2, names[lane.name], fontsize=fs, va="center", color=BLACK,
                        fontweight="bold")
            for i, (place, key) in enumerate(lane.places):
                x0 = left + i * self.col_w + self.pad
                ax.add_patch(FancyBboxPatch((x0, y0), self.col_w - 2 * self.pad, lane_h, boxstyle="round,pad=0,rounding_size=0.05",
                                            fc=BOX, ec=GREY, lw=self.lw * 0.4, zorder=1))
                first = y1 - 0.06
                if keys:
                    if key:
                        glyphs.text(ax, x0 + INSET, first, key, fontsize=fs, family="monospace", va="top",
                                    color=SOFT_TEXT)
                    first -= row
                self.cells[(lane.name, place)] = (x0, first, y0)
        for _ in range(len(lanes) * n * CAP):
            self.labels.append(glyphs.text(ax, 0, 0, "", fontsize=fs, va="center", color=BLACK))
        for _ in range(len(lanes) * n):
            self.more.append(glyphs.text(ax, 0, 0, "", fontsize=fs, va="center", color=SOFT_TEXT))
        self.track(self.clock, *self.marks.values(), self.crosses, self.rings, *self.labels, *self.more,
                   *self.arrows)
        self.laid = True

    def _key(self, x: float, y: float) -> None:
        """The phone's key, one line from (`x`, `y`) (its top): each noted kind's mark and its word."""
        renderer = self.ax.figure.canvas.get_renderer()
        ms = self.fs * MARK[self.phone]
        mid = y - self.row / 2
        for k, word in KEY:
            x += ms / 2 / 72
            self._mark(k, ms, [x], [mid])
            if k in STRUCK:
                self._cross(ms, [x], [mid])
            t = glyphs.text(self.ax, x + (ms * CROSS / 2 + self.lw + LABEL_AIR * self.fs) / 72, mid, word,
                            fontsize=self.fs, va="center", color=BLACK)
            x = t.get_window_extent(renderer).x1 / self.ax.figure.dpi + self.fs * 1.2 / 72

    # -- a move ------------------------------------------------------------------------------

    def spot(self, lane: str, place: str, k: int) -> tuple[float, float]:
        """The mark's centre of the `k`-th token shown in a box (0 at the top): `AIR` em in
        from the inside of the box's left edge past a ring round it, `pitch` under the one above."""
        x0, first, _ = self.cells[(lane, place)]
        edge = self.lw * 0.4 / 2
        return x0 + (edge + self.ring + AIR * self.fs) / 72, first - (k + 0.5) * self.pitch

    def draw(self, frame) -> None:
        if not self.laid:
            self._layout(frame)
        self.clock.set_text(frame.moment.label())
        pts = {k: ([], []) for k in MARKS}
        crosses = ([], [])
        rings = ([], [])
        labels, more, arrows = iter(self.labels), iter(self.more), iter(self.arrows)
        for t in (*self.labels, *self.more):
            t.set_text("")
        for a in self.arrows:
            a.set_visible(False)
        gap = self.gap / 72
        # per lane, what an arrow keeps clear of: (centre, reach, label) of each token drawn
        shown: dict[str, list] = {}
        moves = []
        for lane in frame.lanes:
            for place, _ in lane.places:
                here = [t for t in lane.tokens if t.place == place]
                hidden = len(here) - CAP + 1 if len(here) > CAP else 0
                if hidden:   # the oldest counted on the top line, the newest drawn under it
                    here = here[hidden:]
                    x, y = self.spot(lane.name, place, 0)
                    m = next(more)
                    m.set_position((x - self.fs * 0.3 / 72, y))
                    m.set_text(f"+{hidden}" if self.phone else f"+{hidden} earlier")
                # each token on its own row (a worker's job stays on its worker's, `Token.rank`)
                rows = range(1, CAP) if hidden else [t.rank for t in here]
                for k, t in zip(rows, here):
                    x, y = self.spot(lane.name, place, k)
                    xs, ys = pts[kind(t)]
                    xs.append(x)
                    ys.append(y)
                    if kind(t) in STRUCK:
                        crosses[0].append(x)
                        crosses[1].append(y)
                    label = next(labels)
                    label.set_position((x + gap, y))
                    label.set_text(t.label + (f" {t.note}" if t.note and not self.phone else ""))
                    if t.came_from is not None:
                        rings[0].append(x)
                        rings[1].append(y)
                    reach = (self.ring if t.came_from is not None else self.reach) / 72
                    shown.setdefault(lane.name, []).append(((x, y), reach, label))
                    if t.came_from not in (None, "new") and (lane.name, t.came_from) in self.cells:
                        # from where the token was drawn a moment before (it started in empty
                        # space at the foot of that box, issue 30)
                        start = self.spot(lane.name, t.came_from, shown_row(t.came_rank, t.came_among))
                        moves.append(((lane.name, t.came_from), start, (x, y)))
        renderer = self.ax.figure.canvas.get_renderer()
        for (box, start, end), a in zip(moves, arrows):
            a.set_positions(start, end)
            a.set_connectionstyle(self.route(box, start, end, shown[box[0]], renderer))
            a.set_visible(True)
        for k, line in self.marks.items():
            line.set_data(*pts[k])
        self.crosses.set_data(*crosses)
        self.rings.set_data(*rings)

    def route(self, box, start, end, shown, renderer) -> Dip:
        """The path of an arrow from `start` to `end` (inches) that keeps clearest of the tokens
        `shown` in its lane (`box`, the lane and place it leaves) but the one it ends at and one
        drawn where it starts: the track under the line it leaves (`DIP`), or, when that passes
        nearer a token than `ROUTE_AIR` em, a straight line, the start's row and a fall, or the
        first track lower down (a row's middle, or the line between two rows) that does not;
        failing all, the clearest."""
        dpi = self.ax.figure.dpi
        em = self.fs * dpi / 72
        to_px = self.ax.transData.transform
        a, b = to_px(start), to_px(end)
        others = []
        for centre, reach, label in shown:
            c = to_px(centre)
            if np.hypot(*(c - a)) < 0.5 or np.hypot(*(c - b)) < 0.5:
                continue
            e = label.get_window_extent(renderer)
            others.append((c, reach * dpi, (e.x0, e.y0, e.x1, e.y1)))
        # the lane's rows: their middles and the lines between them, under the start's dip
        _, first, y0 = self.cells[box]
        lines = sorted({first - k * self.pitch / 2 for k in range(1, 2 * CAP + 1)}, reverse=True)
        depths = [DIP * em] + [a[1] - to_px((0, y))[1] for y in lines if y > y0 + self.row / 4]
        depths = sorted({round(d, 3) for d in depths if d >= DIP * em})
        best = None
        # the dip first, then straight across (along a row the token just left empty), along that
        # row and down into a token lower down, then lower tracks
        ways = [(depths[0], RISE * em, False), (0.0, 0.0, False)] + [(0.0, FALL * em, True)] * bool(b[1] < a[1])
        for depth, reach, fall in ways + [(d, RISE * em, False) for d in depths[1:]]:
            dip = Dip(depth, reach, fall)
            legs = np.asarray(dip.legs(a, b))
            if np.any(np.diff(legs[:, 0]) < 0):
                continue      # too deep for so short a move
            pts = np.concatenate([np.linspace(p, q, max(int(np.hypot(*(q - p))), 2))
                                  for p, q in zip(legs[:-1], legs[1:])])
            clear = np.inf
            for c, reach, (bx0, by0, bx1, by1) in others:
                clear = min(clear, np.hypot(*(pts - c).T).min() - reach)
                dx = np.maximum(np.maximum(bx0 - pts[:, 0], pts[:, 0] - bx1), 0)
                dy = np.maximum(np.maximum(by0 - pts[:, 1], pts[:, 1] - by1), 0)
                clear = min(clear, np.hypot(dx, dy).min())
            if clear >= ROUTE_AIR * em:
                return dip
            if best is None or clear > best[0]:
                best = (clear, dip)
        return best[1]


class JourneyView(MotionView):
    """Lesson 02's strip: two lanes (the pump design, BullMQ's), four places, the keys named."""

    lanes, places, keys = 2, 4, True


class PileUpView(MotionView):
    """Lesson 05's strip: five lanes (one per overlap policy), five places, a key on a phone."""

    lanes, places, keys, legend = 5, 5, False, True
