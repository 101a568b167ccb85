"""Lesson 03, the wake marker: a worker parked on it is woken by the write that makes a job ready.

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

import numpy as np

from ..engine.cadence import Every
from ..engine.chain import BullMQ
from .course import NAME, SECOND, START
from ..engine.durations import format_duration
from ..engine.ids import Minter
from ..engine.pump import Pump
from ..engine.rand import draw
from ..engine.registry import Registry
from ..engine.schedule import Schedule
from ..engine.sim import Simulation
from ..engine.store import Store
from ..engine.timefmt import hm, hms
from ..engine.worker import Worker
from .model import Model, slider
from .questions import Challenge, question

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


def marker_steps(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> str:
    """Register, fire one occurrence, let a parked worker take it, let it park again: the answer
    of each script and what the marker key holds after it. Only names, answers and scores are
    printed (a real server's key names carry a per-store queue name)."""
    own = store is None
    store = store or Store()
    try:
        reg, sched = Registry(store), Schedule(NAME, Every(every))
        first = sched.first_run(start)
        nxt = sched.next_run(first, released=first, finished=None, phase=sched.cadence.phase(first))
        job = Minter().mint(first)
        out = [f"register {NAME} (every {format_duration(sched.cadence.ms)}): {reg.register(sched, start)}"
               f"  \u00b7 marker {_shown(reg.marker())}"]
        _, head, res = reg.fire(first, [(NAME, first, nxt, job, first, "{}")])
        out.append(f"fire {hms(first)} (enqueue + advance): {res[0].result}  \u00b7 marker {_shown(reg.marker())}"
                   f"  \u00b7 registry next run {hms(head)}")
        answer, when, _ = reg.take(job, first, parked=True)
        out.append(f"parked worker takes {job}: {answer} at {hms(when)}  \u00b7 marker {_shown(reg.marker())}"
                   f"  \u00b7 job {reg.job(job)['state']}")
        answer, _, _ = reg.take("", first, parked=True)
        out.append(f"the worker, done, parks again: {answer}  \u00b7 marker {_shown(reg.marker())}")
        return "\n".join(out)
    finally:
        if own:
            store.close()


def bullmq_marker_steps(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> str:
    """The same marker in the BullMQ design, which has delayed jobs: the upsert makes the first
    job, ready now ("0"); the pickup makes the next one, delayed, and "1" goes to its run time
    (bullmq 6.7.0's addDelayMarkerIfNeeded, here `lua/includes/marker.lua` through
    `lua/includes/scheduled_job.lua`). The pickup leaves "0" with nothing waiting, the state
    6.7.0 leaves too (its prepareJobForProcessing writes "0" back after every take): "0" means
    "try to take a job now", not "a job waits"."""
    own = store is None
    store = store or Store()
    try:
        bull, sched = BullMQ(store), Schedule(NAME, Every(every))
        answer = bull.upsert(sched, start)
        out = [f"upsert {NAME} (every {format_duration(sched.cadence.ms)}): {answer}"
               f"  \u00b7 marker {_shown(bull.registry.marker(), clock=True)}"]
        taken = bull.pickup(start)
        waiting = bull.registry.pending()
        out.append(f"worker takes {taken.job_id} at {hms(taken.started)}: {taken.result}"
                   f"  \u00b7 marker {_shown(bull.registry.marker(), clock=True)}"
                   f"  \u00b7 next job delayed to {hms(taken.next)}"
                   f"  \u00b7 waiting: {', '.join(waiting) if waiting else 'none'}")
        return "\n".join(out)
    finally:
        if own:
            store.close()


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
    with Simulation(fleet(jobs, seed=seed, every=every), start=start, pump=Pump(tick=0, mode="atomic"),
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
    """The polling worker's mean wait against its interval: next to nothing, about half, about all."""
    share = frame.mean * 1000 / frame.poll
    return "0" if share < 0.2 else "half" if share < 0.7 else "whole"


class WakeModel(Model):
    """The wait before each job starts, woken by the marker or found by a poll every N."""

    readout_id = "wake-readout"
    controls = (slider("poll", POLLS, 30 * SECOND, label="poll every", fmt=format_duration, main=True),)
    questions = (
        question(
            "03-poll-mean",
            "A worker polls for jobs every 1 min. Jobs become ready at arbitrary instants: what is the "
            "mean wait before one starts?",
            [("half", "About half the poll interval, near 30 s",
              "A job lands anywhere between two polls, so it waits from nothing to almost a whole interval: "
              "half on average."),
             ("whole", "About the whole interval, near 1 min",
              "Only a job that becomes ready just after a poll waits that long; most land later in the interval."),
             ("0", "Next to nothing",
              "Without the marker the worker only sees a job at its next poll.")],
            answer=lambda f: _mean_size(f), show_me={"poll": 60 * SECOND}),
    )
    challenge = Challenge(
        "03-mean-under-10", "Find a poll interval at which the polling worker's mean wait is under 10 s.",
        met=lambda f: f.mean < 10,
        explain="The mean wait is about half the poll interval, so only polling every 10 s gets it under 10 s, "
                "at the price of a query every 10 s; the worker parked on the marker waits 0 ms.")

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
        with Simulation(Schedule(NAME, Every(every)), start=start, pump=Pump(mode="atomic"),
                        store=store) as sim:
            trace = sim.run(fires=fires)
        return [f.started - f.released for f in trace]
    finally:
        store.close()
