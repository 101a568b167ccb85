"""BullMQ's design's fast path, behind one switch: `enabled`.

The plain path is the event path (`chain.Chain`): each pickup is an event, a worker takes the
ready job (`activate`) and the scheduler's next job is made then (`chain`). Where what the Chain
knows shows a stretch in which one scheduler's job is the only one to come ready, pickup after
pickup (no other job ready by then, no limit or end date acting, cron-parser answering), this
module does each pickup's bookkeeping on the host as the event path would and one `pickups`
script (lua/pickups-5.lua) writes them all: what it leaves is what pickup by pickup leaves. The
next run of each pickup is the design's own rule (`chain.BullMQ.next_run`), called from here.

Set `enabled = False` and every pickup takes the event path: tests/test_fast_forward.py holds
the two equal over seeded runs, and `make bench` prints what the switch buys.
"""

from __future__ import annotations

from .ids import slot_job_id
from .schedule import INF, Schedule
from .scripts import FORWARD
from .trace import Fire

#: the switch: False sends every pickup down the event path
enabled = True


def forward(chain) -> bool:
    """Make a run of pickups of one scheduler of `chain` in one script call, where nothing else
    can happen in between: its job is the first to come ready and no other comes ready by its
    pickup, the pickup chains (no limit or end date acting, cron-parser answering), within the
    run's bounds. The host does per pickup what the event path does (crew, trace, next run);
    the script writes what the event path leaves. Returns False, having changed nothing, where
    the first pickup is not such a one: the event path takes it."""
    if not enabled or not chain._next:
        return False
    target, until, outage, progress = chain._target, chain._until, chain._outage, chain._progress
    name = min(chain._next, key=chain._next.__getitem__)
    slot, count = chain._next[name], chain._count.get(name)
    if slot == INF or count is None:
        return False
    others = min((t for n, t in chain._next.items() if n != name), default=INF)
    rec = None
    picks, made = [], []
    while len(picks) < FORWARD and (target is None or chain.trace.count < target):
        ready = chain._ready(slot, outage)
        started = chain.crew.start(ready)
        if (until is not None and started > until) or started >= others:
            break
        if rec is None:                  # read once a stretch may start: the record as upserted
            rec = chain.bullmq.client.hgetall(chain.bullmq.k.record(name))
            if not rec:
                return False
            schedule, phase, _ = Schedule.from_record(name, rec)
        nxt = chain.bullmq.next_run(schedule, phase, slot, count + len(picks), started)
        if isinstance(nxt, str):
            break
        run = chain.crew.assign(chain.trace.count + 1, ready)
        fire = Fire(chain.trace.count + 1, name, slot, slot, run.started, run.finished,
                    slot_job_id(name, slot), next=nxt)
        chain.trace.produced(fire)
        if progress is not None:
            progress(chain.trace.count, run.started)
        picks.append((nxt, run.started, run.finished))
        made.append(fire.job_id)
        slot = nxt
    if not picks:
        return False
    chain._flush()   # what finished before goes to the retention bound before these do
    first = chain._next[name]
    chain._next[name], chain._count[name] = slot, count + len(picks)
    chain.bullmq.pickups(name, first, count, picks)
    evicted = chain._retention.evict(made)
    if evicted:
        chain.bullmq.finish([], evicted)
    return True
