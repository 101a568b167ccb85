"""Missed slots: what seven catch-up lanes fire after the pump was down, and where the cadence lands.

A schedule runs every 15 minutes from 09:07 UTC on the course's day, so its slots sit on
:07, :22, :37 and :52. The pump goes down and comes back; the registry row still holds the
first slot it missed. What the release at the restart does with the missed slots is the
schedule's ``missed`` policy (`emqsim.engine.schedule`), and `MissedModel` gives all seven, one set
of `OutageRuns` each: BullMQ's job-scheduler snap as bullmq 6.7.0 computes it, the same snap
as bullmq 5.58.8 to 5.80.1 computed it, the legacy repeatable jobs' ``getNextMillis`` (the
"epoch" policy), EchoMQ's ``now + every``, replay all (Hangfire Strict), one run for the
latest slot (Kubernetes with no deadline), and the same within a deadline (APScheduler's
``misfire_grace_time`` with coalesce, its defaults). The peers' lanes take their settings
from `emqsim.peers`, where each is checked against that peer.

Where the numbers come from. A frame computes the seven policies with the reference model
(`emqsim.engine.reference.reference`), not with the Lua engine: a PumpDesign per policy, with its
set-up and a script call per fire, is far too slow to follow a slider, and the sliders reach
over 6,000 outages times 61 deadlines. The reference model computes the runs with the
package's own formulas, and the engine tests hold it equal to the engine fire for fire.
`engine_check` runs the engine for one outage and compares it policy by policy: the notebook
calls it for the default outage, the unit tests for several more. Which slots an outage
covers is `Every.missed`; whether an outage is one at all is `Faults(outage=...)`.

The `snap` lane, BullMQ 6.7.0's, is BullMQ's design itself (`snap_lane`, through
`bullmq_lane`): BullMQ's own scripts where the pinned package is installed (one embedded
server, about 15-25 ms a frame, inside the figure's budget), this course's model scripts of
that design where it is not; the unit tests hold the two equal at every position of the
sliders. Either way it is the design, not a pump policy: at a restart on the slot after the
first one missed (09:30 to 09:52) BullMQ's worker takes that slot's job in the same ms as the
collapsed one, where the reference model's pump policy `snap` releases it one pump tick later.
The two older BullMQ lanes stay the reference model's: the scripts read are 6.7.0's only.
"""

from __future__ import annotations

import numbers
import re
from collections import OrderedDict
from dataclasses import dataclass

from ..engine.cadence import Every
from . import bullmq_lane
from .designs import compare
from .course import EVERY, MINUTE, NAME, on_day
from ..engine.durations import format_duration, parse_duration
from ..engine.errors import InputError, one_of
from ..engine.faults import Faults
from ..engine.pump import Pump
from ..engine.reference import engine_fires, engine_skips, reference
from ..engine.schedule import Schedule
from ..engine.sim import PumpDesign, simulate
from ..engine.timefmt import hm, hms
from ..peers import apscheduler, hangfire, kubernetes
from .model import Model, Play, slider, spoken
from .questions import Challenge, question

#: the schedule's cadence, and its first run: its phase (:07) is the grid every lane is read against
CADENCE = Every(EVERY)
FIRST = on_day("09:07")
PHASE = CADENCE.phase(FIRST)
PUMP = Pump(tick=1000)
#: the figure's time axis
VIEW = (on_day("09:00"), on_day("11:15"))
#: the schedule's own slots on the axis (the dotted verticals)
GRID = tuple(CADENCE.between(*VIEW, PHASE))
#: run past the axis: every policy gets two runs after the restart
HORIZON = on_day("11:45")
#: where the engine listings of the notebook stop
LISTED = on_day("10:40")
#: the outage sliders' positions, a whole minute each, all after the first run
TIMES = tuple(range(on_day("09:10"), on_day("11:00") + 1, MINUTE))
#: the deadline slider: APScheduler's default grace, 1 s, then 1 to 60 min
DEADLINES = (1000,) + tuple(m * MINUTE for m in range(1, 61))
DOWN, UP, DEADLINE = on_day("09:30"), on_day("10:10"), 5 * MINUTE

#: the engine's policies, one lane each, top to bottom
POLICIES = ("snap", "snap-v5", "epoch", "release", "all", "once", "deadline")
#: each policy's lane, counted from the bottom (the y the view draws it at)
ROW = {p: len(POLICIES) - 1 - i for i, p in enumerate(POLICIES)}
#: lane labels: the engine's name and who does it that way, with the settings it assumes
LABELS = {
    "snap": "snap\nBullMQ 6.7.0 scheduler",
    "snap-v5": "snap-v5\nBullMQ 5.58.8-5.80.1",
    "epoch": "epoch\nBullMQ legacy repeatable",
    "release": "release\nEchoMQ now + every",
    "all": "all\nHangfire Strict",
    "once": "once\nKubernetes, no deadline",
    "deadline": "once + deadline\nAPScheduler, its grace:\nthe deadline",
}
_HHMM = re.compile(r"\s*([0-9]{1,2}):([0-9]{2})\s*", re.ASCII)


def lane_schedule(policy: str, deadline: int | str = DEADLINE) -> Schedule:
    """The every-15-min registration of a lane: "release" is the rule, the BullMQ lanes the
    `missed` policy of that name, the peers' lanes their settings from `emqsim.peers`
    (Hangfire Strict, a CronJob with no deadline, an APScheduler job with `deadline` as its
    `misfire_grace_time`, whole seconds)."""
    one_of(policy, POLICIES, "policy")
    if policy == "release":
        return Schedule(NAME, CADENCE, rule="release")
    if policy == "all":
        return Schedule(NAME, CADENCE, **hangfire.missed("Strict"))
    if policy == "once":
        return Schedule(NAME, CADENCE, **kubernetes.missed())
    if policy == "deadline":
        ms = parse_duration(deadline, name="deadline")
        if ms % 1000 or ms < 1000:
            raise InputError(f"deadline {deadline!r} must be whole seconds, 1 s or more: it is APScheduler's "
                             "misfire_grace_time", "deadline")
        return Schedule(NAME, CADENCE, **apscheduler.settings(misfire_grace_time=ms // 1000))
    return Schedule(NAME, CADENCE, missed=policy)


def clock_time(value: int | str, what: str = "time") -> int:
    """`value` as Unix ms: whole ms, or "HH:MM" on the course's day (UTC), for the text helpers."""
    if isinstance(value, str):
        m = _HHMM.fullmatch(value)
        if m and int(m.group(1)) < 24 and int(m.group(2)) < 60:
            return on_day(f"{int(m.group(1)):02d}:{m.group(2)}")
    elif isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)
    raise InputError(f"{what} {value!r} is not a time; give HH:MM such as '10:10', or Unix ms", what)


# -- one policy after one outage -----------------------------------------------------------------

@dataclass(frozen=True)
class OutageRuns:
    """One policy after one outage: its jobs as (slot stood for, released), its skipped
    occurrences as (slot, instant skipped), the outage's missed slots, and what the run counted."""

    policy: str
    fires: tuple[tuple[int, int], ...]
    skips: tuple[tuple[int, int], ...]
    missed: tuple[int, ...]
    up: int
    deadline: int | None = None
    lost: int = 0
    duplicates: int = 0

    @property
    def catch_up(self) -> tuple[tuple[int, int], ...]:
        """The jobs released at or after the restart that stand for a missed slot."""
        return tuple(f for f in self.fires if f[1] >= self.up and f[0] in self.missed)

    @property
    def then(self) -> tuple[int, ...]:
        """Releases after the catch-up: where the cadence now lands."""
        late = set(self.catch_up)
        return tuple(r for slot, r in self.fires if r >= self.up and (slot, r) not in late)

    @property
    def skipped(self) -> tuple[tuple[int, int], ...]:
        """Skipped occurrences at or after the restart."""
        return tuple(s for s in self.skips if s[1] >= self.up)

    @property
    def collapsed(self) -> tuple[int, ...]:
        """Missed slots that got no job and were not skipped: the row stepped over them, so
        they were never written to the registry (not lost, not skipped: never there)."""
        held = {f[0] for f in self.fires} | {s[0] for s in self.skips}
        return tuple(s for s in self.missed if s not in held)


def policy_run(policy: str, down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE, *,
               engine: bool = False) -> OutageRuns:
    """`policy` for an outage from `down` to `up`, from the reference model (`snap`: BullMQ's
    design itself, `snap_lane`), or from the Lua engine (`PumpDesign` with `Faults(outage=...)`,
    `Pump(tick=1000)`, the pump policy of that name) with `engine=True`.
    The engine's checks refuse an outage that ends before it starts or begins before the first run."""
    down, up = Faults(outage=(clock_time(down, "pump down"), clock_time(up, "pump up"))).outage
    deadline = parse_duration(deadline, name="deadline")
    s = lane_schedule(policy, deadline)
    dl = deadline if policy == "deadline" else None
    if policy == "snap" and not engine:
        fires, skips, lost, duplicates = snap_lane(down, up), (), 0, 0
    elif engine:
        with PumpDesign(s, start=FIRST, pump=PUMP, faults=Faults(outage=(down, up))) as sim:
            tr = sim.run(until=HORIZON)
        fires, skips = tuple((f.slot, f.released) for f in tr), tuple((k.slot, k.at) for k in tr.skips)
        lost, duplicates = tr.lost, tr.duplicates
    else:
        r = reference(s, start=FIRST, until=HORIZON, pump=PUMP, outage=(down, up), ids=None)
        fires, skips = tuple(zip(r.slot.tolist(), r.released.tolist())), tuple((a, b) for a, b, _ in r.skips)
        lost = duplicates = 0
    missed = tuple(CADENCE.missed(down, up, PHASE, first=FIRST))
    return OutageRuns(policy, fires, skips, missed, up, dl, lost, duplicates)


def snap_lane(down: int, up: int, real: bool | None = None) -> tuple[tuple[int, int], ...]:
    """The `snap` lane's jobs as (slot, taken): BullMQ's design (`bullmq_lane.lane`) with the
    scheduler upserted at the first run (`every 15m`, so on the :07 phase), a worker that takes
    each job when it is due, and none from `down` to `up` (BullMQ has no pump: the outage is the
    workers'), up to `HORIZON` as the other lanes. BullMQ 6.7.0's own scripts where they run
    here, the model scripts where not (`real=False` asks for them)."""
    tr = bullmq_lane.lane(lane_schedule("snap"), start=FIRST, until=HORIZON, outage=(down, up), real=real)
    return tuple((f.slot, f.started) for f in tr)


def policy_runs(down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE, *,
                engine: bool = False) -> list[OutageRuns]:
    """The seven policies for one outage, in lane order (see `policy_run`)."""
    return [policy_run(p, down, up, deadline, engine=engine) for p in POLICIES]


# -- the readout -------------------------------------------------------------------------------

def _t(ms: int) -> str:
    return hm(ms) if ms % MINUTE == 0 else hms(ms)


def phase_text(ms: int) -> str:
    """Where `ms` sits inside the 15-min gap, as ':07' (':07:30' with seconds)."""
    p = CADENCE.phase(ms)
    return f":{p // MINUTE:02d}" + (f":{p % MINUTE // 1000:02d}" if p % MINUTE else "")


def line_facts(runs: OutageRuns) -> dict:
    """What a policy's readout line states: the catch-up jobs (slot, released), the skipped
    occurrences (slot, when), the next two releases after them (`then`), the phase before the
    outage and after it (None when nothing runs before the horizon), and the deadline."""
    then = runs.then
    return {"policy": runs.policy, "catch_up": runs.catch_up, "skipped": runs.skipped, "then": then[:2],
            "phase": (phase_text(FIRST), phase_text(then[0]) if then else None), "deadline": runs.deadline}


def runs_line(runs: OutageRuns) -> str:
    """'snap:     10:10 (slot 09:37), then 10:22, 10:37 · phase :07 kept'."""
    facts = line_facts(runs)
    late = facts["catch_up"]
    fmt = hms if any(r % MINUTE for _, r in late) else hm
    events = []
    for slot, rel in late:
        why = ""
        if runs.deadline is not None:
            why = f", {format_duration(rel - slot)} late \u2264 {format_duration(runs.deadline)}"
        events.append((rel, f"{fmt(rel)} (slot {hm(slot)}{why})"))
    for slot, when in facts["skipped"]:
        events.append((when, f"{hm(slot)} skipped at {_t(when)} "
                             f"({format_duration(when - slot)} late > {format_duration(runs.deadline)})"))
    events.sort(key=lambda e: e[0])
    then = facts["then"]
    done = ", ".join(text for _, text in events) + ", then " if events else "nothing missed; next "
    head = f"{runs.policy + ':':10}{done}"
    if not then:
        return head + f"nothing before {hm(HORIZON)}"
    before, after = facts["phase"]
    phase = f"phase {before} kept" if before == after else f"phase {before} \u2192 {after}"
    return head + ", ".join(_t(r) for r in then) + f" \u00b7 {phase}" + _grace(runs)


def _grace(runs: OutageRuns) -> str:
    """The setting the `deadline` lane assumes, named: APScheduler's misfire_grace_time, and its
    own default where the slider is elsewhere (a default-grace job drops what this lane runs)."""
    if runs.deadline is None:
        return ""
    default = apscheduler.DEFAULTS["misfire_grace_time"] * 1000
    return (f" \u00b7 misfire_grace_time {format_duration(runs.deadline)}"
            + ("" if runs.deadline == default else f" (default {format_duration(default)})"))


def readout_text(down: int, up: int, runs: list[OutageRuns] | tuple[OutageRuns, ...]) -> str:
    """A head line for the outage, then one line per policy."""
    missed = runs[0].missed
    what = (f"slot{'s' if len(missed) > 1 else ''} {', '.join(hm(s) for s in missed)} missed" if missed
            else "no slot missed")
    head = f"pump down {_t(down)} \u2192 {_t(up)} ({format_duration(up - down)}): {what}"
    return "\n".join([head] + [runs_line(r) for r in runs])


def restarts(down: int, **others) -> tuple[int, ...]:
    """The restarts `pump up` offers after `pump down`: every position at or after it (an outage
    of no length misses nothing), so the two sliders never cross and Play starts on an outage.
    The other controls' values, if given, change nothing."""
    return tuple(t for t in TIMES if t >= down)


# -- the engine's own runs, as text ----------------------------------------------------------------

def engine_counts(down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE) -> dict:
    """Run the Lua engine for one outage; per policy, whether it releases what the reference model
    the figure uses releases (`same`), and the engine's counts: jobs, skipped, lost, duplicates
    and registry rows."""
    down, up = Faults(outage=(clock_time(down, "pump down"), clock_time(up, "pump up"))).outage
    deadline = parse_duration(deadline, name="deadline")
    out = {}
    for policy in POLICIES:
        s = lane_schedule(policy, deadline)
        with PumpDesign(s, start=FIRST, pump=PUMP, faults=Faults(outage=(down, up))) as sim:
            tr = sim.run(until=HORIZON)
        ref = reference(s, start=FIRST, until=HORIZON, pump=PUMP, outage=(down, up))
        same = (engine_fires(tr) == ref.to_fires() and engine_skips(tr) == ref.skips
                and (tr.count, tr.skipped, tr.next) == (ref.count, ref.skipped, ref.next))
        out[policy] = {"same": same, "jobs": tr.count, "skipped": tr.skipped, "lost": tr.lost,
                       "duplicates": tr.duplicates, "rows": tr.registry_size}
    return out


def engine_check(down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE) -> str:
    """Run the Lua engine for one outage and compare each policy with the reference model the
    figure uses; one line per policy with the engine's counts (`engine_counts`)."""
    counts = engine_counts(down, up, deadline)
    down, up = Faults(outage=(clock_time(down, "pump down"), clock_time(up, "pump up"))).outage
    deadline = parse_duration(deadline, name="deadline")
    lines = [f"pump down {_t(down)} \u2192 {_t(up)}, deadline {format_duration(deadline)}"]
    for policy, c in counts.items():
        verdict = "engine = reference" if c["same"] else "engine \u2260 reference"
        lines.append(f"{policy + ':':9} {verdict} \u00b7 {c['jobs']} jobs \u00b7 skipped {c['skipped']} "
                     f"\u00b7 lost {c['lost']} \u00b7 duplicates {c['duplicates']} \u00b7 registry rows {c['rows']}")
    return "\n".join(lines)


def deadline_trace(deadline: int | str = DEADLINE, down: int | str = DOWN, up: int | str = UP) -> str:
    """The `deadline` lane through the engine up to 10:40: its fires, then each skipped
    occurrence as (slot, when it was skipped, why)."""
    outage = (clock_time(down, "pump down"), clock_time(up, "pump up"))
    tr = simulate(lane_schedule("deadline", deadline), start=FIRST, until=LISTED, pump=PUMP, faults=Faults(outage=outage))
    return f"{tr.table()}\n{[(hm(s.slot), hms(s.at), s.why) for s in tr.skips]}"


def bullmq_states(at: tuple[str, ...] = ("09:29", "10:09", "10:10"), down: int | str = DOWN,
                  up: int | str = UP) -> dict[str, dict]:
    """BullMQ's own design (`bullmq_lane.Lane`: its scripts where they run here) under `snap` with
    no worker from `down` to `up`: at each clock time of `at`, the scheduler's row (`score`), its
    delayed jobs ((id, slot)) and its `ic`."""
    outage = (clock_time(down, "pump down"), clock_time(up, "pump up"))
    out = {}
    with bullmq_lane.Lane(lane_schedule("snap"), start=FIRST, outage=outage) as chain:
        for clock in at:
            chain.run(until=clock_time(clock, "at"))
            st = chain.state()
            out[clock] = {"score": st["score"], "delayed": tuple(map(tuple, st["delayed"])), "ic": st["ic"]}
    return out


def bullmq_store(at: tuple[str, ...] = ("09:29", "10:09", "10:10"), down: int | str = DOWN,
                 up: int | str = UP) -> str:
    """BullMQ's own design (`bullmq_states`) under `snap` with no worker from `down` to `up`: the
    scheduler's row, its delayed jobs and its iteration count at each of the clock times `at`."""
    return "\n".join(f"{clock}  row {hm(st['score'])} \u00b7 delayed {[(j, hm(s)) for j, s in st['delayed']]} "
                     f"\u00b7 ic {st['ic']}" for clock, st in bullmq_states(at, down, up).items())


def designs_facts(stopped: str, down: int | str = DOWN, up: int | str = UP) -> dict:
    """The pump design with the `stopped` process ("pump" or "workers") down and BullMQ's with
    no worker, over the same outage (`compare`): the `comparison`, the `outage`, and per design
    the slots waiting at the restart and the slots no job stood for."""
    outage = (clock_time(down, "pump down"), clock_time(up, "pump up"))
    c = compare(lane_schedule("snap"), start=FIRST, until=LISTED, outage=outage, pump=PUMP, stopped=stopped)
    return {"comparison": c, "outage": outage, "waiting": c.waiting(outage[1]), "no_job": c.no_job()}


def designs(stopped: str, down: int | str = DOWN, up: int | str = UP) -> str:
    """`designs_facts` printed: the runs side by side, then what each design finds waiting at the
    restart and which :07 slots no job stood for."""
    f = designs_facts(stopped, down, up)
    outage, no_job = f["outage"], f["no_job"]
    lines = [f"pump design with the {stopped} stopped, BullMQ's with no worker, {hm(outage[0])} to {hm(outage[1])}:",
             f["comparison"].table()]
    for design, slots in f["waiting"].items():
        lines.append(f"{design:6} waiting at {hm(outage[1])}: {[hm(s) for s in slots]} "
                     f"\u00b7 no job for {[hm(s) for s in no_job[design]]}")
    return "\n".join(lines)


def snap_facts(prev: int | str = "09:37", now: int | str = "10:10", *, every: int | str = "15m",
               start: int = FIRST) -> dict:
    """The numbers of the three catch-up formulas for one late release: `every`, the first run's
    `phase`, `prev` and `now`, `base` = floor(now/every)*every, `a` = base + phase, and what
    `Every.after` returns under each formula (`offset`, `v5`, `epoch`)."""
    cad = Every(every)
    e = cad.ms
    prev, now = clock_time(prev, "prev"), clock_time(now, "now")
    phase = cad.phase(start)
    base = now // e * e
    return {"every": e, "phase": phase, "prev": prev, "now": now, "base": base, "a": base + phase,
            "offset": cad.after(prev, now, phase, "offset"), "v5": cad.after(prev, now, phase, "offset-v5"),
            "epoch": cad.after(prev, now, phase, "epoch")}


def snap_arithmetic(prev: int | str = "09:37", now: int | str = "10:10", *, every: int | str = "15m",
                    start: int = FIRST) -> str:
    """The three catch-up formulas of `Every.after` worked out in Unix ms for one late release,
    each line beside what `Every.after` itself returns, so the two can be read against each other."""
    f = snap_facts(prev, now, every=every, start=start)
    e, phase, prev, now, base, a = f["every"], f["phase"], f["prev"], f["now"], f["base"], f["a"]
    offset, v5, epoch = f["offset"], f["v5"], f["epoch"]
    if prev + e >= now:
        return (f"prev + every = {prev + e} ({hm(prev + e)}) is not before now = {now} ({_t(now)}): "
                f"nothing to snap, the next run is {hm(prev + e)} under all three formulas")
    lines = [
        f"every  = {e} ms ({format_duration(e)}); offset = phase of the first run {hm(start)} = {phase} ms "
        f"({format_duration(phase)})",
        f"prev   = {prev} ({hm(prev)}, the slot the row holds); now = {now} ({_t(now)}, the release)",
        f"prev + every = {prev + e} ({hm(prev + e)}) < now: missed, snap forward",
        f"floor(now/every)*every = {base} ({hm(base)})",
        f"offset snap: a = {base} + {phase} = {a} ({hm(a)}); "
        + (f"a <= now, so a + every = {a + e} ({hm(a + e)})" if a <= now else f"a > now, so a = {a} ({hm(a)})"),
        f"v5 snap:     {base} + {e} + {phase} = {base + e + phase} ({hm(base + e + phase)})",
        f"epoch snap:  {base} + {e} = {base + e} ({hm(base + e)})",
        f'Every("{every}").after(prev, now, {phase}, "offset")    = {offset} ({hm(offset)})',
        f'Every("{every}").after(prev, now, {phase}, "offset-v5") = {v5} ({hm(v5)})',
        f'Every("{every}").after(prev, now, {phase}, "epoch")     = {epoch} ({hm(epoch)})',
    ]
    return "\n".join(lines)


# -- the figure's model ----------------------------------------------------------------------------

Point = tuple[int, int]


@dataclass(frozen=True)
class MissedFrame:
    """One outage and deadline: the seven policies' runs and
    what the view draws, as (instant, lane row) points. `rings` are the slots late jobs stand
    for, joined to their releases by `links`; `skips` are skipped slots, joined by `skip_links`
    to the release that skipped them; `collapsed` are missed slots that got neither; `counts`
    is one (label, x) per lane, the number of catch-up jobs where there are several."""

    readout: str
    title: str
    down: int
    up: int
    deadline: int
    runs: tuple[OutageRuns, ...]
    band: tuple[int, int]
    released: tuple[Point, ...]
    rings: tuple[Point, ...]
    links: tuple[tuple[Point, Point], ...]
    skips: tuple[Point, ...]
    skip_links: tuple[tuple[Point, Point], ...]
    collapsed: tuple[Point, ...]
    counts: tuple[tuple[str, int], ...]


def _lane(frame: MissedFrame, policy: str) -> OutageRuns:
    """The frame's runs for `policy`."""
    return frame.runs[POLICIES.index(policy)]


def _released(runs: OutageRuns, slot: int) -> str:
    """When the catch-up job for `slot` went out: 'HH:MM', or 'HH:MM:SS' off the minute; 'never'."""
    rel = next((r for s, r in runs.catch_up if s == slot), None)
    return "never" if rel is None else hms(rel) if rel % MINUTE else hm(rel)


def _lands(runs: OutageRuns) -> str:
    """'1 then 10:22': how many catch-up runs, then where the cadence lands."""
    return f"{len(runs.catch_up)} then {hm(runs.then[0]) if runs.then else '-'}"


class MissedModel(Model):
    """Two outage sliders (pump down, pump up, with Play on the restart) and the deadline
    lane's deadline. A frame runs the reference model once per policy; the runs are kept per
    policy, so moving the deadline reruns only `deadline`, and moving an outage back reruns nothing."""

    readout_id = "missed-readout"
    controls = (
        slider("down", TIMES, DOWN, label="pump down", fmt=hm),
        slider("up", TIMES, UP, label="pump up", fmt=hm, main=True,
               play=Play(step=1, max_step=15, interval=400, label="min per step"), depends=restarts),
        slider("deadline", DEADLINES, DEADLINE, label="deadline", fmt=format_duration),
    )
    #: policy runs kept: the reachable frames of the static site need 111 x 7
    runs_kept = 4096
    questions = (
        question(
            "04-strict-last-slot",
            "The pump is down 09:30 → 10:40: five slots, 09:37 to 10:37, are missed. When does the `all` "
            "lane release the job for 10:37?",
            [("10:40:04", "10:40:04: one slot a second",
              "Each fire releases one slot and leaves the row due: one fire a second, 10:40:00 to 10:40:04."),
             ("10:40", "10:40:00: with the four others",
              "One fire releases one slot; the next waits for the pump's next second."),
             ("10:37", "10:37:00: its own slot",
              "Nothing is released while the pump is down."),
             ("10:40:05", "10:40:05: five seconds after the restart",
              "The first goes out at the restart itself, 10:40:00."),
             ("never", "Never: folded into the first",
              "That is BullMQ, or Hangfire's default Relaxed, folding missed slots into one; Strict runs each.")],
            answer=lambda f: _released(_lane(f, "all"), on_day("10:37")), show_me={"up": on_day("10:40")}),
        question(
            "04-snap-lands",
            "The pump is down 09:30 → 10:25 under BullMQ 6.7.0 (the `snap` lane). What "
            "runs from 10:25 on?",
            [("1 then 10:37", "One at 10:25, then 10:37: its old rhythm",
              "Missed slots collapse into one run at the restart; the next snaps to the schedule's phase."),
             ("4 then 10:37", "Four at 10:25, then 10:37: each one replayed",
              "BullMQ does not replay: missed slots collapse into one run."),
             ("1 then 10:40", "One at 10:25, then 10:40: 15 min on",
              "That is EchoMQ's now + every; BullMQ keeps the phase."),
             ("0 then 10:37", "None at 10:25, then 10:37: dropped",
              "The row is due at the restart: one run goes out at once.")],
            # a restart the figure does not open on: its default (10:10) also lands on 10:22 (issue 30)
            answer=lambda f: _lands(_lane(f, "snap")), show_me={"up": on_day("10:25")}),
        question(
            "04-grace-drops",
            "The pump is down 09:30 → 10:20. The `once + deadline` lane runs only a slot at most 5 min late "
            "(APScheduler's misfire_grace_time). What does it do?",
            [("skip", "It waits for 10:22, 10:07 being too old",
              "10:07 is 13 minutes late at 10:20, past the 5-minute grace: dropped."),
             ("run", "It runs 10:07 once, the latest missed slot",
              "That is the `once` lane, with no deadline; a grace drops a slot too late."),
             ("all", "It runs all three missed slots, one by one",
              "That is the `all` lane; this one runs at most the latest slot.")],
            answer=lambda f: "skip" if _lane(f, "deadline").skipped and not _lane(f, "deadline").catch_up
            else "run" if len(_lane(f, "deadline").catch_up) == 1 else "all",
            show_me={"up": on_day("10:20")}),
    )
    challenge = Challenge(
        "04-release-back-on-phase", "Move pump up so that slots are missed and yet EchoMQ's lane (release: "
                                    "now + every) comes back on the schedule's :07 phase.",
        met=lambda f: bool(f.runs) and bool(_lane(f, "release").missed) and bool(_lane(f, "release").then)
        and CADENCE.phase(_lane(f, "release").then[0]) == PHASE,
        explain="EchoMQ's now + every counts from the late release, so only a restart on :07, :22, :37 or :52 puts it "
                "back on its old phase. BullMQ's snap keeps the phase wherever the restart falls.")

    def __init__(self):
        super().__init__()
        self._runs: OrderedDict = OrderedDict()

    def runs(self, policy: str, down: int, up: int, deadline: int) -> OutageRuns:
        """One policy's runs, computed once per outage (and per deadline for `deadline` only)."""
        key = (policy, down, up, deadline if policy == "deadline" else None)
        hit = self._runs.get(key)
        if hit is None:
            hit = self._runs[key] = policy_run(policy, down, up, deadline)
            if len(self._runs) > self.runs_kept:
                self._runs.popitem(last=False)
        return hit

    def describe(self, frame: MissedFrame) -> str:
        if not frame.runs:
            return f"Pump up {hm(frame.up)} is before pump down {hm(frame.down)}: no runs drawn."
        snap = frame.runs[0]
        missed = f"{spoken(hm(s) for s in snap.missed)} missed" if snap.missed else "no slot missed"
        late = snap.catch_up
        times = {1: "once", 2: "twice"}.get(len(late), f"{len(late)} times")
        caught = f"snap runs {times} at {spoken(_t(r) for _, r in late)}" if late else "snap runs on time"
        then = f", then {_t(snap.then[0])}" if snap.then else ""
        moved = [r.policy for r in frame.runs if r.then and phase_text(r.then[0]) != phase_text(FIRST)]
        off = f"; {spoken(moved)} leave the {phase_text(FIRST)} slots" if moved else ""
        return f"Pump down {hm(frame.down)} to {hm(frame.up)}: {missed}; {caught}{then}{off}."

    def compute(self, down: int, up: int, deadline: int) -> MissedFrame:
        runs = tuple(self.runs(p, down, up, deadline) for p in POLICIES)
        released, rings, links, skips, skip_links, collapsed, counts = [], [], [], [], [], [], []
        for r in runs:
            y = ROW[r.policy]
            for slot, rel in r.fires:
                released.append((rel, y))
                if slot != rel:
                    rings.append((slot, y))
                    links.append(((slot, y), (rel, y)))
            for slot, when in r.skips:
                skips.append((slot, y))
                skip_links.append(((slot, y), (when, y)))
            collapsed += [(s, y) for s in r.collapsed]
            late = r.catch_up
            counts.append((f"\u00d7{len(late)}" if len(late) > 1 else "", late[0][1] if late else VIEW[0]))
        title = f"pump down {hm(down)} \u2192 {hm(up)} \u00b7 deadline {format_duration(deadline)}"
        return MissedFrame(readout_text(down, up, runs), title, down, up, deadline, runs, (down, up - down),
                           tuple(released), tuple(rings), tuple(links), tuple(skips), tuple(skip_links),
                           tuple(collapsed), tuple(counts))


__all__ = [
    "CADENCE", "DEADLINE", "DEADLINES", "DOWN", "FIRST", "GRID", "HORIZON", "LABELS", "LISTED", "PHASE",
    "POLICIES", "PUMP", "ROW", "TIMES", "UP", "VIEW", "MissedFrame", "MissedModel", "OutageRuns", "bullmq_store",
    "bullmq_states", "designs", "designs_facts", "engine_check", "engine_counts", "line_facts", "snap_facts",
    "clock_time", "phase_text", "policy_run", "policy_runs", "readout_text",
    "restarts", "runs_line", "lane_schedule", "snap_lane", "deadline_trace", "snap_arithmetic",
]
