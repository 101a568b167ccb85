"""Cron vs interval: two rules for "when next", read off one time axis.

A cron expression names calendar slots and the next run is the earliest slot at or
after now (`Cron.at_or_after`); an interval names a gap and the next run is what the
engine's row holds at now for a schedule registered at the anchor and run on time
(`Schedule.on_time_score`: the first run `Every.first`, then `prev + every`). The view
draws both rows, the `now` line and the next run; `one_timestamp` shows that in Redis
both become one registry row with one millisecond score.
"""

from __future__ import annotations

import html

from matplotlib.transforms import blended_transform_factory

from ..cadence import Cron, Every
from ..durations import format_duration
from ..errors import InputError, one_of, whole
from ..keys import Keys
from ..registry import Registry
from ..schedule import Schedule
from ..timefmt import at, hm, hms, iso
from .controls import Panel, play
from .live import Live
from .style import BLACK, GREY, ROLE, new_figure, scale, time_axis

MODES = ("cron", "interval")
START = at("2026-11-30 08:00")
END = at("2026-11-30 10:00")
NOW = at("2026-11-30 08:48")
MINUTE = 60_000
MAX_SLOTS = 240  # an every-second cron would put 7200 marks on a two-hour axis
ROW = {"cron": 1, "interval": 0}
READOUT_ID = "cron-interval-readout"


def _mode(mode: str) -> str:
    return one_of(mode, MODES, "mode")


def interval_schedule(every: Every) -> Schedule:
    """The figure's interval schedule: the engine's registration, so its rule is the engine's."""
    return Schedule("interval", every)


def interval_marks(start: int, end: int, anchor: int, every: Every) -> list[int]:
    """The interval's runs inside [start, end] for a schedule registered at `anchor`."""
    first = interval_schedule(every).on_time_score(anchor, start)
    return list(range(first, end + 1, every.ms))


def cron_slots(cron: Cron, start: int, end: int, cap: int = MAX_SLOTS) -> list[int]:
    """The cron's slots inside [start, end], at most `cap` of them."""
    slots: list[int] = []
    t = cron.at_or_after(start)
    while t <= end and len(slots) < cap:
        slots.append(t)
        t = cron.after(t)
    return slots


def next_run(now: int, mode: str, *, expr: str = "0 9 * * *", anchor: int = START,
             every: int | str = "15m", offset: int | str | None = None) -> int:
    """The next run under the chosen rule; an invalid or never-matching cron raises ValueError.

    The interval's is the score the engine's row holds at `now` for a schedule registered at
    `anchor` (with `offset`, if given) and released on time since."""
    if _mode(mode) == "cron":
        return Cron(expr).at_or_after(now)
    return interval_schedule(Every(every, offset)).on_time_score(anchor, now)


def _when(nxt: int, now: int) -> str:
    """'09:00:00', or '09:00:00 (tomorrow, 2026-12-01)' when the run falls on another day."""
    day, today = iso(nxt)[:10], iso(now)[:10]
    if day == today:
        return hms(nxt)
    tomorrow = iso(at(today) + 86_400_000)[:10]
    return f"{hms(nxt)} (tomorrow, {day})" if day == tomorrow else f"{hms(nxt)} ({day})"


def _label(mode: str, expr: str, every: Every) -> str:
    return f"cron {expr}" if mode == "cron" else every.describe()


def readout(now: int, mode: str, *, expr: str = "0 9 * * *", anchor: int = START,
            every: int | str = "15m", offset: int | str | None = None) -> str:
    """The figure's one-line answer; a bad cron expression gives its error text, never a traceback."""
    gap, mode = Every(every, offset), _mode(mode)  # a bad mode is the caller's bug: it raises
    try:
        nxt = next_run(now, mode, expr=expr, anchor=anchor, every=gap.ms, offset=gap.offset)
    except ValueError as exc:
        return f"now {hm(now)} | {exc}"
    return f"now {hm(now)} | {_label(mode, expr, gap)} -> next run {_when(nxt, now)}"


class CronIntervalView:
    """Two rows on one time axis: cron slots (top) and interval marks (bottom)."""

    def __init__(self, ax, *, start: int = START, end: int = END, now: int = NOW, anchor: int | None = None,
                 expr: str = "0 9 * * *", every: int | str = "15m", offset: int | str | None = None,
                 mode: str = "cron"):
        if end <= start:
            raise InputError(f"end {end} ms is not after start {start} ms")
        self.ax = ax
        self.start, self.end = start, end
        self.anchor = start if anchor is None else anchor
        self.every = Every(every, offset)
        self.first = interval_schedule(self.every).first_run(self.anchor)   # the interval's first run
        now = whole(now, "now", low=start, high=end, what="whole Unix ms on the axis")  # as update() checks it
        self.now, self.mode, self.expr = now, _mode(mode), expr
        self.cron: Cron | None = None
        self.error: str | None = None
        self.next: int | None = None
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]

        time_axis(ax, start, end, step=30 * MINUTE, label="time")  # few labels: text is the costly part
        ax.set_xticks(range(start, end + 1, 15 * MINUTE), minor=True)
        ax.grid(axis="x", which="minor", color=GREY, alpha=0.3)
        pad = (end - start) // 40
        ax.set_xlim(start - pad, end + pad)  # marks at the edges stay whole
        ax.set_ylim(-0.75, 1.85)
        ax.spines[["top", "right"]].set_visible(False)
        top = blended_transform_factory(ax.transData, ax.transAxes)

        self._cron, = ax.plot([], [], ls="none", marker="D", ms=ms, color=ROLE["cron"], zorder=3)
        marks = interval_marks(start, end, self.anchor, self.every)
        self._interval, = ax.plot(marks, [ROW["interval"]] * len(marks), ls="none", marker="o", ms=ms,
                                  color=ROLE["interval"], zorder=3)
        self._wait, = ax.plot([], [], ls=":", lw=lw, color=GREY, zorder=2)
        self._ring, = ax.plot([], [], ls="none", marker="o", ms=ms * 2.4, mfc="none", mec=BLACK,
                              mew=lw, zorder=4)
        self._now = ax.axvline(now, color=ROLE["now"], lw=lw, zorder=5)
        self._now_text = ax.text(now, 0.03, "", transform=top, ha="right", va="bottom", fontsize=fs * 0.9)
        self._next_text = ax.text(0, 0, "", ha="center", va="bottom", fontsize=fs * 0.9, zorder=6,
                                  bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.9))
        self._note = ax.text(start + (end - start) / 2, ROW["cron"], "", ha="center", va="center",
                             fontsize=fs * 0.9, color=ROLE["finish"], zorder=6,
                             bbox=dict(boxstyle="round", fc="white", ec=ROLE["finish"]))
        self._title = ax.set_title("", fontsize=fs, loc="left")

        ax.figure.subplots_adjust(left=0.17, right=0.97, top=0.82, bottom=0.2)
        self.live = Live(ax.figure, moving=[self._cron, self._interval, self._wait, self._ring, self._now,
                                            self._now_text, self._next_text, self._note, self._title])
        self._set_expr(expr)
        self.update()

    # -- state -------------------------------------------------------------------------------

    def _set_expr(self, expr: str) -> None:
        """Parse a new cron expression and redraw its slots (or show why it is rejected)."""
        self.expr = expr
        try:
            self.cron = Cron(expr)
            slots = cron_slots(self.cron, self.start, self.end)
            self.error = None
        except ValueError as exc:
            self.cron, slots, self.error = None, [], str(exc)
        self._cron.set_data(slots, [ROW["cron"]] * len(slots))
        if self.error:
            self._note.set_text("invalid cron: see the readout")
        elif not slots:
            self._note.set_text("no cron slot in this window")
        elif len(slots) == MAX_SLOTS:
            self._note.set_text(f"first {MAX_SLOTS} cron slots drawn")
        else:
            self._note.set_text("")
        self.ax.set_yticks([ROW["interval"], ROW["cron"]], [f"{self.every.describe()}\nfrom {hm(self.first)}", f"cron {expr}"])
        self.live.invalidate()  # the row's label is part of the static layer

    def update(self, now: int | None = None, mode: str | None = None, expr: str | None = None) -> str:
        """Move `now`, switch the rule or try another cron expression; returns the readout.
        Every value is checked before any is stored: `now` is whole Unix ms on the axis, `mode`
        one of MODES, `expr` text (an expression cron refuses is shown, not raised)."""
        if now is not None:
            now = whole(now, "now", low=self.start, high=self.end, what="whole Unix ms on the axis")
        if mode is not None:
            mode = _mode(mode)
        if expr is not None and not isinstance(expr, str):
            raise InputError(f"expr {expr!r} is not text; give a cron expression such as '0 9 * * *'", "expr")
        if mode is not None:
            self.mode = mode
        if expr is not None and expr != self.expr:
            self._set_expr(expr)
        if now is not None:
            self.now = now
        now, row = self.now, ROW[self.mode]
        text = readout(now, self.mode, expr=self.expr, anchor=self.anchor, every=self.every.ms,
                       offset=self.every.offset)
        try:
            self.next = next_run(now, self.mode, expr=self.expr, anchor=self.anchor, every=self.every.ms,
                                 offset=self.every.offset)
        except ValueError:
            self.next = None

        self._now.set_xdata([now, now])
        self._now_text.set_x(now)
        self._now_text.set_text(f"now {hm(now)} ")
        self._cron.set_alpha(1.0 if self.mode == "cron" else 0.3)
        self._interval.set_alpha(1.0 if self.mode == "interval" else 0.3)
        if self.next is None:
            self._ring.set_data([], [])
            self._wait.set_data([], [])
            self._next_text.set_text("")
        else:
            self._ring.set_data([self.next], [row])
            self._wait.set_data([now, self.next], [row, row])
            wait = f"in {format_duration(self.next - now)}" if self.next > now else "due now"
            if self.next <= self.end:
                self._next_text.set_position((self.next, row + 0.3))
                self._next_text.set_horizontalalignment("center")
                self._next_text.set_text(f"next {hms(self.next)}\n{wait}")
            else:  # off the axis: say where it went
                self._next_text.set_position((self.end, row + 0.3))
                self._next_text.set_horizontalalignment("right")
                self._next_text.set_text(f"next {_when(self.next, now)} \u2192\n{wait}")
        self._title.set_text(text.split(";")[0])  # an error's first clause fits; the readout has it all
        return text

    def moves(self) -> list[dict]:
        """A sweep of now from 08:30 to 09:27 in 3-minute steps, switching the rule every 5 moves."""
        base = at("2026-11-30 08:30")
        return [{"now": base + 3 * i * MINUTE, "mode": MODES[(i // 5) % 2]} for i in range(20)]


def view(width: float = 9.0, height: float = 3.4, **kw) -> CronIntervalView:
    """A view on a new figure sized for a notebook column."""
    fig, ax = new_figure(width, height)
    return CronIntervalView(ax, **kw)


_new_view = view  # the panel's `view` argument shadows the name


class CronIntervalPanel(Panel):
    """The widgets around a view: a now slider with Play and speed, the rule switch, a cron text box,
    the readout."""

    def __init__(self, view: CronIntervalView | None = None):
        import ipywidgets as w

        self.view = v = view or _new_view()
        times = list(range(v.start, v.end + 1, MINUTE))
        if v.now not in times:
            times = sorted({*times, v.now})
        self.now = w.SelectionSlider(options=[(hm(t), t) for t in times], value=v.now, description="now",
                                     continuous_update=True, layout=w.Layout(width="520px"))
        self.mode = w.ToggleButtons(options=self._mode_options(), value=v.mode, description="rule")
        self.expr = w.Text(value=v.expr, description="cron", continuous_update=False,
                           placeholder="five fields, e.g. */20 8-9 * * 1-5")
        # Play walks `now` forward a minute (or `speed` minutes) per tick
        self.player = play(self.now, step=1, max_step=15, interval=400, label="min per step", width="240px")
        self.readout = w.HTML()
        self._show(v.update())
        self.now.observe(self.on_now, names="value")
        self.mode.observe(self.on_mode, names="value")
        self.expr.observe(self.on_expr, names="value")
        self.box = w.VBox([w.HBox([self.mode, self.expr]), w.HBox([self.player.play, self.now, self.player.speed]),
                           self.readout, v.live.image])

    def _mode_options(self) -> list[tuple[str, str]]:
        return [(f"cron {self.view.expr}", "cron"), (self.view.every.describe(), "interval")]

    def _show(self, text: str) -> str:
        self.readout.value = f'<code id="{READOUT_ID}">{html.escape(text)}</code>'
        self.view.live.refresh()
        return text

    def on_now(self, change) -> str:
        return self._show(self.view.update(now=change["new"]))

    def on_mode(self, change) -> str:
        return self._show(self.view.update(mode=change["new"]))

    def on_expr(self, change) -> str:
        """Trying an expression switches to the cron rule, so the reader sees its answer."""
        text = self.view.update(mode="cron", expr=change["new"].strip())
        self.mode.options = self._mode_options()  # resets the switch to "cron": already shown
        self.mode.value = "cron"
        return self._show(text)


def panel(view: CronIntervalView | None = None) -> CronIntervalPanel:
    """Build the widgets around `view` (a fresh one if none); it displays as the widget box."""
    return CronIntervalPanel(view)


# -- one timestamp: what Redis holds for each rule --------------------------------------------

def one_timestamp(registry: Registry, now: int) -> dict:
    """Upsert a cron schedule and an interval schedule at `now`; return what each upsert answered."""
    reports = Schedule("reports", Cron("0 9 * * *"))
    heartbeat = Schedule("heartbeat", Every("15m"))
    return {s.name: registry.upsert(s, now) for s in (reports, heartbeat)}


def registry_text(registry: Registry, queue: str = "demo") -> str:
    """The registry ZSET and each record hash as text, keys shown for queue `queue`.

    A real server gives each Store a private queue name; printing keys under a fixed
    name keeps the text identical on fakeredis and on Redis.
    """
    keys = Keys(queue)
    rows = registry.rows()
    width = max((len(name) for name, _ in rows), default=0)
    lines = [f"ZRANGE {keys.repeat} 0 -1 WITHSCORES   (ZCARD {registry.size()})"]
    for name, score in rows:
        lines.append(f"  {name:<{width}}  score {score}  = {hms(score)}")
    for name, _ in rows:
        rec = registry.record(name)
        lines.append(f"HGETALL {keys.record(name)}")
        fw = max(len(k) for k in rec)
        lines += [f"  {k:<{fw}}  {rec[k]}" for k in sorted(rec)]
    return "\n".join(lines)
