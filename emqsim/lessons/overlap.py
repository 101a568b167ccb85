"""Lesson 05, an overlapping run: what each overlap policy does with the next release.

Every 15 minutes from 09:00, runs of 1 to 40 minutes, one lane per policy of the engine
(`Schedule(overlap=...)`): ``allow`` runs them side by side, ``skip`` drops a release
while a run is going, ``buffer-one`` holds one release until the run ends (and drops
it if one is already held), ``replace`` cancels the running one, ``forbid`` (Kubernetes)
produces nothing either but keeps the row due, so the latest slot passed meanwhile runs
when the running one ends. Each lane is its own `PumpDesign`: one schedule, four workers,
so under ``allow`` no job ever waits for a worker (at most three 40-minute runs overlap)
and every difference between the lanes is the policy's. The peers' names for each lane
come from `emqsim.peers`.

The window shows the releases of 8 slots, 09:00 to 10:45. The engine also makes the next
release (11:00), and nothing after it: that release decides the fate of the 10:45 run
(under ``replace`` it cancels it), so every run drawn is drawn to its real end.

A frame runs the five lanes of its run length through the Lua scripts, once: the model
keeps each lane, so moving back is free and no run length is simulated before a reader
(or the static site) asks for it. The axes must not move with the slider, so they have
to hold the runs of every length; the model finds that extent with the reference model
(the engine's rules as plain arithmetic, held equal to the scripts by the tests), which
answers all forty lengths faster than the scripts answer one.

Section 4 of the notebook compares the pump with BullMQ's chain over longer and longer
schedules (`backlog_growth`, `snapped_slots`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from ..engine.cadence import Every
from .designs import compare
from .course import EVERY, MINUTE, NAME, START
from ..engine.durations import format_duration
from ..engine.errors import one_of
from ..engine.pump import Pump
from ..engine.reference import reference
from ..engine.schedule import OVERLAPS, Schedule
from ..engine.sim import PumpDesign
from ..engine.timefmt import hm
from ..engine.worker import Worker
from ..peers import apscheduler, kubernetes, temporal
from .model import Model, Play, slider, spoken
from .questions import Challenge, question

POLICIES = OVERLAPS                       # allow, skip, buffer-one, replace, forbid
RUNS = tuple(range(1, 41))                # the run-length slider, whole minutes
#: its default: shorter than the 15-min period, so every lane starts alike and the reader drags them
#: apart; a default past 15 showed the numbers the questions ask for (issue 30, no giveaway question)
RUN = 10
WORKERS = 4                               # per lane: more than the 3 runs that ever overlap
SLOTS = 8                                 # releases shown: 09:00 .. 10:45
#: section 4: one worker, runs this long, schedules of these many fires
CHAIN_RUN = "40m"
CHAIN_FIRES = (4, 8, 16, 32)



def _peers(policy: str) -> str:
    """The peers' settings that are this lane (`emqsim.peers`; the notebook's section 3 has the table)."""
    names = [f"Kubernetes {k}" for k, v in kubernetes.CONCURRENCY.items() if v == policy]
    names += [f"Temporal {k}" for k, v in temporal.OVERLAP.items() if v == policy]
    if apscheduler.settings()["overlap"] == policy:
        names.append(f"APScheduler max_instances={apscheduler.DEFAULTS['max_instances']}")
    return " · ".join(names)


#: other schedulers' names for each policy, with the setting each assumes
PEERS = {p: _peers(p) for p in POLICIES}


def lane(policy: str) -> dict:
    """A lane's `Schedule` settings: the policy, and `forbid` as Kubernetes has it (`missed="once"`)."""
    one_of(policy, POLICIES, "overlap policy")
    return kubernetes.settings(None, "Forbid") if policy == "forbid" else {"overlap": policy}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- the engine's answer for one policy and one run length -------------------------------------

class OverlapJob(NamedTuple):
    """One run as the engine's trace holds it (Unix ms)."""

    slot: int
    released: int
    started: int
    finished: int
    cancelled: bool


@dataclass(frozen=True)
class OverlapRuns:
    """One policy, one run length: the runs released in the window and the slots skipped."""

    policy: str
    run: int                     # ms each run needs
    jobs: tuple[OverlapJob, ...]
    skipped: tuple[int, ...]     # the window's slots that got no job
    start: int
    end: int                     # the window's end: releases from here on are not shown

    @property
    def completed(self) -> int:
        return sum(not j.cancelled for j in self.jobs)

    @property
    def cancelled(self) -> int:
        return sum(j.cancelled for j in self.jobs)

    @property
    def skipped_count(self) -> int:
        return len(self.skipped)

    @property
    def longest_wait(self) -> int:
        """The longest time a run waited between its release and its start (ms)."""
        return max((j.started - j.released for j in self.jobs), default=0)

    def going(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Runs running at once, as a step function: (instants, count from each instant on).
        A run that ends at an instant and one that starts then are not counted together."""
        events = sorted([(j.finished, -1) for j in self.jobs if j.finished > j.started]
                        + [(j.started, 1) for j in self.jobs if j.finished > j.started])
        times, counts, now = [self.start], [0], 0
        for t, step in events:
            now += step
            if t == times[-1]:
                counts[-1] = now
            else:
                times.append(t)
                counts.append(now)
        return tuple(times), tuple(counts)

    @property
    def most(self) -> int:
        """The most runs running at the same time."""
        return max(self.going()[1])

    def facts(self) -> dict:
        """What the lane's readout line states: runs, completed, cancelled, skipped, the most at
        once, the longest wait (ms, 0 if none) and, when nothing completes, how far in each run
        was cut (`cut`, ms; None otherwise)."""
        cut = self.jobs[0].finished - self.jobs[0].started if self.jobs and not self.completed else None
        return {"runs": len(self.jobs), "completed": self.completed, "cancelled": self.cancelled,
                "skipped": self.skipped_count, "most": self.most, "longest_wait": self.longest_wait, "cut": cut}

    def line(self) -> str:
        """'skip        4 runs, 4 completed, 0 cancelled, 4 skipped, at most 1 at once'."""
        f = self.facts()
        text = (f"{self.policy:<10}  {_plural(f['runs'], 'run')}, {f['completed']} completed, "
                f"{f['cancelled']} cancelled, {f['skipped']} skipped, at most {f['most']} at once")
        if f["longest_wait"]:
            text += f", longest wait {format_duration(f['longest_wait'])}"
        if f["cut"] is not None:
            text += (f"\n{'':<10}  nothing completes: each run is cancelled by the next release, "
                     f"{format_duration(f['cut'])} in")
        return text

    def short(self) -> str:
        """The lane's label at the right of the figure."""
        text = f"{self.completed} of {len(self.jobs)} completed"
        if self.cancelled:
            text += f"\n{self.cancelled} cancelled"
        if self.skipped:
            text += f"\n{self.skipped_count} skipped"
        return text


def _window(every: int | str, slots: int, start: int) -> tuple[int, int]:
    gap = Every(every).ms
    return gap, start + slots * gap


def policy_runs(policy: str, run: int | str, *, start: int = START, every: int | str = EVERY, slots: int = SLOTS,
                workers: int = WORKERS) -> OverlapRuns:
    """Run one schedule under `policy` with runs of `run` (ms or "20m") through the engine, up to
    and including the release after the window; keep the window's runs and skipped slots."""
    one_of(policy, POLICIES, "overlap policy")
    gap, end = _window(every, slots, start)
    worker = Worker(run=run, concurrency=workers)
    with PumpDesign(Schedule(NAME, Every(gap), **lane(policy)), start=start, pump=Pump(mode="atomic"),
                    worker=worker) as sim:
        trace = sim.run(until=end)
    jobs = tuple(OverlapJob(f.slot, f.released, f.started, f.finished, f.cancelled) for f in trace if f.released < end)
    skipped = _no_job(jobs, start, end, gap)
    return OverlapRuns(policy, worker.run, jobs, skipped, start, end)


def reference_runs(policy: str, run: int | str, *, start: int = START, every: int | str = EVERY,
                   slots: int = SLOTS, workers: int = WORKERS) -> OverlapRuns:
    """`policy_runs` by the reference model instead of the Lua scripts: the same runs (the
    tests hold them equal), without Redis; what the layout is measured with."""
    one_of(policy, POLICIES, "overlap policy")
    gap, end = _window(every, slots, start)
    worker = Worker(run=run, concurrency=workers)
    ref = reference(Schedule(NAME, Every(gap), **lane(policy)), start=start, until=end, worker=worker, ids=None)
    jobs = tuple(OverlapJob(*x) for x in zip(ref.slot.tolist(), ref.released.tolist(), ref.started.tolist(),
                                            ref.finished.tolist(), ref.cancelled.tolist()) if x[1] < end)
    skipped = _no_job(jobs, start, end, gap)
    return OverlapRuns(policy, worker.run, jobs, skipped, start, end)


def _no_job(jobs, start: int, end: int, gap: int) -> tuple[int, ...]:
    """The window's slots that got no job. Under `skip` and `buffer-one` these are the refused
    releases; under `forbid` a refused slot can still run when the running one ends, and a slot
    that came and went while the row was held is passed over for the latest one."""
    ran = {j.slot for j in jobs}
    return tuple(s for s in range(start, end, gap) if s not in ran)


def bar_rows(jobs: tuple[OverlapJob, ...]) -> list[int]:
    """A row of the lane for each run: the first row whose last run (wait included) ended
    before this one's release, so side-by-side runs, and runs that touch, stay apart."""
    ends: list[int] = []
    out = []
    for j in jobs:
        r = next((i for i, e in enumerate(ends) if e < j.released), len(ends))
        if r == len(ends):
            ends.append(j.finished)
        else:
            ends[r] = j.finished
        out.append(r)
    return out


# -- text the notebook prints -------------------------------------------------------------------

def readout(runs: tuple[OverlapRuns, ...], *, every: int | str = EVERY, slots: int = SLOTS,
            workers: int = WORKERS) -> str:
    """A header line, then one line per policy (see `OverlapRuns.line`)."""
    gap, first = Every(every).ms, runs[0]
    head = (f"runs of {first.run // MINUTE} min, a release every {format_duration(gap)} from {hm(first.start)} "
            f"to {hm(first.start + (slots - 1) * gap)} ({slots} slots), {workers} workers a lane")
    return "\n".join([head] + [r.line() for r in runs])


def outcome(policy: str, job: OverlapJob | None) -> tuple:
    """What a policy did with one slot, as the table's cell states it: ("skipped", "waiting" or
    "running": what the skip found), or (what, started, finished, ms) with `what` "cancelled",
    "waited" (ms between release and start), "held" (ms between slot and release) or "ran"."""
    if job is None:
        return ("skipped", "waiting" if policy == "buffer-one" else "running")
    if job.cancelled:
        return ("cancelled", job.started, job.finished, 0)
    if job.started > job.released:
        return ("waited", job.started, job.finished, job.started - job.released)
    if job.released > job.slot:
        return ("held", job.started, job.finished, job.released - job.slot)
    return ("ran", job.started, job.finished, 0)


def _cell(policy: str, job: OverlapJob | None) -> str:
    what, *rest = outcome(policy, job)
    if what == "skipped":
        return f"skipped (one {rest[0]})"
    started, finished, ms = rest
    span = f"{hm(started)}-{hm(finished)}"
    if what == "cancelled":
        return f"{span} cancelled"
    if what in ("waited", "held"):
        return f"{span} ({what} {format_duration(ms)})"
    return span


def slots_table(runs: tuple[OverlapRuns, ...], every: int | str = EVERY) -> str:
    """Slot by slot, what each policy did: a run's span, its wait, its cancel, or a skip."""
    first = runs[0]
    grid = []
    for slot in range(first.start, first.end, Every(every).ms):
        cells = []
        for r in runs:
            job = next((j for j in r.jobs if j.slot == slot), None)
            cells.append(_cell(r.policy, job) if job or slot in r.skipped else "")
        grid.append((hm(slot), cells))
    widths = [max(len(r.policy), *(len(cells[k]) for _, cells in grid)) for k, r in enumerate(runs)]
    head = "slot   " + "  ".join(f"{r.policy:<{w}}" for r, w in zip(runs, widths)).rstrip()
    lines = [head, "-" * len(head)]
    for slot, cells in grid:
        lines.append(f"{slot}  " + "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths)).rstrip())
    return "\n".join(lines)


def backlog_facts(fires: tuple[int, ...] = CHAIN_FIRES, run: str = CHAIN_RUN) -> dict[int, dict]:
    """{schedule length: `Comparison.summary()`} for the pump against BullMQ's chain, one worker."""
    schedule = Schedule(NAME, Every(EVERY))
    return {n: compare(schedule, start=START, fires=n, worker=Worker(run=run)).summary() for n in fires}


def backlog_growth(fires: tuple[int, ...] = CHAIN_FIRES, run: str = CHAIN_RUN) -> str:
    """The pump against BullMQ's chain, one worker, runs longer than the period: per schedule
    length, the most jobs waiting at once and the latest start behind its slot, in each design.
    The pump's backlog grows with the schedule; the chain's stays at one job."""
    lines = []
    for n, s in backlog_facts(fires, run).items():
        pump, bull = s["pump"], s["bullmq"]
        lines.append(f"{n:>2} runs: pump {pump['waiting']:>2} waiting, up to {pump['late_ms'] // MINUTE:>3} min late"
                     f" · bullmq {bull['waiting']} waiting, up to {bull['late_ms'] // MINUTE} min late")
    return "\n".join(lines)


def snapped_facts(fires: int = 6, run: str = CHAIN_RUN, workers: int = 3) -> dict:
    """What `snapped_slots` states: both designs' comparison with one worker (`one`: its table is
    printed), the slots each left without a job (`no_job`), and BullMQ's chain with `workers`
    workers (`more`: its summary, `more_no_job`: its slots without a job)."""
    schedule = Schedule(NAME, Every(EVERY))
    one = compare(schedule, start=START, fires=fires, worker=Worker(run=run))
    more = compare(schedule, start=START, fires=fires, worker=Worker(run=run, concurrency=workers))
    return {"one": one, "no_job": one.no_job(), "workers": workers, "more": more.summary()["bullmq"],
            "more_no_job": more.no_job()["bullmq"]}


def snapped_slots(fires: int = 6, run: str = CHAIN_RUN, workers: int = 3) -> str:
    """Both designs fire by fire with one worker, the slots each left without a job, and the
    chain again with `workers` workers: one worker makes the chain's late pickups snap past
    slots, enough workers take every job on its slot."""
    f = snapped_facts(fires, run, workers)
    lines = [f["one"].table()]
    for design, slots in f["no_job"].items():
        lines.append(f"{design}: no job for {', '.join(hm(s) for s in slots) or 'no slot'}")
    lines.append(f"with {f['workers']} workers: {f['more']} · "
                 f"no job for {f['more_no_job'] or 'no slot'}")
    return "\n".join(lines)


# -- the figure's model ---------------------------------------------------------------------------

@dataclass(frozen=True)
class OverlapLayout:
    """What stays put while the run length moves: the window, the time axis, each lane's rows
    (enough for the runs of every length) and the fixed text."""

    policies: tuple[str, ...]
    names: tuple[str, ...]       # each lane's axis label: the policy and its peers' names
    rows: tuple[int, ...]        # rows per lane, in `policies` order
    most: int                    # the most runs at once, at any run length
    start: int
    end: int                     # the window's end
    lo: int                      # the time axis
    hi: int
    tick: int                    # labelled time ticks this far apart
    grid: tuple[int, ...]        # a grid line at each slot
    title: str                   # the figure's title, up to the run length
    after: str                   # the note on the shaded part after the window


@dataclass(frozen=True)
class PolicyMarks:
    """One policy's lane at one run length, as the view draws it."""

    policy: str
    done: tuple[tuple[int, int, int], ...]     # (started, finished, row) of each completed run
    cut: tuple[tuple[int, int, int], ...]      # (started, finished, row) of each cancelled run
    waits: tuple[tuple[int, int, int], ...]    # (released, started, row) of each late start
    skipped: tuple[int, ...]                   # slots that produced nothing
    label: str                                 # the count at the lane's right
    going_at: tuple[int, ...]                  # runs at once: a step at each instant, to the axis end
    going: tuple[int, ...]


@dataclass(frozen=True)
class OverlapFrame:
    """One run length: the engine's lanes, what the view draws of them, and the readout."""

    run: int                     # minutes
    runs: tuple[OverlapRuns, ...]  # the engine's answer, per policy
    marks: tuple[PolicyMarks, ...]
    layout: OverlapLayout
    title: str                   # the run length, after the layout's title
    readout: str


def marks(runs: OverlapRuns, hi: int) -> PolicyMarks:
    """A lane's bars, waits, skips and counts; the runs-at-once steps held to `hi`."""
    done, cut, waits = [], [], []
    for j, r in zip(runs.jobs, bar_rows(runs.jobs)):
        (cut if j.cancelled else done).append((j.started, j.finished, r))
        if j.started > j.released:
            waits.append((j.released, j.started, r))
    at_, n = runs.going()
    return PolicyMarks(runs.policy, tuple(done), tuple(cut), tuple(waits), runs.skipped, runs.short(),
                       (*at_, hi), (*n, n[-1]))


def _lane(frame: OverlapFrame, policy: str) -> OverlapRuns:
    """The frame's runs for `policy`."""
    return frame.runs[POLICIES.index(policy)]


@functools.lru_cache(maxsize=None)
def _most(run: int) -> int:
    """The most runs `allow` has going at once with runs of `run` minutes."""
    return policy_runs("allow", f"{run}m").most


class OverlapModel(Model):
    """The run-length slider over the five policies' lanes. A frame runs the Lua engine for its
    own run length only (five small simulations), kept for the next visit; the layout comes
    once from the reference model, over every run length (see the module's docstring)."""

    readout_id = "overlap-readout"
    controls = (slider("run", RUNS, RUN, label="run (min)",
                       play=Play(step=1, max_step=5, interval=400, label="min per step"), main=True),)
    #: one slider, and `allow`, `skip` and `replace` answer alike from 16 to 30 min (from 31 the
    #: challenge is met): a Show me there answered every later question on those three (issue 30), so
    #: only the first asks one; `buffer-one` and `forbid` drop more slots as runs grow, so each of the
    #: next two asks at a length whose answer no earlier Show me's frame shows, and the last asks at a
    #: length past every earlier one: `forbid` at 20 min asked after Show me at 18 and 25 (1 and 3
    #: dropped) was read between them
    questions = (
        question(
            "05-replace-completes",
            "Runs of 18 min under `replace`. How many of the 8 runs complete?",
            [("0", "None: each cut short",
              "Each run is still going 15 minutes in, when the next release cancels it; the 10:45 run too, at "
              "11:00."),
             ("1", "1: the last, with nothing after it",
              "A release comes at 11:00 too and cancels the 10:45 run."),
             ("8", "All 8: the next one waits",
              "That is buffering; `replace` cancels the running one instead.")],
            answer=lambda f: str(_lane(f, "replace").completed), show_me={"run": 18}),
        question(
            "05-forbid-skips",
            "Runs of 20 min under `forbid`. How many of the 8 slots get no job?",
            [("2", "2: when two are ready, only the later runs",
              "09:45 passes during 09:30's run; at its end 10:00 is due, and only the latest runs."),
             ("4", "4: each release mid-run is lost",
              "`forbid` keeps the row due: the refused slot runs when the running one ends."),
             ("0", "None: each refused slot runs later",
              "Only the latest slot passed runs; an older one gets no job.")],
            answer=lambda f: str(_lane(f, "forbid").skipped_count), show_me={"run": 20}),
        question(
            "05-buffer-one-skips",
            "Runs of 25 min under `buffer-one`. How many of the 8 slots get no job?",
            [("2", "2: the wait grows, then one is dropped",
              "The wait grows 10 minutes a slot until a release finds one held: 09:45 and 10:30."),
             ("4", "4: each release mid-run is dropped",
              "That is `skip`; `buffer-one` drops one only while another is held."),
             ("0", "None: each late run waits its turn",
              "That is a queue with no limit; `buffer-one` holds one at most.")],
            answer=lambda f: str(_lane(f, "buffer-one").skipped_count), show_me={"run": 25}),
    )
    # the shortest only: every run from 31 to 40 min has three at once, and Play from the
    # default ended on one, met with nothing found (h69r)
    challenge = Challenge(
        "05-three-at-once", "Find the shortest run at which `allow` has three runs going at once.",
        met=lambda f: _lane(f, "allow").most == 3 and (f.run - 1 not in RUNS or _most(f.run - 1) < 3),
        explain="At 31 min `allow` has three runs going: a run longer than two gaps is still going when the "
                "next two start.")

    def __init__(self):
        super().__init__()
        self._runs: dict[tuple[str, int], OverlapRuns] = {}
        self._layout: OverlapLayout | None = None

    def policy_runs(self, policy: str, run: int) -> OverlapRuns:
        """The engine's lane for `policy` with runs of `run` whole minutes, simulated once."""
        key = (one_of(policy, POLICIES, "overlap policy"), one_of(run, RUNS, "run"))
        if key not in self._runs:
            self._runs[key] = policy_runs(policy, run * MINUTE)
        return self._runs[key]

    def simulated(self) -> int:
        """How many lanes the Lua engine has run so far (the laziness the tests check)."""
        return len(self._runs)

    def layout(self) -> OverlapLayout:
        """The extent that holds every run length's lanes, measured once with the reference model."""
        if self._layout is None:
            every = Every(EVERY).ms
            end = START + SLOTS * every
            lanes = {(p, m): reference_runs(p, m * MINUTE) for m in RUNS for p in POLICIES}
            rows = tuple(max(max(bar_rows(lanes[(p, m)].jobs), default=0) + 1 for m in RUNS) for p in POLICIES)
            last = max(j.finished for ln in lanes.values() for j in ln.jobs)
            hi = -(-last // every) * every + 5 * MINUTE
            self._layout = OverlapLayout(
                policies=POLICIES,
                names=tuple(f"{p}\n{PEERS[p].replace(' · ', chr(10))}" for p in POLICIES),
                rows=rows, most=max(ln.most for ln in lanes.values()),
                start=START, end=end, lo=START - 5 * MINUTE, hi=hi, tick=2 * every,
                grid=tuple(range(START, hi + 1, every)),
                title=f"every {format_duration(every)} from {hm(START)}, {WORKERS} workers a lane, each run takes",
                after=f"releases from {hm(end)} on not drawn (shaded)")
        return self._layout

    def describe(self, frame: OverlapFrame) -> str:
        told = []
        for r in frame.runs:
            cut = len(r.jobs) - r.completed
            extra = [f"{cut} cancelled"] * bool(cut) + [f"{len(r.skipped)} skipped"] * bool(r.skipped)
            told.append(f"{r.policy} {r.completed} of {len(r.jobs)}" + (f" ({', '.join(extra)})" if extra else ""))
        return f"Runs of {format_duration(frame.run * MINUTE)}, a slot every 15 min; runs completed: {spoken(told)}."

    def compute(self, run: int) -> OverlapFrame:
        layout = self.layout()
        runs = tuple(self.policy_runs(p, run) for p in POLICIES)
        return OverlapFrame(run, runs, tuple(marks(r, layout.hi) for r in runs), layout, f"{run} min",
                            readout(runs))


__all__ = ["OverlapFrame", "OverlapJob", "OverlapLayout", "OverlapModel", "PolicyMarks", "OverlapRuns",
           "backlog_facts", "backlog_growth", "bar_rows", "outcome", "snapped_facts",
           "marks", "policy_runs", "readout", "reference_runs", "slots_table",
           "snapped_slots"]
