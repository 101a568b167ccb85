"""Lesson 02 as a model: one engine run walked as far as the slider goes, its states kept, the
live registry read from Redis, and the re-registration demo."""

from __future__ import annotations

import numpy as np
import pytest

from emqsim import Store, at, minted_at
from emqsim.engine.errors import InputError
from emqsim.lessons import one_row_rewritten as rr
from emqsim.lessons.one_row_rewritten import RegistryRowsModel

START = at("2026-11-30 09:00")
EVERY = 900_000


@pytest.fixture(scope="module")
def model():
    """The course's model walked to 100 fires (of every 15 min from 09:00 UTC, default Pump)."""
    m = RegistryRowsModel()
    m.walk(100)
    yield m
    m.close()


# -- the slider ---------------------------------------------------------------------------------


def test_fire_positions():
    values = rr.fire_positions()
    assert values[:31] == tuple(range(31))  # every fire at first
    assert values[-1] == rr.FIRES == 10_000
    assert {0, 1, 4, 100, 1000, 10_000} <= set(values)
    assert len(values) == 155 <= 250
    steps = np.diff(values)
    assert (steps > 0).all() and (np.diff(steps) >= 0).all()  # the stride only grows
    assert tuple(sorted(set(steps.tolist()))) == (1, 2, 5, 10, 25, 50, 100, 250)
    assert rr.fire_positions(100)[-6:] == (75, 80, 85, 90, 95, 100)
    assert rr.fire_positions(3) == (0, 1, 2, 3)
    assert rr.fire_positions(37)[-3:] == (34, 36, 37)  # the top itself is a position


def test_the_slider_control():
    m = RegistryRowsModel()
    (fires,) = m.controls
    assert (fires.name, fires.kind, fires.label, fires.main, fires.default) == ("fires", "slider", "fires elapsed",
                                                                              True, 0)
    assert [v for _, v in fires.positions] == list(rr.fire_positions())
    assert fires.positions[-1] == ("10,000", 10_000) and fires.positions[1] == ("1", 1)
    assert (fires.play.step, fires.play.max_step, fires.play.label) == (1, 10, "positions per step")
    assert m.readout_id == "registry-rows-readout"
    combos, held = m.reachable()
    assert held == [] and [c["fires"] for c in combos] == list(rr.fire_positions())


# -- laziness -------------------------------------------------------------------------------------


def test_building_runs_nothing_and_a_frame_runs_only_as_far_as_it_needs():
    m = RegistryRowsModel()
    assert m._sim is None and m.reached == -1  # not even registered
    f = m.frame()
    assert m.reached == 0 and m._sim.trace.count == 0 and f.fires == 0
    m.frame(fires=4)
    assert m.reached == 4 and m._sim.trace.count == 4
    m.frame(fires=1)  # going back reads a kept state: nothing runs
    assert m.reached == 4 and m._sim.trace.count == 4
    m.frame(fires=10)
    assert m.reached == 10 and m._sim.trace.count == 10
    assert m.state(7).fires == 7 and m.reached == 10  # any count, not only the slider's
    m.close()


def test_a_walk_in_steps_is_the_same_run_as_one_go():
    """The states kept while the slider moves are those one uninterrupted run records."""
    m = RegistryRowsModel()
    for k in (1, 4, 30, 60, 100):
        m.walk(k)
    with rr.reports(retain=100) as sim:
        trace = sim.run(fires=100)
        cols = trace.arrays()
        assert m._job_ids[1:] == trace.column("job_id")
        assert m._scores[1:] == cols["next"].tolist()
        assert m._sizes[1:] == cols["size"].tolist()
        assert m._jobs[1:] == cols["n"].tolist()
    m.close()


# -- the states ----------------------------------------------------------------------------------


def test_registration_state_at_zero_fires(model):
    f = model.frame(fires=0)
    assert f.readout == "after 0 fires · ZCARD 1 · jobs 0 · row reports -> 09:00 on 2026-11-30 · no job yet"
    st = model.state(0)
    assert (st.size, st.jobs, st.score, st.job_id, st.minted) == (1, 0, START, None, None)
    assert f.box == "cursor at 0 fires: row reports -> 09:00 on 2026-11-30\nlatest job none yet"
    assert (f.x.tolist(), f.jobs.tolist(), f.sizes.tolist()) == ([0], [0], [1])


def test_four_fires(model):
    f = model.frame(fires=4)
    assert f.readout == ("after 4 fires · ZCARD 1 · jobs 4 · row reports -> 10:00 on 2026-11-30 · "
                         "last job JOB0SUdY9CNxTc minted 09:45:00 on 2026-11-30")
    st = model.state(4)
    assert st == f.state and st.score == START + 4 * EVERY
    assert minted_at(st.job_id) == at("2026-11-30 09:45") == st.minted
    assert f.box == "cursor at 4 fires: row reports -> 10:00 on 2026-11-30\nlatest job JOB0SUdY9CNxTc (09:45:00)"
    assert (f.x.tolist(), f.jobs.tolist(), f.sizes.tolist()) == ([0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [1] * 5)
    assert (f.top, f.title) == (10_000, "One row, rewritten each fire (reports, every 15 min)")


def test_first_fire_gets_the_first_id(model):
    assert model.frame(fires=1).readout == ("after 1 fire · ZCARD 1 · jobs 1 · row reports -> 09:15 on 2026-11-30 · "
                                            "last job JOB0SUaKlrtAo4 minted 09:00:00 on 2026-11-30")


def test_hundred_fires_score_is_exact(model):
    assert model.frame(fires=100).readout.startswith(
        "after 100 fires · ZCARD 1 · jobs 100 · row reports -> 10:00 on 2026-12-01")
    assert model.state(100).score == START + 100 * EVERY == at("2026-12-01 10:00")
    assert model.state(100).minted == at("2026-12-01 09:45")


def test_every_fire_leaves_one_row_and_one_more_job(model):
    states = [model.state(k) for k in range(101)]
    assert [s.size for s in states] == [1] * 101
    assert [s.jobs for s in states] == list(range(101))
    assert [s.score for s in states] == [START + k * EVERY for k in range(101)]
    ids = [s.job_id for s in states[1:]]
    assert len(set(ids)) == 100  # a fresh id per occurrence
    assert [minted_at(j) for j in ids] == [START + k * EVERY for k in range(100)]


def test_frames_along_the_slider(model):
    for k in (v for v in rr.fire_positions() if v <= 100):
        f = model.frame(fires=k)
        assert f.readout.startswith(f"after {k} fire")
        assert len(f.x) == len(f.jobs) == len(f.sizes) == k + 1


def test_live_registry_after_the_run(model):
    model.walk(100)
    assert model.summary() == ("after 100 fires the registry holds ZCARD 1: reports -> 10:00 on 2026-12-01\n"
                               "its record: every_ms 900000, fired 100 (the simulator's count of fires made)")
    assert model.summary(100) == model.summary()
    with pytest.raises(InputError, match="the run is already at 100 fires and Redis holds only its latest state"):
        model.summary(50)


def test_summary_walks_to_the_count_asked():
    m = RegistryRowsModel()
    assert m.summary(4) == ("after 4 fires the registry holds ZCARD 1: reports -> 10:00 on 2026-11-30\n"
                            "its record: every_ms 900000, fired 4 (the simulator's count of fires made)")
    m.close()


@pytest.mark.parametrize("bad", [-1, 10_001, 2.5, True, "4"])
def test_state_out_of_range(model, bad):
    with pytest.raises(InputError, match=r"out of range; use a whole number 0\.\.10000"):
        model.state(bad)


@pytest.mark.parametrize("bad", [-1, 31, 10_001, 2.5, True, "4"])
def test_frame_off_the_slider_is_refused_and_runs_nothing(model, bad):
    reached = model.reached
    with pytest.raises(InputError, match=r"^fires elapsed .* is refused; give one of the 155 positions"):
        model.frame(fires=bad)
    assert model.reached == reached


def test_bad_construction():
    with pytest.raises(InputError, match="top 0 must be a whole number of fires, 1 or more"):
        RegistryRowsModel(top=0)
    with pytest.raises(ValueError, match="Mars"):
        RegistryRowsModel(tz="Mars/Olympus")
    m = RegistryRowsModel(top=10, tz="Europe/Paris")
    assert m.frame(fires=4).readout.endswith("last job JOB0SUdY9CNxTc minted 10:45:00 on 2026-11-30")
    m.close()


def test_the_notebooks_run_keeps_one_row(reports_walk):
    """The notebook's run (rr.FIRES fires): ZCARD 1 and the exact final score, read from Redis
    (the walk is shared: conftest's reports_walk)."""
    m = reports_walk
    n = rr.FIRES
    text = m.frame(fires=n).readout
    assert text.startswith("after 10000 fires · ZCARD 1 · jobs 10000 · row reports -> 13:00 on 2027-03-14 · ")
    assert text.endswith(" minted 12:45:00 on 2027-03-14")
    assert minted_at(m.state(n).job_id) == at("2027-03-14 12:45")
    assert m.state(n).score == START + n * EVERY == at("2027-03-14 13:00")
    assert m.summary() == ("after 10000 fires the registry holds ZCARD 1: reports -> 13:00 on 2027-03-14\n"
                           "its record: every_ms 900000, fired 10000 (the simulator's count of fires made)")
    assert rr.job_id_anatomy(m.state(k).job_id for k in (1, 4, n)).splitlines() == [
        "JOB0SUaKlrtAo4  14 bytes  JOB    385716584448000000  minted 2026-11-30T09:00:00Z  worker 0  seq 0",
        "JOB0SUdY9CNxTc  14 bytes  JOB    385727909068800000  minted 2026-11-30T09:45:00Z  worker 0  seq 0",
        "JOB0VHSPyipaMq  14 bytes  JOB    423461545574400000  minted 2027-03-14T12:45:00Z  worker 0  seq 0",
    ]


def test_job_id_anatomy(model):
    assert rr.job_id_anatomy([model.state(1).job_id, model.state(4).job_id]).splitlines() == [
        "JOB0SUaKlrtAo4  14 bytes  JOB    385716584448000000  minted 2026-11-30T09:00:00Z  worker 0  seq 0",
        "JOB0SUdY9CNxTc  14 bytes  JOB    385727909068800000  minted 2026-11-30T09:45:00Z  worker 0  seq 0",
    ]


# -- registering the same name again ----------------------------------------------------------


def test_reregister_demo():
    with Store() as store:
        steps = rr.reregister_demo(store, START)
    assert [(s.call, s.answer, s.size) for s in steps] == [
        ("register every 15 min", "registered", 1),
        ("after 4 fires", "-", 1),
        ("register every 5 min", "exists", 1),
        ("upsert every 5 min", "rewritten", 1),
        ("upsert every 5 min", "kept", 1),
    ]
    ten, nine_fifty = at("2026-11-30 10:00"), at("2026-11-30 09:50")
    assert [s.rows for s in steps] == [[("reports", START)], [("reports", ten)], [("reports", ten)],
                                       [("reports", nine_fifty)], [("reports", nine_fifty)]]
    # "exists": nothing changed, the record still says every 15 min
    assert steps[2].record == steps[1].record
    assert steps[2].record["every_ms"] == "900000"
    # "rewritten": a changed cadence is a first run, so the score is reset; the simulator's
    # fire counter is carried over (`fired`; BullMQ carries its `ic`, which counts jobs made: bullmq_demo)
    assert steps[3].record["every_ms"] == "300000" and steps[3].record["fired"] == "4"
    assert steps[4].record == steps[3].record
    assert [s.at for s in steps] == [START, at("2026-11-30 09:45"), nine_fifty, nine_fifty, nine_fifty]


def test_steps_table_and_records_table():
    with Store() as store:
        steps = rr.reregister_demo(store, START)
    assert rr.steps_table(steps).splitlines() == [
        "time      call                    answer      ZCARD  row (member -> score)           every_ms  fired",
        "----------------------------------------------------------------------------------------------------",
        "09:00:00  register every 15 min   registered      1  reports -> 09:00 on 2026-11-30    900000  -",
        "09:45:00  after 4 fires           -               1  reports -> 10:00 on 2026-11-30    900000  4",
        "09:50:00  register every 5 min    exists          1  reports -> 10:00 on 2026-11-30    900000  4",
        "09:50:00  upsert every 5 min      rewritten       1  reports -> 09:50 on 2026-11-30    300000  4",
        "09:50:00  upsert every 5 min      kept            1  reports -> 09:50 on 2026-11-30    300000  4",
    ]
    assert rr.records_table(steps[1:]).splitlines() == [
        "after 4 fires          -          cadence=every:900000:0, every_ms=900000, fired=4, offset=0, rule=schedule",
        "register every 5 min   exists     cadence=every:900000:0, every_ms=900000, fired=4, offset=0, rule=schedule",
        "upsert every 5 min     rewritten  cadence=every:300000:0, every_ms=300000, fired=4, offset=0, rule=schedule",
        "upsert every 5 min     kept       cadence=every:300000:0, every_ms=300000, fired=4, offset=0, rule=schedule",
    ]


def test_bullmq_demo_counts_ic_as_bullmq_does():
    """BullMQ's ic (bullmq 6.7.0, dist/cjs/commands/includes/storeJobScheduler.lua sets 1 on a new
    scheduler, updateJobScheduler-12.lua adds 1 for each job it makes) counts the jobs made, the
    waiting next one included: 5 after 4 pickups, carried over by an upsert. The engine's BullMQ
    design is held to the live library by tests/test_oracle_bullmq.py."""
    with Store() as store:
        steps = rr.bullmq_demo(store, START)
    assert [(s.call, s.answer, s.record.get("ic")) for s in steps] == [
        ("upsert every 15 min", "created", "1"),
        ("after 4 pickups", "-", "5"),
        ("upsert every 5 min", "rewritten", "5"),
        ("upsert every 5 min", "kept", "5"),
    ]
    assert rr.steps_table(steps, count="ic").splitlines() == [
        "time      call                    answer      ZCARD  row (member -> score)           every_ms  ic",
        "-------------------------------------------------------------------------------------------------",
        "09:00:00  upsert every 15 min     created         1  reports -> 09:00 on 2026-11-30    900000  1",
        "09:45:00  after 4 pickups         -               1  reports -> 10:00 on 2026-11-30    900000  5",
        "09:50:00  upsert every 5 min      rewritten       1  reports -> 09:50 on 2026-11-30    300000  5",
        "09:50:00  upsert every 5 min      kept            1  reports -> 09:50 on 2026-11-30    300000  5",
    ]


@pytest.mark.parametrize("kw, match", [({"fires": 0}, "fires 0 must be"), ({"later": 0}, "later")])
def test_bullmq_demo_bad_input(kw, match):
    with Store() as store, pytest.raises(ValueError, match=match):
        rr.bullmq_demo(store, START, **kw)


@pytest.mark.parametrize("kw, match", [({"fires": 0}, "fires 0 must be"), ({"later": 0}, "later")])
def test_reregister_demo_bad_input(kw, match):
    with Store() as store, pytest.raises(ValueError, match=match):
        rr.reregister_demo(store, START, **kw)
