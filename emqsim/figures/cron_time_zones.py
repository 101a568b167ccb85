"""The view of lesson 07: one zone's day, each expression's runs under each cron library's rule.

One row of croniter's runs per expression, with Debian cron's and cron-parser's marks under
it only where they differ (a diamond or square for a run croniter does not make, a cross for a
croniter run that rule skips), on an axis of real hours since local midnight labelled local over
UTC, so a 25-hour day is visibly longer than a 23-hour one. The frames come from
`emqsim.lessons.cron_time_zones.TimeZonesModel`; this module only places them.
"""

from __future__ import annotations

import re

from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory, offset_copy

from ..lessons.cron_time_zones import EXPRESSIONS
from . import band
from .style import BLACK, GREY, PURPLE, READ_PX, ROLE, SHOWN_PX, VERMILLION, fit_width, floor_of, narrow, scale
from .view import View

XMAX = 25.4           # the axis holds the longest day (25 h) and a little more
#: the other rules' lanes under each expression's row, and how their marks look
LANES = {"debian": -0.3, "cron-parser": -0.56}
LOOK = {"croniter": ("o", ROLE["cron"]), "debian": ("D", VERMILLION), "cron-parser": ("s", PURPLE)}
#: the key's names: BullMQ runs what cron-parser gives, one fresh parse per run
KEY_NAMES = {"croniter": "croniter (emqsim)", "debian": "Debian cron (cronsim)", "cron-parser": "cron-parser (BullMQ)"}
#: how far a text sits from the mark it is about, in hours, at least: on a phone 0.4 h is
#: about a dot's radius, and Sydney's "14:30Z" touched its dot (issue 30); there the text
#: keeps `CLEAR` em of clear space beyond the mark's edge instead. At 0.3-0.5 em, a word
#: space, a skip's cross read as the first letter of its sentence ("xDebian cron skips")
GAP = 0.4
CLEAR = 0.7
#: the white box round a time, in ems beyond its text: it hides the row's faint line behind
#: the time, and keeps `CLEAR` em from the change line like the text (`_keep_times_off_the_change`)
BOX_PAD = 0.05
#: points of air between two marks of a lane: a skip's cross and the square of cron-parser's
#: run half an hour later (New York's spring-forward, 07:00Z and 07:30Z) overlapped on a phone
MARK_GAP = 1.5
#: where a lane's sentence too long for the room right of its mark breaks: before what the
#: rule does, after its name ("cron-parser (and BullMQ)" over "skips 16:30Z")
VERB = re.compile(r" (?=(?:runs|skips) )")
#: the title's size, in ems of the legible floor (10 CSS px): the title and the expressions,
#: what a reader looks for first, read small at the floor (issue 30)
HEAD = 1.2
#: the expressions' size: 11.5 CSS px, the most the left margin holds while the plot stays
#: wide enough for a fall-back day (on a phone "cron-parser (and BullMQ) skips 16:30Z" right
#: of its cross, on a desktop the two "01" labels an hour apart, `HOUR_GAP` em clear)
NAMES = 1.15
#: what each line of the hour labels is, written at the start of its row (issue 30: "00"
#: over "04" was cryptic to a first reader)
TICK_ROWS = "local\nUTC"
#: the least clear space between two hour labels, in ems of their text: an hour apart on a
#: desktop they stood 0.9 em apart, about a digit pair's own spacing, and read as one group
HOUR_GAP = 1.0
#: CSS px of air, where the site shows the figure, between the frame's edge and the
#: expressions on its left, the counts (on a phone) and the title on its right (on a phone "25 runs" and
#: "30 2 * * *" touched the frame's edge, issue 30)
EDGE = 2.2
#: the widest count a row shows
WIDEST_COUNT = "25 runs"
#: on the desktop a row's count stands under its expression, in the left margin, this many rows
#: below it: at `READ_PX` a count in the right margin left an hour under 25 CSS px, too little
#: for the two "01" labels of a fall-back day an em apart (`HOUR_GAP`), and one was dropped
COUNT_DROP = 0.3
#: the local hour at a change, said in words (h66: London's fall-back day read "local 00 01 01",
#: correct but cryptic, "01" twice with nothing saying why; spring's "01 03" left 02 unexplained):
#: the repeated hour's second "01" reads "01 again", the hour the clocks jump to "03 (no 02)".
#: The words stand right of the hour, whose digits stay centred on their tick
AGAIN = "{hour} again"
NO_HOUR = "{hour} (no {skipped})"
#: what the shading past a shorter day says: on the desktop on two lines, so it stays inside
#: the plot after a 24-hour day and the plot may reach the frame's right edge
NEXT_DAY = "next day"


def _count(text: str, phone: bool) -> str:
    """A row's count as drawn: on a phone on two lines ("25" over "runs"), so the right margin
    fitted to it, `EDGE` inside the frame, leaves the plot wide enough for a fall-back day's
    "cron-parser (and BullMQ) skips 16:30Z" right of its cross; on the desktop on one line
    under the expression (`COUNT_DROP`)."""
    return text.replace(" ", "\n", 1) if phone else text


def _key(fig, entries, *, y: float, fontsize: float) -> list:
    """A legend's look at a fixed place: a mark and a label per entry, centred on the figure,
    laid out once by measuring the labels. Returns the (mark, label) artists."""
    renderer = fig.canvas.get_renderer()
    to_fig = fig.transFigure.inverted()
    # measured at the size it is shown: `legible` raises a text under the floor later, and a
    # key laid out at the smaller size then had its labels run under the next entry's mark
    fontsize = max(fontsize, floor_of(fig))
    em = fontsize * fig.dpi / 72                      # one em in pixels
    texts = [fig.text(0, y, label, fontsize=fontsize, va="center") for _, label in entries]
    widths = [t.get_window_extent(renderer).width for t in texts]
    handle, pad, gap = 1.6 * em, 0.4 * em, 1.2 * em
    total = sum(widths) + len(entries) * (handle + pad) + (len(entries) - 1) * gap
    x = (fig.bbox.width - total) / 2
    out = []
    for (style, _), text, width in zip(entries, texts, widths):
        (x0, _), (x1, _), (xt, _) = to_fig.transform([(x, 0), (x + handle, 0), (x + handle + pad, 0)])
        xs = [(x0 + x1) / 2] if style.get("ls") == "none" else [x0, x1]
        mark = Line2D(xs, [y] * len(xs), transform=fig.transFigure, **style)
        fig.add_artist(mark)
        text.set_x(xt)
        out.append((mark, text))
        x += handle + pad + width + gap
    return out


def _clock_before(local: str, length: float) -> str:
    """What the clock read just before it jumped forward to `local` ("03", or "02:30"), on a
    day `length` hours long: "02" for a 23-hour day."""
    hours, _, minutes = local.partition(":")
    at = int(hours) * 60 + int(minutes or 0) - round((24 - length) * 60)
    at %= 24 * 60
    return f"{at // 60:02d}" if at % 60 == 0 else f"{at // 60:02d}:{at % 60:02d}"


class TimeZonesView(View):
    """One row per expression with croniter's runs; under it, Debian cron's and cron-parser's
    runs only where they differ (the cron-parser lane says when BullMQ's runs differ from it).
    x is real time since local midnight, labelled local over UTC."""

    width, height = 9.5, 3.6
    narrow_height = 4.0

    def __init__(self, ax=None):
        super().__init__(ax)
        ax = self.ax
        fig = ax.figure
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        phone = narrow()
        floor = floor_of(fig)      # 10 CSS px where the site shows the figure (none for a projector)
        # the times, counts, sentences, hours and key: on the desktop at `READ_PX` (at the floor
        # "25 runs" and "Debian cron skips 06:30Z" painted 7 px tall and read small, issue 30); a
        # phone's frame, 3 pixels a CSS px, paints the floor crisp
        read = floor if phone else floor_of(fig, READ_PX)
        small = max(fs * 0.7 if phone else fs * 0.72, read)
        n = len(EXPRESSIONS)
        self.rows = [float(-g) for g in range(n)]
        ax.set_xlim(-0.3, XMAX)
        ax.set_ylim(-n + 0.3, 0.4)
        # no matplotlib ticks at all: an Axis measures and places every tick label again on each
        # redraw, the larger part of a move's cost; these texts are placed by hand instead
        ax.set_xticks([])
        ax.set_yticks([])
        left = blended_transform_factory(ax.transAxes, ax.transData)
        self.names = [ax.text(-0.006, y, e, transform=left, fontsize=max(fs * (0.7 if phone else 0.85), NAMES * floor),
                              family="monospace", ha="right",
                              va="center") for y, e in zip(self.rows, EXPRESSIONS)]
        for y in self.rows:
            ax.axhline(y, color=GREY, lw=lw * 0.25, alpha=0.5, zorder=0)
        # shading: the repeated hour (both passes) and the part of the axis after the day ends;
        # the repeated hour at `band.READ_FACE`, a face that reads in every theme (at 0.22 it was
        # 1.16:1 on the site's dark page, and read as no shade, issue 30)
        xt = ax.get_xaxis_transform()
        self.passes = [Rectangle((0, 0), 0, 1, transform=xt, color=GREY, alpha=band.READ_FACE, lw=0, zorder=0.5)
                       for _ in range(2)]
        self.after = Rectangle((0, 0), 0, 1, transform=xt, color=GREY, alpha=0.4, lw=0, zorder=0.4)
        for p in [*self.passes, self.after]:
            ax.add_patch(p)
        # on the desktop at the plot's foot: on two lines at its top, the first row's line ran
        # through "day"; under the last row there is room for both lines
        self._after_text = (ax.text(0, 0.98, NEXT_DAY, transform=xt, fontsize=max(fs * 0.7, read), va="top", ha="left")
                            if phone else ax.text(0, 0.02, NEXT_DAY.replace(" ", "\n"), transform=xt,
                                                  fontsize=max(fs * 0.7, read), va="bottom", ha="left"))
        self.change = ax.axvline(0, color=BLACK, ls="--", lw=lw * 0.7, zorder=1)
        # one artist per rule for all rows, and one for the croniter runs a rule skips
        self.marks = {r: ax.plot([], [], ls="none", marker=m, ms=ms * (1 if r == "croniter" else 0.9), color=c,
                                 zorder=4)[0] for r, (m, c) in LOOK.items()}
        self.skipped, = ax.plot([], [], ls="none", marker="x", ms=ms, mew=lw * 0.7, color=BLACK, zorder=3)
        # croniter's UTC times beside its runs (one or two), or its count; a sentence per differing lane.
        # A time stands on a white box, which hides its row's faint line behind it; it is kept
        # clear of the change line and the shading (`_keep_times_off_the_change`)
        over = dict(boxstyle=f"square,pad={BOX_PAD}", fc="white", ec="none")
        self.labels = [[ax.text(0, y, "", fontsize=small, va="center", bbox=over, zorder=3) for _ in range(2)]
                       for y in self.rows]
        self.counts = [ax.text(1.005, y, "", transform=left, fontsize=small, va="center") if phone else
                       ax.text(-0.006, y - COUNT_DROP, "", transform=left, fontsize=small, ha="right", va="center")
                       for y in self.rows]
        self.lanes = {r: [ax.text(0, y + dy, "", fontsize=small, va="center") for y in self.rows]
                      for r, dy in LANES.items()}
        # every hour marked (one artist), some labelled: the local hour over the UTC hour
        ax.plot(range(0, 26), [0] * 26, ls="none", marker="|", ms=ms * 0.6, color=BLACK, clip_on=False,
                transform=xt, zorder=2)
        self.hours = [ax.text(0, -0.04, "", transform=xt, fontsize=small, ha="center", va="top")
                      for _ in range(26)]
        # what each line of the hour labels is: two lines, set as the hours are, so each
        # stands on its row; placed beside the first label when a frame is drawn. They say what
        # the axis caption said ("hour: local (zone) over UTC", the zone is in the title), which
        # is left out: its pixels in every frame put the site over its size budget
        self._tick_rows = ax.text(0, -0.04, TICK_ROWS, transform=xt, fontsize=small, ha="right", va="top")
        ax.spines[["right", "top"]].set_visible(False)
        self._title = fig.text(0.01, 0.97, "", fontsize=max(fs * 0.85, HEAD * floor), va="top", ha="left")
        # a key drawn once, without a legend: a legend lays its boxes out again on every redraw
        key = [(dict(ls="none", marker=m, ms=ms, color=c), KEY_NAMES[r]) for r, (m, c) in LOOK.items()]
        key += [(dict(ls="none", marker="x", ms=ms, mew=lw * 0.7, color=BLACK), "skipped"),
                (dict(color=BLACK, ls="--", lw=lw * 0.7), "change")]
        if phone:     # the key in two rows, the axes narrower: a phone's width holds less
            self.key = _key(fig, key[:2], y=0.065, fontsize=fs * 0.7) + _key(fig, key[2:], y=0.025, fontsize=fs * 0.7)
            # the margins as narrow as the expressions (at `NAMES`) and "25 runs" allow: a
            # fall-back day's "cron-parser (and BullMQ) skips 16:30Z" then fits right of its cross
            fig.subplots_adjust(left=0.21, right=0.895, top=0.84, bottom=0.31)
        else:
            self.key = _key(fig, key, y=0.04, fontsize=max(fs * 0.7, read))
            # the plot as wide as the names and counts on its left allow, to the frame's edge:
            # an hour apart, two labels at `READ_PX` then keep an em between them (HOUR_GAP) and
            # "01" twice on a fall-back day stays (a projector's larger type keeps wider margins)
            presenter = fs >= 12
            fig.subplots_adjust(left=0.13 if presenter else 0.1, right=0.93 if presenter else 1.0, top=0.88,
                                bottom=0.27)
        self._fit_margins()
        self.track(*self.passes, self.after, self._after_text, self.change, *self.marks.values(), self.skipped,
                   *(t for pair in self.labels for t in pair), *self.counts,
                   *(t for texts in self.lanes.values() for t in texts), *self.hours, self._tick_rows, self._title)

    def _fit_margins(self) -> None:
        """The axes as wide as the widest expression on their left allows (on the desktop, the
        widest count too, under it) and, up to the layout's right margin (which holds "next day"
        after a shorter day on a phone), the widest count on their right on a phone, each `EDGE`
        CSS px inside the frame: measured at the size shown (`floor_of` raises the counts on a
        phone)."""
        ax = self.ax
        fig = ax.figure
        renderer = fig.canvas.get_renderer()
        width = fig.bbox.width
        edge = self._edge()
        names = max(t.get_window_extent(renderer).width for t in self.names)
        probe = self.counts[0]
        probe.set_text(_count(WIDEST_COUNT, self.narrow_layout))
        probe.set_fontsize(max(probe.get_fontsize(), floor_of(fig)))
        count = probe.get_window_extent(renderer).width
        probe.set_text("")
        if not self.narrow_layout:     # the counts stand on the left, under the expressions
            names, count = max(names, count), 0.0
        box = ax.get_position()
        left, right = box.x0, box.x1
        for _ in range(2):      # the names and counts stand a share of the axes' width off it
            inner = (right - left) * width
            left = (names + 0.006 * inner + edge) / width
            right = min(box.x1, 1 - (count + 0.005 * inner + edge) / width)
        ax.set_position([left, box.y0, right - left, box.height])

    def draw(self, frame) -> None:
        names = [t.get_text() for t in self.names]
        if list(frame.expressions) != names:         # another model's expressions: the static layer changes
            for t, e in zip(self.names, frame.expressions):
                t.set_text(e)
            self.live.invalidate()
        gap = self._gap()
        pts = {r: ([], []) for r in [*LOOK, "skipped"]}
        for row, y in enumerate(self.rows):
            runs = frame.runs[row]
            pts["croniter"][0].extend(runs)
            pts["croniter"][1].extend([y] * len(runs))
            self.counts[row].set_text(_count(frame.counts[row], self.narrow_layout))
            tags = frame.tags[row]
            for i, t in enumerate(self.labels[row]):
                t.set_visible(i < len(tags))
                if i < len(tags):
                    tag = tags[i]
                    t.set_text(tag.text)
                    t.set_x(tag.x - gap if tag.left else tag.x + gap)
                    t.set_ha("right" if tag.left else "left")
        for lane in frame.lanes:
            y = self.rows[lane.row] + LANES[lane.rule]
            pts[lane.rule][0].extend(lane.extra)
            pts[lane.rule][1].extend([y] * len(lane.extra))
            pts["skipped"][0].extend(lane.skipped)
            pts["skipped"][1].extend([y] * len(lane.skipped))
            text = self.lanes[lane.rule][lane.row]
            text.set_text(lane.text)
            text.set_x(lane.last + gap if lane.last is not None else 0)
        self._stagger(pts)
        for rule, artist in [*self.marks.items(), ("skipped", self.skipped)]:
            artist.set_data(*pts[rule])
        # the change, the repeated hour, the end of the day
        self.after.set_x(frame.length)
        self.after.set_width(XMAX - frame.length)
        self._after_text.set_x(frame.length + 0.1)
        self._after_text.set_visible(frame.length < XMAX - 1)
        self.change.set_visible(frame.change is not None)
        if frame.change is not None:
            self.change.set_xdata([frame.change] * 2)
        for i, p in enumerate(self.passes):
            p.set_visible(i < len(frame.passes))
            if i < len(frame.passes):
                p.set_x(frame.passes[i][0])
                p.set_width(frame.passes[i][1])
        self._title.set_text(frame.title)
        for i, t in enumerate(self.hours):
            t.set_visible(i < len(frame.ticks))
            if i < len(frame.ticks):
                x, text = frame.ticks[i]
                t.set_x(x)
                self._say_the_hour(t, frame, x, text)
        self._join_times_left_of_the_plot()
        self._tier_hours(frame)
        self._name_tick_rows()
        if self.narrow_layout:
            fit_width(self._title, seps=(": ", ", "))
            self._keep_title_inside()
            self._keep_tags_inside()
        self._keep_times_off_the_change()

    def _say_the_hour(self, t, frame, x: float, text: str) -> None:
        """Set the hour label `t` at `x` to `text` (local over UTC), the local hour at a change
        in words (`AGAIN`, `NO_HOUR`): the words run to the right, the label's lines left-aligned
        and shifted back half the hour's width, so its digits stay centred on the tick (and the
        UTC hour, as wide, under them)."""
        ax = self.ax
        t.set_transform(ax.get_xaxis_transform())
        t.set_ha("center")
        t.set_text(text)
        if frame.change is None or abs(x - frame.change) > 0.01:
            return
        local, _, rest = text.partition("\n")
        if frame.passes:
            said = AGAIN.format(hour=local)
        else:
            said = NO_HOUR.format(hour=local, skipped=_clock_before(local, frame.length))
        t.set_text(local)
        half = t.get_window_extent(ax.figure.canvas.get_renderer()).width / 2
        t.set_text(f"{said}\n{rest}")
        t.set_ha("left")
        t.set_transform(offset_copy(ax.get_xaxis_transform(), fig=ax.figure, x=-half, units="dots"))

    def _keep_times_off_the_change(self) -> None:
        """A time whose box would touch the dashed change line stands `CLEAR` em beyond it, and
        one whose white box would lie on the repeated hour's shading stands past it, on the side
        it already stood (h66: on Sydney's fall-back day "14:30Z", right of its 01:30 run, lay
        with its white box on the line and the shading an hour and a half later); one written
        left of its run that would then leave the plot goes right instead."""
        ax = self.ax
        if not self.change.get_visible():
            return
        fig = ax.figure
        renderer = fig.canvas.get_renderer()
        px = ax.transData.transform
        line = px((self.change.get_xdata()[0], 0))[0]
        shades = [(px((p.get_x(), 0))[0], px((p.get_x() + p.get_width(), 0))[0]) for p in self.passes
                  if p.get_visible()]
        for pair in self.labels:
            for t in pair:
                if not (t.get_visible() and t.get_text()):
                    continue
                em = t.get_fontsize() * fig.dpi / 72
                away = [(line, line, CLEAR * em + self.change.get_linewidth() * fig.dpi / 72 / 2),
                        *((x0, x1, 0.0) for x0, x1 in shades)]
                for _ in range(len(away)):
                    # the box as it will be drawn: its patch is placed only when drawn
                    box = t.get_window_extent(renderer).padded(BOX_PAD * em)
                    hit = next(((x0, x1, need) for x0, x1, need in away
                                if box.x0 - need < x1 and x0 < box.x1 + need), None)
                    if hit is None:
                        break
                    x0, x1, need = hit
                    shift = x1 + need - box.x0                          # to its right
                    if t.get_ha() == "right" and box.x0 - (box.x1 - x0 + need) >= ax.bbox.x0:
                        shift = x0 - need - box.x1                      # to its left, still in the plot
                    anchor = px((t.get_position()[0], 0))[0]
                    t.set_x(ax.transData.inverted().transform((anchor + shift, 0))[0])

    def _reach(self, rule: str) -> float:
        """How far a mark of `rule` ("skipped" for the cross) reaches from its centre, in
        pixels: half its marker and its edge's width."""
        line = self.skipped if rule == "skipped" else self.marks[rule]
        return (line.get_markersize() + line.get_markeredgewidth()) / 2 * self.ax.figure.dpi / 72

    def _stagger(self, pts) -> None:
        """A skip's cross and a lane's own mark that would touch (`pts`, per rule the marks'
        x and y, changed in place) stand apart up and down, the cross above, the lane's mark
        under it, `MARK_GAP` points between them, each at its own time: on a phone New York's
        spring-forward drew the 07:00Z cross on cron-parser's 07:30Z square."""
        ax = self.ax
        to_px, to_data = ax.transData.transform, ax.transData.inverted().transform
        air = MARK_GAP * ax.figure.dpi / 72
        xs, ys = pts["skipped"]
        for rule in LANES:
            rx, ry = pts[rule]
            for i, (x, y) in enumerate(zip(xs, ys)):
                for j, (u, v) in enumerate(zip(rx, ry)):
                    if v != y:
                        continue
                    (px, py), (pu, _) = to_px((x, y)), to_px((u, v))
                    need = self._reach("skipped") + self._reach(rule) + air
                    if abs(px - pu) >= need:
                        continue
                    ys[i] = to_data((px, py + need / 2))[1]
                    ry[j] = to_data((pu, py - need / 2))[1]

    def _edge(self) -> float:
        """`EDGE` in this figure's pixels: its width is shown `SHOWN_PX` CSS px wide."""
        fig = self.ax.figure
        return EDGE * fig.bbox.width / SHOWN_PX["narrow" if self.narrow_layout else "normal"]

    def _keep_title_inside(self) -> None:
        """A title on one line that `fit_width` let end within `EDGE` CSS px of the frame's right
        edge (on a phone, under a CSS px: Sydney's "no change" day) breaks after its colon."""
        title = self._title
        fig = title.figure
        text = title.get_text()
        right = title.get_window_extent(fig.canvas.get_renderer()).x1
        if right > fig.bbox.width - self._edge() and "\n" not in text and ": " in text:
            title.set_text(text.replace(": ", ":\n", 1))

    def _gap(self) -> float:
        """How far, in hours, a text stands from the centre of the mark it is about: `GAP`, or
        more where that would not leave `CLEAR` em between the mark's edge and the text."""
        ax = self.ax
        fig = ax.figure
        dot = self.marks["croniter"]
        radius = (dot.get_markersize() / 2 + self.skipped.get_markeredgewidth()) * fig.dpi / 72
        em = max(t.get_fontsize() for t in self.counts) * fig.dpi / 72
        per_hour = ax.transData.transform((1, 0))[0] - ax.transData.transform((0, 0))[0]
        return max(GAP, (radius + CLEAR * em) / per_hour)

    def _name_tick_rows(self) -> None:
        """Write "local" and "UTC" at the start of the hour labels' two lines, an em clear of the
        first label shown, so each line says what it is."""
        fig = self.ax.figure
        renderer = fig.canvas.get_renderer()
        shown = [t.get_window_extent(renderer) for t in self.hours if t.get_visible() and t.get_text()]
        em = self._tick_rows.get_fontsize() * fig.dpi / 72
        right = min((b.x0 for b in shown), default=self.ax.bbox.x0) - em
        self._tick_rows.set_x(self.ax.transData.inverted().transform((right, 0))[0])

    def _join_times_left_of_the_plot(self) -> None:
        """A time written left of a run near midnight ran into the expression's name and across
        the axis ("30 1 * * *05:30Z"): it joins the row's time on the right instead
        ("05:30Z, 06:30Z"), the runs' order kept."""
        renderer = self.ax.figure.canvas.get_renderer()
        x_left = self.ax.bbox.x0
        for y, (first, second) in zip(self.rows, self.labels):
            first.set_y(y)
            second.set_y(y)
            if (first.get_visible() and second.get_visible() and first.get_ha() == "right"
                    and second.get_ha() == "left" and first.get_window_extent(renderer).x0 < x_left):
                second.set_text(f"{first.get_text()}, {second.get_text()}")
                first.set_visible(False)

    def _keep_tags_inside(self) -> None:
        """On a phone: a time written left of a run near midnight would run into the
        expressions, so it goes above its run; a lane's sentence that would leave the plot
        takes two lines (`VERB`), or else ends at its right edge."""
        ax = self.ax
        renderer = ax.figure.canvas.get_renderer()
        x_left = ax.bbox.x0
        for y, pair in zip(self.rows, self.labels):
            for t in pair:
                t.set_y(y)
                if t.get_visible() and t.get_ha() == "right" and t.get_window_extent(renderer).x0 < x_left:
                    t.set_x(t.get_position()[0] + self._gap())
                    t.set_ha("center")
                    t.set_y(y + 0.24)
                    box = t.get_window_extent(renderer)
                    line = ax.transData.transform((self.change.get_xdata()[0], 0))[0]
                    if self.change.get_visible() and box.x0 < line < box.x1:
                        # above its run it sat on the change's dashed line, struck through
                        # (the plot is transparent, so nothing can be drawn behind it): it
                        # ends just before the line, over the margin between two expressions
                        t.set_ha("right")
                        t.set_x(ax.transData.inverted().transform((line - 3, 0))[0])
        edge = ax.bbox.x1 - 2      # within the plot (issue 30: it ran off the plot on a phone)
        for rule, texts in self.lanes.items():
            for y, t in zip(self.rows, texts):
                t.set_ha("left")
                t.set_va("center")
                t.set_y(y + LANES[rule])
                text = t.get_text().replace("\n", " ")
                t.set_text(text)
                if text and t.get_window_extent(renderer).width > ax.bbox.width - 4:
                    # wider than the plot: two lines, broken at the space nearest the middle
                    spaces = [i for i, c in enumerate(text) if c == " "]
                    if spaces:
                        cut = min(spaces, key=lambda i: abs(i - len(text) / 2))
                        t.set_text(text[:cut] + "\n" + text[cut + 1:])
                over = t.get_window_extent(renderer).x1 - edge if t.get_text() else 0
                verb = VERB.search(text) if over > 0 and "\n" not in t.get_text() else None
                if verb:
                    # past the edge (Sydney's fall-back day): on two lines, the first still
                    # beside its cross, a `CLEAR` gap from it (moved nearer, 0.35 em from its
                    # cross, the sentence read as starting with it, issue 30)
                    half = t.get_window_extent(renderer).height / 2
                    top = ax.transData.transform((0, t.get_position()[1]))[1] + half
                    t.set_text(text[:verb.start()] + "\n" + text[verb.end():])
                    t.set_va("top")
                    t.set_y(ax.transData.inverted().transform((0, top))[1])
                    over = t.get_window_extent(renderer).x1 - edge
                if over > 0:
                    t.set_x(ax.transData.inverted().transform((edge, 0))[0])
                    t.set_ha("right")

    def _tier_hours(self, frame) -> None:
        """An hour labelled next to another (the hours around a change, an hour apart) would
        overlap it on a phone, and on a desktop crowd it ("02 02 03" read as one group); staggered
        into two tiers they read as cryptic pairs (issue 30). So the labels stay on one line and
        one that would stand within `HOUR_GAP` em of a label already kept is left out, the hours
        at the change first, then those at the repeated hour's ends: the shading shows the hour between."""
        fig = self.ax.figure
        renderer = fig.canvas.get_renderer()
        marks = [x for p in frame.passes for x in (p[0], p[0] + p[1])]
        shown = [t for t in self.hours if t.get_visible()]

        def rank(t) -> tuple:
            x = t.get_position()[0]
            at_change = frame.change is not None and abs(x - frame.change) < 0.01
            return (not at_change, not any(abs(x - m) < 0.01 for m in marks), x)

        kept: list = []
        for t in sorted(shown, key=rank):
            t.set_y(-0.04)
            box = t.get_window_extent(renderer)
            gap = HOUR_GAP * t.get_fontsize() * fig.dpi / 72
            if any(box.x0 < k.x1 + gap and k.x0 < box.x1 + gap for k in kept):
                t.set_visible(False)
            else:
                kept.append(box)

    def tick_labels(self) -> list[str]:
        """The labelled hours along the axis, each the local hour over the UTC hour."""
        return [t.get_text() for t in self.hours if t.get_visible()]
