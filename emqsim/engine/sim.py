"""The simulation: pumps, workers and faults on one virtual clock, state in Redis.

A small discrete-event loop (SimPy's idea, trio MockClock's discipline): time moves
only when the next event says so, and jumps straight to it. Idle beats are skipped:
a pump sleeps until the first beat at or after the registry's earliest score.
At one instant, events run in this order: the workers go away, an outage begins, a pump restarts, runs
finish (under the `finish` rule that is when the row advances), workers take the jobs
waiting for them, sleeping workers wake, pumps read due, pumps release.

Workers: the `Crew` plans which worker takes a job. A worker parked on the wake marker
(`poll=0`, idle at the release) starts when its `take` of the marker hands it the job:
the release's script wrote the marker, so that is the release instant unless the
marker says otherwise. A worker that finishes a run parks on the marker again (reading
off any stale "0"); one that is busy, holding a job back (``buffer-one``) or polling
takes its job at the instant the plan gives.

A schedule's policies act at the release: a release past its deadline, or one the
overlap policy refuses, produces no job (the row still advances, and the trace counts
it as skipped); ``overlap="replace"`` cancels the earlier run right there.

This module is the plain path, every fire an event. The fast path (a quiet stretch of one
row's fires made in one `forward` script call) is `pump_fast`, behind its one switch; the tests
hold the two equal.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from . import pump_fast
from .clock import VirtualClock
from .errors import InputError, one_of
from .events import Events
from .faults import Faults
from .ids import Minter, slot_job_id
from .parts import DESIGNS, check_parts, check_reach, check_run
from .pump import Pump
from .registry import ADVANCE_ONLY, FLUSH, Due, Registry, RegistryChanged, Retention
from .schedule import INF, Schedule
from .store import HoldsStore, Store
from .trace import STALL, Fire, Trace, stalled
from .worker import RUN, Admit, Crew, Run, Worker

AWAY, DOWN, RESTART, FINISH, TAKE, WAKE, TICK, RELEASE = range(8)
PRODUCING = (TICK, RELEASE)


@dataclass
class _PumpState:
    idx: int
    origin: int
    up: bool = True
    last: int | None = None    # the instant of its last beat
    busy: int = 0              # it cannot beat again before its release is done
    armed: int | None = None   # the beat it is sleeping until
    life: int = 0              # bumped when it dies: a release read by an earlier life is dropped


@dataclass
class _Running:
    fire: Fire
    schedule: Schedule
    phase: int
    produced: int              # the registration's run count including this one


@dataclass
class _Plan:
    """What the pump works out on the host for one due row before it writes anything."""

    due: Due
    schedule: Schedule
    phase: int
    produced: int              # the run count if this one is produced
    label: int                 # the slot the job stands for
    why: str | None            # why it is skipped ("deadline", "overlap"), None if produced
    admit: Admit               # the overlap policy's terms: start no earlier than, cancel first
    next: int | float          # the row's next score


class PumpDesign(HoldsStore):
    """EchoMQ's design, as this course models it: a pump beats, reads the rows that are due,
    makes their jobs and advances each row; workers take the jobs. Register `schedules` at
    `start`, then `run(fires=...)` or `run(until=...)`. (BullMQ's design is `chain.Chain`;
    this design's fast path, behind one switch, is `pump_fast`.)"""

    def __init__(self, schedules, *, start: int, pump: Pump | None = None, worker: Worker | None = None,
                 faults: Faults | None = None, retain: int = 10_000, store: Store | None = None):
        schedules = check_parts(schedules, start=start, pump=pump, worker=worker, faults=faults, retain=retain,
                                store=store)
        self.pump = pump or Pump()
        self.worker = worker or Worker()
        self.faults = faults or Faults()
        self.clock = VirtualClock(start)
        self._own_store = store is None
        self.store = store or Store()
        self.store.claim("a pump-design run")  # one run per store (Store.claim says why)
        self.registry = Registry(self.store)
        self.trace = Trace(retain)
        self.crew = Crew(self.worker, start)
        self.minter = Minter()
        self.events = Events(self.clock)
        self._held: dict[str, int | float] = {}
        self._done: list[tuple[str, int, int, str]] = []   # (job id, started, finished, end state)
        self._retention = Retention(retain)
        self._crashed = False
        self._streak = 0           # occurrences skipped since the last one produced
        self._parked: deque = deque()  # runs whose worker is parked on the marker, not woken yet
        self._stale = False        # the marker may hold a "0" no parked worker popped
        self._target: int | None = None   # what the current `run` stops at, for the fast-forward
        self._until: int | None = None
        self._progress = None
        self._rows: set[str] = set()   # the rows this run writes (a cancel fault removes one)
        self._foreign = 0              # rows of the registry this run did not register
        for s in schedules:  # every first run is known before anything is written
            s.first_run(start)
        try:
            for s in schedules:
                self.registry.register(s, start)
                self._held[s.name] = self.registry.score(s.name)
            size, head = self.registry.peek()
            self._rows = set(self._held)
            self._foreign = size - len(self._rows)
            gone = [n for n, score in self._held.items() if score is None]
            if gone or self._foreign < 0:   # deleted between its write and this read: nothing would run
                which = f"the row {gone[0]!r}" if gone else "a row it wrote"
                raise RegistryChanged(self.store.keys.repeat, (len(self._rows), None), (size, None),
                                      f"{which} is gone right after it was written")
        except BaseException:  # a failed set-up removes what it wrote (a real server keeps it)
            self.close()
            raise
        self.pumps = [_PumpState(i, start, busy=start) for i in range(self.faults.pumps)]
        if self.faults.outage:
            down, up = self.faults.outage
            self.events.schedule(down, DOWN, 0)
            self.events.schedule(up, RESTART, 0)
        if self.faults.workers_down:
            self.events.schedule(self.faults.workers_down[0], AWAY, self.faults.workers_down[1])
        self._arm_all(head)

    # -- the loop ----------------------------------------------------------------------------

    def run(self, fires: int | None = None, until: int | None = None, progress=None) -> Trace:
        """Run until `fires` more occurrences are produced (and the runs in flight before the
        next beat are done), or until virtual time `until`; both may be given. `progress`, if
        given, is called after each release with (fires made, virtual now): the command line
        draws its bar from it (emqsim.progress)."""
        check_run(fires=fires, until=until)
        target = None if fires is None else self.trace.count + fires
        self._target, self._until, self._progress, self._fires = target, until, progress, fires
        self.events.run(self._handlers, until=until,
                        stop=None if target is None else lambda kind: kind in PRODUCING and self.trace.count >= target)
        self._flush()
        self.trace.registry_size, self.trace.next = self._peek()
        self.trace.answers, self.trace.refused = Counter(self.registry.answers), tuple(self.registry.refused)
        return self.trace

    def _flush(self) -> None:
        """Mark buffered finished jobs done and apply the retention bound, in one script call.

        Only workers' own bookkeeping is deferred: no pump or rule reads a job hash, and
        `run` flushes before it returns, so what a reader inspects is always current."""
        if not self._done:
            return
        self.registry.finish(self._done, self._retention.evict(j for j, *_ in self._done))
        self._done = []

    # -- the handlers: one per kind of event ----------------------------------------------------

    @property
    def _handlers(self) -> dict:
        return {TICK: lambda t, i: self._tick(self.pumps[i], t), RELEASE: self._on_release,
                FINISH: self._on_finish, TAKE: self._on_take, WAKE: self._on_wake,
                DOWN: lambda t, i: self._down(self.pumps[i]), AWAY: lambda t, until: self.crew.hold(until),
                RESTART: lambda t, i: self._restart(self.pumps[i], t)}

    def _on_release(self, t: int, arg) -> None:
        p = self.pumps[arg[0]]
        if p.up and p.life == arg[1]:  # the process that read due is still alive
            self._release(p, t, arg[2])
            if self._streak > STALL and self._until is None:
                raise stalled(self._fires)
            if self._progress is not None:
                self._progress(self.trace.count, t)

    def _on_finish(self, t: int, run) -> None:   # a run cancelled earlier was finished then
        self._finish(t, [r for r in [run] + self.events.same(t, FINISH) if not r.fire.cancelled])

    def _on_take(self, t: int, run) -> None:
        if not run.cancelled:
            self._stale |= self.registry.take(run.tag.fire.job_id, t, parked=False)[2]

    def _on_wake(self, t: int, run) -> None:   # a worker that popped "1" for now slept until now
        if self._parked and self._parked[0] is run:
            self._wake(t, slept=True)

    # -- the pump -------------------------------------------------------------------------------

    def _arm(self, p: _PumpState, score: int | float) -> None:
        if not p.up or score == INF:
            return
        wake = self.pump.wake(p.origin, max(int(score), p.busy), p.last)
        if p.armed is None or wake < p.armed:
            p.armed = wake
            self.events.schedule(wake, TICK, p.idx)

    def _arm_all(self, score) -> None:
        for p in self.pumps:
            self._arm(p, score)

    def _tick(self, p: _PumpState, t: int) -> None:
        if not p.up or p.armed != t:
            return  # a beat superseded by an earlier one, or a pump that died
        p.armed, p.last = None, t
        due = self.registry.due(t, self.pump.batch)
        if not due:
            self._arm(p, self._peek()[1])
            return
        gone = [d.name for d in due if not d.record]
        if gone:   # EchoMQ's pump skips such a row; this run wrote it, so someone else deleted it
            raise RegistryChanged(self.store.keys.repeat, None, None, f"the record of {gone[0]!r} is gone")
        if pump_fast.forward(self, p, t, due):   # a quiet stretch made in one script call
            return
        p.busy = t + self.pump.latency
        # even with no latency the release is its own event: every pump beating at this
        # instant reads due before any of them releases, which is how two pumps collide
        self.events.schedule(p.busy, RELEASE, (p.idx, p.life, due))

    def _down(self, p: _PumpState) -> None:
        p.up, p.armed, p.life = False, None, p.life + 1

    def _restart(self, p: _PumpState, t: int) -> None:
        p.up, p.origin, p.last, p.busy, p.armed = True, t, None, t, None
        self._arm(p, self._peek()[1])

    # -- releasing what was read due -----------------------------------------------------

    def _plan(self, d: Due, now: int) -> _Plan:
        return self._plan_parsed(d, *Schedule.from_record(d.name, d.record), now)

    def _plan_parsed(self, d: Due, sched: Schedule, phase: int, fired: int, now: int) -> _Plan:
        why, admit = None, RUN
        if sched.late(d.slot, now, phase):
            why = "deadline"
        else:
            admit = self.crew.admit(d.name, sched.overlap, now)
            why = None if admit.produce else "overlap"
        if why == "overlap" and admit.not_before is not None:  # forbid: due again when the run ends
            nxt = sched.bounded(admit.not_before, fired)
        elif why:  # nothing runs: under the finish rule the gap counts from the skip
            nxt = sched.bounded(sched.next_run(d.slot, released=now, finished=now, phase=phase), fired)
        elif sched.rule == "finish":
            nxt = INF  # parked until the run finishes
        else:
            nxt = sched.bounded(sched.next_run(d.slot, released=now, finished=None, phase=phase), fired + 1)
        return _Plan(d, sched, phase, fired + 1, sched.label(d.slot, now, phase), why, admit, nxt)

    def _job_id(self, name: str, slot: int, now: int) -> str:
        return slot_job_id(name, slot) if self.pump.ids == "slot" else self.minter.mint(now)

    def _release(self, p: _PumpState, t: int, due: list[Due]) -> None:
        made: list[Fire] = []
        if self.pump.mode == "two-step":
            head = self._release_two_step(p, t, due, made)
        else:
            head = self._release_atomic(p, t, due, made)
        if head is None:
            return  # crashed
        size, score = head
        self._check(size, score)
        for f in made:
            f.size, f.next = size, self._held.get(f.name, INF)
        p.origin = self.pump.rearm(p.origin, t)   # the sweep ends now
        self._arm_all(score)

    def _release_two_step(self, p, t, due, made):
        """EchoMQ.Pump: enqueue, then advance: two round trips per occurrence."""
        for d in due:
            plan = self._plan(d, t)
            n = self.trace.count + 1
            job = False   # made by the enqueue: the advance counts it in `fired`
            if plan.why:
                self._skip(d.name, plan.label, t, plan.why, read=d.slot)
            else:
                job_id = self._job_id(d.name, plan.label, t)
                job = self.registry.enqueue(job_id, d.name, plan.label, t, plan.schedule.template) == "enqueued"
                if job:
                    made.append(self._produce(n, plan, t, job_id))
                    if self._crash_now(p, t, n):
                        return None
            if self.faults.cancel_at == n:
                self._cancel_row(d.name)
            if self.registry.advance(d.name, plan.next, made=job) == "advanced":
                self._wrote(d.name, plan.next, t)
        return self.registry.seen   # what the last advance answered: no read of its own

    def _release_atomic(self, p, t, due, made):
        """One `fire` script for the beat's due rows: enqueue and advance cannot come apart."""
        rows, plans, crash, n = [], [], False, self.trace.count
        for d in due:
            plan = self._plan(d, t)
            if self.faults.cancel_at == n + 1:
                self._cancel_row(d.name)
            job_id = ADVANCE_ONLY if plan.why else self._job_id(d.name, plan.label, t)
            rows.append((d.name, d.slot, plan.next, job_id, plan.label, plan.schedule.template))
            plans.append(plan)
            if plan.why:
                continue
            n += 1
            if self._crash_due(p, n):
                crash = True
                break
        size, head, results = self.registry.fire(t, rows, dedupe=self.pump.ids == "slot")
        for row, plan, res in zip(rows, plans, results):
            if res.result == "fired":
                made.append(self._produce(self.trace.count + 1, plan, t, row[3]))
            elif res.result == "skipped":
                self._skip(row[0], plan.label, t, plan.why, read=row[1])
            if res.result in ("fired", "duplicate", "skipped"):
                self._wrote(row[0], row[2], t)
        if crash and self._crash_now(p, t, self.trace.count):
            return None
        return size, head

    def _cancel_row(self, name: str) -> None:
        """The cancel fault: another client's cancel of the row, as the run itself makes it."""
        self.registry.cancel(name)
        self._rows.discard(name)

    def _peek(self) -> tuple[int, int | float]:
        """The registry's (size, head), checked against what the run wrote."""
        seen = self.registry.peek()
        self._check(*seen)
        return seen

    def _check(self, size: int, head) -> None:
        """A registry that is not what this run wrote (another client deleted it, or removed or
        rewrote a row) ends the run with RegistryChanged, before anything more is written: the
        size must be the run's rows (and any it found there), the head their earliest score."""
        mine = min((self._held[n] for n in self._rows), default=INF)
        expected = (len(self._rows) + self._foreign, mine)
        if size != expected[0] or (not self._foreign and head != mine):
            raise RegistryChanged(self.store.keys.repeat, expected, (size, head))

    def _crash_due(self, p: _PumpState, n: int) -> bool:
        return not self._crashed and p.idx == 0 and self.faults.crash_after_enqueue == n

    def _crash_now(self, p: _PumpState, t: int, n: int) -> bool:
        if not self._crash_due(p, n):
            return False
        self._crashed = True
        self._down(p)
        self.events.schedule(t + self.faults.restart_after, RESTART, p.idx)
        return True

    def _produce(self, n: int, plan: _Plan, t: int, job_id: str) -> Fire:
        """A job was made: the crew plans its worker, the trace records it, and a parked worker
        takes it now through `take` (the script's "0" is on the marker for it)."""
        for earlier in plan.admit.cancel:
            self._cancel(earlier, t)
        run, fire = self._assign(n, plan, t, job_id)
        if run.parked:    # its worker is parked on the marker: the script just wrote it
            self._parked.append(run)
            self._wake(t)
        else:             # the release's "0" stays on the marker: nobody parked pops it
            self._stale = True
            self.events.schedule(run.started, TAKE, run)
            self._ends(run)
        if plan.admit.cancel and not self.worker.poll:
            self._park(t, len(plan.admit.cancel))   # the workers it freed, after it was taken
        return fire

    def _assign(self, n: int, plan: _Plan, t: int, job_id: str) -> tuple[Run, Fire]:
        """The job of occurrence `n`, released at `t`: the crew plans its worker, the trace
        records it (`pump_fast` makes its fires through here too)."""
        d = plan.due
        running = _Running(None, plan.schedule, plan.phase, plan.produced)
        run = self.crew.assign(n, t, name=d.name, not_before=plan.admit.not_before, tag=running)
        running.fire = fire = Fire(n, d.name, plan.label, t, run.started, run.finished, job_id)
        self.trace.produced(fire, read=d.slot)
        self._streak = 0
        return run, fire

    def _ends(self, run: Run) -> None:
        """The run's finish, on the event queue."""
        self.events.schedule(run.finished, FINISH, run.tag)

    def _wake(self, t: int, slept: bool = False) -> None:
        """The parked workers read the marker, oldest first; each one the marker wakes takes
        its job now, and the start it measured is the trace's. A "1" popped for a later
        instant puts the worker to sleep until then (or until the next write); `slept`: the
        first one has slept until now and takes its job without reading the marker."""
        while self._parked:
            run = self._parked[0]
            if run.cancelled:
                self._parked.popleft()
                continue
            answer, at, again = self.registry.take(run.tag.fire.job_id, t, parked=not slept)
            self._stale |= again
            slept = False
            if answer == "sleep":
                self.events.schedule(at, WAKE, run)
            if answer != "taken" and answer != "idle":
                return    # still parked, or asleep: the jobs behind it wait too (oldest first)
            self._parked.popleft()
            if answer == "taken":
                self.crew.move(run, t)
                f = run.tag.fire
                f.started, f.finished = run.started, run.finished
                self._ends(run)

    def _skip(self, name: str, slot: int, t: int, why: str, read: int | None = None) -> None:
        """`slot` is the one the occurrence stood for (its label), `read` the row's score."""
        self.trace.skip(name, slot, t, why, read=read)
        self._streak += 1

    def _cancel(self, run: Run, t: int) -> None:
        """overlap="replace": the earlier run ends now; its FINISH event, still queued, is ignored."""
        self.crew.cancel(run, t)
        running: _Running = run.tag
        f = running.fire
        f.started, f.finished, f.cancelled = run.started, run.finished, True
        self._finish(t, [running], park=False)

    def _wrote(self, name: str, score, now: int) -> None:
        self.trace.rewritten(name, self._held.get(name, INF), now)
        self._held[name] = score

    # -- runs finishing --------------------------------------------------------------------

    def _finish(self, t: int, runs: list[_Running], park: bool = True) -> None:
        self._done += [(r.fire.job_id, r.fire.started, t, "cancelled" if r.fire.cancelled else "done")
                       for r in runs]
        if len(self._done) >= FLUSH:
            self._flush()
        if park and not self.worker.poll:
            self._park(t, len(runs))
        for r in runs:
            if r.schedule.rule != "finish":
                continue
            s = r.schedule
            nxt = s.bounded(s.next_run(r.fire.slot, released=r.fire.released, finished=t, phase=r.phase),
                            r.produced)
            if self.registry.advance(s.name, nxt) == "advanced":
                self._wrote(s.name, nxt, t)
                r.fire.next = nxt
                self._arm_all(nxt)

    def _park(self, t: int, workers: int) -> None:
        """Workers with no job waiting for them park on the marker: each reads it until it is
        empty (a stale "0" wakes a worker that then finds nothing, as in BullMQ). The read is
        skipped while no "0" can be there (every one written was popped by a parked worker):
        it would find the marker empty."""
        if not self._stale:
            return
        idle = sum(1 for free, _ in self.crew.free if free == t)
        for _ in range(min(idle, workers)):
            while (answer := self.registry.take("", t, parked=True)[0]) == "idle":
                pass
            if answer == "parked":
                self._stale = False
                return


def simulate(schedules, *, start: int, fires: int | None = None, until: int | None = None,
             design: str = "pump", progress=None, **options) -> Trace:
    """Build a simulation, run it, close its store, and return the trace.

    `design` says what makes the jobs: "pump" (EchoMQ's: a pump beats, enqueues what is due
    and advances the row; this module) or "bullmq" (bullmq 6.x job schedulers: no pump,
    each job is made when a worker takes the previous one; `chain.Chain`). `progress` is
    called with (fires so far, virtual time) as the run goes (`emqsim.progress` draws a bar).
    Under "bullmq" a `pump` is refused: that design has none."""
    one_of(design, DESIGNS, "design")
    if design == "bullmq" and options.get("pump") is not None:  # refused, not silently dropped
        raise InputError(f"pump {options['pump']!r} does not apply to design 'bullmq', which has no pump; "
                         "leave pump out, or use design 'pump'", "pump")
    check_run(start=start, fires=fires, until=until)
    check_reach(schedules, start=start, fires=fires, design=design, **options)
    if design == "bullmq":
        from .chain import simulate_chain

        options.pop("pump", None)
        return simulate_chain(schedules, start=start, fires=fires, until=until, progress=progress, **options)
    with PumpDesign(schedules, start=start, **options) as sim:
        return sim.run(fires=fires, until=until, progress=progress)
