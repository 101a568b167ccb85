"""Workers: when a released job starts and how long it runs.

A worker with nothing to do parks on the wake marker (`poll=0`, BullMQ's way: bullmq
6.x `Worker.waitForJob` blocks with BZPOPMIN on the marker key), and a script that makes
a job ready writes the marker, which wakes it; a polling worker (`poll > 0`) only looks
on its poll grid. A worker that finishes a run takes the next waiting job straight
away. With every worker busy a job waits its turn (oldest first).

`Crew` is the plan as arithmetic: which worker takes a job and when. The reference model
uses it as it is. The engine asks Redis instead where the marker decides: a parked
worker's start is the instant its read of the marker (the `take` script) hands it the
job, and `Crew.move` records it if that differs from the plan; the tests hold engine
and reference equal, so a script that forgot the marker shows up as a late start.

The crew also applies a schedule's overlap policy, because only the workers know
whether an earlier run of the same schedule is still going (waiting or running):
``allow`` runs them side by side (Kubernetes Allow, Temporal AllowAll); ``skip``
produces nothing (Kubernetes Forbid, Temporal Skip, systemd, APScheduler
max_instances=1); ``buffer-one`` starts the new job when the running one ends, and
skips it if one is already waiting (Temporal BufferOne); ``replace`` cancels the
earlier run at the release (Kubernetes Replace, Temporal CancelOther). `concurrency`
still bounds all schedules together.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import NamedTuple

from .durations import parse_duration
from .rand import draw


@dataclass(frozen=True)
class Worker:
    run: int = 0
    spread: int = 0
    concurrency: int = 1
    poll: int = 0
    seed: int = 0

    def __post_init__(self):
        for name in ("run", "spread", "poll"):
            object.__setattr__(self, name, parse_duration(getattr(self, name), name=name))
        c = self.concurrency
        if isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise ValueError(f"concurrency {c!r} must be a whole number of workers, at least 1")

    def duration(self, n: int) -> int:
        """Run length of job n: `run`, plus a seeded draw in [0, spread]."""
        return self.run + draw(self.seed + 1, n, self.spread)


@dataclass(slots=True)
class Run:
    """One job a worker took. `tag` is the caller's handle on it (the engine's fire, the
    reference model's row), so a cancel can be written back."""

    started: int
    finished: int
    worker: int                # which worker took it
    free_from: int             # when that worker was free before it
    tag: object = None
    cancelled: bool = False
    parked: bool = False       # its worker was parked on the marker when it was released


class Admit(NamedTuple):
    """The overlap policy's answer for one release: produce it or not, not before when, and
    which earlier runs to cancel first."""

    produce: bool
    not_before: int | None = None
    cancel: tuple[Run, ...] = ()


RUN, SKIP = Admit(True), Admit(False)


class Crew:
    """The free times of `concurrency` workers; assigns jobs in release order."""

    def __init__(self, worker: Worker, origin: int):
        self.worker = worker
        self.origin = origin
        self.free = [(origin, i) for i in range(worker.concurrency)]   # (free at, worker), a heap
        self.runs: dict[str, list[Run]] = {}

    def going(self, name: str, t: int) -> list[Run]:
        """The runs of `name` not over at `t` (still waiting or running), oldest first."""
        runs = self.runs.setdefault(name, [])
        runs[:] = [r for r in runs if r.finished > t]
        return runs

    def admit(self, name: str, overlap: str, t: int) -> Admit:
        """What `overlap` does with a job of `name` released at `t`."""
        if overlap == "allow":
            return RUN
        going = self.going(name, t)
        if not going:
            return RUN
        if overlap == "skip":
            return SKIP
        if overlap == "replace":
            return Admit(True, cancel=tuple(going))
        if any(r.started > t for r in going):   # buffer-one: one is waiting already
            return SKIP
        return Admit(True, not_before=max(r.finished for r in going))

    def assign(self, n: int, released: int, *, name: str | None = None, not_before: int | None = None,
               tag=None) -> Run:
        """Job n released at `released`; with `not_before` (buffer-one) it starts no earlier,
        on the worker whose idle wait for it is shortest."""
        if not_before is None or not_before <= released:
            free, w = heapq.heappop(self.free)
            ready = max(released, free)
        else:
            fit = [e for e in self.free if e[0] <= not_before]
            free, w = max(fit) if fit else min(self.free)
            self.free.remove((free, w))
            heapq.heapify(self.free)
            ready = max(not_before, free)
        poll = self.worker.poll
        started = ready if not poll else self.origin - (-(ready - self.origin) // poll) * poll
        run = Run(started, started + self.worker.duration(n), w, free, tag, parked=not poll and ready == released)
        heapq.heappush(self.free, (run.finished, w))
        if name is not None:
            self.going(name, released).append(run)
        return run

    def move(self, run: Run, started: int) -> None:
        """`run` really started at `started` (what its worker measured), not when planned: its
        finish moves with it, and so does its worker's free time."""
        if started == run.started:
            return
        entry = (run.finished, run.worker)
        run.finished += started - run.started
        run.started = started
        if entry in self.free:
            self.free[self.free.index(entry)] = (run.finished, run.worker)
            heapq.heapify(self.free)

    def cancel(self, run: Run, t: int) -> None:
        """Stop `run` at `t`: a running job ends then, a waiting one never starts (it shows
        started = finished = t). Its worker is free again, unless a job was already queued
        behind it on that worker: that job keeps the start it was given at its release."""
        if run.finished <= t:
            return
        entry = (run.finished, run.worker)
        if entry in self.free:
            self.free[self.free.index(entry)] = (max(run.free_from, t), run.worker)
            heapq.heapify(self.free)
        run.started = min(run.started, t)
        run.finished, run.cancelled = t, True
