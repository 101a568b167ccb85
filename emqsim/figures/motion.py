"""Jobs as tokens, drawn: a strip of places (registry, wait list, worker, done), one row per lane.

Draws `emqsim.lessons.motion.MotionFrame`s. The boxes, headings, lane names and key names are
the static layer, laid out from the first frame; a move redraws the tokens, their labels, the
arrows of the tokens that just moved and the clock. A token is a mark with its label to its
right, off the mark: a hollow diamond for the registry's next run (no job yet), a filled disc for
a job, a ring around a token that just moved (with an arrow from where it was), a square for a
job done, a cross for one dropped: told apart by shape, not by colour alone. The view computes no position in time: the model says where
each token is; the view only stacks the tokens of one box (oldest at the top).
"""

from __future__ import annotations

from matplotlib.lines import Line2D
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

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
#: a label's start from its mark's centre, in font sizes: clear of the ring a moved token gets
LABEL_GAP = 1.3
#: a token's mark size, in font sizes, and its edge's width, in the course's line widths
MARK, MARK_EDGE = 0.95, 0.6
#: the ring round a token that just moved, as a multiple of a token's mark size, and its edge
RING, RING_EDGE = 1.6, 0.7
#: ems of air, at the least, between that ring and its box's edge or another token of its box:
#: at 1.75 marks across, stacked a text line apart and 0.7 em in from the box's edge, the ring
#: touched the token above it and crossed its box's left edge on a phone (issue 30)
AIR = 0.2
#: in inches, a key name's start from its box's left edge: the room every text keeps from
#: each edge of its box (a label nearer the right edge read as running out of it)
INSET = 0.06
#: how each kind of token is marked: (marker, face, edge)
MARKS = {"next": ("D", "none", BLUE), "job": ("o", SKY, BLACK), "done": ("s", GREEN, BLACK),
         "dropped": ("X", VERMILLION, VERMILLION)}


def kind(token) -> str:
    """Which mark a token gets: the registry's next run, a job, a job done, a job dropped."""
    if token.place == "registry":
        return "next"
    return token.place if token.place in ("done", "dropped") else "job"


class MotionView(View):
    """Lanes of places with tokens in them; `lanes` and `places` size the strip (the model's)."""

    width = 9.0
    lanes, places, keys = 2, 4, False

    @classmethod
    def size(cls) -> tuple[float, float]:
        w = 4.0 if narrow() else cls.width
        return w, cls._height(narrow())

    @classmethod
    def _height(cls, phone: bool) -> float:
        row = cls._row(phone)
        lane = (1 if cls.keys else 0) * row + CAP * cls._pitch(row * 72 / 1.45, scale()["line"]) + 0.12
        head = (0.62 if phone else 0.42) + row * 1.3
        return round(head + cls.lanes * (lane + 0.08) + 0.05, 2)

    @staticmethod
    def _row(phone: bool) -> float:
        """One text line's height, in inches: the figure's font (`TEXT_PX`) x 1.45."""
        from .style import min_font

        return min_font(4.0 if phone else 9.0, "narrow" if phone else "normal", TEXT_PX[phone]) * 1.45 / 72

    @staticmethod
    def _reaches(fs: float, lw: float) -> tuple[float, float]:
        """How far, in points, the ring and a stacked token's mark (a disc, a square, a cross: the
        registry's one diamond is never stacked) reach from their centre, half their edge included,
        at font size `fs` and line width `lw`."""
        ms = fs * MARK
        return RING * ms / 2 + lw * RING_EDGE / 2, ms / 2 + lw * MARK_EDGE / 2

    @classmethod
    def _pitch(cls, fs: float, lw: float) -> float:
        """Inches between two tokens of a box: a text line, or more when a ring round one would
        come nearer the next than `AIR` em."""
        ring, mark = cls._reaches(fs, lw)
        return max(fs * 1.45, ring + mark + AIR * fs) / 72

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
        self.pitch = self._pitch(self.fs, self.lw)
        #: the space between two boxes, halved (a phone's columns are narrow: labels stay inside)
        self.pad = 0.02 if self.phone else 0.04
        #: a label's start from its mark's centre, in font sizes (`LABEL_GAP`; less on a phone,
        #: where the marks stand further in from the box's edge and the labels had no room more)
        self.gap = LABEL_GAP - (0.3 if self.phone else 0.0)
        self.laid = False
        # moving: the clock, the tokens (one series per kind), the rings of the moved ones,
        # their labels, the counts of what a full box hides, the arrows
        self.clock = glyphs.text(ax, 0.08, self.h - 0.08, "", fontsize=self.fs * 1.25, fontweight="bold",
                                 va="top", color=BLACK)
        self.marks = {}
        ms = self.fs * MARK
        for k, (m, face, edge) in MARKS.items():
            (line,) = ax.plot([], [], ls="none", marker=m, ms=ms, mfc=face, mec=edge,
                              mew=self.lw * (1.0 if k == "next" else MARK_EDGE), zorder=4)
            self.marks[k] = line
        (self.rings,) = ax.plot([], [], ls="none", marker="o", ms=ms * RING, mfc="none", mec=BLACK,
                                mew=self.lw * RING_EDGE, zorder=5)
        self.labels = []
        self.more = []
        self.arrows = []
        for _ in range(ARROWS):
            a = FancyArrowPatch((0, 0), (0, 0), arrowstyle="-|>", mutation_scale=self.fs * 1.1, color=ink(GREY),
                                lw=self.lw * 0.6, zorder=3, visible=False, shrinkA=2, shrinkB=self.fs * 0.9)
            ax.add_patch(a)
            self.arrows.append(a)

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
        head = (0.62 if self.phone else 0.42)
        top = self.h - head
        if self.phone:   # under the clock
            glyphs.text(ax, 0.08, self.h - 0.08 - self.fs * 1.25 * 1.4 / 72, frame.subtitle, fontsize=fs, va="top",
                        color=SOFT_TEXT)
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
        self.track(self.clock, *self.marks.values(), self.rings, *self.labels, *self.more, *self.arrows)
        self.laid = True

    # -- a move ------------------------------------------------------------------------------

    def spot(self, lane: str, place: str, k: int) -> tuple[float, float]:
        """The mark's centre of the `k`-th token shown in a box (0 at the top): `AIR` em in
        from the box's left edge past a ring round it, `pitch` under the one above."""
        x0, first, _ = self.cells[(lane, place)]
        ring, _ = self._reaches(self.fs, self.lw)
        return x0 + (ring + AIR * self.fs) / 72, first - (k + 0.5) * self.pitch

    def draw(self, frame) -> None:
        if not self.laid:
            self._layout(frame)
        self.clock.set_text(frame.moment.label())
        pts = {k: ([], []) for k in MARKS}
        rings = ([], [])
        labels, more, arrows = iter(self.labels), iter(self.more), iter(self.arrows)
        for t in (*self.labels, *self.more):
            t.set_text("")
        for a in self.arrows:
            a.set_visible(False)
        gap = self.fs * self.gap / 72
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
                for k, t in enumerate(here, 1 if hidden else 0):
                    x, y = self.spot(lane.name, place, k)
                    xs, ys = pts[kind(t)]
                    xs.append(x)
                    ys.append(y)
                    label = next(labels)
                    label.set_position((x + gap, y))
                    label.set_text(t.label + (f" {t.note}" if t.note and not self.phone else ""))
                    if t.came_from is not None:
                        rings[0].append(x)
                        rings[1].append(y)
                    if t.came_from not in (None, "new") and (lane.name, t.came_from) in self.cells:
                        a = next(arrows, None)
                        if a is not None:
                            # from the bottom of the box it left (clear of the tokens still there,
                            # stacked from the top), bowed when it passes a box between them
                            x0, _, y0 = self.cells[(lane.name, t.came_from)]
                            sx, sy = x0 + self.col_w * 0.5, y0 + self.row * 0.5
                            a.set_positions((sx, sy), (x, y))
                            far = abs(sx - x) > self.col_w * 1.5
                            a.set_connectionstyle(f"arc3,rad={0.1 if far else 0.0}")
                            a.set_visible(True)
        for k, line in self.marks.items():
            line.set_data(*pts[k])
        self.rings.set_data(*rings)


class JourneyView(MotionView):
    """Lesson 02's strip: two lanes (the pump design, BullMQ's), four places, the keys named."""

    lanes, places, keys = 2, 4, True


class PileUpView(MotionView):
    """Lesson 05's strip: five lanes (one per overlap policy), five places."""

    lanes, places, keys = 5, 5, False
