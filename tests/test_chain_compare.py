"""The two designs side by side (`lessons.designs.compare`): what an outage leaves waiting, which slots
get no job, and the long-run backlog, in exact ms."""

from __future__ import annotations

import pytest

from emqsim.engine.cadence import Every
from emqsim.lessons.designs import compare
from emqsim.engine.pump import Pump
from emqsim.engine.schedule import Schedule
from emqsim.engine.worker import Worker

MIN = 60_000
T0907 = 1796029620000            # 2026-11-30 09:07 UTC
DOWN, UP = T0907 + 23 * MIN, T0907 + 63 * MIN      # 09:30, 10:10
SCHED = Schedule("reports", Every("15m"))


def slots(*minutes):
    return [T0907 + m * MIN for m in minutes]


def outage(stopped):
    return compare(SCHED, start=T0907, until=T0907 + 93 * MIN, outage=(DOWN, UP), pump=Pump(tick=1000),
                   stopped=stopped)


def test_pump_down_leaves_nothing_waiting_the_chain_leaves_one_job():
    c = outage("pump")
    assert c.waiting(UP) == {"pump": [], "bullmq": slots(30)}
    assert [f.released for f in c.pump][2] == UP           # the pump made the 09:37 job at 10:10
    assert [f.released for f in c.bullmq][2] == T0907 + 30 * MIN
    assert c.no_job() == {"pump": slots(45, 60), "bullmq": slots(45, 60)}


def test_workers_down_the_pump_enqueues_every_slot_the_chain_one():
    c = outage("workers")
    assert c.waiting(UP) == {"pump": slots(30, 45, 60), "bullmq": slots(30)}
    assert [f.slot for f in c.pump] == slots(0, 15, 30, 45, 60, 75, 90)
    assert [f.released for f in c.pump] == slots(0, 15, 30, 45, 60, 75, 90)
    assert [f.started for f in c.pump] == [*slots(0, 15), UP, UP, UP, *slots(75, 90)]
    assert [f.slot for f in c.bullmq] == slots(0, 15, 30, 75, 90)
    assert [f.started for f in c.bullmq] == [*slots(0, 15), UP, *slots(75, 90)]
    assert c.no_job() == {"pump": [], "bullmq": slots(45, 60)}
    assert c.summary()["pump"]["waiting"] == 3 and c.summary()["bullmq"]["waiting"] == 1


def test_workers_down_with_fires_counts_across_the_outage():
    c = compare(SCHED, start=T0907, fires=6, outage=(DOWN, UP), stopped="workers")
    assert [f.slot for f in c.pump] == slots(0, 15, 30, 45, 60, 75)
    assert len(c.bullmq) == 6


def test_long_runs_the_backlog_grows_in_the_pump_and_stays_one_in_the_chain():
    grow = [compare(SCHED, start=T0907, fires=n, worker=Worker(run="40m")).summary() for n in (4, 8, 16)]
    assert [g["pump"]["waiting"] for g in grow] == [2, 5, 10]
    assert [g["bullmq"]["waiting"] for g in grow] == [1, 1, 1]
    assert [g["pump"]["late_ms"] for g in grow] == [75 * MIN, 175 * MIN, 375 * MIN]
    assert [g["bullmq"]["late_ms"] for g in grow] == [35 * MIN, 35 * MIN, 35 * MIN]


def test_long_runs_the_chain_snaps_past_slots():
    c = compare(SCHED, start=T0907, fires=6, worker=Worker(run="40m"))
    assert c.no_job() == {"pump": [], "bullmq": slots(30, 60, 75, 105, 120, 150)}


@pytest.mark.parametrize("kw, match", [
    (dict(stopped="both"), "stopped 'both' is not one of pump, workers"),
    (dict(stopped="workers"), "needs an outage"),
])
def test_compare_refuses(kw, match):
    with pytest.raises(ValueError, match=match):
        compare(SCHED, start=T0907, fires=2, **kw)


def test_an_end_date_is_compared_with_the_pickup_and_the_score_stays():
    # bullmq 6.7.0 (recorded scenario bullmq-test-every-100-end-date): pickups every 100 ms,
    # endDate = start + 1000 make 12 jobs, and the row keeps the last job's run time
    from emqsim.engine.chain import Chain

    t = 1796000400000
    with Chain(Schedule("s", Every(100), end=t + 1000), start=t) as ch:
        trace = ch.run(until=t + 5000)
        assert [f.slot - t for f in trace] == list(range(0, 1200, 100))
        assert ch.bullmq.state("s")["score"] == t + 1100
        assert trace.fires[-1].next == float("inf")


def test_a_limit_stops_the_chain_and_the_score_stays():
    from emqsim.engine.chain import Chain

    t = 1796000400000
    with Chain(Schedule("s", Every(100), limit=5), start=t) as ch:
        trace = ch.run(until=t + 5000)
        assert [f.slot - t for f in trace] == [0, 100, 200, 300, 400]
        assert ch.bullmq.state("s")["score"] == t + 400


def test_a_retried_chain_step_makes_no_second_job():
    from emqsim.engine.chain import BullMQ
    from emqsim.engine.store import Store

    t = T0907
    with Store() as store:
        b = BullMQ(store)
        assert b.upsert(SCHED, t) == "created"
        taken = b.pickup(t)
        assert (taken.result, taken.next) == ("chained", t + 15 * MIN)
        again = b.retry_chain(taken, t + 1000)
        assert (again.result, again.next) == ("stale", float("inf"))
        st = b.state("reports")
        assert (st["score"], st["ic"], st["delayed"]) == (t + 15 * MIN, 2, [[f"repeat:reports:{t + 15 * MIN}", t + 15 * MIN]])


# -- workers away is a fault the engine models (the experiment edits no simulation) -------------

def test_workers_down_is_a_fault_of_the_pump_design():
    """The pump beats on through `workers_down`; the jobs released meanwhile start at `up`, a
    run going at `down` finishes as planned."""
    from emqsim.engine.faults import Faults
    from emqsim.engine.sim import simulate

    t = simulate(SCHED, start=T0907, until=UP + 30 * MIN, worker=Worker(run="20m"),
                 faults=Faults(workers_down=(T0907 + 10 * MIN, UP)))
    assert [f.released for f in t] == slots(0, 15, 30, 45, 60, 75, 90)
    assert [f.started for f in t] == [slots(0)[0], *(UP + k * 20 * MIN for k in range(6))]
    assert list(t)[0].finished == T0907 + 20 * MIN   # the run going at `down` (09:17) ends at 09:27


def test_workers_down_is_checked_like_an_outage():
    from emqsim.engine.errors import InputError
    from emqsim.engine.faults import Faults
    from emqsim.engine.sim import simulate

    with pytest.raises(InputError, match="workers_down ends at"):
        Faults(workers_down=(UP, DOWN))
    with pytest.raises(InputError, match="workers_down begins at .* before the start"):
        simulate(SCHED, start=T0907, fires=2, faults=Faults(workers_down=(T0907 - MIN, UP)))
    with pytest.raises(InputError, match="give outage=") as e:
        simulate(SCHED, start=T0907, fires=2, design="bullmq", faults=Faults(workers_down=(DOWN, UP)))
    assert e.value.arg == "workers_down"
