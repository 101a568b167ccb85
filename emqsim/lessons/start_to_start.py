"""Lesson 03: start-to-start against start-to-finish, and how far each rule lets a cadence slip.

The question the lesson asks is "every 15 minutes from what?". Three rules of the engine
answer it: ``schedule`` (BullMQ's ``prevMillis + every``, from the previous slot),
``release`` (EchoMQ's ``now_ms() + every_ms``, from the release instant) and ``finish``
(from the end of the run). Every time shown comes from the engine: the four-run lanes from
the Lua engine (`simulate`), whose `Fire.next` is the score the rule wrote; their time axis
and the day-long slip from the reference model (`emqsim.engine.reference`, the same rules as plain
arithmetic, no Redis), which the engine is checked against (`slips(..., engine=True)`,
`engine_agrees`).

The first half's two figures: `CadenceModel` (four runs on two lanes, a run-length slider) and `SlipModel`
(the slip of 96 releases from their slots on the clock, a pump-tick slider). Both compute a
slider position the first time it is asked for and keep it.

The page's second half, the wake marker: a worker parked on it is woken by the write that makes a job ready.

BullMQ 6.x's rule (its includes addBaseMarkerIfNeeded.lua and addDelayMarkerIfNeeded.lua):
the marker is a sorted set holding "0" at score 0 while a job is ready and "1" at the
earliest delayed job's timestamp; a worker with nothing to do blocks on it with BZPOPMIN.
In emqsim's pump design the scripts that make a job ready (`enqueue`, `fire`) write "0"
through the shared include `lua/includes/marker.lua`; a parked worker pops it with the `take`
script and takes its job. `marker_steps` shows those verbs one at a time on a store. The
BullMQ design has delayed jobs, so it writes "1" too (`bullmq_marker_steps`).

`WakeModel` compares the start latency (started - released) of a worker parked on the
marker with one that polls every N. Both come from the engine's trace: the parked
worker's start is the instant its marker read handed it the job, so a script that
forgot the marker, or wrote the wrong score, would show here as a wait (`waits(next_run=True)`
runs such a script).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..engine.cadence import Every
from ..engine.chain import BullMQ
from ..engine.durations import format_duration
from ..engine.errors import one_of
from ..engine.ids import Minter
from ..engine.pump import Pump
from ..engine.rand import draw
from ..engine.reference import reference
from ..engine.registry import ADVANCE, Registry
from ..engine.schedule import INF, Schedule
from ..engine.sim import simulate, PumpDesign
from ..engine.store import Store
from ..engine.timefmt import hm, hms
from ..engine.worker import Worker
from . import bullmq_lane
from .course import MINUTE, NAME, SECOND, START
from .model import choice, Model, slider, spoken
from .questions import Challenge, question


#: the run-length slider, whole minutes
RUNS = tuple(range(15))
#: what the cadence figure lights: one rule's lane, the other's, or both
MEASURES = ("start-to-start", "start-to-finish", "both")
#: the cadence figure's lanes, top to bottom, and the words for each rule
LANES = ("schedule", "finish")
LABEL = {"schedule": "start-to-start", "finish": "start-to-finish"}
SHOWS = {"start-to-start": ("schedule",), "start-to-finish": ("finish",), "both": ("schedule", "finish")}
#: runs on each lane of the cadence figure
FIRES = 4
#: the pump-tick slider of the slip figure, ms; each divides 15 min
TICKS = (0, 250, 500, 1000, 1500, 2000, 2500, 3000, 4000, 5000)
#: the enqueue round trip before EchoMQ's advance reads now_ms()
LATENCY = 20
SLIP_RULES = ("schedule", "release", "finish")
#: EchoMQ.Pump re-arms send_after(tick) after each sweep
BEAT = "rearm"
#: the slip figure's day: 96 runs at 15 min, each running 4 min
CYCLES = 96
SLIP_RUN = 4 * MINUTE
#: each line's end label names its rule and, in words, when the next run is due, `{every}` the gap
#: (issue 30: "finish: finish + every" and "+6 h 20 min 1.92 s" read as code to a first-time
#: reader, and "release: release + 15 min" repeated itself: each run is released 15 min after
#: the last release)
RULE_FROM = {"schedule": "slot + {every}", "release": "{every} after the last", "finish": "run's end + {every}"}
#: the slip axis is logarithmic: a slip of 0 is drawn on this floor (ms)
FLOOR = 1


def hmsms(ms: int) -> str:
    """'HH:MM:SS.mmm' in UTC: the release rule's drift lives in the milliseconds."""
    return f"{hms(ms)}.{ms % 1000:03d}"


# -- 1. the cadence: four runs on two lanes ----------------------------------------------------

def lane_fires(rule: str, run: int | str, *, start: int = START, every: int | str = "15m",
               fires: int = FIRES) -> tuple[tuple[int, int, int], ...]:
    """(started, finished, next score written) of the first `fires` runs under `rule`, from the
    engine (its default pump, a worker whose runs take `run`)."""
    sched = Schedule(NAME, Every(every), rule=one_of(rule, ("schedule", "release", "finish"), "rule"))
    trace = simulate(sched, start=start, fires=fires, worker=Worker(run=run))
    return tuple((f.started, f.finished, int(f.next)) for f in trace)


def verdict_facts(rule: str, starts, every: int, run: int) -> dict:
    """What a lane's verdict states: its `starts`, the distinct `slips` between them beyond the
    gap (sorted; [0] when the gap holds), and whether a 0-min run explains a finish lane holding."""
    slips = sorted({b - a - every for a, b in zip(starts, starts[1:])})
    return {"rule": rule, "starts": tuple(starts), "slips": tuple(slips), "holds": slips == [0],
            "zero_run": rule == "finish" and run == 0}


def lane_verdict(rule: str, starts, every: int, run: int) -> str:
    """One lane's verdict: the start times, then whether the gap between them holds."""
    facts = verdict_facts(rule, starts, every, run)
    times = ", ".join(hm(s) for s in facts["starts"])
    slips = facts["slips"]
    if facts["holds"]:
        marks = ", ".join(":" + hm(s)[3:] for s in facts["starts"])
        why = " (a 0-min run adds nothing to the gap)" if facts["zero_run"] else ""
        return f"{LABEL[rule]}: {times} \u2014 holds at {marks}{why}"
    if len(slips) == 1:
        return f"{LABEL[rule]}: {times} \u2014 drifts {format_duration(slips[0])} later each cycle"
    steps = ", ".join(f"+{format_duration(s)}" for s in slips)
    return f"{LABEL[rule]}: {times} \u2014 drifts later by {steps}"


@dataclass(frozen=True)
class CadenceLane:
    """One rule's runs: bars from `starts` to `finishes`, labelled by `labels`; `gaps` runs from
    each run's anchor (its start, or its finish) to the score the rule wrote after it, and
    `gap_text` (at `gap_at`) names that gap. `lit` is False for the lane greyed out."""

    rule: str
    lit: bool
    starts: tuple[int, ...]
    finishes: tuple[int, ...]
    labels: tuple[str, ...]
    gaps: tuple[tuple[int, int], ...]
    gap_text: str
    gap_at: float


@dataclass(frozen=True)
class CadenceFrame:
    """The cadence figure at one run length and measure. `span` (the time axis) and
    `lane_names` (the y tick labels, top lane first) are the same in every frame."""

    run: int
    measure: str
    lanes: tuple[CadenceLane, ...]
    title: str
    readout: str
    span: tuple[int, int]
    lane_names: tuple[str, ...]


def _lane(frame: "CadenceFrame", rule: str) -> "CadenceLane":
    """The frame's lane for `rule` ("schedule" or "finish")."""
    return next(lane for lane in frame.lanes if lane.rule == rule)


class CadenceModel(Model):
    """Four runs of an every-15-min schedule under the two rules, for each run length (min)."""

    readout_id = "cadence-verdict"
    controls = (
        slider("run", RUNS, 4, label="run (min)", main=True),
        choice("measure", MEASURES, "both"),
    )
    questions = (
        question(
            "03-finish-fourth-start",
            "Every 15 min from 09:00, each run takes 3 min. Under start-to-finish (next = finish + 15 min), "
            "when does the fourth run start?",
            [("09:54", "09:54, 9 min behind",
              "Each cycle adds run and gap, 18 min: 09:18, 09:36, 09:54."),
             ("09:45", "09:45, right on time",
              "That is start-to-start; start-to-finish adds the run every cycle."),
             ("09:48", "09:48, 3 min behind",
              "That adds the run once; start-to-finish adds it every cycle."),
             ("09:57", "09:57, 12 min behind",
              "That is its finish: it starts at 09:54.")],
            answer=lambda f: hm(_lane(f, "finish").starts[3]), show_me={"run": 3, "measure": "both"}),
        question(
            "03-schedule-fourth-finish",
            "Now each run takes 10 min. Under start-to-start (next = previous start + 15 min), "
            "when does the fourth run finish?",
            [("09:55", "09:55, before 10:00",
              "Start-to-start starts it at 09:45 whatever the run's length: 09:55."),
             ("10:25", "10:25, after 10:15",
              "That is start-to-finish, where each cycle adds the run."),
             ("09:45", "09:45, at its start",
              "That is its start; it finishes 10 min later."),
             ("10:15", "10:15, after 10:00",
              "That is start-to-finish's fourth start.")],
            answer=lambda f: hm(_lane(f, "schedule").finishes[3]),
            show_me={"run": 10, "measure": "start-to-start"}),
    )
    #: not 10:00 (5-min runs): one arrow press from the 4 min the figure opens at (issue 30)
    challenge = Challenge(
        "03-fourth-at-1021", "Find the run length that makes the fourth start-to-finish run start at 10:21 exactly "
                             "(with that lane lit).",
        met=lambda f: _lane(f, "finish").lit and _lane(f, "finish").starts[3] == f.lanes[0].starts[0] + 81 * MINUTE,
        explain="With 12-min runs each cycle is 27 min: three after 09:00 make 10:21.")

    def __init__(self, *, start: int = START, every: int | str = "15m", fires: int = FIRES):
        super().__init__()
        self.start, self.every, self.fires = start, Every(every).ms, fires
        self._marks: dict[tuple[str, int], tuple] = {}
        self._span: tuple[int, int] | None = None

    def marks(self, rule: str, run: int) -> tuple[tuple[int, int, int], ...]:
        """`lane_fires` for one rule and run length (min), run once and kept."""
        key = (rule, run)
        if key not in self._marks:
            self._marks[key] = lane_fires(rule, run * MINUTE, start=self.start, every=self.every, fires=self.fires)
        return self._marks[key]

    def span(self) -> tuple[int, int]:
        """The time axis, one for every run length so the runs move against it: from 5 min
        before the start to the quarter hour after the longest runs' last finish (+2 min).
        From the reference model (no Redis), so the first frame runs only its own two lanes."""
        if self._span is None:
            last = max(int(reference(Schedule(NAME, Every(self.every), rule=rule), start=self.start,
                                     fires=self.fires, worker=Worker(run=RUNS[-1] * MINUTE), ids=None).finished.max())
                       for rule in LANES)
            self._span = (self.start - 5 * MINUTE, -(-(last + 2 * MINUTE) // self.every) * self.every)
        return self._span

    def lane_names(self) -> tuple[str, ...]:
        gap = format_duration(self.every)
        return tuple(f"{LABEL[r]}\nnext = {'start' if r == 'schedule' else 'finish'} + {gap}" for r in LANES)

    def describe(self, frame: CadenceFrame) -> str:
        said = []
        for lane, name in zip(frame.lanes, frame.lane_names):
            runs = [t for t in lane.labels if t]
            told = f"runs at {spoken(runs)}" if runs else "no runs yet"
            said.append(f"{name.splitlines()[0]} {told}" + ("" if lane.lit else " (greyed)"))
        return f"Every 15 min from 09:00: {'; '.join(said)}."

    def compute(self, run: int, measure: str) -> CadenceFrame:
        lit = SHOWS[measure]
        lanes = []
        for rule in LANES:
            marks = self.marks(rule, run)
            anchor = 0 if rule == "schedule" else 1     # the gap runs from the start, or the finish
            gaps = tuple((m[anchor], m[2]) for m in marks[:-1])
            lanes.append(CadenceLane(
                rule=rule, lit=rule in lit, starts=tuple(m[0] for m in marks), finishes=tuple(m[1] for m in marks),
                labels=tuple(hm(m[0]) for m in marks), gaps=gaps,
                gap_text=f"{format_duration(self.every)} from the {'start' if anchor == 0 else 'finish'}",
                gap_at=(marks[0][anchor] + marks[0][2]) / 2))
        grey = "" if measure == "both" else ", the other greyed"
        title = (f"every {format_duration(self.every)} from {hm(self.start)}, each run takes {run} min "
                 f"\u00b7 lit: {measure}{grey}")
        readout = "\n".join(lane_verdict(rule, [m[0] for m in self.marks(rule, run)], self.every, run * MINUTE)
                            for rule in lit)
        return CadenceFrame(run, measure, tuple(lanes), title, readout, self.span(), self.lane_names())


# -- 2. the slip over many cycles -------------------------------------------------------------

@lru_cache(maxsize=32)
def clock_slots(start: int = START, every: int | str = "15m", cycles: int = CYCLES) -> np.ndarray:
    """The slots on the clock for runs 1..cycles: the schedule rule's slots when every release
    is on time (a pump woken at the score), from the reference model. Read-only (shared)."""
    sched = Schedule(NAME, Every(every))
    slots = reference(sched, start=start, fires=cycles, pump=Pump(tick=0), ids=None).slot.copy()
    slots.flags.writeable = False
    return slots


def slips(rule: str, tick: int, *, start: int = START, every: int | str = "15m", cycles: int = CYCLES,
          latency: int = LATENCY, run: int | str = "4m", engine: bool = False, beat: str = BEAT) -> np.ndarray:
    """released - the slot on the clock (`clock_slots`), ms, for runs 1..cycles.

    From the reference model; `engine=True` runs the Lua engine instead (slower, same answer).
    """
    gap = Every(every).ms
    sched = Schedule(NAME, Every(gap), rule=one_of(rule, SLIP_RULES, "rule"))
    pump, worker = Pump(tick=tick, latency=latency, beat=beat), Worker(run=run)
    if engine:
        released = simulate(sched, start=start, fires=cycles, pump=pump, worker=worker).arrays()["released"]
    else:
        released = reference(sched, start=start, fires=cycles, pump=pump, worker=worker, ids=None).released
    return released - clock_slots(start, gap, cycles)


def tick_text(tick: int) -> str:
    """The tick as the slip figure names it: 0 is a pump woken exactly at the score."""
    return "0 (woken at the score)" if tick == 0 else format_duration(tick)


def growth_facts(slip: np.ndarray) -> dict:
    """How a slip series moves, as `growth` words it: `kind` "flat", "step" (always `lo` more a
    run), "steps" (always later, by `lo` to `hi` a run) or "range" (between `lo` and `hi`)."""
    steps = np.diff(slip)
    if not len(steps) or not steps.any():
        return {"kind": "flat"}
    lo, hi = int(steps.min()), int(steps.max())
    if lo == hi:
        return {"kind": "step", "lo": lo}
    if lo > 0:
        return {"kind": "steps", "lo": lo, "hi": hi}
    return {"kind": "range", "lo": int(slip.min()), "hi": int(slip.max())}


def growth(slip: np.ndarray) -> str:
    """How a slip series moves: "flat", "+X a run" (a constant step), "+X to +Y a run"
    (always later, by varying steps), or "between X and Y" (it comes and goes)."""
    g = growth_facts(slip)
    if g["kind"] == "flat":
        return "flat"
    if g["kind"] == "step":
        return f"+{format_duration(g['lo'])} a run"
    if g["kind"] == "steps":
        return f"+{format_duration(g['lo'])} to +{format_duration(g['hi'])} a run"
    return f"between {format_duration(g['lo'])} and {format_duration(g['hi'])}"


def engine_agreement(tick: int = 1000, cycles: int = 24) -> dict[str, bool]:
    """Per rule: does the Lua engine release at the reference model's instants?"""
    return {rule: slips(rule, tick, cycles=cycles, engine=True).tolist() == slips(rule, tick, cycles=cycles).tolist()
            for rule in SLIP_RULES}


def engine_agrees(tick: int = 1000, cycles: int = 24) -> str:
    """One line per rule: does the Lua engine release at the reference model's instants?"""
    return "\n".join(f"{rule:8} engine == reference for {cycles} runs: {same}"
                     for rule, same in engine_agreement(tick, cycles).items())


@dataclass(frozen=True)
class SlipLine:
    """One rule's slips (ms, run 1 first), the same floored at `FLOOR` for the log axis, and
    the label at the line's end (the rule, its formula, the last run's slip)."""

    rule: str
    slips: tuple[int, ...]
    drawn: tuple[int, ...]
    label: str


@dataclass(frozen=True)
class SlipFrame:
    """The slip figure at one pump tick; `runs` is the x axis (1..cycles), `top` the axis top."""

    tick: int
    runs: tuple[int, ...]
    lines: tuple[SlipLine, ...]
    top: float
    title: str
    xlabel: str
    readout: str


def _line(frame: "SlipFrame", rule: str) -> "SlipLine":
    """The slip frame's line for `rule`."""
    return next(line for line in frame.lines if line.rule == rule)


def _first_tick_as_late(frame: "SlipFrame") -> bool:
    """03's slip challenge: run 96 of the schedule rule as late as the release rule's, on the
    shortest tick of the slider that does it. The two are equal once the tick is longer than
    the beat's whole drift (the release rule's slip), so the slider's stop before it is not."""
    last = _line(frame, "release").slips[-1]
    before = TICKS[TICKS.index(frame.tick) - 1] if frame.tick in TICKS[1:] else None
    return _line(frame, "schedule").slips[-1] == last and before is not None and before <= last


class SlipModel(Model):
    """The slip of each release from its slot on the clock, per rule, for each pump tick."""

    readout_id = "slip-readout"
    controls = (slider("tick", TICKS, 1000, label="pump tick", fmt=format_duration, main=True),)
    challenge = Challenge(
        "03-schedule-as-late", "Find the shortest pump tick at which the schedule rule's run 96 is released as "
                               "late as the release rule's.",
        met=lambda f: _first_tick_as_late(f),
        explain="The release rule carries 20 ms a run: 1.92 s by run 96 whatever the tick. From a 2 s tick on, "
                "the schedule rule's slip never starts over, so it is as late.")

    def __init__(self, *, start: int = START, every: int | str = "15m", cycles: int = CYCLES,
                 latency: int = LATENCY, run: int | str = SLIP_RUN):
        super().__init__()
        self.start, self.every, self.cycles = start, Every(every).ms, cycles
        self.latency, self.run = latency, Worker(run=run).run
        self._slips: dict[tuple[str, int], np.ndarray] = {}

    def slips(self, rule: str, tick: int) -> np.ndarray:
        """`slips` for one rule and tick, from the reference model once, then kept (read-only)."""
        key = (rule, tick)
        if key not in self._slips:
            s = slips(rule, tick, start=self.start, every=self.every, cycles=self.cycles, latency=self.latency,
                      run=self.run)
            s.flags.writeable = False
            self._slips[key] = s
        return self._slips[key]

    def describe(self, frame: SlipFrame) -> str:
        slips = [f"{line.rule} +{format_duration(int(line.slips[-1]))}" for line in frame.lines]
        return (f"Slip of each release from its slot by run {frame.runs[-1]}, pump tick "
                f"{format_duration(frame.tick) if frame.tick else '0'}: {spoken(slips)}.")

    def compute(self, tick: int) -> SlipFrame:
        lines, parts, gap = [], [], format_duration(self.every)
        for rule in SLIP_RULES:
            s = self.slips(rule, tick)
            last = f"+{format_duration(int(s[-1]))}"
            late = f"run {self.cycles}: {format_duration(int(s[-1]))} late"
            lines.append(SlipLine(rule, tuple(s.tolist()), tuple(np.maximum(s, FLOOR).tolist()),
                                  f"{rule}: {RULE_FROM[rule].format(every=gap)}\n{late}"))
            parts.append(f"{rule} {last} ({growth(s)})")
        top = max(max(line.slips) for line in lines)
        # in words the page has defined above the figure (pump, tick): re-arm and sweep come after
        # it, and a title is no place for "enqueue latency" (issue 30)
        wakes = "just when a run is due (tick 0)" if tick == 0 else f"every {format_duration(tick)} (its tick)"
        title = (f"EchoMQ's pump wakes {wakes}, adding a job to the queue takes "
                 f"{format_duration(self.latency)}, each run {format_duration(self.run)}")
        return SlipFrame(
            tick=tick, runs=tuple(range(1, self.cycles + 1)), lines=tuple(lines), top=max(top * 3, 1e4),
            title=title, xlabel=f"run number (every {format_duration(self.every)}, from {hm(self.start)})",
            readout=f"by run {self.cycles}, pump tick {tick_text(tick)}: " + " \u00b7 ".join(parts))


# -- 3. the two pages' rules side by side --------------------------------------------------------

def rule_rows(*, every: int | str = 1500, tick: int = 1000, fires: int = 4, start: int = START,
              latency: int = 0, beat: str = BEAT):
    """{rule: [(slot, released)]} for the schedule and release rules, from the engine."""
    out = {}
    for rule in ("schedule", "release"):
        trace = simulate(Schedule(NAME, Every(every), rule=rule), start=start, fires=fires,
                         pump=Pump(tick=tick, latency=latency, beat=beat))
        out[rule] = [(f.slot, f.released) for f in trace]
    return out


def rule_table(*, every: int | str = 1500, tick: int = 1000, fires: int = 4, start: int = START,
               latency: int = 0, beat: str = BEAT) -> str:
    """Slot and release per cycle under BullMQ's `prev + every` and EchoMQ's `now + every`."""
    rows = rule_rows(every=every, tick=tick, fires=fires, start=start, latency=latency, beat=beat)
    gap = Every(every).ms
    lines = [f"every {gap} ms, pump tick {tick} ms ({beat}), sweep latency {latency} ms",
             f"{'run':>3}  {'schedule: slot':>14}  {'released':>12}  {'release: slot':>14}  {'released':>12}"]
    for n, ((s1, r1), (s2, r2)) in enumerate(zip(rows["schedule"], rows["release"]), 1):
        lines.append(f"{n:>3}  {hmsms(s1):>14}  {hmsms(r1):>12}  {hmsms(s2):>14}  {hmsms(r2):>12}")
    lines += period_readout(rows, gap).splitlines()[1:]
    return "\n".join(lines)


def _apart(values) -> str:
    return "/".join(str(v) for v in sorted(set(values)))


def period_facts(rows: dict, every: int) -> dict:
    """What each rule keeps, measured on the engine's rows: the gap asked for (`every`), the
    schedule rule's distinct slot gaps and release lags, the release rule's distinct gaps
    between releases (its effective period) and its release instants."""
    sched, rel = rows["schedule"], [r for _, r in rows["release"]]
    return {"every": every,
            "slot_gaps": tuple(sorted({b[0] - a[0] for a, b in zip(sched, sched[1:])})),
            "lags": tuple(sorted({r - s for s, r in sched})),
            "release_gaps": tuple(sorted({b - a for a, b in zip(rel, rel[1:])})),
            "releases": tuple(rel)}


def period_readout(rows: dict, every: int) -> str:
    """What each rule keeps, measured on the engine's rows (`period_facts`), in three lines."""
    f = period_facts(rows, every)
    return "\n".join([
        f"asked for every {f['every']} ms",
        f"  schedule rule: slots {_apart(f['slot_gaps'])} ms apart, each released {_apart(f['lags'])} ms"
        " after its slot",
        f"  release rule:  released {_apart(f['release_gaps'])} ms apart: "
        + ", ".join(hmsms(r) for r in f["releases"]),
    ])


#: the assumption behind every re-armed pump's number here: EchoMQ's sweep (pump.ex `sweep/1`)
#: also runs its promote script, the due read and the flow outbox read before it re-arms
CHEAP_SWEEP = "with a sweep that costs only the enqueue latency"


def period_gaps(*, every: int | str = 1500, tick: int = 1000, latencies=(0, LATENCY), fires: int = 8,
                start: int = START) -> dict[tuple[int, str], tuple[int, ...]]:
    """{(latency, beat): the distinct gaps between the release rule's releases}, from the engine."""
    gap = Every(every).ms
    out = {}
    for lat in latencies:
        for beat in ("grid", "rearm"):
            trace = simulate(Schedule(NAME, Every(gap), rule="release"), start=start, fires=fires,
                             pump=Pump(tick=tick, latency=lat, beat=beat))
            rel = [f.released for f in trace]
            out[lat, beat] = tuple(sorted({b - a for a, b in zip(rel, rel[1:])}))
    return out


def periods(*, every: int | str = 1500, tick: int = 1000, latencies=(0, LATENCY), fires: int = 8,
            start: int = START) -> str:
    """The release rule's gap between releases (its effective period), from the engine, on a
    grid pump and on EchoMQ's re-arming one, for each sweep latency (`period_gaps`)."""
    gap = Every(every).ms
    gaps = period_gaps(every=gap, tick=tick, latencies=latencies, fires=fires, start=start)
    lines = [f"release rule, every {gap} ms, pump tick {tick} ms: gap between releases over {fires} runs, "
             f"{CHEAP_SWEEP}"]
    for lat in latencies:
        cells = [f"{beat} {_apart(gaps[lat, beat])} ms" for beat in ("grid", "rearm")]
        lines.append(f"  latency {lat:>3} ms: " + " \u00b7 ".join(cells))
    return "\n".join(lines)


def lost_per_cycle(*, ticks=(1000, 5000), latency: int = LATENCY, cycles: int = CYCLES,
                   start: int = START) -> dict[tuple[int, str], tuple[int, int]]:
    """{(tick, beat): (least, most) the release rule loses per cycle over `cycles` runs}."""
    out = {}
    for tick in ticks:
        for beat in ("grid", "rearm"):
            steps = np.diff(slips("release", tick, start=start, cycles=cycles, latency=latency, beat=beat))
            out[tick, beat] = (int(steps.min()), int(steps.max()))
    return out


def slip_ranges(*, ticks=(1000, 5000), latency: int = LATENCY, cycles: int = CYCLES, start: int = START) -> str:
    """What the release rule loses per cycle (min-max over `cycles` runs every 15 min), on a grid
    pump and on EchoMQ's re-arming one (`lost_per_cycle`): the slip is a range, not one number."""
    lost = lost_per_cycle(ticks=ticks, latency=latency, cycles=cycles, start=start)
    lines = [f"release rule, every 15 min, lost per cycle over {cycles} runs, {CHEAP_SWEEP}, {latency} ms"]
    for tick in ticks:
        cells = []
        for beat in ("grid", "rearm"):
            lo, hi = lost[tick, beat]
            cells.append(f"{beat} {format_duration(lo)}" + ("" if lo == hi else f" to {format_duration(hi)}"))
        lines.append(f"  tick {format_duration(tick):>5}: " + " \u00b7 ".join(cells))
    return "\n".join(lines)


# -- 4. EchoMQ's advance, live on a Store --------------------------------------------------------

def advance_facts(store: Store | None = None, *, start: int = START, every: int | str = "15m",
                  lag: int = LATENCY) -> list[dict]:
    """Register, advance to `now + every`, cancel, advance again: per call, its `call`, `answer`
    (with the script's code, `code`, for an advance), the instants it names and the registry's
    rows ([(name, score)]) and ZCARD (`size`) after it.

    The next scores are the release rule's (`Schedule.next_run`), as the pump would write them."""
    own = store is None
    store = store or Store()
    try:
        reg = Registry(store)
        sched = Schedule(NAME, Every(every), rule="release")
        phase = sched.cadence.phase(sched.first_run(start))
        code = {v: k for k, v in ADVANCE.items()}
        out = [{"call": "register", "every": sched.cadence.ms, "first": start, "answer": reg.register(sched, start),
                "rows": reg.rows(), "size": reg.size()}]
        now = start + lag
        nxt = sched.next_run(start, released=now, finished=None, phase=phase)
        ans = reg.advance(NAME, nxt)
        out.append({"call": "advance", "released": now, "next": nxt, "answer": ans, "code": code[ans],
                    "rows": reg.rows(), "size": reg.size()})
        out.append({"call": "cancel", "answer": reg.cancel(NAME), "rows": reg.rows(), "size": reg.size()})
        now = nxt                                      # the next tick reads the row at its score
        nxt = sched.next_run(now, released=now, finished=None, phase=phase)
        ans = reg.advance(NAME, nxt)
        out.append({"call": "advance", "released": now, "next": nxt, "answer": ans, "code": code[ans],
                    "rows": reg.rows(), "size": reg.size()})
        return out
    finally:
        if own:
            store.close()


def advance_demo(store: Store | None = None, *, start: int = START, every: int | str = "15m",
                 lag: int = LATENCY) -> str:
    """`advance_facts` as the notebook prints it: the answers and the registry after the
    register and after each advance. Only row names, scores and answers are printed: key names
    carry the queue name, which a real server makes unique per Store."""
    reg, first, cancel, late = advance_facts(store, start=start, every=every, lag=lag)

    def rows(step) -> str:
        shown = ", ".join(f"{name} -> {hmsms(score)}" for name, score in step["rows"]) or "(empty)"
        return f"  registry: {shown}   ZCARD {step['size']}"

    return "\n".join([
        f"register {NAME}, every {format_duration(reg['every'])}, first run {hmsms(reg['first'])}: {reg['answer']}",
        rows(reg),
        f"released at {hmsms(first['released'])}; advance({NAME}, now + every = {hmsms(first['next'])}): "
        f"{first['answer']} ({first['code']})",
        rows(first),
        f"cancel({NAME}): {cancel['answer']}",
        f"a tick that read the row before the cancel: advance({NAME}, {hmsms(late['next'])}): "
        f"{late['answer']} ({late['code']})",
        rows(late)])


#: the poll-interval slider, ms
POLLS = tuple(range(10 * SECOND, 60 * SECOND + 1, 10 * SECOND))
#: the wake figure's registrations, and the seed of their offsets inside the gap
JOBS = 24
SEED = 3


# -- the marker, one verb at a time ------------------------------------------------------------

def _shown(marker: list[tuple[str, int]], clock: bool = False) -> str:
    """The marker's members and scores; with `clock`, a score other than 0 as a time of day."""
    def score(v):
        return hms(v) if clock and v else v
    return "{" + ", ".join(f'"{m}": {score(s)}' for m, s in marker) + "}" if marker else "(empty)"


def marker_facts(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> list[dict]:
    """Register, fire one occurrence, let a parked worker take it, let it park again: per step,
    its `verb`, the script's `answer` and the `marker` after it ([(member, score)]); the fire
    adds the registry's next run (`head`) and its instant (`at`), the take its job, instant and
    the job's state."""
    own = store is None
    store = store or Store()
    try:
        reg, sched = Registry(store), Schedule(NAME, Every(every))
        first = sched.first_run(start)
        nxt = sched.next_run(first, released=first, finished=None, phase=sched.cadence.phase(first))
        job = Minter().mint(first)
        out = [{"verb": "register", "every": sched.cadence.ms, "answer": reg.register(sched, start),
                "marker": reg.marker()}]
        _, head, res = reg.fire(first, [(NAME, first, nxt, job, first, "{}")])
        out.append({"verb": "fire", "at": first, "answer": res[0].result, "marker": reg.marker(), "head": head})
        answer, when, _ = reg.take(job, first, parked=True)
        out.append({"verb": "take", "job": job, "answer": answer, "at": when, "marker": reg.marker(),
                    "state": reg.job(job)["state"]})
        answer, _, _ = reg.take("", first, parked=True)
        out.append({"verb": "park", "answer": answer, "marker": reg.marker()})
        return out
    finally:
        if own:
            store.close()


def marker_steps(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> str:
    """`marker_facts` one line a step. Only names, answers and scores are printed (a real
    server's key names carry a per-store queue name)."""
    reg, fire, take, park = marker_facts(store, start=start, every=every)
    return "\n".join([
        f"register {NAME} (every {format_duration(reg['every'])}): {reg['answer']}"
        f"  \u00b7 marker {_shown(reg['marker'])}",
        f"fire {hms(fire['at'])} (enqueue + advance): {fire['answer']}  \u00b7 marker {_shown(fire['marker'])}"
        f"  \u00b7 registry next run {hms(fire['head'])}",
        f"parked worker takes {take['job']}: {take['answer']} at {hms(take['at'])}  \u00b7 marker "
        f"{_shown(take['marker'])}  \u00b7 job {take['state']}",
        f"the worker, done, parks again: {park['answer']}  \u00b7 marker {_shown(park['marker'])}"])


def bullmq_marker_facts(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> dict:
    """The same marker in the BullMQ design, which has delayed jobs: the upsert's answer and the
    marker after it; the pickup's job, instant, answer, the marker after it, the next job's run
    time and the jobs left waiting. With no `store`, BullMQ 6.7.0's own scripts answer where they
    run here (`bullmq_lane`: the upsert, a worker's take and the next job it makes), the model
    scripts where not; a `store` given is the models'."""
    if store is None:
        with bullmq_lane.Lane(Schedule(NAME, Every(every)), start=start) as one:
            upsert = {"every": Every(every).ms, "answer": "created", "marker": one.marker()}
            taken = one.run(fires=1).fires[0]
            pickup = {"job": taken.job_id, "at": taken.started, "answer": "chained" if taken.next < INF else "stopped",
                      "marker": one.marker(), "next": taken.next, "waiting": one.state()["waiting"]}
        return {"upsert": upsert, "pickup": pickup}
    bull, sched = BullMQ(store), Schedule(NAME, Every(every))
    answer = bull.upsert(sched, start)
    upsert = {"every": sched.cadence.ms, "answer": answer, "marker": bull.registry.marker()}
    taken = bull.pickup(start)
    pickup = {"job": taken.job_id, "at": taken.started, "answer": taken.result, "marker": bull.registry.marker(),
              "next": taken.next, "waiting": list(bull.registry.pending())}
    return {"upsert": upsert, "pickup": pickup}


def bullmq_marker_steps(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> str:
    """`bullmq_marker_facts` in two lines: the upsert makes the first job, ready now ("0"); the
    pickup makes the next one, delayed, and "1" goes to its run time (bullmq 6.7.0's
    addDelayMarkerIfNeeded, here `lua/includes/marker.lua` through `lua/includes/scheduled_job.lua`).
    The pickup leaves "0" with nothing waiting, the state 6.7.0 leaves too (its
    prepareJobForProcessing writes "0" back after every take): "0" means "try to take a job now",
    not "a job waits"."""
    f = bullmq_marker_facts(store, start=start, every=every)
    up, took = f["upsert"], f["pickup"]
    return "\n".join([
        f"upsert {NAME} (every {format_duration(up['every'])}): {up['answer']}"
        f"  \u00b7 marker {_shown(up['marker'], clock=True)}",
        f"worker takes {took['job']} at {hms(took['at'])}: {took['answer']}"
        f"  \u00b7 marker {_shown(took['marker'], clock=True)}"
        f"  \u00b7 next job delayed to {hms(took['next'])}"
        f"  \u00b7 waiting: {', '.join(took['waiting']) if took['waiting'] else 'none'}"])


# -- wake latency: the marker against polling --------------------------------------------------

def fleet(jobs: int = JOBS, *, seed: int = SEED, every: int | str = "15m") -> list[Schedule]:
    """`jobs` registrations every 15 min, each at its own seeded offset inside the gap, so
    their releases fall at arbitrary instants, as jobs do when nobody aligns them to a poll."""
    gap = Every(every).ms
    return [Schedule(f"team-{i:02d}", Every(gap, offset=1 + draw(seed, i, gap - 2))) for i in range(1, jobs + 1)]


def start_latency(poll: int, *, jobs: int = JOBS, seed: int = SEED, start: int = START,
                  every: int | str = "15m") -> np.ndarray:
    """started - released per job (release order), ms, from the engine's trace: a worker polling
    every `poll` ms, or (0) one parked on the marker, whose start is when its read of the marker
    handed it the job."""
    with PumpDesign(fleet(jobs, seed=seed, every=every), start=start, pump=Pump(tick=0, mode="atomic"),
                    worker=Worker(poll=poll)) as sim:
        cols = sim.run(fires=jobs).arrays()
    return cols["started"] - cols["released"]


@dataclass(frozen=True)
class WakeFrame:
    """The wake figure at one poll interval. Per job (release order): the polling worker's wait
    `waits` (ms) and `bars` (s), the parked worker's `marker` (s); the poll line and the mean
    wait (s) with their labels; `marker_label` at `marker_top` (s); `top` the axis top (s)."""

    poll: int
    waits: tuple[int, ...]
    bars: tuple[float, ...]
    marker: tuple[float, ...]
    limit: float
    limit_label: str
    mean: float
    mean_label: str
    marker_top: float
    marker_label: str
    top: float
    bottom: float
    xlabel: str
    title: str
    readout: str


def _mean_size(frame: "WakeFrame") -> str:
    """The polling worker's mean wait in seconds, as the options round it: next to nothing, about
    30 s, about a minute, else the whole seconds (at a poll the question does not ask about)."""
    mean = frame.mean
    return "0" if mean < 1 else "30s" if 20 <= mean < 40 else "1min" if 45 <= mean < 75 else f"{round(mean)}s"


class WakeModel(Model):
    """The wait before each job starts, woken by the marker or found by a poll every N."""

    readout_id = "wake-readout"
    controls = (slider("poll", POLLS, 30 * SECOND, label="poll every", fmt=format_duration, main=True),)
    questions = (
        question(
            "03-poll-mean",
            "A worker polls for jobs every 1 min. Jobs become ready at arbitrary instants: what is the "
            "mean wait before one starts?",
            [("30s", "About 30 s, half the period",
              "A job lands anywhere between two polls: half a minute on average."),
             ("1min", "About 1 min, the whole period",
              "Only a job ready just after a poll waits that long."),
             ("0", "Next to nothing, like the marker",
              "That is the parked worker; a poller waits for its next poll.")],
            answer=lambda f: _mean_size(f), show_me={"poll": 60 * SECOND}),
    )
    challenge = Challenge(
        "03-longest-wait", "Set poll every below 1 min so that some job still waits more than 45 s before it "
                           "starts.",
        met=lambda f: f.poll < MINUTE and max(f.waits) > 45 * SECOND,
        explain="A job ready just after a poll waits almost a whole poll. Parked on the marker, every job "
                "waits 0 ms.")

    def __init__(self, *, jobs: int = JOBS, seed: int = SEED, start: int = START, every: int | str = "15m"):
        super().__init__()
        self.jobs, self.seed, self.start, self.every = jobs, seed, start, Every(every).ms
        self._latency: dict[int, np.ndarray] = {}

    def latency(self, poll: int) -> np.ndarray:
        """`start_latency` for a poll interval (0: parked on the marker), run once and kept."""
        if poll not in self._latency:
            lat = start_latency(poll, jobs=self.jobs, seed=self.seed, start=self.start, every=self.every)
            lat.flags.writeable = False
            self._latency[poll] = lat
        return self._latency[poll]

    def describe(self, frame: WakeFrame) -> str:
        low, high = min(frame.waits), max(frame.waits)
        return (f"Polling every {format_duration(frame.poll)}, the {len(frame.waits)} jobs wait "
                f"{format_duration(low)} to {format_duration(high)} (mean {format_duration(round(frame.mean * 1000))}); "
                f"parked on the marker, each waits {format_duration(round(max(frame.marker) * 1000))}.")

    def compute(self, poll: int) -> WakeFrame:
        lat, marker = self.latency(poll), self.latency(0)
        mean = int(round(float(lat.mean())))
        woke = ("0 ms for every job" if not marker.any()
                else f"{format_duration(int(marker.min()))} to {format_duration(int(marker.max()))}")
        return WakeFrame(
            poll=poll, waits=tuple(lat.tolist()), bars=tuple((lat / 1000).tolist()),
            marker=tuple((marker / 1000).tolist()),
            limit=poll / 1000, limit_label=f"poll interval {format_duration(poll)}",
            mean=float(lat.mean()) / 1000, mean_label=f"mean wait, polling ({format_duration(mean)})",
            marker_top=float(marker.max()) / 1000,
            marker_label=f"parked on the marker: {format_duration(int(marker.max()))}",
            top=max(POLLS) / 1000 * 1.1, bottom=-max(POLLS) / 1000 * 0.04,
            xlabel=(f"job, in release order ({self.jobs} registrations, released "
                    f"{hm(self.start)}-{hm(self.start + self.every)})"),
            title=(f"grey bars: a worker polling every {format_duration(poll)} \u00b7 "
                   "green: one parked on the marker (its measured wait)"),
            readout=(f"poll every {format_duration(poll)}: jobs wait {format_duration(int(lat.min()))} to "
                     f"{format_duration(int(lat.max()))}, mean {format_duration(mean)} \u00b7 marker: {woke}"))


# -- the same worker on a marker scored by the next run ----------------------------------------

#: the line of `fire` that marks a ready job, and the line that scores the marker the way course
#: page 002 does: the registry's next run as "1" (a time at which nothing becomes ready for a worker)
READY_LINE = "if made then markReady(KEYS[3]) end"
NEXT_RUN_LINE = "if head[2] then redis.call('ZADD', KEYS[3], head[2], '1') end"


def waits(fires: int = 4, *, next_run: bool = False, start: int = START, every: int | str = "15m") -> list[int]:
    """started - released per job, ms, for a worker parked on the marker behind the atomic
    pump; `next_run=True` runs the fire script with its marker line swapped for one that
    writes "1" at the registry's next run."""
    store = Store()
    try:
        if next_run:
            src = store.scripts.source("fire")
            if READY_LINE not in src:
                raise ValueError("the fire script has no ready-marker line to swap")
            store.scripts.replace("fire", src.replace(READY_LINE, NEXT_RUN_LINE))
        with PumpDesign(Schedule(NAME, Every(every)), start=start, pump=Pump(mode="atomic"),
                        store=store) as sim:
            trace = sim.run(fires=fires)
        return [f.started - f.released for f in trace]
    finally:
        store.close()
