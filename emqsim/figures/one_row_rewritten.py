"""One row, rewritten each fire, drawn: jobs produced and registry rows against fires elapsed.

The lesson model (`emqsim.lessons.one_row_rewritten`) runs the engine as far as the slider
has gone and hands over both lines up to the cursor; this view places them, with the
cursor and a box naming the row's score and the newest job.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import to_hex, to_rgb
from matplotlib.transforms import Bbox

from .style import GREY, LIGHT_BG, READ_PX, ROLE, contrast, fit_width, ink, legible, narrow, scale
from .view import View


#: the jobs axis' span from 0 to 1, in decades of its log part: at 1 the right axis' 0 and 1 stood
#: under an em apart at the plot's foot (issue 30), its 1 half way up a tenth of the height
JOBS_LINEAR = 2.5
#: the axis numbers' contrast on white: a lone "1" is one thin stroke, which a phone's browser,
#: showing the frame at a third of its pixels, blends with the white beside it (issue 30: inked
#: at 5.5:1, the right axis' "1" read 4.98:1 on its darkest pixel there)
NUMBER_CONTRAST = 7.0


def deep(colour) -> str:
    """`colour` mixed with black, its hue kept, until it reads at `NUMBER_CONTRAST` on white;
    darker, it reads the better on the dark theme too, whose filter turns it light."""
    rgb = np.array(to_rgb(colour))
    k = next(k for k in range(101) if contrast(to_hex(rgb * (1 - k / 100)), LIGHT_BG) >= NUMBER_CONTRAST)
    return to_hex(rgb * (1 - k / 100)).upper()


class RegistryRowsView(View):
    """Jobs produced (left axis, solid) and registry rows, ZCARD (right axis, dashed) against
    fires elapsed, each up to the cursor, with a dot at the cursor on each line."""

    width, height = 9.0, 3.6
    narrow_height = 3.8

    def __init__(self, ax=None):
        super().__init__(ax)
        ax, s = self.ax, scale()
        self.ax_rows = rows_ax = ax.twinx()
        # fires and jobs on log scales (linear below 1, so 0 has its place): the slider's first
        # positions, one fire apart, stand apart from the first fire on, not squashed at the left
        # of an axis to 10,000 (issue 30)
        ax.set_xscale("symlog", linthresh=1, linscale=1)
        # the jobs' 0 to 1 as tall as `JOBS_LINEAR` decades: the rows' square stands half way up it
        # (`draw`), so the right axis' 0 and 1 stand that half apart
        ax.set_yscale("symlog", linthresh=1, linscale=JOBS_LINEAR)
        ax.set_xlabel("fires elapsed (log scale)")
        ax.set_ylabel("jobs produced", color=ink(ROLE["run"]))
        rows_ax.set_yticks([0, 1])
        rows_ax.set_ylabel("registry rows (ZCARD)", color=ink(ROLE["schedule"]))
        ax.grid(color=GREY, alpha=0.25)
        # each axis in its line's colour, ticks, numbers and spine (issue 30: the ZCARD square at 1
        # on the right axis stood level with "30" on the jobs axis and was read off the wrong one)
        for a, side, colour in ((ax, "left", ROLE["run"]), (rows_ax, "right", ROLE["schedule"])):
            a.tick_params(axis="y", colors=ink(colour))
            a.spines[side].set_color(colour)
            a.spines[side].set_linewidth(scale()["line"] * 0.75)
        # the right axis' numbers deeper than its ink: its "1" is a lone stroke (`NUMBER_CONTRAST`)
        rows_ax.tick_params(axis="y", labelcolor=deep(ROLE["schedule"]))
        rows_ax.spines["left"].set_visible(False)
        self._title = ax.set_title("", fontsize=s["font"])
        lw, small = s["line"], s["font"] * 0.85
        (self.jobs_line,) = ax.plot([], [], color=ROLE["run"], lw=lw * 1.5, label="jobs produced")
        (self.rows_line,) = rows_ax.plot([], [], color=ROLE["schedule"], lw=lw * 1.5, ls="--",
                                         label="registry rows (ZCARD)")
        # each line named near where a whole run ends (jobs high on the right, rows just above
        # 1), moved each frame to the first of its places that the cursor, the lines and their
        # dots leave clear (issue 30: at 50 fires on a phone the cursor ran through the name)
        # (the rows' line is named by its count beside its square, `rows_value`: one text, not two)
        self.names = (ax.text(0, 0, "jobs produced", transform=ax.transAxes, color=ink(ROLE["run"]), fontsize=small),)
        self.cursor = ax.axvline(0, color=ROLE["now"], lw=lw * 0.6, label="fires elapsed")
        (self.jobs_dot,) = ax.plot([0], [0], "o", color=ROLE["run"], ms=s["marker"], mec=ROLE["now"], clip_on=False)
        (self.rows_dot,) = rows_ax.plot([0], [1], "s", color=ROLE["schedule"], ms=s["marker"], mec=ROLE["now"],
                                        clip_on=False)
        # the square's own value beside it ("1 row"), so it is not read off the jobs axis
        self.rows_value = rows_ax.annotate("", (0, 1), xytext=(0, 4), textcoords="offset points", ha="left",
                                           va="bottom", color=ink(ROLE["schedule"]), fontsize=small,
                                           fontweight="bold", annotation_clip=False,
                                           # where no place beside the square is clear of a steep
                                           # jobs line, the line stops at the count's edge
                                           bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))
        if narrow():   # title and the row's box above the axes, across the figure: inside them the box
            # would cover the lines
            self._title.set_visible(False)
            self._title = ax.figure.text(0.02, 0.98, "", fontsize=s["font"], va="top", ha="left")
            self.row_box = ax.text(0.02, 0.83, "", transform=ax.figure.transFigure, va="top", ha="left",
                                   fontsize=s["font"] * 0.7, zorder=5, bbox=dict(boxstyle="round", fc="white", ec=GREY))
            for a in (ax, rows_ax):
                a.tick_params(labelsize=s["font"] * 0.8)
                a.yaxis.label.set_fontsize(s["font"] * 0.8)
            ax.xaxis.label.set_fontsize(s["font"] * 0.8)
            ax.figure.subplots_adjust(left=0.2, right=0.84, bottom=0.13, top=0.7)
        else:
            self.row_box = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top", ha="left", fontsize=small,
                                   zorder=5, bbox=dict(boxstyle="round", fc="white", ec=GREY))
            ax.figure.subplots_adjust(left=0.115 if s["font"] < 12 else 0.14, right=0.91 if s["font"] < 12 else 0.89,
                                      bottom=0.16, top=0.9)
            # the line's name, the row count and the cursor's box are read off: `READ_PX` on the
            # desktop, where at the floor they painted 9-10 px tall (issue 30); a phone keeps the floor
            legible(ax.figure, READ_PX)
        self._axis: tuple | None = None
        self.moving = (self.jobs_line, self.rows_line, self.cursor, self.jobs_dot, self.rows_dot, self.row_box,
                       self.rows_value, *self.names)
        self.track(*self.moving)

    def draw(self, frame) -> None:
        axis = (frame.top, frame.title)
        if axis != self._axis:  # the span of fires and the title are part of the static layer
            self._axis = axis
            self.ax.set_xlim(0, frame.top)
            self.ax.set_ylim(0, frame.top * 1.05)
            ticks = [0] + [10 ** e for e in range(0, len(str(int(frame.top))))]
            labels = [f"{t:,}" for t in ticks]
            self.ax.set_xticks(ticks, labels)
            self.ax.set_yticks(ticks, labels)
            self.ax.minorticks_off()
            # one row stands half way between no job and one job: the jobs' dot is at 0 on the
            # first stop and at 1 or more on every other, so it never sits on the rows' square
            # (issue 30: with the row half way up at 50 fires on a phone the dot stood on it)
            one = self.ax.transAxes.inverted().transform(self.ax.transData.transform((0, 1)))[1]
            self.ax_rows.set_ylim(0, 2 / one)
            self._title.set_text(frame.title)
            fit_width(self._title)
            self.live.invalidate()
        k = frame.fires
        self.jobs_line.set_data(frame.x, frame.jobs)
        self.rows_line.set_data(frame.x, frame.sizes)
        self.cursor.set_xdata([k, k])
        self.jobs_dot.set_data([k], [frame.state.jobs])
        self.rows_dot.set_data([k], [frame.state.size])
        self.row_box.set_text(frame.box)
        self._mark_rows(k, frame.state.size)
        self._name_lines()

    def _mark_rows(self, k, size: int, pad: float = 2.0) -> None:
        """Write the registry's row count beside its square, at the first of `BESIDE` that stays
        inside the axes and clear of the lines, the cursor and the jobs' dot."""
        self.rows_value.xy = (k, size)
        count = f"{size} row{'' if size == 1 else 's'}"
        renderer = self.ax.figure.canvas.get_renderer()
        step = pad * self.ax.figure.dpi / 72
        inside = self._inside(renderer, step)
        dot = self.jobs_dot.get_window_extent(renderer)
        # on one line first; on two where one would run into the right axis (a cursor near the
        # middle of a phone's axes leaves no line's width beside it)
        for text, (dx, dy, ha, va) in ((t, b) for t in (f"{count} (ZCARD)", f"{count}\n(ZCARD)") for b in BESIDE):
            self.rows_value.set_text(text)
            self.rows_value.set_position((dx, dy))
            self.rows_value.set_horizontalalignment(ha)
            self.rows_value.set_verticalalignment(va)
            box = self.rows_value.get_window_extent(renderer)
            wide = Bbox.from_extents(box.x0 - step, box.y0 - step, box.x1 + step, box.y1 + step)
            if (_within(box, inside) and not wide.overlaps(dot)
                    and not any(_crosses(line, wide) for line in (self.jobs_line, self.rows_line, self.cursor))):
                break

    def _inside(self, renderer, step: float) -> Bbox:
        """The axes' inside less the spines' width and `step` pixels: where a label stands clear
        of the spines and the tick labels beyond them (issue 30: "1 row (ZCARD)" ran into the
        right axis)."""
        box = self.ax.get_window_extent(renderer)
        edge = max(s.get_linewidth() for s in (*self.ax.spines.values(), *self.ax_rows.spines.values()))
        d = edge / 2 * self.ax.figure.dpi / 72 + step
        return Bbox.from_extents(box.x0 + d, box.y0 + d, box.x1 - d, box.y1 - d)

    def _name_lines(self, pad: float = 2.0) -> None:
        """Put each line's name at the first of its `PLACES` where it crosses neither line nor
        the cursor and stands `pad` points clear of the dots, the row's box and the other name."""
        ax = self.ax
        renderer = ax.figure.canvas.get_renderer()
        step = pad * ax.figure.dpi / 72
        keep = [a.get_window_extent(renderer) for a in (self.jobs_dot, self.rows_dot, self.row_box, self.rows_value)]
        lines = (self.cursor, self.jobs_line, self.rows_line)
        inside = self._inside(renderer, step)
        for text, places in zip(self.names, PLACES):
            for x, y, ha, va in places:
                text.set_position((x, y))
                text.set_horizontalalignment(ha)
                text.set_verticalalignment(va)
                box = text.get_window_extent(renderer)
                wide = Bbox.from_extents(box.x0 - step, box.y0 - step, box.x1 + step, box.y1 + step)
                if _within(box, inside) and not (any(_crosses(line, wide) for line in lines)
                                                 or any(wide.overlaps(k) for k in keep)):
                    break
            keep.append(text.get_window_extent(renderer))


def _within(box, inside) -> bool:
    return inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1


def _crosses(line, box) -> bool:
    """True when the drawn path of `line` runs through `box` (pixels)."""
    if not line.get_visible() or len(line.get_xdata()) == 0:
        return False
    return line.get_transform().transform_path(line.get_path()).intersects_bbox(box, filled=False)


#: where the row count may stand from the square, in points, in the order tried: above right,
#: under right, above left, under left, then the same a line further off (where a steep jobs
#: line runs through all four near places)
BESIDE = tuple((sx * 6, sy * dy, "left" if sx > 0 else "right", "bottom" if sy > 0 else "top")
               for dy in (3, 14, 26) for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)))

#: where each line's name may stand, in axes fractions, in the order tried: the jobs' name high
#: on the right, else lower or left; the rows' just above or under their line at 1 (half way
#: up), right, else left
PLACES = (
    [(0.98, 0.76, "right", "top"), (0.98, 0.62, "right", "top"), (0.98, 0.9, "right", "top"),
     (0.98, 0.3, "right", "top"), (0.98, 0.12, "right", "bottom"), (0.5, 0.76, "center", "top"),
     (0.5, 0.3, "center", "top"), (0.3, 0.62, "left", "top"), (0.02, 0.9, "left", "top"),
     (0.02, 0.76, "left", "top")],
    [(0.98, 0.54, "right", "bottom"), (0.98, 0.46, "right", "top"), (0.02, 0.54, "left", "bottom"),
     (0.02, 0.46, "left", "top"), (0.5, 0.54, "center", "bottom"), (0.5, 0.46, "center", "top"),
     (0.98, 0.38, "right", "top"), (0.98, 0.66, "right", "bottom")],
)
