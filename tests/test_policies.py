"""The two per-schedule policies, end to end: exact traces from the engine (both pump modes)
and the same traces from the reference model.

`missed`: what a release after an outage does with the slots it missed.
`overlap`: what a release does while an earlier run of the same schedule is going.
"""

from __future__ import annotations

import pytest

from backends import make_store
from emqsim.engine.cadence import Every
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import engine_fires, engine_skips, reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.timefmt import at, hm, hms
from emqsim.engine.trace import STALL
from emqsim.engine.worker import Worker

MODES = ["two-step", "atomic"]


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


def engine(store, sched, *, start, until, mode, worker=None, outage=None):
    with PumpDesign(sched, start=start, store=store, pump=Pump(tick=1000, mode=mode), worker=worker,
                    faults=Faults(outage=outage)) as sim:
        return sim.run(until=until), sim.registry


def same_as_reference(tr, sched, *, start, until, worker=None, outage=None):
    ref = reference(sched, start=start, until=until, pump=Pump(tick=1000), worker=worker, outage=outage)
    assert engine_fires(tr) == ref.to_fires()
    assert engine_skips(tr) == ref.skips
    assert (tr.count, tr.skipped, tr.next) == (ref.count, ref.skipped, ref.next)


# -- missed: every 15 min from 09:07, the pump down from 09:30 to 10:10 ----------------------

OUTAGE = (t("09:30"), t("10:10"))
MISSED = [
    # (options, [(released, slot label)], next score)
    ({}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "09:37"), ("10:22:00", "10:22"),
          ("10:37:00", "10:37")], "10:52:00"),
    ({"missed": "epoch"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "09:37"),
                           ("10:15:00", "10:15"), ("10:30:00", "10:30")], "10:45:00"),
    ({"rule": "release"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "09:37"),
                           ("10:25:00", "10:25"), ("10:40:00", "10:40")], "10:55:00"),
    ({"missed": "all"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "09:37"),
                         ("10:10:01", "09:52"), ("10:10:02", "10:07"), ("10:22:00", "10:22"),
                         ("10:37:00", "10:37")], "10:52:00"),
    ({"missed": "once"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "10:07"),
                          ("10:22:00", "10:22"), ("10:37:00", "10:37")], "10:52:00"),
    ({"missed": "skip", "deadline": "5m"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"),
                                            ("10:22:00", "10:22"), ("10:37:00", "10:37")], "10:52:00"),
    # Kubernetes startingDeadlineSeconds, APScheduler misfire_grace_time: the latest slot, 10:07,
    # is 3 min old at 10:10, inside 5 min, so it runs (emqsim.peers.kubernetes, .apscheduler)
    ({"missed": "once", "deadline": "5m"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "10:07"),
                                            ("10:22:00", "10:22"), ("10:37:00", "10:37")], "10:52:00"),
    # APScheduler's default grace, 1 s: the coalesced 10:07 is dropped (skipped), then 10:22
    ({"missed": "once", "deadline": "1s"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"),
                                            ("10:22:00", "10:22"), ("10:37:00", "10:37")], "10:52:00"),
    # Hangfire Relaxed: one run stamped with the release instant, then the next slot after it
    ({"missed": "now"}, [("09:07:00", "09:07"), ("09:22:00", "09:22"), ("10:10:00", "10:10"),
                         ("10:22:00", "10:22"), ("10:37:00", "10:37")], "10:52:00"),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("options, fires, nxt", MISSED, ids=[str(o) for o, _, _ in MISSED])
def test_missed_slots_after_an_outage(store, mode, options, fires, nxt):
    sched = Schedule("r", Every("15m"), **options)
    tr, _ = engine(store, sched, start=t("09:07"), until=t("10:40"), mode=mode, outage=OUTAGE)
    assert [(hms(f.released), hm(f.slot)) for f in tr] == fires
    assert hms(tr.next) == nxt
    skipped = 1 if options.get("missed") == "skip" or options.get("deadline") == "1s" else 0
    assert (tr.skipped, tr.lost, tr.duplicates) == (skipped, 0, 0)
    same_as_reference(tr, sched, start=t("09:07"), until=t("10:40"), outage=OUTAGE)


# the pump back at 10:05, two minutes before the 10:07 slot: the three snaps part ways
SNAPS_AT_1005 = [
    ("snap", ["10:05:00", "10:07:00", "10:22:00", "10:37:00"], "10:52:00"),      # bullmq >= 5.80.1: nearest :07 slot
    ("snap-v5", ["10:05:00", "10:22:00", "10:37:00"], "10:52:00"),   # bullmq 5.58.8-5.80.1: 10:07 stepped over
    ("epoch", ["10:05:00", "10:15:00", "10:30:00"], "10:45:00"),     # legacy repeatable: quarter hours
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("missed, releases, nxt", SNAPS_AT_1005, ids=[m for m, _, _ in SNAPS_AT_1005])
def test_the_three_snaps_after_a_restart_just_before_a_slot(store, mode, missed, releases, nxt):
    sched = Schedule("r", Every("15m"), missed=missed)
    outage = (t("09:30"), t("10:05"))
    tr, _ = engine(store, sched, start=t("09:07"), until=t("10:40"), mode=mode, outage=outage)
    assert [hms(f.released) for f in tr] == ["09:07:00", "09:22:00"] + releases
    assert hm(tr[2].slot) == "09:37"                     # the one catch-up run is for the row's slot
    assert hms(tr.next) == nxt
    assert (tr.skipped, tr.lost, tr.duplicates) == (0, 0, 0)
    same_as_reference(tr, sched, start=t("09:07"), until=t("10:40"), outage=outage)


def test_skip_records_the_slot_its_release_and_why(store):
    sched = Schedule("r", Every("15m"), missed="skip", deadline="5m")
    tr, reg = engine(store, sched, start=t("09:07"), until=t("10:40"), mode="atomic", outage=OUTAGE)
    assert [(s.name, hm(s.slot), hms(s.at), s.why) for s in tr.skips] == [("r", "09:37", "10:10:00", "deadline")]
    assert reg.record("r")["fired"] == "4"                  # a skipped occurrence is not a run
    assert tr.table().splitlines()[-1] == \
        "registry rows 1 · next run 10:52:00 · duplicates 0 · lost 0 · skipped 1"


@pytest.mark.parametrize("mode", MODES)
def test_a_dropped_once_run_is_recorded_for_the_latest_slot(store, mode):
    """APScheduler's default grace: the coalesced run for 10:07 is the one dropped, and the trace
    says so; the row's 09:37 is not counted lost."""
    sched = Schedule("r", Every("15m"), missed="once", deadline="1s")
    tr, _ = engine(store, sched, start=t("09:07"), until=t("10:40"), mode=mode, outage=OUTAGE)
    assert [(hm(s.slot), hms(s.at), s.why) for s in tr.skips] == [("10:07", "10:10:00", "deadline")]
    assert (tr.skipped, tr.lost) == (1, 0)


def test_a_deadline_on_once_is_measured_from_the_latest_slot():
    """Not from the row's slot (09:37, 33 min old): from 10:07, 3 min old at 10:10."""
    s = Schedule("r", Every("15m"), missed="once", deadline="5m")
    assert (s.label(t("09:37"), t("10:10")), s.late(t("09:37"), t("10:10"))) == (t("10:07"), False)
    assert Schedule("r", Every("15m"), missed="once", deadline="179s").late(t("09:37"), t("10:10"))
    assert not Schedule("r", Every("15m"), missed="once", deadline="180s").late(t("09:37"), t("10:10"))
    assert Schedule("r", Every("15m"), missed="once", deadline="5m").to_record(0)["deadline"] == "300000"
    back, _, _ = Schedule.from_record("r", s.to_record(0))
    assert (back.missed, back.deadline) == ("once", 300_000)


def test_now_stamps_a_late_run_with_its_release_and_steps_past_it():
    s = Schedule("r", Every("15m"), missed="now")
    assert s.label(t("09:37"), t("10:10")) == t("10:10")
    assert s.label(t("09:37"), t("09:37")) == t("09:37")            # on time: its own slot
    # a restart exactly on a slot: the run is that instant, the next is the slot after it
    assert s.next_run(t("09:52"), released=t("10:07"), finished=None, phase=7 * 60_000) == t("10:22")
    with pytest.raises(ValueError, match="needs rule 'schedule'"):
        Schedule("r", Every("15m"), missed="now", rule="release")


@pytest.mark.parametrize("mode", MODES)
def test_forbid_holds_the_row_until_the_run_ends(store, mode):
    """Kubernetes Forbid (emqsim.peers.kubernetes): 09:15 is refused while 09:00 runs, and the row
    comes due again at 09:20, when it ends: that release runs the latest slot passed, 09:15."""
    sched = Schedule("r", Every("15m"), missed="once", overlap="forbid")
    tr, _ = engine(store, sched, start=t("09:00"), until=t("10:30"), mode=mode, worker=Worker(run="20m"))
    assert [(hm(f.slot), hm(f.released)) for f in tr] == [
        ("09:00", "09:00"), ("09:15", "09:20"), ("09:30", "09:40"), ("10:00", "10:00"), ("10:15", "10:20")]
    assert [(hm(s.slot), hm(s.at), s.why) for s in tr.skips][:2] == [("09:15", "09:15", "overlap"),
                                                                      ("09:30", "09:30", "overlap")]
    assert (tr.lost, tr.duplicates) == (0, 0)
    same_as_reference(tr, sched, start=t("09:00"), until=t("10:30"), worker=Worker(run="20m"))


def test_forbid_needs_once():
    with pytest.raises(ValueError, match="overlap 'forbid' needs missed 'once'"):
        Schedule("r", Every("15m"), overlap="forbid")
    with pytest.raises(ValueError, match="both an offset and a start date"):
        Schedule("r", Every("15m", "3m"), missed="once", overlap="forbid", start=t("09:00"))


def test_once_labels_the_job_with_the_latest_missed_slot(store):
    sched = Schedule("r", Every("15m"), missed="once", overlap="allow")
    with PumpDesign(sched, start=t("09:07"), store=store, pump=Pump(mode="atomic", ids="slot"),
                    faults=Faults(outage=OUTAGE)) as sim:
        tr = sim.run(fires=3)
        assert tr[2].job_id == f"repeat:r:{t('10:07')}"
        assert sim.registry.job(tr[2].job_id)["slot"] == str(t("10:07"))
        assert sim.registry.job(tr[2].job_id)["released"] == str(t("10:10"))


def test_a_skip_under_the_finish_rule_measures_the_gap_from_the_skip(store):
    # 09:07 runs to 09:11, so 09:26 runs to 09:30 and the row says 09:45, inside the outage;
    # released at 10:10 it is 25 min late: skipped, and the next run is 10:10 + 15 min
    sched = Schedule("r", Every("15m"), rule="finish", missed="skip", deadline="5m")
    worker = Worker(run="4m")
    tr, _ = engine(store, sched, start=t("09:07"), until=t("10:45"), mode="two-step", worker=worker, outage=OUTAGE)
    assert [hms(f.released) for f in tr] == ["09:07:00", "09:26:00", "10:25:00", "10:44:00"]
    assert [(hm(s.slot), hms(s.at)) for s in tr.skips] == [("09:45", "10:10:00")]
    same_as_reference(tr, sched, start=t("09:07"), until=t("10:45"), worker=worker, outage=OUTAGE)


def test_a_deadline_no_release_meets_stops_a_run_asked_for_fires():
    # every release lags its slot by the pump's 2 s latency: with a 1 s deadline nothing runs
    sched = Schedule("r", Every("15m"), missed="skip", deadline="1s")
    pump = Pump(latency="2s")
    message = f"{STALL} occurrences in a row were skipped and none produced, so fires=3 is never reached"
    with pytest.raises(ValueError, match=message):
        reference(sched, start=t("09:00"), fires=3, pump=pump)
    with PumpDesign(sched, start=t("09:00"), store=make_store("fakeredis"), pump=pump) as sim:
        with pytest.raises(ValueError, match=message):
            sim.run(fires=3)
        assert sim.trace.skipped == STALL + 1


# -- overlap: every 15 min from 09:00, each run 20 min, two workers -------------------------

RUN20 = Worker(run="20m", concurrency=2)
OVERLAP = [
    # (policy, [(slot, started, finished, cancelled)], skipped slots)
    ("allow", [("09:00", "09:00", "09:20", False), ("09:15", "09:15", "09:35", False),
               ("09:30", "09:30", "09:50", False), ("09:45", "09:45", "10:05", False),
               ("10:00", "10:00", "10:20", False), ("10:15", "10:15", "10:35", False),
               ("10:30", "10:30", "10:50", False)], []),
    ("skip", [("09:00", "09:00", "09:20", False), ("09:30", "09:30", "09:50", False),
              ("10:00", "10:00", "10:20", False), ("10:30", "10:30", "10:50", False)],
     ["09:15", "09:45", "10:15"]),
    # each buffered run starts when the one before ends; the backlog grows 5 min a slot until,
    # at 10:15, the 10:00 run is still waiting (it starts 10:20): 10:15 is skipped
    ("buffer-one", [("09:00", "09:00", "09:20", False), ("09:15", "09:20", "09:40", False),
                    ("09:30", "09:40", "10:00", False), ("09:45", "10:00", "10:20", False),
                    ("10:00", "10:20", "10:40", False), ("10:30", "10:40", "11:00", False)], ["10:15"]),
    ("replace", [("09:00", "09:00", "09:15", True), ("09:15", "09:15", "09:30", True),
                 ("09:30", "09:30", "09:45", True), ("09:45", "09:45", "10:00", True),
                 ("10:00", "10:00", "10:15", True), ("10:15", "10:15", "10:30", True),
                 ("10:30", "10:30", "10:50", False)], []),
]


def runs(tr):
    return [(hm(f.slot), hm(f.started), hm(f.finished), f.cancelled) for f in tr]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("policy, fires, skipped", OVERLAP, ids=[p for p, _, _ in OVERLAP])
def test_overlap_every_15_min_with_20_min_runs(store, mode, policy, fires, skipped):
    sched = Schedule("r", Every("15m"), overlap=policy)
    tr, _ = engine(store, sched, start=t("09:00"), until=t("10:30"), mode=mode, worker=RUN20)
    assert runs(tr) == fires
    assert [hm(s.slot) for s in tr.skips] == skipped
    assert {s.why for s in tr.skips} <= {"overlap"}
    assert (tr.skipped, tr.lost, tr.duplicates) == (len(skipped), 0, 0)
    assert all(f.released == f.slot for f in tr)        # the pump is never late here
    same_as_reference(tr, sched, start=t("09:00"), until=t("10:30"), worker=RUN20)


def test_allow_really_overlaps():
    tr = reference(Schedule("r", Every("15m")), start=t("09:00"), until=t("10:30"), worker=RUN20)
    going = [sum(1 for s, f in zip(tr.started, tr.finished) if s <= at_ < f) for at_ in (t("09:15"), t("09:20"))]
    assert going == [2, 1]


def test_buffer_one_with_40_min_runs_skips_while_one_waits(store):
    worker = Worker(run="40m", concurrency=2)
    sched = Schedule("r", Every("15m"), overlap="buffer-one")
    tr, _ = engine(store, sched, start=t("09:00"), until=t("10:30"), mode="atomic", worker=worker)
    assert runs(tr) == [("09:00", "09:00", "09:40", False), ("09:15", "09:40", "10:20", False),
                        ("09:45", "10:20", "11:00", False), ("10:30", "11:00", "11:40", False)]
    assert [hm(s.slot) for s in tr.skips] == ["09:30", "10:00", "10:15"]
    same_as_reference(tr, sched, start=t("09:00"), until=t("10:30"), worker=worker)


@pytest.mark.parametrize("mode", MODES)
def test_replace_marks_the_cancelled_jobs_in_redis(store, mode):
    sched = Schedule("r", Every("15m"), overlap="replace")
    tr, reg = engine(store, sched, start=t("09:00"), until=t("09:30"), mode=mode, worker=RUN20)
    assert [(reg.job(f.job_id)["state"], reg.job(f.job_id).get("finished")) for f in tr] == [
        ("cancelled", str(t("09:15"))), ("cancelled", str(t("09:30"))), ("active", None)]
    assert reg.pending() == []    # the parked worker took the 09:30 job off pending at once
    lines = tr.table().splitlines()
    assert lines[2].endswith(f"{tr[0].job_id}  cancelled") and lines[4].endswith(tr[2].job_id)
    assert tr.arrays()["cancelled"].tolist() == [True, True, False]


def test_replace_cancels_a_run_still_waiting_for_a_poll(store):
    # 5-min runs. Polling every 20 min from 09:00, the 09:15 job starts at the 09:20 poll and
    # is over by 09:30: nothing to cancel. Polling every 40 min, it is still waiting for the
    # 09:40 poll when 09:30 is released: cancelled before it starts (started = finished = 09:30)
    worker = Worker(run="5m", poll="20m")
    sched = Schedule("r", Every("15m"), overlap="replace")
    tr, _ = engine(store, sched, start=t("09:00"), until=t("09:30"), mode="two-step", worker=worker)
    assert runs(tr) == [("09:00", "09:00", "09:05", False), ("09:15", "09:20", "09:25", False),
                        ("09:30", "09:40", "09:45", False)]
    worker = Worker(run="5m", poll="40m")
    tr, _ = engine(make_store("fakeredis"), sched, start=t("09:00"), until=t("09:30"), mode="two-step",
                   worker=worker)
    assert runs(tr) == [("09:00", "09:00", "09:05", False), ("09:15", "09:30", "09:30", True),
                        ("09:30", "09:40", "09:45", False)]
    same_as_reference(tr, sched, start=t("09:00"), until=t("09:30"), worker=worker)


def test_concurrency_still_bounds_all_schedules_together(store):
    # one worker, 20-min runs, shared by "a" (overlap skip) and "b" (allow): "a" skips while
    # its own run is waiting or running, and every job queues for the one worker
    a = Schedule("a", Every("15m"), overlap="skip")
    b = Schedule("b", Every("15m"))
    with PumpDesign([a, b], start=t("09:00"), store=store, pump=Pump(mode="atomic"),
                    worker=Worker(run="20m")) as sim:
        tr = sim.run(until=t("09:45"))
    assert [(f.name, hm(f.slot), hm(f.started), hm(f.finished)) for f in tr] == [
        ("a", "09:00", "09:00", "09:20"), ("b", "09:00", "09:20", "09:40"),
        ("b", "09:15", "09:40", "10:00"), ("a", "09:30", "10:00", "10:20"),
        ("b", "09:30", "10:20", "10:40"), ("b", "09:45", "10:40", "11:00")]
    assert [(s.name, hm(s.slot)) for s in tr.skips] == [("a", "09:15"), ("a", "09:45")]
