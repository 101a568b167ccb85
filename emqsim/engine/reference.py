"""The reference model: the engine's rules for one registration, as plain arithmetic.

It has two jobs. Notebooks use it for long horizons (a million fires in seconds, no Redis),
and the property tests use it as an oracle that the Lua engine must agree with. It is one
path (`_cycle`): what it drops is the bookkeeping, no registry, no event queue, only the cycle
``wake -> beat (read due) -> release (beat + latency) -> [run finishes] -> next score``.
The steps that are a line of arithmetic are written out there (the deliberate second copy of
those rules); every other step calls the package's own (Schedule.first_run/next_run/label/
late/bounded, Pump.wake, Worker.duration, Crew).

Workers come from the `Crew`'s plan: a worker parked on the marker starts at the release. The
engine's parked worker reads the marker instead (the `take` script), so the property tests that
hold the two equal are what hold the scripts' marker writes to that plan. The pump's beats follow
`Pump.wake` and `Pump.rearm` (a fixed grid, or EchoMQ's re-arm a tick after each sweep).

The schedule's policies follow the engine's: a release past the deadline or refused by
the overlap policy produces nothing and advances the row (counted in `skipped`; under
``overlap="forbid"`` the row comes due again when the running one ends); under
``overlap="replace"`` the earlier run's row is rewritten as cancelled at the release.

An outage stops the pump from `down` to `up`: a beat in the outage is not made; a release
whose pump went down after its beat (at or before the release instant) is dropped and the
row stays due; the restart at `up` starts a new beat grid there.
"""

from __future__ import annotations

from array import array

import numpy as np

from .cadence import Every
from .errors import InputError
from .ids import id_time
from .parts import check_run
from .faults import Faults
from .ids import Minter, slot_job_id
from .pump import Pump
from .schedule import INF, Schedule
from .trace import STALL, FireRecord, SkipRecord, Trace, stalled
from .worker import RUN, Crew, Worker

IDS = ("pump", "fresh", "slot", None)
GRID_KEEPING = ("snap", "snap-v5", "epoch", "all")   # the missed policies whose next score is written out
_FAR = 1 << 62  # "never": later than any instant, so the hot loop needs no None checks
_NO_BEAT = -1   # the last beat of a pump that has not beaten yet: before any instant


class RefTrace:
    """What `reference` produced: int64 columns (empty with keep=False) and the aggregates.

    `count`, `skipped`, `last_slot` and `next` cover every fire even when the columns were
    not kept. `registry_size`, `duplicates` and `lost` are fixed by the model (one row, none
    repeated, none lost); they are here so a RefTrace reads like the engine's Trace.
    `skips` holds a `SkipRecord` (slot, release instant, why) per skipped occurrence when kept.
    """

    FIELDS = Trace.FIELDS
    registry_size = 1
    duplicates = 0
    lost = 0

    def __init__(self, slot, released, started, finished, cancelled, job_ids, count: int, last_slot, nxt,
                 skipped: int = 0, skips: list | None = None):
        self.slot = np.frombuffer(slot, dtype=np.int64)
        self.released = np.frombuffer(released, dtype=np.int64)
        self.started = np.frombuffer(started, dtype=np.int64)
        self.finished = np.frombuffer(finished, dtype=np.int64)
        self.cancelled = np.frombuffer(cancelled, dtype=np.int8).astype(bool)
        self.n = np.arange(1, len(self.slot) + 1, dtype=np.int64)
        self.job_ids: list[str] | None = job_ids
        self.count = count
        self.skipped = skipped
        self.skips: list[SkipRecord] = skips or []
        self.last_slot: int | None = last_slot
        self.next: int | float = nxt

    def __len__(self) -> int:
        return len(self.slot)

    def arrays(self) -> dict[str, np.ndarray]:
        return {"n": self.n, "slot": self.slot, "released": self.released,
                "started": self.started, "finished": self.finished, "cancelled": self.cancelled}

    def to_fires(self) -> list[FireRecord]:
        """One `FireRecord` per fire, the shape of the engine's `Trace.fire_records` (job_id
        None when ids were not asked for)."""
        ids = self.job_ids if self.job_ids is not None else [None] * len(self)
        return list(map(FireRecord._make, zip(self.n.tolist(), self.slot.tolist(), self.released.tolist(),
                                              self.started.tolist(), self.finished.tolist(), ids,
                                              self.cancelled.tolist())))


def engine_fires(trace: Trace) -> list[FireRecord]:
    """The engine's Trace as `RefTrace.to_fires` gives it, to compare the two."""
    return trace.fire_records()


def engine_skips(trace: Trace) -> list[SkipRecord]:
    """The engine's skipped occurrences as `RefTrace.skips` holds them."""
    return trace.skip_records()


def reference(schedule: Schedule, *, start: int, fires: int | None = None, until: int | None = None,
              pump: Pump | None = None, worker: Worker | None = None,
              outage: tuple[int, int] | None = None, ids: str | None = "pump",
              keep: bool = True) -> RefTrace:
    """What `PumpDesign(schedule, start=start, pump=, worker=, faults=Faults(outage=...))
    .run(fires=, until=)` produces, without Redis.

    `ids`: "pump" follows `pump.ids`; "fresh" mints JOB ids at each release; "slot" gives
    `ids.slot_job_id` ("repeat:<name>:<slot>"); None skips them (fastest). `keep=False` keeps
    only the aggregates.
    """
    pump = Pump() if pump is None else pump
    worker = Worker() if worker is None else worker
    if not isinstance(keep, bool):
        raise InputError(f"keep {keep!r} must be True or False", "keep")
    _check(schedule, start, fires, until, pump, worker, outage, ids)
    if ids == "pump":
        ids = pump.ids
    return _cycle(schedule, start, fires, until, pump, worker, outage, ids, keep)


def _check(schedule, start, fires, until, pump, worker, outage, ids) -> None:
    if not isinstance(schedule, Schedule):
        raise InputError(f"schedule {schedule!r} must be a Schedule(...)", "schedule")
    id_time(start, "start")
    check_run(start=start, fires=fires, until=until)
    if not isinstance(pump, Pump):
        raise InputError(f"pump {pump!r} must be a Pump(...)", "pump")
    if not isinstance(worker, Worker):
        raise InputError(f"worker {worker!r} must be a Worker(...)", "worker")
    if outage is not None:
        if isinstance(outage, (str, bytes)) or not hasattr(outage, "__iter__"):
            raise InputError(f"outage {outage!r} must be a pair (down, up) of Unix ms", "outage")
        down, up = Faults(outage=tuple(outage)).outage
        if down < start:
            raise InputError(f"outage begins at {down}, before the start {start}; give an outage from the start on",
                             "outage")
    if not (ids is None or (isinstance(ids, str) and ids in IDS)):
        raise InputError(f"ids {ids!r} is not one of 'pump', 'fresh', 'slot', None", "ids")


def _cycle(schedule, start, fires, until, pump, worker, outage, ids, keep) -> RefTrace:
    """The one path: the cycle once per occurrence, each step the engine's rule.

    A step that is one line of arithmetic is written out (a beat on a grid with no jitter,
    equal runs with no overlap policy, whose workers free up in the order they were taken,
    an interval's next score under the rules that keep it on the grid, limit and end): that
    is what makes a million fires take a second, and it is the deliberate second copy of
    those rules, which the property tests hold equal to the engine's. Any other step (a
    drawn jitter or run length, a cron, a policy) calls the engine's own function (Pump.wake,
    Crew, Schedule.next_run/label/late/bounded). The crew forgets runs as they finish, so a
    backlog of waiting jobs costs the same per step at any length."""
    S = schedule.first_run(start)
    cad = schedule.cadence
    every = isinstance(cad, Every)
    phase = cad.phase(S) if every else 0
    name, overlap, rule, missed = schedule.name, schedule.overlap, schedule.rule, schedule.missed
    next_run, bounded, label_of, late = schedule.next_run, schedule.bounded, schedule.label, schedule.late
    # which steps are a line of arithmetic here, decided once
    grid = not pump.jitter
    ring = not worker.spread and overlap == "allow"
    policed = schedule.deadline is not None or overlap != "allow"
    labelled = missed in ("once", "now")
    arithmetic = every and (rule != "schedule" or missed in GRID_KEEPING)
    ms = cad.ms if every else 0
    finish_rule = rule == "finish"
    rule_k = ("schedule", "release", "finish").index(rule)
    epoch, v5, catch_all = missed == "epoch", missed == "snap-v5", missed == "all"
    limit, end = schedule.limit, _FAR if schedule.end is None else schedule.end
    T, lat, wake, rearm = pump.tick, pump.latency, pump.wake, pump.beat == "rearm"
    run_ms, poll, conc = worker.run, worker.poll, worker.concurrency
    free, j = [start] * conc, 0           # the ring: each worker's free time, taken in turn
    crew = Crew(worker, start)            # otherwise: the engine's plan
    admit = RUN
    mint = Minter().mint if keep and ids == "fresh" else None
    down, up = outage if outage is not None else (_FAR, _FAR)
    until_ = _FAR if until is None else until
    target = _FAR if fires is None else fires
    cols = tuple(array("q") for _ in range(4))
    a_slot, a_rel, a_st, a_fi = (c.append for c in cols)
    cancelled = array("b")
    marks = cancelled.append if keep and overlap == "replace" else None   # only a replace cancels a run
    slot_ids = keep and ids == "slot"
    job_ids: list[str] | None = [] if keep and ids else None
    skips: list | None = [] if keep else None
    O, L, B = start, _NO_BEAT, start      # the pump's grid origin, last beat, busy-until
    count, skipped, streak, last_slot, never = 0, 0, 0, None, INF
    while S != never:
        e = S if S > B else B             # the first beat at or after this, strictly after the last
        if not grid:
            W = wake(O, e, None if L == _NO_BEAT else L)
        elif T:
            lo = e if e > L else L + 1
            W = O - ((O - lo) // T) * T if lo > O else O
        else:
            W = e if e >= L else L
        if W >= down:                     # the pump is down at its beat: it restarts at `up`
            O, L, B, down = up, _NO_BEAT, up, _FAR
            continue
        if W > until_ or count >= target:
            break
        L, R = W, W + lat
        B = R
        if R > until_:
            break
        if R >= down:                     # died between its due read and its release
            O, L, B, down = up, _NO_BEAT, up, _FAR
            continue
        if rearm:
            O = R + T                     # EchoMQ re-arms a tick after the sweep ends
        if policed:
            why, admit = None, RUN
            if late(S, R, phase):
                why = "deadline"
            else:
                admit = crew.admit(name, overlap, R)
                why = None if admit.produce else "overlap"
            if why:                       # nothing runs; the row advances all the same
                skipped += 1
                streak += 1
                if streak > STALL and until is None:
                    raise stalled(fires)
                if keep:
                    skips.append(SkipRecord(label_of(S, R, phase), R, why))
                if why == "overlap" and admit.not_before is not None:   # forbid: due when the run ends
                    S = bounded(admit.not_before, count)
                else:
                    S = bounded(next_run(S, released=R, finished=R, phase=phase), count)
                continue
            streak = 0
        count += 1
        slot = label_of(S, R, phase) if labelled else S
        if ring:
            ready = free[j]
            if R > ready:
                ready = R
            st = start - ((start - ready) // poll) * poll if poll else ready
            fi = free[j] = st + run_ms
            j += 1
            if j == conc:
                j = 0
        else:
            for earlier in admit.cancel:
                crew.cancel(earlier, R)
                if keep:
                    i = earlier.tag
                    cols[2][i], cols[3][i], cancelled[i] = earlier.started, earlier.finished, 1
            run = crew.assign(count, R, name=name, not_before=admit.not_before, tag=count - 1)
            st, fi = run.started, run.finished
        last_slot = slot
        if keep:
            a_slot(slot)
            a_rel(R)
            a_st(st)
            a_fi(fi)
            if marks is not None:
                marks(0)
            if mint is not None:
                job_ids.append(mint(R))
            elif slot_ids:
                job_ids.append(slot_job_id(name, slot))
        if finish_rule and fi > until_:
            S = INF                       # parked until a finish the run never reaches
            break
        if not arithmetic:
            S = bounded(next_run(S, released=R, finished=fi if finish_rule else None, phase=phase), count)
            continue
        if rule_k == 0:
            nx = S + ms
            if (nx < R or (epoch and nx == R)) and not catch_all:   # behind: snap forward
                if epoch:
                    nx = R // ms * ms + ms
                elif v5:
                    nx = R // ms * ms + ms + phase
                else:
                    nx = R // ms * ms + phase
                    if nx <= R:
                        nx += ms
        elif rule_k == 1:
            nx = R + ms
        else:
            nx = fi + ms
        S = INF if (limit and count >= limit) or nx >= end else nx
    if marks is None:
        cancelled = array("b", bytes(len(cols[0])))
    return RefTrace(*cols, cancelled, job_ids, count, last_slot, S, skipped, skips)
