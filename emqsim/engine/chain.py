"""BullMQ's design: no pump; each scheduler's next run is a job that waits in Redis.

Two designs run a registry row (``design=`` of `simulate`):

- ``pump`` (EchoMQ's, `sim.PumpDesign`): a pump beats, reads the rows that are due,
  enqueues one job per due row and advances the row. Jobs appear whether or not a
  worker is there to take them.
- ``bullmq`` (this module, bullmq 6.x job schedulers): there is no pump. Upserting a
  scheduler stores its row and makes the job of its first run, delayed until then
  (`scheduler` script, BullMQ's addJobScheduler). A worker that takes a job
  (`activate`, BullMQ's moveToActive) makes the scheduler's next job at that moment
  (`chain`, BullMQ's updateJobScheduler): the next run is computed from the slot taken
  and the pickup instant by the engine's own rule (`Schedule.next_run`: `prev + every`,
  snapped forward on the phase grid if already behind). A cron pattern is read as BullMQ
  reads it, with cron-parser (`Cron(..., reader="cron-parser")`): a fresh parse from the
  later of the slot and the pickup, one `next()`; where cron-parser gives up (its loop
  limit, Lord Howe's fall-back), bullmq 6.7.0's `defaultRepeatStrategy` swallows the error
  and `upsertJobScheduler` adds no job, so the chain stops there until the scheduler is
  upserted again. So with no worker running, no new job appears: an outage leaves one
  overdue job, taken when a worker is back, and the chain goes on from there. One
  worker never runs two jobs of a scheduler at once: a run longer than the period
  delays the next pickup, and the late pickup snaps past the slots it missed.

`BullMQ` holds the verbs (upsert, pickup, the state a test compares with bullmq's own
answers); `Chain` runs schedules on the virtual clock with workers and an outage, and
returns the same `Trace` as the pump design. An outage in this design is an interval
with no worker running. The BullMQ-only rules (which score an upsert keeps, what a
limit or an end date stops) live here; the next-run arithmetic is the engine's.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import bullmq_fast
from .cadence import Cron, Every
from .cron_parser import GaveUp
from .errors import InputError, one_of
from .events import Events
from .faults import Faults
from .ids import slot_job_id
from .parts import check_parts, check_run
from .registry import FLUSH, Registry, RegistryChanged, Retention, parse_score
from .schedule import INF, Schedule
from .scripts import ms_arg, name_arg
from .store import HoldsStore, Store
from .trace import Fire, Trace
from .worker import Crew, Worker

#: the one kind of event of this design: a worker takes a ready job
PICKUP = 0
SLOT_SCANS = 32     # BullMQ walks at most this many taken slots forward on an upsert


job_id = slot_job_id   # BullMQ's id of a scheduler's job; the name tests import from here


@dataclass(frozen=True)
class Taken:
    """One pickup: the job a worker took, and what the scheduler did next."""

    job_id: str
    name: str
    slot: int          # the run time the job stands for
    created: int       # when the job was made (the previous pickup, or the upsert)
    started: int       # the pickup instant
    next: int | float  # the scheduler's next run, INF if it made no next job
    result: str        # "chained", "limit", "ended", "stopped", "absent", "stale", "duplicate"
    count: int = 0     # the taken job's count: the jobs made since the upsert, this one included


CHAIN = {1: "chained", 0: "absent", 2: "stale", 3: "duplicate"}


class BullMQ:
    """The verbs of BullMQ's job schedulers on one store, through the Lua scripts."""

    def __init__(self, store: Store):
        self.store = store
        self.k = store.keys
        self.client = store.client
        self._run = store.scripts.run
        self.registry = Registry(store)

    # -- upsert (addJobScheduler) ---------------------------------------------------------

    def upsert(self, schedule: Schedule, now: int) -> str:
        """Queue.upsertJobScheduler: "created", "rewritten" (the cadence changed) or "kept";
        "stopped" when cron-parser gives up on the pattern's next run: nothing is written.

        What bullmq 6.7.0 does, when the scheduler's pending job is still delayed or waiting
        (it is removed and made again): an `every` that did not change keeps the score,
        even an overdue one; a changed one starts from its first run; a cron pattern takes
        its next slot strictly after now (or after the start date). The iteration count
        is carried over; the offset given (above 0) is stored, else the stored one is
        kept. When the pending job is already taken, `every` goes on from the old score
        by the snap rule and the new phase is stored.
        """
        _check(schedule)
        schedule = _read_by_cron_parser(schedule)
        ms_arg("now", now)
        c, name = schedule.cadence, schedule.name
        pipe = self.client.pipeline(transaction=False)
        pipe.hgetall(self.k.record(name))
        pipe.zscore(self.k.repeat, name)
        old, score = pipe.execute()
        old = {k.decode(): v.decode() for k, v in old.items()}
        prev = None if score is None else int(float(score))
        prev_id = "" if prev is None else slot_job_id(name, prev)
        removable = prev is not None and self._waiting(prev_id)
        given = c.offset if isinstance(c, Every) and c.offset else None
        if isinstance(c, Every):
            same = prev is not None and old.get("every_ms") == str(c.ms)
            if same and removable:
                nxt = prev
            elif same:
                nxt = c.after(prev, now, given or 0)
            else:
                nxt = schedule.first_run(now)
            if given:
                offset = given
            elif removable and "offset" in old:
                offset = int(old["offset"])
            else:
                offset = c.phase(nxt)
            nxt = self._free_slot(name, nxt, c.ms, prev_id if removable else "")
        else:
            try:
                nxt = max(c.after(max(now, schedule.start or now)), now)
            except GaveUp:                 # bullmq adds no job and writes nothing
                return "stopped"
            offset = int(old["offset"]) if removable and "offset" in old else 0
            if self.client.exists(self.k.job(slot_job_id(name, nxt))) and not (removable and nxt == prev):
                raise InputError(f"scheduler {name!r}: job {slot_job_id(name, nxt)!r} exists already "
                                 "(BullMQ refuses this upsert: SchedulerJobIdCollision)", "name")
        record = schedule.to_record(None)
        record.pop("offset", None)
        fields = [x for kv in record.items() for x in kv]
        new_id = slot_job_id(name, nxt)
        keys = [self.k.repeat, self.k.record(name), self.k.delayed, self.k.pending, self.k.marker,
                self.k.job(prev_id) if prev_id else self.k.record(name), self.k.job(new_id)]
        args = [name, ms_arg("now", now), ms_arg("next run", nxt), prev_id, new_id, ms_arg("offset", offset)]
        self._run("scheduler", keys, [*args, *fields])
        if prev is None:
            return "created"
        return "kept" if old.get("cadence") == schedule.cadence_key or (
            isinstance(c, Every) and old.get("every_ms") == str(c.ms)) else "rewritten"

    def _waiting(self, jid: str) -> bool:
        """Is this job still delayed or waiting (so an upsert removes and replaces it)?"""
        pipe = self.client.pipeline(transaction=False)
        pipe.zscore(self.k.delayed, jid)
        pipe.lpos(self.k.pending, jid)
        in_delayed, in_pending = pipe.execute()
        return in_delayed is not None or in_pending is not None

    def _free_slot(self, name: str, nxt: int, every: int, removed: str) -> int:
        """BullMQ's walk past slots whose job ids are taken (by completed jobs, say)."""
        for _ in range(SLOT_SCANS + 1):
            jid = slot_job_id(name, nxt)
            if jid == removed or not self.client.exists(self.k.job(jid)):
                return nxt
            nxt += every
        raise InputError(f"scheduler {name!r}: {SLOT_SCANS} slots in a row are taken by existing jobs "
                         "(BullMQ refuses this upsert: SchedulerJobSlotsBusy)", "name")

    # -- pickup (moveToActive, then updateJobScheduler) ------------------------------------

    @staticmethod
    def next_run(schedule: Schedule, phase: int, slot: int, count: int, now: int) -> int | str:
        """The next run a pickup at `now` makes for the job of `slot` (its count `count`), or why it
        makes none ("limit", "ended", "stopped"): bullmq's JobScheduler.upsertJobScheduler, called by
        the worker. What BullMQ adds to the engine's rule is here: a limit counts the jobs made since
        the last upsert; an end date is compared with the pickup instant; a cron pattern is read
        from no earlier than the start date; where cron-parser gives up, bullmq's
        defaultRepeatStrategy swallows the error and no next job is made. The next run itself is
        the engine's one rule, `Schedule.next_run` (an interval's snap; a cron's slot strictly
        after the later of the slot and the pickup, one fresh cron-parser parse)."""
        if schedule.limit and count + 1 > schedule.limit:
            return "limit"
        if schedule.end is not None and now > schedule.end:
            return "ended"
        if isinstance(schedule.cadence, Cron) and schedule.start:
            slot = max(slot, schedule.start)
        try:
            return schedule.next_run(slot, released=now, finished=None, phase=phase)
        except GaveUp:
            return "stopped"

    def pickup(self, now: int) -> Taken | None:
        """A worker asks for a job at `now`: the oldest ready job is taken, and its
        scheduler's next job is made right then. None when no job is ready."""
        out = self._run("activate", [self.k.delayed, self.k.pending, self.k.marker], [ms_arg("now", now), self.k.job("")])
        if out[0] == 0:
            return None
        jid, name, slot, created, count = (_text(x) for x in out[1:6])
        return self._chain(jid, name, int(slot), int(created), int(count), now)

    def retry_chain(self, taken: Taken, now: int) -> Taken:
        """The chain step of a pickup run again for the same taken job: bullmq's Worker
        retries `upsertJobScheduler` after an error (`retryIfFailed`), and the first call
        may have written already. The row has moved past the slot, so nothing is made."""
        count = int(self.job(taken.job_id)["count"])
        return self._chain(taken.job_id, taken.name, taken.slot, taken.created, count, now)

    def _chain(self, jid: str, name: str, slot: int, created: int, count: int, now: int) -> Taken:
        """updateJobScheduler for the job `jid` taken at `now`: make the scheduler's next job."""
        rec = self.client.hgetall(self.k.record(name))
        if not rec:
            return Taken(jid, name, slot, created, now, INF, "absent", count)
        schedule, phase, _ = Schedule.from_record(name, rec)
        nxt = self.next_run(schedule, phase, slot, count, now)
        if isinstance(nxt, str):
            return Taken(jid, name, slot, created, now, INF, nxt, count)
        nid = slot_job_id(name, nxt)
        keys = [self.k.repeat, self.k.record(name), self.k.delayed, self.k.pending, self.k.marker, self.k.job(nid)]
        args = [name, now, ms_arg("next run", nxt), nid, slot, count + 1]
        result = CHAIN[self._run("chain", keys, args)]
        return Taken(jid, name, slot, created, now, nxt if result == "chained" else INF, result, count)

    def pickups(self, name: str, slot: int, count: int, picks: list[tuple[int, int, int]]) -> tuple[int, int | float]:
        """Many pickups of the scheduler `name` in one call (pickups-5.lua): its current job runs
        at `slot` with `count`; `picks` are (next run made, pickup instant, finish instant) of
        each pickup in turn, every job taken being the one the pickup before made. The Chain
        calls it only where pickup by pickup would write the same.

        Returns (registry size, head score); RegistryChanged if the store is not as the Chain
        left it (nothing is written then)."""
        if not picks:
            raise InputError("picks [] is refused: use at least one (next run, pickup, finish)", "picks")
        current = slot_job_id(name_arg("name", name), slot)
        keys = [self.k.repeat, self.k.record(name), self.k.delayed, self.k.pending, self.k.marker, self.k.job(current)]
        args: list = [name, ms_arg("slot", slot), ms_arg("count", count), current]
        runs, starts, ends, ids = [], [], [], []
        for pick in picks:
            if not isinstance(pick, (tuple, list)) or len(pick) != 3:
                raise InputError(f"pickup {pick!r} is refused: use (next run, pickup, finish)", "picks")
            nxt, started, finished = pick
            runs.append(ms_arg("next run", nxt))
            starts.append(ms_arg("pickup", started))
            ends.append(ms_arg("finished", finished))
            ids.append(slot_job_id(name, nxt))
            keys.append(self.k.job(ids[-1]))
        out = self._run("pickups", keys, args + [" ".join(runs), " ".join(starts), " ".join(ends)] + ids)
        if out == 0:
            raise RegistryChanged(self.k.repeat, None, None, f"the row {name!r}, its record, its job or the pending "
                                  "list is not as the run left it; nothing was written")
        return int(out[0]), parse_score(out[1])

    def finish(self, done: list[tuple[str, int, int, str]], evict: list[str] = ()) -> None:
        if done or evict:
            self.registry.finish(done, evict)

    # -- reads ---------------------------------------------------------------------------

    def ready_at(self) -> int | None:
        """When the earliest job becomes ready: now-or-earlier for a waiting job (its slot),
        else the head of the delayed set; None when no job exists."""
        pipe = self.client.pipeline(transaction=False)
        pipe.lindex(self.k.pending, 0)
        pipe.zrange(self.k.delayed, 0, 0, withscores=True)
        waiting, head = pipe.execute()
        if waiting is not None:
            return int(self.client.hget(self.k.job(waiting.decode()), "slot"))
        return int(head[0][1]) if head else None

    def state(self, name: str) -> dict:
        """The scheduler as the BullMQ oracle reports it: row score, the hash's offset, ic,
        every and pattern, the delayed jobs (id, run time) and the waiting ones."""
        pipe = self.client.pipeline(transaction=False)
        pipe.zscore(self.k.repeat, name)
        pipe.hgetall(self.k.record(name))
        pipe.zrange(self.k.delayed, 0, -1, withscores=True)
        pipe.lrange(self.k.pending, 0, -1)
        score, rec, delayed, waiting = pipe.execute()
        rec = {k.decode(): v.decode() for k, v in rec.items()}

        def num(key):
            return int(rec[key]) if key in rec else None

        return {
            "score": None if score is None else parse_score(score),
            "offset": num("offset"), "ic": num("ic"), "every": num("every_ms"),
            "pattern": rec.get("pattern"),
            "delayed": [[m.decode(), int(s)] for m, s in delayed],
            "waiting": sorted(m.decode() for m in waiting),
        }

    def job(self, jid: str) -> dict[str, str]:
        return self.registry.job(jid)


class Chain(HoldsStore):
    """Run `schedules` in the BullMQ design from `start`: upsert each, then workers take
    jobs as they become ready; `run(fires=...)` or `run(until=...)` returns the Trace.

    A worker picks a job up at the later of its run time and the moment the worker is
    free (on its poll grid if it polls); during `faults.outage` no worker runs, so a job
    that comes due then is taken when the outage ends. A fire's `released` is when its
    job's run time came (the job itself was made at the previous pickup), `next` the run
    its pickup chained (+inf when a limit, an end date or cron-parser giving up stopped the
    chain). Pump faults (a crash between two writes, a second pump, a cancel mid-tick) have
    no meaning without a pump and are refused.

    This class is the plain path, every pickup an event. The fast path (a quiet stretch of one
    scheduler's pickups made in one `pickups` script call) is `bullmq_fast`, behind its one
    switch; the tests hold the two equal."""

    def __init__(self, schedules, *, start: int, worker: Worker | None = None, faults: Faults | None = None,
                 retain: int = 10_000, store: Store | None = None):
        schedules = check_parts(schedules, start=start, worker=worker, faults=faults, retain=retain, store=store)
        self.faults = faults or Faults()
        f = self.faults
        if f.workers_down is not None:
            raise InputError("design 'bullmq' has no pump, so an outage already is no worker running: "
                             "give outage=(down, up), not workers_down", "workers_down")
        if f.crash_after_enqueue is not None or f.pumps != 1 or f.cancel_at is not None:
            raise InputError("design 'bullmq' has no pump: of the faults only an outage (no worker "
                             "running over an interval) applies, not a pump crash, two pumps or a cancel",
                             "crash_after_enqueue" if f.crash_after_enqueue is not None
                             else "pumps" if f.pumps != 1 else "cancel_at")
        for s in schedules:
            _check(s)
        schedules = [_read_by_cron_parser(s) for s in schedules]
        self.worker = worker or Worker()
        self._own_store = store is None
        self.store = store or Store()
        self.store.claim("a bullmq-design run")  # one run per store (Store.claim says why)
        self.bullmq = BullMQ(self.store)
        self.trace = Trace(retain)
        self.crew = Crew(self.worker, start)
        self._retention = Retention(retain)
        self._done: list[tuple[str, int, int, str]] = []
        self._next: dict[str, int | float] = {}
        self._count: dict[str, int] = {}   # the count of each scheduler's pending job, where known
        self._rows = self._foreign = 0
        self.events = Events()           # no clock: a pickup's time is the worker's, not a beat's
        self._target = self._until = self._progress = None
        self._outage = (None, None)
        try:
            for s in schedules:
                if self.bullmq.upsert(s, start) == "stopped":   # cron-parser gave up: no row, no job
                    self._next[s.name] = INF
                    continue
                self._count[s.name] = 1
                self._rows += 1
                self._next[s.name] = self.bullmq.registry.score(s.name)
                if self._next[s.name] is None:
                    raise self._changed(f"the row {s.name!r} is gone right after its upsert")
            self._foreign = self.bullmq.registry.size() - self._rows   # rows of the registry it did not upsert
            if self._foreign < 0:
                raise self._changed("a row it upserted is gone right after the upserts")
        except BaseException:  # a failed set-up removes what it wrote (a real server keeps it)
            self.close()
            raise

    def run(self, fires: int | None = None, until: int | None = None, progress=None) -> Trace:
        """Hand jobs to workers as they come ready, until `fires` more are taken or `until`;
        `progress(fires so far, virtual time)` is called after each (as in `PumpDesign.run`).
        Each pickup is an event on the core, at the time a worker takes the job; the next one is
        put there when a pickup is done (the store says which job comes ready next)."""
        check_run(fires=fires, until=until)
        target = None if fires is None else self.trace.count + fires
        self._target, self._until, self._progress = target, until, progress
        self._outage = self.faults.outage or (None, None)
        self.events.clear()          # a pickup a previous `run` left queued is worked out again
        self._next_pickup()
        self.events.run({PICKUP: self._pickup}, until=until,
                        stop=None if target is None else lambda kind: self.trace.count >= target)
        self._flush()
        size = self.bullmq.registry.size()   # one row per scheduler, whatever it produced
        if size != self._rows + self._foreign:
            raise self._changed("", size)
        for f in self.trace.fires:
            f.size = size
        self.trace.registry_size = size
        self.trace.next = min(self._next.values(), default=INF)
        return self.trace

    def _next_pickup(self) -> None:
        """Put the next pickup on the core: after any stretch the fast-forward makes at once,
        the first job to come ready, at the time a worker is free to take it."""
        target = self._target
        while target is None or self.trace.count < target:
            if bullmq_fast.forward(self):   # a quiet stretch made in one script call
                continue
            due = self.bullmq.ready_at()
            if due is None:
                if min(self._next.values(), default=INF) != INF:   # a job it made is gone
                    raise self._changed("no job is there, though the run made one")
                return                     # every chain has stopped: no job exists
            self.events.schedule(self._ready(due, self._outage), PICKUP)
            return

    def _pickup(self, ready: int, _=None) -> None:
        """The handler of a pickup: a worker takes the ready job and its next job is made."""
        run = self.crew.assign(self.trace.count + 1, ready)
        if self._until is not None and run.started > self._until:
            return                         # past the run's end: nothing more is queued
        taken = self.bullmq.pickup(run.started)
        if taken is None:              # cannot happen: a job was ready at `ready`
            raise RuntimeError(f"no job ready at {run.started} though one was due by {ready}")
        if taken.result in ("absent", "stale"):   # the run never cancels nor rewrites a row
            raise self._changed(f"the row {taken.name!r} is {'gone' if taken.result == 'absent' else 'moved'} "
                                f"at the pickup of {taken.job_id!r}")
        self._next[taken.name] = taken.next
        if taken.result == "chained":
            self._count[taken.name] = taken.count + 1
        else:
            self._count.pop(taken.name, None)
        fire = Fire(self.trace.count + 1, taken.name, taken.slot, taken.slot, run.started, run.finished,
                    taken.job_id, next=taken.next)
        self.trace.produced(fire)
        if self._progress is not None:
            self._progress(self.trace.count, run.started)
        self._done.append((taken.job_id, run.started, run.finished, "done"))
        if len(self._done) >= FLUSH:
            self._flush()
        self._next_pickup()

    def _changed(self, detail: str, size: int | None = None) -> RegistryChanged:
        """The error for a registry (or a job) that is not what this run wrote."""
        rows = self._rows + self._foreign
        return RegistryChanged(self.bullmq.k.repeat, None if size is None else (rows, None),
                               None if size is None else (size, None), detail)

    def _ready(self, due: int, outage) -> int:
        """When a worker picks up a job that comes ready at `due`: no earlier than the first free
        worker, and not during the outage (no worker runs before it ends)."""
        ready = max(due, self.crew.free[0][0])
        down, up = outage
        return up if down is not None and down <= ready < up else ready

    def _flush(self) -> None:
        self.bullmq.finish(self._done, self._retention.evict(j for j, *_ in self._done))
        self._done = []


def simulate_chain(schedules, *, start: int, fires: int | None = None, until: int | None = None,
                   progress=None, **options) -> Trace:
    """`simulate(..., design="bullmq")`: build a Chain, run it, close its store."""
    with Chain(schedules, start=start, **options) as chain:
        return chain.run(fires=fires, until=until, progress=progress)


def _check(schedule: Schedule) -> None:
    """BullMQ's job schedulers have one rule and no policies: refuse the others by name."""
    if schedule.rule != "schedule":
        raise InputError(f"design 'bullmq' runs start-to-start from the scheduled slot (rule 'schedule'), "
                         f"not rule {schedule.rule!r}", "rule")
    if schedule.missed != "snap":
        raise InputError(f"design 'bullmq' snaps missed slots as bullmq 6.x does (missed 'snap'), "
                         f"not missed {schedule.missed!r}", "missed")
    if schedule.overlap != "allow":
        raise InputError(f"design 'bullmq' has no overlap policy (overlap 'allow'), not {schedule.overlap!r}: "
                         "its chain makes the next job only when a worker takes the current one", "overlap")
    if not isinstance(schedule, Schedule):
        raise InputError(f"schedules {schedule!r} must be Schedule(...) objects", "schedules")
    if not isinstance(schedule.cadence, (Every, Cron)):
        raise InputError(f"cadence {schedule.cadence!r} must be Every(...) or Cron(...)", "cadence")


def _read_by_cron_parser(schedule: Schedule) -> Schedule:
    """BullMQ reads a cron pattern with cron-parser: the schedule with its cron read so, or
    an InputError with cron-parser's own refusal (`5-1 * * * *`)."""
    c = schedule.cadence
    if isinstance(c, Cron) and c.reader != "cron-parser":
        return schedule.with_(cadence=Cron(c.expr, c.tz, "cron-parser"))
    return schedule


def _text(x) -> str:
    return x.decode() if isinstance(x, bytes) else str(x)
