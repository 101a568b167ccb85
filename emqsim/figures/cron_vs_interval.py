"""Cron vs interval, drawn: two rows on one time axis, the `now` line and the next run.

The lesson model (`emqsim.lessons.cron_vs_interval`) gives every mark, label and the
readout; this view only places them. The row labels are the one part of the static
layer that changes (a new cron expression), so a move redraws the moving marks only.
"""

from __future__ import annotations

import numpy as np
from matplotlib import rcParams
from matplotlib.colors import to_hex, to_rgb
from matplotlib.transforms import blended_transform_factory

from ..lessons.course import MINUTE
from ..lessons.cron_vs_interval import AXIS_END, AXIS_START, ROW
from .style import BLACK, DARK_BG, GREY, LIGHT_BG, ROLE, contrast, dark, fit_width, ink, narrow, scale, time_axis
from .view import View


#: the next run's box: its face's pad round the text, in em, and the least gap, in points,
#: between that face and the now line's stroke (at 3 pt a phone showed the arrow about 4 CSS px
#: from the line, and the dark page hides the face: it read as running into it, issue 30)
BOX_PAD, GAP = 0.15, 5.0
#: inches the title stands higher on a phone than its usual pad over the axes
TITLE_ROOM = 0.2
#: the least contrast a faded mark (the row switched off, the dotted wait) keeps with the page,
#: light and dark: WCAG's 3:1 for graphics. The off row was drawn at 0.3 alpha, 1.3:1 on white,
#: and the dark filter turned it near black on the dark page (issue 30)
FADED = 3.0


def faint(colour) -> str:
    """The palest tint (or, for a colour too light for it, the lightest shade) of `colour` that
    keeps `FADED` on the light page and, turned by the dark filter, on the site's and Lab's
    dark ones: a faded mark that still reads in both themes."""
    rgb = np.array(to_rgb(colour))
    for k in range(100, -101, -1):   # from near white, through the colour, to black
        c = to_hex(rgb + (1 - rgb) * k / 100 if k >= 0 else rgb * (1 + k / 100))
        grounds = ((c, LIGHT_BG), (dark(c), dark(LIGHT_BG)), (dark(c), DARK_BG))
        if all(contrast(a, b) >= FADED + 0.05 for a, b in grounds):
            return c.upper()
    raise ValueError(f"faint({colour!r}): no tint of it reads on both pages")  # pragma: no cover


class CronIntervalView(View):
    """Cron slots (top row, diamonds) and interval runs (bottom row, dots) on 08:00-10:00, the
    rule switched on filled at full strength, the other hollow in a faint tint (`faint`), a
    ring on its next run and a dotted wait to it."""

    width, height = 9.0, 3.4
    #: on a phone `TITLE_ROOM` inches over the three the axes and title took: room between them
    #: for a next-run box of three lines (`_clear_of_now`)
    narrow_height = 3.0 + TITLE_ROOM

    def __init__(self, ax=None):
        super().__init__(ax)
        ax = self.ax
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        start, end = AXIS_START, AXIS_END
        time_axis(ax, start, end, step=30 * MINUTE, label="time")  # few labels: text is the costly part
        ax.set_xticks(range(start, end + 1, 15 * MINUTE), minor=True)
        ax.grid(axis="x", which="minor", color=GREY, alpha=0.3)
        pad = (end - start) // 40
        ax.set_xlim(start - pad, end + pad)  # marks at the edges stay whole
        ax.set_ylim(-0.75, 1.85)
        ax.spines[["top", "right"]].set_visible(False)
        ax.set_yticks([ROW["interval"], ROW["cron"]], ["", ""])
        top = blended_transform_factory(ax.transData, ax.transAxes)

        self._cron, = ax.plot([], [], ls="none", marker="D", ms=ms, color=ROLE["cron"], zorder=3)
        self._interval, = ax.plot([], [], ls="none", marker="o", ms=ms, color=ROLE["interval"], zorder=3)
        self._wait, = ax.plot([], [], ls=":", lw=lw, color=faint(GREY), zorder=2)
        self._lw, self._mew = lw, self._cron.get_markeredgewidth()
        self._ring, = ax.plot([], [], ls="none", marker="o", ms=ms * 2.4, mfc="none", mec=BLACK,
                              mew=lw, zorder=4)
        self._now = ax.axvline(start, color=ROLE["now"], lw=lw, zorder=5)
        self._now_text = ax.text(start, 0.03, "", transform=top, ha="right", va="bottom", fontsize=fs * 0.9)
        self._next_text = ax.text(0, 0, "", ha="center", va="bottom", fontsize=fs * 0.9, zorder=6,
                                  bbox=dict(boxstyle=f"round,pad={BOX_PAD}", fc="white", ec="none", alpha=0.9))
        self._note = ax.text(start + (end - start) / 2, ROW["cron"], "", ha="center", va="center",
                             fontsize=fs * 0.9, color=ink(ROLE["finish"]), zorder=6,
                             bbox=dict(boxstyle="round", fc="white", ec=ROLE["finish"]))
        pad = rcParams["axes.titlepad"] + (TITLE_ROOM * 72 if narrow() else 0)
        self._title = ax.set_title("", fontsize=fs, loc="left", pad=pad)
        self._labels: tuple[str, str] | None = None
        if narrow():   # the row labels keep their room; the title starts at the figure's edge
            ax.figure.subplots_adjust(left=0.27, right=0.93, top=2.28 / (3.0 + TITLE_ROOM),
                                       bottom=0.54 / (3.0 + TITLE_ROOM))
            ax.tick_params(axis="both", labelsize=fs * 0.8)
            self._title.set_x(-0.25 / 0.66)
        else:
            ax.figure.subplots_adjust(left=0.17, right=0.97, top=0.82, bottom=0.2)
        self.track(self._cron, self._interval, self._wait, self._ring, self._now, self._now_text,
                   self._next_text, self._note, self._title)

    def draw(self, frame) -> None:
        labels = (frame.interval_label, frame.cron_label)
        if labels != self._labels:  # the row labels are part of the static layer
            self._labels = labels
            self.ax.set_yticks([ROW["interval"], ROW["cron"]], list(labels))
            self.live.invalidate()
        self._cron.set_data(frame.cron_slots, [ROW["cron"]] * len(frame.cron_slots))
        self._interval.set_data(frame.interval_runs, [ROW["interval"]] * len(frame.interval_runs))
        for line, role in ((self._cron, "cron"), (self._interval, "interval")):
            self._fade(line, ROLE[role], off=frame.mode != role)
        self._note.set_text(frame.note)
        now, row = frame.now, frame.row
        self._now.set_xdata([now, now])
        self._now_text.set_x(now)
        self._now_text.set_text(frame.now_label)
        self._now_text.set_horizontalalignment("right")
        self._now_beside_the_axis()
        if frame.next is None:
            self._ring.set_data([], [])
            self._wait.set_data([], [])
        else:
            self._ring.set_data([frame.next], [row])
            self._wait.set_data([now, frame.next], [row, row])
        self._next_text.set_position((frame.next_x, row + 0.3))
        self._next_text.set_horizontalalignment(frame.next_align)
        self._next_text.set_text(frame.next_label)
        self._clear_of_now(now)
        self._title.set_text(frame.title)
        fit_width(self._title, seps=(" | ", " -> "))

    def _fade(self, line, colour: str, off: bool) -> None:
        """The row of the rule in force filled in its colour; the other hollow, its edge in
        `faint(colour)`: paler than the one in force, yet 3:1 on either page (an alpha fade
        over white was a near-white the dark filter turned near black)."""
        if off:
            line.set(markerfacecolor="none", markeredgecolor=faint(colour), markeredgewidth=self._lw * 0.6)
        else:
            line.set(markerfacecolor=colour, markeredgecolor=colour, markeredgewidth=self._mew)

    def _now_beside_the_axis(self) -> None:
        """The now label stands left of its line; near the axis's left end that put it over the
        row labels ("now 08:00" beside "from 08:00", a reader's read): there it stands right of
        the line, its pad moved to its left."""
        text = self._now_text
        if text.get_window_extent(self.ax.figure.canvas.get_renderer()).x0 < self.ax.bbox.x0:
            label = text.get_text()
            text.set_text(" " * (len(label) - len(label.rstrip())) + label.rstrip())
            text.set_horizontalalignment("left")

    def _clear_of_now(self, now: int) -> None:
        """Keep the next run's box inside the figure and off the now line: where it would cross
        the line (a run due now, or soon, or the edge label when now is near the edge), set it
        beside the line, on its right if the box fits there, else on its left."""
        text, ax = self._next_text, self.ax
        if not text.get_text():
            return
        renderer = ax.figure.canvas.get_renderer()
        box = text.get_window_extent(renderer)
        at = ax.transData.transform((now, 0))[0]
        # the box's face reaches BOX_PAD em past its text, and the line half its width past its
        # centre: 4 pixels of gap were less than the face's pad on a phone's 270 dpi frame, and
        # the box began on the line (issue 30); this gap is in points, the same at every dpi
        points = ax.figure.dpi / 72
        pad = (GAP + self._now.get_linewidth() / 2 + BOX_PAD * text.get_fontsize()) * points
        edge = ax.figure.bbox.x1 - pad
        if box.x1 > edge:           # past the figure's right edge: pulled back inside it
            text.set_x(ax.transData.inverted().transform((edge, 0))[0])
            text.set_horizontalalignment("right")
            box = text.get_window_extent(renderer)
        if box.x1 + pad < at or box.x0 - pad > at:
            return
        right = at + pad + box.width <= ax.figure.bbox.x1 - pad
        x = ax.transData.inverted().transform((at + (pad if right else -pad), 0))[0]
        text.set_x(x)
        text.set_horizontalalignment("left" if right else "right")
        first = text.get_text().split("\n")[0]
        if not right and at - pad - box.width < pad and " (" in first:
            # fits neither side (a phone, now just past 09:00, the run tomorrow: the box ran off
            # the figure's left edge, issue 30): its day on a line of its own, and placed again
            text.set_text(text.get_text().replace(" (", "\n(", 1))
            text.set_position((now, text.get_position()[1]))
            self._clear_of_now(now)
