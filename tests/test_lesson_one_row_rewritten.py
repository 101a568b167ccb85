"""Lesson 02 as a model: one engine run walked as far as the slider goes, its states kept, the
live registry read from Redis, and the re-registration demo; the facts each text states."""

from __future__ import annotations

import numpy as np
import pytest

from emqsim import Store, at, minted_at
from emqsim.engine.timefmt import hms, iso
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
    st = model.state(0)
    assert st == f.state
    assert (st.fires, st.size, st.jobs, st.name, st.score, st.job_id, st.minted) == (0, 1, 0, "reports", START, None,
                                                                                    None)
    assert (f.x.tolist(), f.jobs.tolist(), f.sizes.tolist()) == ([0], [0], [1])


def test_four_fires(model):
    f = model.frame(fires=4)
    st = model.state(4)
    assert st == f.state and (st.fires, st.size, st.jobs, st.score) == (4, 1, 4, START + 4 * EVERY)
    assert st.job_id == "JOB0SUdY9CNxTc"
    assert minted_at(st.job_id) == at("2026-11-30 09:45") == st.minted
    assert (f.x.tolist(), f.jobs.tolist(), f.sizes.tolist()) == ([0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [1] * 5)
    assert (f.top, f.title) == (10_000, "One row, rewritten each fire (reports, every 15 min)")


def test_first_fire_gets_the_first_id(model):
    st = model.frame(fires=1).state
    assert (st.jobs, st.score, st.job_id, st.minted) == (1, START + EVERY, "JOB0SUaKlrtAo4", START)


@pytest.mark.parametrize("fires", [0, 1, 4, 100])
def test_the_readout_and_the_box_state_the_frames_facts(model, fires):
    """The one test of the readout's and the box's words: each names the fires, the row and its
    score (time and day), and the latest job's id and mint time (or that there is none)."""
    f = model.frame(fires=fires)
    st = f.state
    for text in (f.readout, f.box):
        assert f"{st.fires} fire" in text and f"{st.name} -> {rr.row_score(st.score)}" in text
        assert (st.job_id is None and ("no job yet" in text or "none yet" in text)) or \
            (st.job_id in text and hms(st.minted) in text)
    assert f"ZCARD {st.size}" in f.readout and f"jobs {st.jobs}" in f.readout


def test_hundred_fires_score_is_exact(model):
    assert (model.state(100).size, model.state(100).jobs) == (1, 100)
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
    assert model.live() == {"fires": 100, "size": 1, "rows": (("reports", at("2026-12-01 10:00")),),
                            "every_ms": "900000", "fired": "100"}
    assert model.live(100) == model.live()
    text = model.summary()
    assert "100 fires" in text and "ZCARD 1" in text and "reports -> 10:00 on 2026-12-01" in text
    assert "every_ms 900000" in text and "fired 100" in text
    with pytest.raises(InputError, match="the run is already at 100 fires and Redis holds only its latest state"):
        model.summary(50)


def test_summary_walks_to_the_count_asked():
    m = RegistryRowsModel()
    assert m.live(4) == {"fires": 4, "size": 1, "rows": (("reports", at("2026-11-30 10:00")),),
                         "every_ms": "900000", "fired": "4"}
    assert m.reached == 4
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
    assert m.frame(fires=4).state.job_id == "JOB0SUdY9CNxTc"
    assert "minted 10:45:00 on 2026-11-30" in m.frame(fires=4).readout      # 09:45 UTC, read in Paris
    m.close()


def test_the_notebooks_run_keeps_one_row(reports_walk):
    """The notebook's run (rr.FIRES fires): ZCARD 1 and the exact final score, read from Redis
    (the walk is shared: conftest's reports_walk)."""
    m = reports_walk
    n = rr.FIRES
    st = m.state(n)
    assert (st.size, st.jobs, st.job_id) == (1, n, "JOB0VHSPyipaMq")
    assert minted_at(st.job_id) == at("2027-03-14 12:45") == st.minted
    assert st.score == START + n * EVERY == at("2027-03-14 13:00")
    assert m.live() == {"fires": n, "size": 1, "rows": (("reports", at("2027-03-14 13:00")),),
                        "every_ms": "900000", "fired": str(n)}
    assert rr.id_parts(st.job_id) == {"bytes": 14, "namespace": "JOB", "number": 423461545574400000,
                                      "minted": at("2027-03-14 12:45"), "worker": 0, "seq": 0}


def test_job_id_anatomy(model):
    ids = [model.state(1).job_id, model.state(4).job_id]
    assert [rr.id_parts(j) for j in ids] == [
        {"bytes": 14, "namespace": "JOB", "number": 385716584448000000, "minted": START, "worker": 0, "seq": 0},
        {"bytes": 14, "namespace": "JOB", "number": 385727909068800000, "minted": at("2026-11-30 09:45"),
         "worker": 0, "seq": 0}]
    for line, job_id in zip(rr.job_id_anatomy(ids).splitlines(), ids):
        p = rr.id_parts(job_id)
        assert line.split() == [job_id, str(p["bytes"]), "bytes", p["namespace"], str(p["number"]),
                                "minted", iso(p["minted"]), "worker", str(p["worker"]), "seq", str(p["seq"])]


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


def table_cells(step, count="fired"):
    """What a steps-table row states of a step: time, call, answer, ZCARD, rows, every_ms, count."""
    rows = "; ".join(f"{name} -> {rr.row_score(score)}" for name, score in step.rows)
    return [hms(step.at), step.call, step.answer, str(step.size), rows, step.record.get("every_ms", "-"),
            step.record.get(count, "-")]


def test_steps_table_and_records_table():
    """The tables are written from the steps (their facts: test_reregister_demo): each row carries
    its step's, in the header's order; each record line its hash's fields, the template left out."""
    with Store() as store:
        steps = rr.reregister_demo(store, START)
    table = rr.steps_table(steps).splitlines()
    assert table[0].split()[:3] == ["time", "call", "answer"] and table[0].endswith("every_ms  fired")
    assert len(table) == 2 + len(steps)
    for line, step in zip(table[2:], steps):
        cells = table_cells(step)
        at_ = 0
        for cell in cells:                                   # each fact, in order, on the row
            assert cell in line[at_:], (cell, line)
            at_ = line.index(cell, at_) + len(cell)
    for line, step in zip(rr.records_table(steps[1:]).splitlines(), steps[1:]):
        fields = [f"{k}={v}" for k, v in sorted(step.record.items()) if k != "template"]
        assert line.split()[-len(fields):] == [f + "," for f in fields[:-1]] + fields[-1:]
        assert step.answer in line and "template" not in line


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
    table = rr.steps_table(steps, count="ic").splitlines()
    assert table[0].endswith("every_ms  ic")
    assert [line.split()[-1] for line in table[2:]] == ["1", "5", "5", "5"]


@pytest.mark.parametrize("kw, match", [({"fires": 0}, "fires 0 must be"), ({"later": 0}, "later")])
def test_bullmq_demo_bad_input(kw, match):
    with Store() as store, pytest.raises(ValueError, match=match):
        rr.bullmq_demo(store, START, **kw)


@pytest.mark.parametrize("kw, match", [({"fires": 0}, "fires 0 must be"), ({"later": 0}, "later")])
def test_reregister_demo_bad_input(kw, match):
    with Store() as store, pytest.raises(ValueError, match=match):
        rr.reregister_demo(store, START, **kw)


def test_what_redis_gains_between_two_fires_is_jobs_not_rows():
    """02's first question's key, read off the frames: from fire 50 to fire 100, 50 jobs and no
    row; from a fire to itself, nothing."""
    from emqsim.lessons.one_row_rewritten import RegistryRowsModel, gained

    f = RegistryRowsModel().frame(fires=100)
    assert (gained(f, 50, 100), gained(f, 0, 1), gained(f, 60, 60)) == ("50 jobs", "1 jobs", "no job")
    assert gained(RegistryRowsModel().frame(fires=70), 50, 100) == "20 jobs"    # as far as the frame has got
    assert int(f.sizes[100]) == int(f.sizes[50]) == 1
