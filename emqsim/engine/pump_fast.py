"""The pump design's fast path, behind one switch: `enabled`.

The plain path is the event path (`sim.PumpDesign`): a beat reads due, the release's script
makes the job and moves the row, a parked worker takes it, its finish is an event. Where the
event queue shows a stretch in which nothing happens but one row's fires, each taken at once
by a parked worker and over before the next beat (no fault, no policy at work, no other row
due), this module does each fire's bookkeeping on the host as the event path would and one
`forward` script (lua/forward-4.lua) writes them all: what it leaves is what the event path
leaves, at a fraction of the round trips. It is the only copy of that shortcut; the rules it
applies (the plan of a release, the crew, the beats) are the design's own, called from here.

Set `enabled = False` and every fire takes the event path: tests/test_fast_forward.py holds
the two equal over seeded runs, and `make bench` prints what the switch buys.
"""

from __future__ import annotations

import functools
import hashlib

from .registry import Due
from .schedule import INF, Schedule
from .scripts import FORWARD, script_files

#: the switch: False sends every fire down the event path
enabled = True

STANDS_FOR = ("fire", "enqueue", "advance", "take", "forward")  # the scripts a fast-forward stands in for


@functools.lru_cache(maxsize=1)
def _shipped() -> dict[str, str]:
    """verb -> SHA of the shipped script (what redis-py registers it under)."""
    return {v: hashlib.sha1(src.encode()).hexdigest() for v, src in script_files().items() if v in STANDS_FOR}


def as_shipped(store) -> bool:
    """A lesson or a test may run a variant of a script (Scripts.replace): the fast-forward
    writes what the shipped ones write, so with a variant every fire takes the event path."""
    sha, shipped = store.scripts.sha, _shipped()
    return all(sha(v) == shipped[v] for v in STANDS_FOR)


def forward(sim, p, t: int, due: list[Due]) -> bool:
    """Make a run of fires of the pump design `sim` in one script call, from the beat of pump
    `p` at `t` that read `due`, where the event queue shows nothing else can happen in between:
    one row due, no fault, nothing else queued before the next beat, no other row due by then,
    every job taken at once by a parked worker and over before the next beat, no deadline or
    overlap policy at work. The host does per fire what the event path does (plan, crew,
    trace, answers, beats); the script writes what the event path leaves in Redis. Returns
    False, having changed nothing, where the first fire is not such a one: the event path
    takes it."""
    if not (enabled and sim.faults.quiet and sim.pump.latency == 0 and sim.worker.poll == 0) or len(due) != 1 \
            or sim._parked or sim._stale or not as_shipped(sim.store):
        return False
    d = due[0]
    sched, phase, fired = Schedule.from_record(d.name, d.record)
    if sched.rule == "finish":
        return False
    name, slot, now = d.name, d.slot, t
    others = min((s for n, s in sim._held.items() if n != name), default=INF)
    plan = _quiet_plan(sim, Due(name, slot, d.record), sched, phase, fired, now, others)
    if plan is None:
        return False
    sim._flush()   # what finished before goes to the retention bound before these do
    first, made, jobs = slot, [], []
    while True:
        job_id = sim._job_id(name, plan.label, now)
        run, fire = sim._assign(sim.trace.count + 1, plan, now, job_id)
        sim._wrote(name, plan.next, now)
        fire.next = plan.next
        made.append(fire)
        jobs.append([job_id, plan.label, now, None])
        p.last = p.busy = now
        p.origin = sim.pump.rearm(p.origin, now)
        if sim._progress is not None:
            sim._progress(sim.trace.count, now)
        fired += 1
        head = min(plan.next, others)
        nxt = None
        if plan.next != INF and len(jobs) < FORWARD:
            wake = sim.pump.wake(p.origin, max(int(head), p.busy), p.last)
            if run.finished <= wake:
                nxt = _quiet_plan(sim, Due(name, int(plan.next), d.record), sched, phase, fired, wake, others)
        if nxt is None:
            break
        # this run ends before the next beat (the event path's FINISH): the script writes it done
        jobs[-1][3] = run.finished
        slot, now, plan = int(plan.next), wake, nxt
    verbs = ("fire fired",) if sim.pump.mode == "atomic" else ("enqueue enqueued", "advance advanced")
    sim.registry.answers.update(dict.fromkeys(verbs, len(made)))   # what each fire's scripts would have answered
    sim._ends(run)
    size, score = sim.registry.forward(name, first, plan.next, sched.template, jobs)
    sim._check(size, score)
    for f in made:
        f.size = size
    sim.clock.jump_to(now)
    evicted = sim._retention.evict(j[0] for j in jobs[:-1])
    if evicted:
        sim.registry.finish([], evicted)
    sim._arm_all(head)
    return True


def _quiet_plan(sim, d: Due, sched: Schedule, phase: int, fired: int, now: int, others):
    """The plan of the release of `d` at `now`, if the fast-forward may make it: nothing
    queued or due before or at `now`, within the run's bounds, a worker free, the job
    produced with no policy at work. None otherwise."""
    if sim.events.due_by(now) or others <= now or sim.crew.free[0][0] > now:
        return None
    if (sim._target is not None and sim.trace.count >= sim._target) or \
            (sim._until is not None and now > sim._until):
        return None
    plan = sim._plan_parsed(d, sched, phase, fired, now)
    if plan.why or plan.admit.cancel or plan.admit.not_before is not None:
        return None
    return plan
