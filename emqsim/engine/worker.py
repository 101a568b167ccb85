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
``allow`` runs them side by side; ``skip`` produces nothing; ``buffer-one`` starts the
new job when the running one ends, and skips it if one is already waiting; ``replace``
cancels the earlier run at the release; ``forbid`` produces nothing and tells the row to
come due again when the running one ends (`emqsim.peers` says which peer does which).
`concurrency` still bounds all schedules together.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass
from typing import NamedTuple

from .durations import parse_duration
from .errors import whole
from .rand import draw, seed_arg

MAX_CONCURRENCY = 1_000  # workers of one crew: each is a heap entry, so the cap bounds memory


@dataclass(frozen=True)
class Worker:
    run: int = 0
    spread: int = 0
    concurrency: int = 1
    poll: int = 0
    seed: int = 0

    def __post_init__(self):
        checked = {name: parse_duration(getattr(self, name), name=name) for name in ("run", "spread", "poll")}
        checked["concurrency"] = whole(self.concurrency, "concurrency", low=1, high=MAX_CONCURRENCY,
                                       what="a number of workers")
        checked["seed"] = seed_arg(self.seed)
        for name, value in checked.items():
            object.__setattr__(self, name, value)

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
    name: str | None = None    # the schedule it runs for, when the crew was told (overlap policies)
    key: int = -1              # its place among that schedule's runs, in release order


class Admit(NamedTuple):
    """The overlap policy's answer for one release: produce it or not, not before when, and
    which earlier runs to cancel first."""

    produce: bool
    not_before: int | None = None
    cancel: tuple[Run, ...] = ()


RUN, SKIP = Admit(True), Admit(False)


class Crew:
    """The free times of `concurrency` workers; assigns jobs in release order.

    The runs of each name still going are kept in release order, with a heap of their finish
    times beside them, so a release drops what has finished in O(log n) per run instead of
    re-reading them all: a backlog of waiting jobs costs the same per event at any length."""

    def __init__(self, worker: Worker, origin: int):
        self.worker = worker
        self.origin = origin
        self.free = [(origin, i) for i in range(worker.concurrency)]   # (free at, worker), a heap
        self.runs: dict[str, _Going] = {}

    def hold(self, until: int) -> None:
        """No worker takes a job before `until` (the workers are away): each one is free at
        `until` at the earliest; a run already going finishes as planned."""
        self.free = [(max(free, until), w) for free, w in self.free]
        heapq.heapify(self.free)

    def going(self, name: str, t: int) -> list[Run]:
        """The runs of `name` not over at `t` (still waiting or running), oldest first."""
        g = self.runs.get(name)
        if g is None:
            return []
        g.drop(t)
        return list(g.live.values())

    def admit(self, name: str, overlap: str, t: int) -> Admit:
        """What `overlap` does with a job of `name` released at `t`."""
        if overlap == "allow":
            return RUN
        going = self.going(name, t)
        if not going:
            return RUN
        if overlap == "skip":
            return SKIP
        if overlap == "forbid":   # nothing now; the row comes due again when the last one ends
            return Admit(False, not_before=max(r.finished for r in going))
        if overlap == "replace":
            return Admit(True, cancel=tuple(going))
        if any(r.started > t for r in going):   # buffer-one: one is waiting already
            return SKIP
        return Admit(True, not_before=max(r.finished for r in going))

    def kept(self) -> int:
        """The entries the crew holds: one per run still going (waiting or running) when it
        last looked, plus one per move or cancel whose old finish has not come yet. Bounded by
        the workers and the jobs waiting, not by the fires made."""
        return sum(len(g.ends) for g in self.runs.values())

    def start(self, ready: int) -> int:
        """When the next job ready at `ready` would start, as `assign` gives it (no `not_before`,
        `ready` not before the first free worker), without assigning it."""
        poll = self.worker.poll
        return ready if not poll else self.origin - (-(ready - self.origin) // poll) * poll

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
        started = self.start(ready)
        run = Run(started, started + self.worker.duration(n), w, free, tag, parked=not poll and ready == released)
        heapq.heappush(self.free, (run.finished, w))
        if name is not None:
            g = self.runs.get(name)
            if g is None:
                g = self.runs[name] = _Going()
            g.drop(released)
            run.name = name
            g.add(run)
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
        self._moved(run)

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
        self._moved(run)

    def _moved(self, run: Run) -> None:
        """`run`'s finish changed: its heap entry under the old time goes stale, so it gets
        one under the new time."""
        g = self.runs.get(run.name)
        if g is not None and g.live.get(run.key) is run:
            heapq.heappush(g.ends, (run.finished, run.key))


class _Going:
    """One name's runs not known to be over: `live` in release order (a dict keeps it), and
    `ends`, a heap of (finish, order) entries. An entry whose finish no longer matches its run
    (moved or cancelled since) is stale: a new entry was pushed then, so the stale one is
    skipped when it comes up."""

    __slots__ = ("live", "ends", "added")

    def __init__(self):
        self.live: dict[int, Run] = {}
        self.ends: list[tuple[int, int]] = []
        self.added = 0

    def add(self, run: Run) -> None:
        run.key = self.added
        self.added += 1
        self.live[run.key] = run
        heapq.heappush(self.ends, (run.finished, run.key))

    def drop(self, t: int) -> None:
        """Forget the runs over at `t` (finished at or before it)."""
        ends, live = self.ends, self.live
        while ends and ends[0][0] <= t:
            f, k = heapq.heappop(ends)
            run = live.get(k)
            if run is not None and run.finished == f:
                del live[k]
