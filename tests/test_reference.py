"""The reference model on its own: exact traces for the course's claims, and the steps it
writes out as arithmetic held to the engine's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.ids import minted_at
from emqsim.engine.pump import Pump
from backends import make_store
from emqsim.engine.faults import Faults
from emqsim.engine.reference import RefTrace, engine_fires, reference
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.timefmt import at, hm, hms
from emqsim.engine.worker import Worker

T9 = at("2026-11-30 09:00")
MIN = 60_000


def rel(tr: RefTrace, t0: int = T9) -> list[int]:
    return [int(x) - t0 for x in tr.released.tolist()]


@pytest.mark.parametrize("rule, expected, nxt", [
    ("schedule", ["09:00:00", "09:15:00", "09:30:00", "09:45:00"], "10:00:00"),
    ("finish", ["09:00:00", "09:19:00", "09:38:00", "09:57:00"], "10:16:00"),
])
def test_every_15_min_with_4_min_runs(rule, expected, nxt):
    tr = reference(Schedule("reports", Every("15m"), rule=rule), start=T9, fires=4, worker=Worker(run="4m"))
    assert [hms(x) for x in tr.released.tolist()] == expected
    assert [hms(x) for x in tr.finished.tolist()] == [hms(x + 4 * MIN) for x in tr.released.tolist()]
    assert tr.started.tolist() == tr.released.tolist()
    assert tr.n.tolist() == [1, 2, 3, 4]
    assert (tr.count, len(tr), tr.registry_size, hms(tr.next)) == (4, 4, 1, nxt)


def test_release_rule_drifts_to_the_beat_schedule_rule_keeps_the_gap():
    pump = Pump(tick=1000)
    tr = reference(Schedule("r", Every(1500), rule="release"), start=T9, fires=4, pump=pump)
    assert rel(tr) == [0, 2000, 4000, 6000]
    assert tr.next - T9 == 7500
    tr = reference(Schedule("r", Every(1500), rule="schedule"), start=T9, fires=5, pump=pump)
    assert [int(s) - T9 for s in tr.slot] == [0, 1500, 3000, 4500, 6000]
    assert rel(tr) == [0, 2000, 3000, 5000, 6000]


def test_limit_5_gives_exactly_5_fires_and_parks_the_row():
    tr = reference(Schedule("r", Every(100), limit=5), start=T9, until=T9 + 10_000, pump=Pump(tick=0))
    assert [int(s) - T9 for s in tr.slot] == [0, 100, 200, 300, 400]
    assert (tr.count, tr.next, tr.registry_size) == (5, INF, 1)


def test_end_now_plus_1000_every_100_gives_10_fires():
    tr = reference(Schedule("r", Every(100), end=T9 + 1000), start=T9, until=T9 + 10_000,
                   pump=Pump(tick=0), worker=Worker(run=100))
    assert [int(s) - T9 for s in tr.slot] == list(range(0, 1000, 100))
    assert (tr.count, tr.next) == (10, INF)


OUTAGE = (at("2026-11-30 09:30"), at("2026-11-30 10:10"))


@pytest.mark.parametrize("options, expected, nxt", [
    ({}, ["09:07", "09:22", "10:10", "10:22"], "10:37"),                  # offset snap keeps :07/:22
    ({"missed": "epoch"}, ["09:07", "09:22", "10:10", "10:15"], "10:30"),  # realigned to :00/:15
    ({"rule": "release"}, ["09:07", "09:22", "10:10", "10:25"], "10:40"),  # re-anchored at the restart
])
def test_outage_from_0930_to_1010(options, expected, nxt):
    tr = reference(Schedule("r", Every("15m"), **options), start=at("2026-11-30 09:07"), fires=4,
                   pump=Pump(tick=1000), outage=OUTAGE)
    assert [hm(x) for x in tr.released.tolist()] == expected
    assert [hm(x) for x in tr.slot.tolist()] == ["09:07", "09:22", "09:37", expected[3]]
    assert hm(tr.next) == nxt


def test_a_release_is_dropped_when_its_pump_goes_down_after_the_beat():
    # beat 09:00:00 reads slot 09:00 and would release it at :02; the pump is down from .500 to
    # 09:00:01, so that release is lost; the restarted pump beats at :01 and releases at :03
    sched, pump = Schedule("r", Every("15m")), Pump(latency=2000)
    tr = reference(sched, start=T9, fires=3, pump=pump, outage=(T9 + 500, T9 + 1000))
    assert [int(s) - T9 for s in tr.slot] == [0, 900_000, 1_800_000]
    assert rel(tr) == [3000, 902_000, 1_802_000]
    # down exactly at the release instant: the down comes first, the release is lost too
    tr = reference(sched, start=T9, fires=1, pump=pump, outage=(T9 + 2000, T9 + 2500))
    assert rel(tr) == [4500]
    # down at the beat itself: no beat at all; the restart beats at once
    tr = reference(sched, start=T9, fires=1, pump=pump, outage=(T9, T9 + 700))
    assert rel(tr) == [2700]


def test_a_beat_only_after_the_last_one_when_tick_is_positive():
    # tick 1500, every 1000: slot 3000 comes due exactly at the beat that released slot 2000,
    # so it waits for the next beat (4500); by then 4000 is behind and the offset snap gives 5000.
    tr = reference(Schedule("r", Every(1000)), start=T9, fires=6, pump=Pump(tick=1500))
    assert [int(s) - T9 for s in tr.slot] == [0, 1000, 2000, 3000, 5000, 6000]
    assert rel(tr) == [0, 1500, 3000, 4500, 6000, 7500]
    assert tr.next - T9 == 8000


def test_tick_0_wakes_again_at_the_release_instant():
    # latency 1000 = every: each next slot is due the moment the release is done
    tr = reference(Schedule("r", Every(1000)), start=T9, fires=4, pump=Pump(tick=0, latency=1000))
    assert [int(s) - T9 for s in tr.slot] == [0, 1000, 2000, 3000]
    assert rel(tr) == [1000, 2000, 3000, 4000]


def test_latency_longer_than_every_snaps_over_the_missed_slot():
    tr = reference(Schedule("r", Every(1000)), start=T9, fires=3, pump=Pump(tick=0, latency=1500))
    assert [int(s) - T9 for s in tr.slot] == [0, 2000, 4000]
    assert rel(tr) == [1500, 3500, 5500]
    assert tr.next - T9 == 6000


@pytest.mark.parametrize("worker, started, finished", [
    (Worker(run=2500), [0, 2500, 5000, 7500], [2500, 5000, 7500, 10000]),             # jobs queue
    (Worker(run=2500, concurrency=2), [0, 1000, 2500, 3500], [2500, 3500, 5000, 6000]),
    (Worker(run=300, poll=700), [0, 1400, 2100, 3500], [300, 1700, 2400, 3800]),      # poll grid from 09:00
])
def test_workers(worker, started, finished):
    tr = reference(Schedule("r", Every(1000)), start=T9, fires=4, pump=Pump(tick=0), worker=worker)
    assert rel(tr) == [0, 1000, 2000, 3000]
    assert [int(x) - T9 for x in tr.started] == started
    assert [int(x) - T9 for x in tr.finished.tolist()] == finished


def test_finish_rule_with_until_before_the_run_ends_leaves_the_row_parked():
    s = Schedule("r", Every("15m"), rule="finish")
    tr = reference(s, start=T9, until=T9 + 20 * MIN, worker=Worker(run="4m"))
    assert [hms(x) for x in tr.released.tolist()] == ["09:00:00", "09:19:00"]
    assert tr.next == INF
    tr = reference(s, start=T9, until=T9 + 23 * MIN, worker=Worker(run="4m"))
    assert hms(tr.next) == "09:38:00"


def test_a_cron_takes_the_engines_next_run():
    tr = reference(Schedule("r", Cron("0 9 * * *")), start=at("2026-11-30 08:48"), fires=2)
    assert tr.slot.tolist() == [T9, at("2026-12-01 09:00")]
    assert tr.next == at("2026-12-02 09:00")


def test_job_ids():
    s = Schedule("r", Every("15m"))
    tr = reference(s, start=T9, fires=3)
    assert [minted_at(j) for j in tr.job_ids] == tr.released.tolist()
    assert tr.to_fires()[0] == (1, T9, T9, T9, T9, tr.job_ids[0], False)
    tr = reference(s, start=T9, fires=2, pump=Pump(ids="slot"))
    assert tr.job_ids == [f"repeat:r:{T9}", f"repeat:r:{T9 + 15 * MIN}"]
    tr = reference(s, start=T9, fires=2, pump=Pump(ids="slot"), ids="fresh")
    assert [minted_at(j) for j in tr.job_ids] == [T9, T9 + 15 * MIN]
    tr = reference(s, start=T9, fires=2, ids=None)
    assert tr.job_ids is None
    assert [f[5] for f in tr.to_fires()] == [None, None]


def test_keep_false_keeps_only_the_aggregates():
    s = Schedule("r", Every("15m"))
    full = reference(s, start=T9, fires=1000)
    agg = reference(s, start=T9, fires=1000, keep=False)
    assert (agg.count, agg.last_slot, agg.next) == (1000, int(full.slot[-1]), full.next)
    assert (len(agg), agg.job_ids) == (0, None)
    assert full.last_slot == T9 + 999 * 15 * MIN and full.next == T9 + 1000 * 15 * MIN


def test_a_million_fires_in_int64_columns():
    tr = reference(Schedule("r", Every("15m")), start=T9, fires=1_000_000, worker=Worker(run="4m"), ids=None)
    assert tr.count == len(tr) == 1_000_000
    cols = tr.arrays()
    assert all(cols[k].dtype == np.int64 for k in ("n", "slot", "released", "started", "finished"))
    assert cols["cancelled"].dtype == bool and not cols["cancelled"].any()
    assert int(tr.slot[-1]) == T9 + 999_999 * 15 * MIN
    assert np.array_equal(tr.finished - tr.started, np.full(1_000_000, 4 * MIN))


@pytest.mark.parametrize("kwargs, match", [
    ({}, "fires=N or until"),
    ({"fires": -1}, "fires -1"),
    ({"fires": 2, "ids": "uuid"}, "ids 'uuid'"),
    ({"fires": 2, "outage": (T9 - 1, T9 + 5)}, f"outage begins at {T9 - 1}"),
    ({"fires": 2, "outage": (T9 + 5, T9 + 1)}, "outage ends"),
    ({"fires": 2, "until": "10:00"}, "until '10:00'"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        reference(Schedule("r", Every("15m")), start=T9, **kwargs)


# -- the steps written out as arithmetic (a grid with no jitter, equal runs, an interval's next
# score, limit and end) equal the engine's --------------------------------------------------

@st.composite
def arithmetic_cases(draw):
    ms = draw(st.integers(100, 20_000))
    offset = draw(st.none() | st.integers(0, ms - 1))
    start = T9 + draw(st.integers(0, 60_000))
    period = ms
    rule = draw(st.sampled_from(["schedule", "release", "finish"]))
    sched = Schedule(
        "r", Every(ms, offset), rule=rule,
        missed=draw(st.sampled_from(["snap", "snap-v5", "epoch"] + (["all"] if rule == "schedule" else []))),
        limit=draw(st.sampled_from([0, 0, 1, 7, 50])),
        end=draw(st.none() | st.integers(start + 1, start + period * 80)),
    )
    tick = draw(st.sampled_from([0, 0]) | st.integers(100, 5000))
    pump = Pump(tick=tick, latency=draw(st.sampled_from([0]) | st.integers(0, 3000)),
                beat=draw(st.sampled_from(["grid", "rearm"])))
    worker = Worker(run=draw(st.integers(0, 30_000)), concurrency=draw(st.integers(1, 3)),
                    poll=draw(st.sampled_from([0]) | st.integers(100, 5000)))
    outage = None
    if draw(st.booleans()):
        down = start + draw(st.integers(0, period * 40))
        outage = (down, down + draw(st.integers(0, period * 10)))
    stop = draw(st.sampled_from(["fires", "until", "both"]))
    fires = draw(st.integers(0, 300)) if stop != "until" else None
    until = start + draw(st.integers(0, period * 200)) if stop != "fires" else None
    return sched, start, fires, until, pump, worker, outage


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(arithmetic_cases(), st.sampled_from(["fresh", "slot"]), st.booleans())
def test_the_steps_written_out_equal_the_engine(case, ids, keep):
    """Every snap, rule, limit, end, beat and crew the model writes out as arithmetic, against
    the Lua engine on the same run (tests/test_engine_vs_reference.py draws the other steps
    too); `keep=False` keeps the same aggregates."""
    sched, start, fires, until, pump, worker, outage = case
    pump = Pump(tick=pump.tick, latency=pump.latency, beat=pump.beat, ids=ids)
    store = make_store("fakeredis")
    try:
        with PumpDesign(sched, start=start, pump=pump, worker=worker, faults=Faults(outage=outage),
                        store=store) as sim:
            tr = sim.run(fires=fires, until=until)
    finally:
        store.close()
    ref = reference(sched, start=start, fires=fires, until=until, pump=pump, worker=worker, outage=outage,
                    keep=keep)
    assert (ref.count, ref.last_slot, ref.next) == (tr.count, tr.fires[-1].slot if tr.count else None, tr.next)
    if keep:
        assert ref.to_fires() == engine_fires(tr)


# -- the per-schedule policies (tests/test_policies.py holds the engine to the same traces) -----

@pytest.mark.parametrize("options, released, slots, skipped", [
    ({"missed": "all"}, ["09:07:00", "09:22:00", "10:10:00", "10:10:01", "10:10:02", "10:22:00", "10:37:00"],
     ["09:07", "09:22", "09:37", "09:52", "10:07", "10:22", "10:37"], []),
    ({"missed": "once"}, ["09:07:00", "09:22:00", "10:10:00", "10:22:00", "10:37:00"],
     ["09:07", "09:22", "10:07", "10:22", "10:37"], []),
    ({"missed": "skip", "deadline": "5m"}, ["09:07:00", "09:22:00", "10:22:00", "10:37:00"],
     ["09:07", "09:22", "10:22", "10:37"], [("09:37", "10:10:00", "deadline")]),
    ({"missed": "once", "deadline": "5m"}, ["09:07:00", "09:22:00", "10:10:00", "10:22:00", "10:37:00"],
     ["09:07", "09:22", "10:07", "10:22", "10:37"], []),
    ({"missed": "once", "deadline": "1s"}, ["09:07:00", "09:22:00", "10:22:00", "10:37:00"],
     ["09:07", "09:22", "10:22", "10:37"], [("10:07", "10:10:00", "deadline")]),   # the latest slot, dropped
    ({"missed": "now"}, ["09:07:00", "09:22:00", "10:10:00", "10:22:00", "10:37:00"],
     ["09:07", "09:22", "10:10", "10:22", "10:37"], []),
])
def test_missed_policies_after_the_outage(options, released, slots, skipped):
    tr = reference(Schedule("r", Every("15m"), **options), start=at("2026-11-30 09:07"),
                   until=at("2026-11-30 10:40"), outage=OUTAGE)
    assert [hms(x) for x in tr.released.tolist()] == released
    assert [hm(x) for x in tr.slot.tolist()] == slots
    assert [(hm(s), hms(a), w) for s, a, w in tr.skips] == skipped
    assert (tr.skipped, hms(tr.next)) == (len(skipped), "10:52:00")


@pytest.mark.parametrize("overlap, started, finished, cancelled", [
    ("skip", ["09:00", "09:30", "10:00"], ["09:20", "09:50", "10:20"], [False] * 3),
    ("buffer-one", ["09:00", "09:20", "09:40", "10:00", "10:20"], ["09:20", "09:40", "10:00", "10:20", "10:40"],
     [False] * 5),
    ("replace", ["09:00", "09:15", "09:30", "09:45", "10:00"], ["09:15", "09:30", "09:45", "10:00", "10:20"],
     [True] * 4 + [False]),
])
def test_overlap_policies_with_20_min_runs(overlap, started, finished, cancelled):
    tr = reference(Schedule("r", Every("15m"), overlap=overlap), start=T9, until=at("2026-11-30 10:00"),
                   worker=Worker(run="20m", concurrency=2))
    assert [hm(x) for x in tr.started.tolist()] == started
    assert [hm(x) for x in tr.finished.tolist()] == finished
    assert tr.cancelled.tolist() == cancelled


# -- one record shape for both models -------------------------------------------------------------

def test_engine_and_reference_report_fires_and_skips_as_the_same_records():
    from dataclasses import fields

    from emqsim.engine.reference import engine_fires, engine_skips
    from emqsim.engine.sim import simulate
    from emqsim.engine.trace import Fire, FireRecord, SkipRecord, Trace

    assert Trace.FIELDS == RefTrace.FIELDS == FireRecord._fields
    assert set(FireRecord._fields) <= {f.name for f in fields(Fire)}   # a Fire holds every record field
    from emqsim.engine.faults import Faults

    s = Schedule("r", Every("15m"), missed="skip", deadline="5m")
    outage = (T9 + 10 * MIN, T9 + 40 * MIN)   # the 09:15 slot is released at 09:40: past its deadline
    tr = simulate(s, start=T9, fires=3, faults=Faults(outage=outage))
    ref = reference(s, start=T9, fires=3, outage=outage)
    assert tr.skipped == ref.skipped == 1
    fires, skips = engine_fires(tr), engine_skips(tr)
    assert all(type(x) is FireRecord for x in fires + ref.to_fires())
    assert all(type(x) is SkipRecord for x in skips + ref.skips)
    assert fires == ref.to_fires() and skips == ref.skips == [SkipRecord(T9 + 15 * MIN, T9 + 40 * MIN, "deadline")]
    assert [r._asdict() for r in fires] == tr.to_dict()["fires"]
