"""The engine end to end: exact traces for the course's claims, faults, and bounded memory."""

from __future__ import annotations

import pytest

from backends import make_store
from emqsim.engine import bullmq_fast, pump_fast
from emqsim.engine.cadence import Cron, Every
from emqsim.engine.errors import InputError
from emqsim.engine.faults import Faults
from emqsim.engine.ids import minted_at
from emqsim.engine.pump import Pump
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.timefmt import at, hms
from emqsim.engine.worker import Worker

T9 = at("2026-11-30 09:00")
MIN = 60_000


def run(store, schedule, fires=None, until=None, start=T9, **kw):
    with PumpDesign(schedule, start=start, store=store, **kw) as sim:
        return sim.run(fires=fires, until=until)


def released(trace):
    return [hms(f.released) for f in trace]


@pytest.mark.parametrize("rule, expected", [
    ("schedule", ["09:00:00", "09:15:00", "09:30:00", "09:45:00"]),
    ("finish", ["09:00:00", "09:19:00", "09:38:00", "09:57:00"]),
])
def test_every_15_min_with_4_min_runs(store, rule, expected):
    tr = run(store, Schedule("reports", Every("15m"), rule=rule), fires=4, worker=Worker(run="4m"))
    assert released(tr) == expected
    assert [f.finished - f.started for f in tr] == [4 * MIN] * 4


def test_cron_first_run_is_the_slot_at_or_after_start(store):
    tr = run(store, Schedule("reports", Cron("0 9 * * *")), fires=2, start=at("2026-11-30 08:48"))
    assert [f.slot for f in tr] == [T9, at("2026-12-01 09:00")]
    tr = run(make_store("fakeredis"), Schedule("reports", Cron("0 9 * * *")), fires=1, start=T9)
    assert [f.slot for f in tr] == [T9]


def test_release_rule_drifts_to_the_beat_schedule_rule_keeps_the_gap(store):
    pump = Pump(tick=1000)
    tr = run(store, Schedule("r", Every(1500), rule="release"), fires=4, pump=pump)
    assert [f.released - T9 for f in tr] == [0, 2000, 4000, 6000]   # effective period 2000 ms
    tr = run(make_store("fakeredis"), Schedule("r", Every(1500), rule="schedule"), fires=5, pump=pump)
    assert [f.slot - T9 for f in tr] == [0, 1500, 3000, 4500, 6000]
    assert [f.released - T9 for f in tr] == [0, 2000, 3000, 5000, 6000]


def test_limit_5_gives_exactly_5_runs_and_keeps_the_row(store):
    with PumpDesign(Schedule("r", Every(100), limit=5), start=T9, store=store, pump=Pump(tick=0)) as sim:
        tr = sim.run(until=T9 + 10_000)
        assert tr.count == 5
        assert sim.registry.rows() == [("r", INF)]


def test_end_date_now_plus_1000_every_100_gives_10_runs(store):
    tr = run(store, Schedule("r", Every(100), end=T9 + 1000), until=T9 + 10_000,
             pump=Pump(tick=0), worker=Worker(run=100))
    assert [f.slot - T9 for f in tr] == list(range(0, 1000, 100))
    assert tr.registry_size == 1 and tr.next == INF


@pytest.mark.parametrize("mode, duplicates", [("two-step", 1), ("atomic", 0)])
def test_crash_after_enqueue_then_restart(store, mode, duplicates):
    tr = run(store, Schedule("r", Every("15m")), fires=6, pump=Pump(mode=mode),
             faults=Faults(crash_after_enqueue=3, restart_after="1m"))
    assert (tr.duplicates, tr.lost) == (duplicates, 0)
    slots = [f.slot for f in tr]
    assert sorted(set(slots)) == [T9 + i * 15 * MIN for i in range(6 - duplicates)]
    if mode == "two-step":   # the re-fired slot carries a fresh id, minted at the restart
        again = [f for f in tr if f.slot == T9 + 30 * MIN]
        assert [minted_at(f.job_id) for f in again] == [T9 + 30 * MIN, T9 + 31 * MIN]


def test_slot_derived_ids_absorb_the_restart_duplicate(store):
    tr = run(store, Schedule("r", Every("15m")), fires=5, pump=Pump(ids="slot"),
             faults=Faults(crash_after_enqueue=3, restart_after="1m"))
    assert (tr.duplicates, tr.lost) == (0, 0)
    assert tr[2].job_id == f"repeat:r:{T9 + 30 * MIN}"


@pytest.mark.parametrize("mode, produced", [("two-step", 3), ("atomic", 2)])
def test_cancel_between_due_read_and_advance(store, mode, produced):
    with PumpDesign(Schedule("r", Every("15m")), start=T9, store=store, pump=Pump(mode=mode),
                    faults=Faults(cancel_at=3)) as sim:
        tr = sim.run(until=T9 + 3 * 60 * MIN)
        assert tr.count == produced          # no further fire after the cancel
        assert sim.registry.size() == 0      # the member was swept, not resurrected
        assert sim.registry.record("r") == {}


@pytest.mark.parametrize("mode, duplicates", [("two-step", 4), ("atomic", 0)])
def test_two_pumps_on_one_queue(store, mode, duplicates):
    tr = run(store, Schedule("r", Every("15m")), until=T9 + 45 * MIN, pump=Pump(mode=mode),
             faults=Faults(pumps=2))
    assert tr.duplicates == duplicates
    assert len({f.slot for f in tr}) == 4


def test_outage_collapses_missed_slots_into_one_run(store):
    tr = run(store, Schedule("r", Every("15m")), fires=4, start=at("2026-11-30 09:07"),
             faults=Faults(outage=(at("2026-11-30 09:30"), at("2026-11-30 10:10"))))
    assert released(tr) == ["09:07:00", "09:22:00", "10:10:00", "10:22:00"]
    assert (tr.duplicates, tr.lost) == (0, 0)   # 09:52 and 10:07 were skipped by design, not lost


def test_one_row_over_10000_fires_and_reregistering_keeps_it(store):
    with PumpDesign(Schedule("reports", Every("15m")), start=T9, store=store, retain=100,
                    pump=Pump(mode="atomic")) as sim:
        tr = sim.run(fires=10_000)
        assert tr.count == 10_000 and len(tr) == 100
        assert {f.size for f in tr} == {1}
        assert sim.registry.rows() == [("reports", T9 + 10_000 * 15 * MIN)]
        assert sim.registry.register(Schedule("reports", Every("15m")), sim.clock.now) == "exists"
        assert sim.registry.size() == 1
        # finished jobs beyond the retention bound were deleted from Redis
        assert len(store.client.keys(store.keys.job("*"))) <= 101


def test_ids_are_fresh_branded_and_decode_to_the_release(store):
    tr = run(store, Schedule("r", Every("15m")), fires=3)
    assert [len(f.job_id) for f in tr] == [14, 14, 14]
    assert [minted_at(f.job_id) for f in tr] == [f.released for f in tr]
    assert tr[0].job_id == "JOB0SUaKlrtAo4"


def test_marker_wake_starts_at_release_polling_waits_for_the_poll(store):
    tr = run(store, Schedule("r", Every("15m"), start=T9 + 7000), fires=2, pump=Pump(tick=0),
             worker=Worker(poll=10_000))
    assert [f.started - f.released for f in tr] == [3000, 3000]


def test_same_trace_on_every_backend():
    pytest.importorskip("redis")
    import os

    from emqsim.engine.store import ENV

    if not os.environ.get(ENV):
        pytest.skip(f"{ENV} is not set: nothing to compare fakeredis with")
    scenario = dict(fires=30, pump=Pump(tick=700, jitter=200, seed=3, latency=150),
                    worker=Worker(run="4m", spread="3m", concurrency=2))
    sched = Schedule("r", Every("2m"), rule="release")
    a = run(make_store("fakeredis"), sched, **scenario)
    b = run(make_store("redis"), sched, **scenario)
    assert a.records() == b.records()


def test_run_needs_an_end():
    with PumpDesign(Schedule("r", Every("15m")), start=T9, store=make_store("fakeredis")) as sim:
        with pytest.raises(ValueError, match="fires=N or until"):
            sim.run()


def test_run_continues_where_it_stopped():
    with PumpDesign(Schedule("r", Every("15m")), start=T9, store=make_store("fakeredis")) as sim:
        sim.run(fires=2)
        tr = sim.run(fires=2)
        assert [f.n for f in tr] == [1, 2, 3, 4]
        assert tr.next == T9 + 60 * MIN


def test_table_dates_a_next_run_on_another_day():
    tr = run(make_store("fakeredis"), Schedule("reports", Cron("0 9 * * *")), fires=2)
    assert tr.table().splitlines()[-1] == ("registry rows 1 · next run 09:00:00 (2026-12-02) · "
                                           "duplicates 0 · lost 0")
    tr = run(make_store("fakeredis"), Schedule("reports", Every("15m")), fires=2)
    assert tr.table().splitlines()[-1] == "registry rows 1 · next run 09:30:00 · duplicates 0 · lost 0"


# -- the worker parks on the marker; what it measures is the trace ------------------------------

def test_a_parked_worker_takes_each_job_off_redis_when_the_marker_wakes_it(store):
    with PumpDesign(Schedule("r", Every("15m")), start=T9, store=store, pump=Pump(mode="atomic"),
                    worker=Worker(run="4m")) as sim:
        tr = sim.run(fires=3)
        assert [f.started - f.released for f in tr] == [0, 0, 0]
        assert [sim.registry.job(f.job_id)["started"] for f in tr] == [str(f.started) for f in tr]
        assert sim.registry.pending() == [] and sim.registry.marker() == []


def test_a_busy_worker_takes_the_next_job_when_done_and_reads_off_the_stale_marker(store):
    """20-min runs every 15 min, two of them, one worker: the 09:15 job waits for the 09:00 run.
    Its "0" is left on the marker (nobody was parked); the worker that finishes at 09:40 with
    nothing waiting pops it, finds nothing, and parks on an empty marker."""
    with PumpDesign(Schedule("r", Every("15m"), limit=2), start=T9, store=store, worker=Worker(run="20m")) as sim:
        sim.run(until=T9 + 30 * MIN)
        assert [(hms(f.released), hms(f.started)) for f in sim.trace] == [("09:00:00", "09:00:00"),
                                                                         ("09:15:00", "09:20:00")]
        assert sim.registry.marker() == [("0", 0)]   # taken at 09:20 straight after a run: no marker read
        sim.run(until=T9 + 60 * MIN)
        assert [hms(f.finished) for f in sim.trace] == ["09:20:00", "09:40:00"]
        assert sim.registry.marker() == []           # read off by the worker that parked at 09:40


def test_a_marker_that_holds_the_next_run_makes_the_parked_worker_wait_for_it(store):
    """The fire script as it was before: ZADD marker <registry head> "1". A worker parked on
    it pops "1" at the next run and sleeps until then, so each job waits a whole period."""
    src = store.scripts.source("fire")
    old = src.replace("if made then markReady(KEYS[3]) end",
                      "if head[2] then redis.call('ZADD', KEYS[3], head[2], '1') end")
    assert old != src
    store.scripts.replace("fire", old)
    tr = run(store, Schedule("r", Every("15m")), fires=3, pump=Pump(mode="atomic"))
    assert released(tr) == ["09:00:00", "09:15:00", "09:30:00"]
    assert [hms(f.started) for f in tr] == ["09:15:00", "09:30:00", "09:45:00"]


def test_a_marker_nobody_writes_leaves_the_job_waiting_until_the_next_write(store):
    src = store.scripts.source("fire")
    store.scripts.replace("fire", src.replace(   # only the releases on the half hour write it
        "if made then markReady(KEYS[3]) end", "if made and tonumber(now) % 1800000 == 0 then markReady(KEYS[3]) end"))
    with PumpDesign(Schedule("r", Every("15m")), start=T9, store=store, pump=Pump(mode="atomic")) as sim:
        tr = sim.run(until=T9 + 50 * MIN)
        assert released(tr) == ["09:00:00", "09:15:00", "09:30:00", "09:45:00"]
        assert [hms(f.started) for f in list(tr)[:3]] == ["09:00:00", "09:30:00", "09:30:00"]
        assert [sim.registry.job(f.job_id)["state"] for f in tr] == ["done", "done", "done", "pending"]


# -- the pump's beat: a fixed grid, or EchoMQ's re-arm after each sweep -------------------------

@pytest.mark.parametrize("beat, expected", [
    ("grid", [200, 2200, 3200, 5200, 6200]),     # beats 0, 2000, 3000, 5000, 6000
    ("rearm", [200, 2400, 3600, 4800, 7000]),    # each beat a tick after the last sweep ended
])
def test_beat_instants_with_a_200_ms_sweep(store, beat, expected):
    from emqsim.engine.reference import reference

    sched, pump = Schedule("r", Every(1500)), Pump(tick=1000, latency=200, beat=beat)
    tr = run(store, sched, fires=5, pump=pump)
    assert [f.released - T9 for f in tr] == expected
    assert (reference(sched, start=T9, fires=5, pump=pump).released - T9).tolist() == expected


def test_rearm_with_a_free_sweep_is_the_grid(store):
    sched = Schedule("r", Every(1500), rule="release")
    a = run(store, sched, fires=6, pump=Pump(tick=1000, beat="rearm"))
    b = run(make_store("fakeredis"), sched, fires=6, pump=Pump(tick=1000))
    assert [f.released - T9 for f in a] == [f.released - T9 for f in b] == [0, 2000, 4000, 6000, 8000, 10000]


def test_pump_rearm_and_a_bad_beat():
    assert Pump(tick=1000, beat="rearm").rearm(0, 1234) == 2234
    assert Pump(tick=1000).rearm(0, 1234) == 0
    with pytest.raises(ValueError, match="beat 'fixed' is not one of grid, rearm"):
        Pump(beat="fixed")


# -- trace tables carry a date when the trace spans days ----------------------------------------

def test_table_has_a_date_column_when_the_runs_span_days():
    tr = run(make_store("fakeredis"), Schedule("reports", Cron("0 9 * * *")), fires=3)
    lines = tr.table().splitlines()
    assert lines[0].split() == ["n", "date", "slot", "released", "started", "finished", "job_id"]
    assert [ln.split()[:3] for ln in lines[2:5]] == [["1", "2026-11-30", "09:00:00"], ["2", "2026-12-01", "09:00:00"],
                                                     ["3", "2026-12-02", "09:00:00"]]
    tr = run(make_store("fakeredis"), Schedule("r", Every("1h")), fires=3, start=at("2026-11-30 22:00"),
             worker=Worker(run="90m"))
    assert [ln.split()[1:6] for ln in tr.table().splitlines()[2:5]] == [
        ["2026-11-30", "22:00:00", "22:00:00", "22:00:00", "23:30:00"],
        ["2026-11-30", "23:00:00", "23:00:00", "23:30:00", "01:00:00+1d"],
        ["2026-12-01", "00:00:00", "00:00:00", "01:00:00", "02:30:00"]]
    tr = run(make_store("fakeredis"), Schedule("r", Every("15m")), fires=2)
    assert tr.table().splitlines()[0].split()[1] == "slot"   # one day: no date column



def test_the_bullmq_design_takes_no_pump():
    from emqsim.engine.chain import Chain
    from emqsim.engine.sim import simulate

    s = Schedule("r", Every("15m"))
    bare = simulate(s, start=T9, fires=3, design="bullmq")
    assert [f.slot for f in bare] == [T9, T9 + 900_000, T9 + 1_800_000]
    for pump in (Pump(tick=0, latency="1m"), "x"):  # an argument the design would ignore is refused
        with pytest.raises(InputError, match="does not apply to design 'bullmq', which has no pump"):
            simulate(s, start=T9, fires=3, design="bullmq", pump=pump)
    with pytest.raises(TypeError, match="pump"):
        Chain(s, start=T9, pump=Pump())


# -- a registry another client changes mid-run (issue 15 §2) ------------------------------------

def _meddling(store, at_fire: int, meddle: str):
    """A progress callback that, at fire `at_fire`, does to the store what another client would:
    delete the registry, delete the row's record, or move the row."""
    c, k = store.client, store.keys

    def progress(n, t):
        if n == at_fire:
            {"registry": lambda: c.delete(k.repeat), "record": lambda: c.delete(k.record("r")),
             "row": lambda: c.zadd(k.repeat, {"r": T9 + 10**9})}[meddle]()
    return progress


@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("design", ["pump", "bullmq"])
@pytest.mark.parametrize("meddle", ["registry", "record", "row"])
def test_a_registry_changed_under_the_run_is_an_error_not_a_short_run(design, forward, meddle, monkeypatch):
    """Another client deletes the registry (or the record, or moves the row) at fire 50 of 1,000:
    the run stops with RegistryChanged naming the key (it used to end quietly with 50 fires or
    so, as if the schedule had stopped), on the event path and the fast-forward alike."""
    from emqsim.engine.registry import RegistryChanged
    from emqsim.engine.sim import simulate

    monkeypatch.setattr(pump_fast, "enabled", forward)
    monkeypatch.setattr(bullmq_fast, "enabled", forward)
    store = make_store("fakeredis")
    with pytest.raises(RegistryChanged) as err:
        simulate(Schedule("r", Every("15m")), start=T9, fires=1000, design=design, store=store,
                 progress=_meddling(store, 50, meddle))
    assert err.value.status == 13
    assert str(err.value).startswith("the registry emq:{demo}:repeat changed under the run (another client "
                                     "deleted or rewrote it): ")
    assert "\n" not in str(err.value)
    store.close()


@pytest.mark.parametrize("when", ["written", "read"])
@pytest.mark.parametrize("forward", [True, False])
@pytest.mark.parametrize("design", ["pump", "bullmq"])
def test_a_registry_deleted_right_after_the_run_writes_its_row_is_an_error(design, forward, when, monkeypatch):
    """Another client deletes the registry between the run's first write of the row and its
    first read of it (a real server's deleter did, in one run of test_server_faults): the run
    stops with RegistryChanged, as later in the run. The bullmq design used to fail with a
    TypeError (a row's next run read as None) on its way to exit 1."""
    from emqsim.engine.chain import BullMQ
    from emqsim.engine.registry import Registry, RegistryChanged
    from emqsim.engine.sim import simulate

    monkeypatch.setattr(pump_fast, "enabled", forward)
    monkeypatch.setattr(bullmq_fast, "enabled", forward)
    store = make_store("fakeredis")

    def then_deleted(write):
        def wrapped(self, *args, **kwargs):
            out = write(self, *args, **kwargs)
            store.client.delete(store.keys.repeat)
            return out
        return wrapped

    if when == "written":
        monkeypatch.setattr(BullMQ, "upsert", then_deleted(BullMQ.upsert))
        monkeypatch.setattr(Registry, "register", then_deleted(Registry.register))
    else:   # after the run read the row back, before it counted the registry
        monkeypatch.setattr(Registry, "score", then_deleted(Registry.score))
    with pytest.raises(RegistryChanged) as err:
        simulate(Schedule("r", Every("15m")), start=T9, fires=1000, design=design, store=store)
    assert err.value.status == 13
    gone = {"written": "the row 'r' is gone right after", "read": "a row it"}[when]
    assert str(err.value).startswith("the registry emq:{demo}:repeat changed under the run (another client "
                                     f"deleted or rewrote it): {gone}")
    store.close()


@pytest.mark.parametrize("forward", [True, False])
def test_a_chain_whose_cron_parser_gives_up_at_its_upsert_makes_nothing_and_says_nothing_changed(forward, monkeypatch):
    """bullmq 6.7.0's upsertJobScheduler makes a job only `if (nextMillis || every)`, and its
    defaultRepeatStrategy returns nothing where cron-parser throws (dist/cjs/classes/
    job-scheduler.js): no job, and emqsim's upsert writes nothing (test_cron_syntax);
    the run then has nothing of that scheduler to take, and nobody else changed the registry.
    It used to read that as RegistryChanged (one scheduler) or fail with a TypeError (two)."""
    from emqsim import Cron
    from emqsim.engine.chain import Chain

    monkeypatch.setattr(bullmq_fast, "enabled", forward)
    lh = Schedule("reports", Cron("0 9 * * *", "Australia/Lord_Howe"))
    start = at("2026-04-04 01:00")
    with Chain([lh], start=start) as chain:
        alone = chain.run(fires=3)
    assert (alone.count, alone.next, alone.registry_size) == (0, float("inf"), 0)
    with Chain([lh, Schedule("sync", Every("15m"))], start=start) as chain:
        both = chain.run(fires=3)
    assert [f.name for f in both.fires] == ["sync"] * 3 and both.registry_size == 1
    assert [f.slot for f in both.fires] == [start + 15 * 60_000 * i for i in range(3)]
