"""Lessons 05 and 06 print BullMQ's runs: held here to
BullMQ 6.7.0's own scripts over the runs those pages print. 05's section 4 (`backlog_growth`,
`snapped_slots`): each pickup of the chain, replayed on the scripts at the instant the run took
it, takes the same job and leaves the same next run. 06's `bullmq_retry` (computed by the
scripts where installed, `bullmq_lane.retried`): the chain step run again for the job already
taken writes nothing on the scripts, and the page's text says so.
The figures' sliders in 05 and 06 move the pump design's lanes only."""

from __future__ import annotations

import pytest

from bullmq_replay import upsert
from emqsim.engine.bullmq_scripts import package
from emqsim.engine.bullmq_scripts.driver import BullMQScripts
from emqsim.engine.cadence import Every
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.worker import Worker
from emqsim.lessons import faults, overlap
from emqsim.lessons.course import EVERY, NAME, START
from emqsim.lessons.designs import compare

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))

RUNS_05 = [(n, 1) for n in overlap.CHAIN_FIRES] + [(6, 1), (6, 3)]


def replay(trace, every: int) -> BullMQScripts:
    b = BullMQScripts()
    upsert(b, {"at": START, "every": every}, sid=NAME)
    fires = sorted(trace, key=lambda f: (f.started, f.slot))
    for f in fires:
        job = b.take(f.started)
        assert job is not None and job.id == f.job_id, f
        got = b.scheduler(NAME)
        assert (INF if got is None else got["next"]) == f.next, f
        b.finish(job, f.finished)
    assert int(b.scheduler(NAME)["fields"]["ic"]) == len(fires) + 1
    return b


@pytest.mark.parametrize("fires,workers", RUNS_05, ids=[f"{n} fires, {w} worker(s)" for n, w in RUNS_05])
def test_05_the_chains_pickups_are_the_real_scripts(fires, workers):
    every = Every(EVERY).ms
    c = compare(Schedule(NAME, Every(EVERY)), start=START, fires=fires,
                worker=Worker(run=overlap.CHAIN_RUN, concurrency=workers))
    assert len(list(c.bullmq)) == fires
    replay(c.bullmq, every)


def test_06_the_chain_step_again_writes_nothing_on_the_real_scripts():
    b = BullMQScripts()
    b.upsert(NAME, START, every=Every(EVERY).ms)
    job = b.take(START)
    before = b.state(NAME)
    assert job.made == f"repeat:{NAME}:{START + Every(EVERY).ms}"   # the take's own upsert made the next job
    again = b.update(job, START + 1000)
    after = b.state(NAME)
    assert again is None                       # updateJobScheduler-12 made no job (a nil reply)
    assert after == before
    text = faults.bullmq_retry().splitlines()
    assert text[0] == f"pickup of {job.id}: chained, next run 09:15"
    assert text[2] == (f"row 09:15 \u00b7 ic {after['ic']} \u00b7 delayed "
                       f"{[[m, s] for m, s in after['delayed']]}")
