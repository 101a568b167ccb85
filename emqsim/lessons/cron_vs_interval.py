"""Cron vs interval: two rules for "when next", read off one time axis.

A cron expression names calendar slots and the next run is the earliest slot at or
after now (`Cron.at_or_after`); an interval names a gap and the next run is what the
engine's row holds at now for a schedule registered at the anchor and run on time
(`Schedule.on_time_score`: the first run `Every.first`, then `prev + every`). The figure
shows both rows on one morning, the `now` line and the next run under the rule switched
on; `one_timestamp` and `registry_text` show that in Redis both become one registry row
with one millisecond score.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.cadence import Cron, Every
from .course import EVERY, HOUR, MINUTE, on_day
from ..engine.durations import format_duration
from ..engine.errors import one_of
from ..engine.ids import id_time
from ..engine.keys import Keys
from ..engine.registry import Registry
from ..engine.schedule import Schedule
from ..engine.timefmt import at, hm, hms, iso
from .model import Model, Play, choice, slider, text
from .questions import Challenge, question

MODES = ("cron", "interval")
#: the morning on the axis, and the clock the figure opens at
AXIS_START = on_day("08:00")
AXIS_END = on_day("10:00")
NOW = on_day("08:48")
#: the figure's cron; its interval is the course's (EVERY), registered at ANCHOR with no offset
EXPR = "0 9 * * *"
ANCHOR = AXIS_START
#: an every-second cron would put 7200 marks on a two-hour axis
MAX_SLOTS = 240
#: the rows of the axis, bottom to top
ROW = {"cron": 1, "interval": 0}
#: expressions offered beside the default: slots all morning, one already past at 08:48, none on
#: the axis, and one cron refuses (its error is the readout)
PRESETS = ("*/20 8-9 * * *", "30 8 * * *", "0 12 * * *", "61 * * * *")
READOUT_ID = "cron-interval-readout"


def _mode(mode: str) -> str:
    return one_of(mode, MODES, "mode")


def interval_schedule(every: Every) -> Schedule:
    """The figure's interval schedule: the engine's registration, so its rule is the engine's."""
    return Schedule("interval", every)


def next_run(now: int, mode: str, *, expr: str = EXPR, anchor: int = ANCHOR,
             every: int | str = EVERY, offset: int | str | None = None) -> int:
    """The next run under the chosen rule; an invalid or never-matching cron raises ValueError.

    The interval's is the score the engine's row holds at `now` for a schedule registered at
    `anchor` (with `offset`, if given) and released on time since."""
    if _mode(mode) == "cron":
        return Cron(expr).at_or_after(now)
    return interval_schedule(Every(every, offset)).on_time_score(anchor, now)


def clock_and_day(nxt: int, now: int) -> str:
    """'09:00:00', or '09:00:00 (tomorrow, 2026-12-01)' when the run falls on another day."""
    day, today = iso(nxt)[:10], iso(now)[:10]
    if day == today:
        return hms(nxt)
    tomorrow = iso(at(today) + 24 * HOUR)[:10]
    return f"{hms(nxt)} (tomorrow, {day})" if day == tomorrow else f"{hms(nxt)} ({day})"


def _label(mode: str, expr: str, every: Every) -> str:
    return f"cron {expr}" if mode == "cron" else every.describe()


def readout_facts(now: int, mode: str, *, expr: str = EXPR, anchor: int = ANCHOR,
                  every: int | str = EVERY, offset: int | str | None = None) -> dict:
    """What the readout states: `now`, the `rule` as labelled, and the `next` run (Unix ms), or
    the `error` that refused the cron expression (`next` None)."""
    gap, mode = Every(every, offset), _mode(mode)  # a bad mode is the caller's bug: it raises
    try:
        nxt, error = next_run(now, mode, expr=expr, anchor=anchor, every=gap.ms, offset=gap.offset), None
    except ValueError as exc:
        nxt, error = None, str(exc)
    return {"now": now, "rule": _label(mode, expr, gap), "next": nxt, "error": error}


def readout(now: int, mode: str, *, expr: str = EXPR, anchor: int = ANCHOR,
            every: int | str = EVERY, offset: int | str | None = None) -> str:
    """The figure's one-line answer (`readout_facts`); a bad cron expression gives its error
    text, never a traceback."""
    f = readout_facts(now, mode, expr=expr, anchor=anchor, every=every, offset=offset)
    if f["error"] is not None:
        return f"now {hm(now)} | {f['error']}"
    return f"now {hm(now)} | {f['rule']} -> next run {clock_and_day(f['next'], now)}"


# -- the figure as data -------------------------------------------------------------------------


@dataclass(frozen=True)
class CronSlots:
    """What one cron expression puts on the axis: its slots (at most MAX_SLOTS), the row's
    label, and a note when there is something to say instead of slots."""

    expr: str
    slots: tuple[int, ...]
    label: str
    note: str
    error: str | None


def cron_slots(expr: str, start: int = AXIS_START, end: int = AXIS_END) -> CronSlots:
    """The slots of `expr` on the axis (`Cron.between`), or why there are none."""
    try:
        slots = tuple(Cron(expr).between(start, end, cap=MAX_SLOTS))
        error = None
    except ValueError as exc:
        slots, error = (), str(exc)
    if error:
        note = "invalid cron: see the readout"
    elif not slots:
        note = "no cron slot in this window"
    elif len(slots) == MAX_SLOTS:
        note = f"first {MAX_SLOTS} cron slots drawn"
    else:
        note = ""
    return CronSlots(expr, slots, f"cron {expr}", note, error)


@dataclass(frozen=True)
class CronIntervalFrame:
    """One state of the figure: the clock, the rule, both rows' marks and the next run."""

    now: int
    mode: str
    expr: str
    readout: str
    title: str                      # the readout's first clause (an error's fits; the readout has it all)
    row: int                        # the row of the rule switched on (ROW)
    cron_slots: tuple[int, ...]
    cron_label: str
    note: str                       # said on the cron row instead of slots ("" if nothing to say)
    error: str | None               # why the expression was refused, if it was
    interval_runs: tuple[int, ...]
    interval_label: str
    now_label: str
    next: int | None                # the next run under the rule; None if the cron has none
    next_label: str                 # the box at the ring ("" if no next run)
    next_x: int                     # where that box sits: at the run, or at the right edge
    next_align: str                 # "center" at the run, "right" at the edge


class CronIntervalModel(Model):
    """The morning of 2026-11-30 from 08:00 to 10:00: a cron row and an interval row (every 15
    min, registered at 08:00 unless `anchor` says otherwise, with `offset` if given), a `now`
    slider by the minute, the rule, and the cron's text."""

    readout_id = READOUT_ID
    controls = (
        slider("now", range(AXIS_START, AXIS_END + 1, MINUTE), NOW, label="now", fmt=hm, main=True,
               play=Play(step=1, max_step=15, interval=400, label="min per step")),
        choice("mode", MODES, "cron", label="rule"),
        text("expr", EXPR, PRESETS, label="cron"),
    )
    questions = (
        question(
            "01-interval-after-a-mark",
            "It is 09:16 and the rule is the interval (every 15 min, registered at 08:00). When is the next run?",
            [("09:30", "09:30, a gap after 09:15",
              "An interval's marks run a gap apart from its first run, 08:00: 09:15 has passed, so 09:30."),
             ("09:31", "09:31, a gap after now",
              "The gap counts from the previous scheduled run, not from now."),
             ("tomorrow", "09:00 tomorrow, as 09:00 is gone",
              "That is the cron's rule; an interval's next mark is within one gap.")],
            answer=lambda f: "tomorrow" if iso(f.next)[:10] != iso(f.now)[:10] else hm(f.next),
            show_me={"now": on_day("09:16"), "mode": "interval"}),
        question(
            "01-cron-after-its-slot",
            f"It is 09:01 and the rule is the cron `{EXPR}`. When is the next run?",
            [("tomorrow", "09:00 tomorrow, a day after today's",
              "The next run is the earliest slot at or after now: today's 09:00 has passed, so tomorrow's."),
             ("09:16", "09:16, 15 minutes after now",
              "That is an interval's rule; a cron has no gap, only calendar slots."),
             ("09:01", "09:01, at once, for the missed 09:00",
              "A passed slot is not brought back: the next run is the earliest slot at or after now.")],
            answer=lambda f: "tomorrow" if iso(f.next)[:10] != iso(f.now)[:10] else hm(f.next),
            show_me={"now": on_day("09:01"), "mode": "cron"}),
    )
    challenge = Challenge(
        "01-one-min-off", "With the interval rule on, find an instant at which the next run is 1 min away.",
        met=lambda f: f.mode == "interval" and f.next is not None and f.next - f.now == MINUTE,
        explain="The interval's runs fall every 15 min from 08:00 wherever now stands: a minute before each "
                "(08:14, 08:29 and on) the next is 1 min away. Counted from now, it would always be 15 min off.")

    def __init__(self, *, anchor: int = ANCHOR, every: int | str = EVERY, offset: int | str | None = None):
        super().__init__()
        self.anchor = id_time(anchor, "anchor")
        self.every = Every(every, offset)
        self.schedule = interval_schedule(self.every)
        self._slots: dict[str, CronSlots] = {}
        self._runs: tuple[int, ...] | None = None

    def runs(self) -> tuple[int, ...]:
        """The interval's on-time runs on the axis, from the engine (computed once)."""
        if self._runs is None:
            self._runs = tuple(self.schedule.on_time_runs(self.anchor, AXIS_START, AXIS_END))
        return self._runs

    def slots(self, expr: str) -> CronSlots:
        """The cron's slots on the axis, once per expression (every `now` shares them)."""
        hit = self._slots.get(expr)
        if hit is None:
            hit = self._slots[expr] = cron_slots(expr)
        return hit

    def describe(self, frame: CronIntervalFrame) -> str:
        rule = frame.cron_label if frame.mode == "cron" else frame.interval_label.replace("\n", " ")
        rule = rule[:1].upper() + rule[1:]
        if frame.next is None:
            return f"{rule}, now {hm(frame.now)}: {frame.note or 'no next run on this axis'}."
        when = frame.next_label.split("\n")[-1]
        return f"{rule}, now {hm(frame.now)}: next run {hms(frame.next)}, {when}."

    def compute(self, now: int, mode: str, expr: str) -> CronIntervalFrame:
        cron = self.slots(expr)
        rule = dict(expr=expr, anchor=self.anchor, every=self.every.ms, offset=self.every.offset)
        text_ = readout(now, mode, **rule)
        try:
            nxt = next_run(now, mode, **rule)
        except ValueError:
            nxt = None
        row = ROW[mode]
        label, x, align = "", now, "center"
        if nxt is not None:
            wait = f"in {format_duration(nxt - now)}" if nxt > now else "due now"
            if nxt <= AXIS_END:
                label, x = f"next {hms(nxt)}\n{wait}", nxt
            else:  # off the axis: say where it went
                label, x, align = f"next {clock_and_day(nxt, now)} \u2192\n{wait}", AXIS_END, "right"
        first = self.schedule.first_run(self.anchor)
        return CronIntervalFrame(
            now=now, mode=mode, expr=expr, readout=text_, title=text_.split(";")[0], row=row,
            cron_slots=cron.slots, cron_label=cron.label, note=cron.note, error=cron.error,
            interval_runs=self.runs(), interval_label=f"{self.every.describe()}\nfrom {hm(first)}",
            now_label=f"now {hm(now)} ", next=nxt, next_label=label, next_x=x, next_align=align)


# -- one timestamp: what Redis holds for each rule --------------------------------------------

def one_timestamp(registry: Registry, now: int) -> dict:
    """Upsert a cron schedule and an interval schedule at `now`; return what each upsert answered."""
    backup = Schedule("backup", Cron(EXPR))
    heartbeat = Schedule("heartbeat", Every(EVERY))
    return {s.name: registry.upsert(s, now) for s in (backup, heartbeat)}


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
        lines += [f"  {k:<{fw}}  {rec[k]}{_field_note(k, rec)}" for k in sorted(rec)]
    return "\n".join(lines)


def _field_note(field: str, rec: dict[str, str]) -> str:
    """A note beside an interval's two offsets, which read as a contradiction bare: the cadence
    holds the offset given at registration (0: none), `offset` the phase the first run fell on."""
    if not rec.get("cadence", "").startswith("every:"):
        return ""
    if field == "cadence" and rec["cadence"].rsplit(":", 1)[1] == "0":
        return "   (as registered: no offset given)"
    if field == "offset":
        return f"   (the first run's phase, {format_duration(int(rec['offset']))} into the gap, kept for catch-up)"
    return ""
