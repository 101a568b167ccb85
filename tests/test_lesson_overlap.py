"""Lesson 05: runs longer than the period under each overlap policy, as the engine runs them;
the model's frames, its laziness, and the text the notebook prints."""

from __future__ import annotations


import pytest

from emqsim.engine.cadence import Every
from emqsim.engine.errors import InputError
from emqsim.lessons import overlap as ov
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.timefmt import at, hm
from emqsim.engine.worker import Worker

MIN = 60_000


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


def spans(runs):
    return [(hm(j.slot), hm(j.started), hm(j.finished), j.cancelled) for j in runs.jobs]


def hms(pairs):
    return [(hm(a), hm(b)) for a, b, *_ in pairs]


@pytest.fixture(scope="module")
def model():
    return ov.OverlapModel()


@pytest.fixture(scope="module")
def every_length():
    """A model that has run every policy at every run length through the Lua engine (200 runs)."""
    m = ov.OverlapModel()
    for run in ov.RUNS:
        for p in ov.POLICIES:
            m.policy_runs(p, run)
    return m


# -- the engine's runs: every 15 min from 09:00, 20-min runs, 4 workers ---------------------------

def test_allow_runs_every_slot_side_by_side():
    r = ov.policy_runs("allow", "20m")
    assert spans(r) == [(s, s, e, False) for s, e in [("09:00", "09:20"), ("09:15", "09:35"), ("09:30", "09:50"),
                                                       ("09:45", "10:05"), ("10:00", "10:20"), ("10:15", "10:35"),
                                                       ("10:30", "10:50"), ("10:45", "11:05")]]
    assert r.skipped == ()
    times, counts = r.going()
    assert [hm(x) for x in times[:5]] == ["09:00", "09:15", "09:20", "09:30", "09:35"]
    assert counts[:5] == (1, 2, 1, 2, 1)
    assert (r.most, r.completed, r.cancelled, r.longest_wait) == (2, 8, 0, 0)


def test_skip_drops_every_other_slot():
    r = ov.policy_runs("skip", "20m")
    assert spans(r) == [("09:00", "09:00", "09:20", False), ("09:30", "09:30", "09:50", False),
                        ("10:00", "10:00", "10:20", False), ("10:30", "10:30", "10:50", False)]
    assert [hm(s) for s in r.skipped] == ["09:15", "09:45", "10:15", "10:45"]
    assert r.most == 1


def test_buffer_one_starts_late_and_skips_while_one_waits():
    r = ov.policy_runs("buffer-one", "20m")
    assert spans(r) == [("09:00", "09:00", "09:20", False), ("09:15", "09:20", "09:40", False),
                        ("09:30", "09:40", "10:00", False), ("09:45", "10:00", "10:20", False),
                        ("10:00", "10:20", "10:40", False), ("10:30", "10:40", "11:00", False),
                        ("10:45", "11:00", "11:20", False)]
    assert [j.started - j.released for j in r.jobs] == [0, 5 * MIN, 10 * MIN, 15 * MIN, 20 * MIN, 10 * MIN,
                                                       15 * MIN]
    assert [hm(s) for s in r.skipped] == ["10:15"]
    assert (r.most, r.longest_wait) == (1, 20 * MIN)


def test_replace_cancels_each_run_at_the_next_release():
    r = ov.policy_runs("replace", "20m")
    starts = ["09:00", "09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45"]
    # the 10:45 run is cancelled by the 11:00 release, which the window does not show
    assert spans(r) == [(s, s, e, True) for s, e in zip(starts, starts[1:] + ["11:00"])]
    assert (r.completed, r.cancelled, r.most, r.end) == (0, 8, 1, t("11:00"))


@pytest.mark.parametrize("policy", ov.POLICIES)
def test_the_lanes_agree_with_the_reference_model(policy):
    for run in (15 * MIN, 20 * MIN, 40 * MIN):
        r = ov.policy_runs(policy, run)
        ref = reference(Schedule("reports", Every("15m"), **ov.lane(policy)), start=t("09:00"), until=t("11:00"),
                        worker=Worker(run=run, concurrency=4), ids=None)
        want = [x for x in zip(ref.slot.tolist(), ref.released.tolist(), ref.started.tolist(),
                               ref.finished.tolist(), ref.cancelled.tolist()) if x[1] < t("11:00")]
        assert [tuple(j) for j in r.jobs] == want
        no_job = [s for s in range(t("09:00"), t("11:00"), 15 * MIN) if s not in {j[0] for j in want}]
        assert list(r.skipped) == no_job
        if policy != "forbid":      # elsewhere a slot with no job is exactly a refused release
            assert no_job == [s for s, at_, _ in ref.skips if at_ < t("11:00")]
        assert ov.reference_runs(policy, run) == r


def test_bar_rows_keep_overlapping_and_touching_runs_apart():
    assert ov.bar_rows(ov.policy_runs("allow", "40m").jobs) == [0, 1, 2, 0, 1, 2, 0, 1]
    assert ov.bar_rows(ov.policy_runs("replace", "20m").jobs) == [0, 1, 0, 1, 0, 1, 0, 1]
    assert ov.bar_rows(ov.policy_runs("allow", "10m").jobs) == [0] * 8


def test_bad_policy_or_run_length():
    with pytest.raises(InputError, match="overlap policy 'cancel' is not one of allow, skip, buffer-one, replace"):
        ov.policy_runs("cancel", "20m")
    with pytest.raises(ValueError, match="run"):
        ov.policy_runs("skip", "twenty")
    with pytest.raises(InputError, match="overlap policy 'cancel'"):
        ov.reference_runs("cancel", "20m")


def test_slots_table():
    table = ov.slots_table(tuple(ov.policy_runs(p, "20m") for p in ov.POLICIES)).splitlines()
    assert table[0] == ("slot   allow        skip                   buffer-one                   replace"
                        "                forbid")
    assert table[3] == ("09:15  09:15-09:35  skipped (one running)  09:20-09:40 (waited 5 min)   09:15-09:30 cancelled"
                        "  09:20-09:40 (held 5 min)")
    assert table[5] == ("09:45  09:45-10:05  skipped (one running)  10:00-10:20 (waited 15 min)  09:45-10:00 cancelled"
                        "  skipped (one running)")
    assert table[7] == ("10:15  10:15-10:35  skipped (one running)  skipped (one waiting)        10:15-10:30 cancelled"
                        "  10:20-10:40 (held 5 min)")
    assert len(table) == 10


def test_forbid_is_not_skip():
    """Kubernetes Forbid keeps the declined time: 09:15 runs when 09:00 ends, at 09:20 (skip drops
    it), and at 10:00 the latest time passed is 10:00 itself, so 09:45 never runs."""
    r = ov.policy_runs("forbid", "20m")
    assert spans(r) == [("09:00", "09:00", "09:20", False), ("09:15", "09:20", "09:40", False),
                        ("09:30", "09:40", "10:00", False), ("10:00", "10:00", "10:20", False),
                        ("10:15", "10:20", "10:40", False), ("10:30", "10:40", "11:00", False)]
    assert [hm(s) for s in r.skipped] == ["09:45", "10:45"]
    assert ov.PEERS["forbid"] == "K8s Forbid" and "Forbid" not in ov.PEERS["skip"]
    assert ov.lane("forbid") == {"missed": "once", "overlap": "forbid"}


# -- the model's frames ---------------------------------------------------------------------------

README_20 = """\
runs of 20 min, a release every 15 min from 09:00 to 10:45 (8 slots), 4 workers a lane
allow       8 runs, 8 completed, 0 cancelled, 0 skipped, at most 2 at once
skip        4 runs, 4 completed, 0 cancelled, 4 skipped, at most 1 at once
buffer-one  7 runs, 7 completed, 0 cancelled, 1 skipped, at most 1 at once, longest wait 20 min
replace     8 runs, 0 completed, 8 cancelled, 0 skipped, at most 1 at once
            nothing completes: each run is cancelled by the next release, 15 min in
forbid      6 runs, 6 completed, 0 cancelled, 2 skipped, at most 1 at once"""


def test_the_slider():
    m = ov.OverlapModel()
    (run,) = m.controls
    assert (run.name, run.kind, run.default, run.main, run.label) == ("run", "slider", 20, True, "run (min)")
    assert [v for _, v in run.positions] == list(range(1, 41))
    assert (run.play.step, run.play.max_step, run.play.interval) == (1, 5, 400)
    assert m.readout_id == "overlap-readout"
    combos, held = m.reachable()
    assert [c["run"] for c in combos] == list(range(1, 41)) and held == []


def test_readout_at_20_min(model):
    assert model.frame().readout == README_20
    assert model.frame(run=20).readout == README_20
    assert model.frame().title == "20 min"


def test_readout_at_15_min_all_lanes_agree(model):
    lines = model.frame(run=15).readout.splitlines()
    assert lines[0] == "runs of 15 min, a release every 15 min from 09:00 to 10:45 (8 slots), 4 workers a lane"
    assert lines[1:] == [f"{p:<10}  8 runs, 8 completed, 0 cancelled, 0 skipped, at most 1 at once"
                         for p in ov.POLICIES]


def test_readout_at_40_min(model):
    assert model.frame(run=40).readout.splitlines()[1:] == [
        "allow       8 runs, 8 completed, 0 cancelled, 0 skipped, at most 3 at once",
        "skip        3 runs, 3 completed, 0 cancelled, 5 skipped, at most 1 at once",
        "buffer-one  4 runs, 4 completed, 0 cancelled, 4 skipped, at most 1 at once, longest wait 35 min",
        "replace     8 runs, 0 completed, 8 cancelled, 0 skipped, at most 1 at once",
        "            nothing completes: each run is cancelled by the next release, 15 min in",
        "forbid      3 runs, 3 completed, 0 cancelled, 5 skipped, at most 1 at once"]


def test_marks_at_20_min(model):
    f = model.frame(run=20)
    allow, skip, buffer_one, replace, forbid = f.marks
    assert [m.policy for m in f.marks] == list(ov.POLICIES)
    assert hms(allow.done)[:2] == [("09:00", "09:20"), ("09:15", "09:35")]
    assert [row for *_, row in allow.done] == [0, 1] * 4
    assert hms(buffer_one.done)[-1] == ("11:00", "11:20")
    assert (len(allow.done), len(skip.done), len(buffer_one.done), len(replace.done)) == (8, 4, 7, 0)
    assert hms(replace.cut) == list(zip(["09:00", "09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45"],
                                        ["09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45", "11:00"]))
    assert {row for *_, row in replace.cut} == {0, 1}
    assert hms(buffer_one.waits) == [("09:15", "09:20"), ("09:30", "09:40"), ("09:45", "10:00"),
                                     ("10:00", "10:20"), ("10:30", "10:40"), ("10:45", "11:00")]
    assert allow.waits == skip.waits == replace.waits == ()
    assert [hm(s) for s in skip.skipped] == ["09:15", "09:45", "10:15", "10:45"]
    assert [hm(s) for s in buffer_one.skipped] == ["10:15"]
    assert replace.label == "0 of 8 completed\n8 cancelled"
    assert skip.label == "4 of 4 completed\n4 skipped"
    assert allow.label == "8 of 8 completed"
    assert forbid.label == "6 of 6 completed\n2 skipped" and forbid.waits == ()
    assert [hm(s) for s in forbid.skipped] == ["09:45", "10:45"]


def test_runs_at_once_reach_the_axis_end(model):
    f = model.frame(run=40)
    allow, replace = f.marks[0], f.marks[3]
    assert [hm(x) for x in allow.going_at[:4]] == ["09:00", "09:15", "09:30", "09:40"]
    assert allow.going[:5] == (1, 2, 3, 2, 3)
    assert allow.going_at[-1] == f.layout.hi and allow.going[-1] == allow.going[-2] == 0
    assert max(replace.going) == 1


def test_layout_holds_every_run_length():
    layout = ov.OverlapModel().layout()
    assert dict(zip(layout.policies, layout.rows)) == {"allow": 3, "skip": 2, "buffer-one": 3, "replace": 2,
                                                        "forbid": 2}
    assert layout.most == 3
    # buffer-one's 10:45 release with 35-minute runs ends last, at 11:55
    assert [hm(x) for x in (layout.start, layout.end, layout.lo, layout.hi)] == ["09:00", "11:00", "08:55", "12:05"]
    assert (layout.tick, len(layout.grid), hm(layout.grid[-1])) == (30 * MIN, 13, "12:00")
    assert layout.title == "every 15 min from 09:00, 4 workers a lane, each run takes"
    assert layout.after == "releases from 11:00 on not drawn (shaded)"
    assert layout.names[0] == "allow\nK8s Allow\nTemporal AllowAll"
    assert layout.names[1] == "skip\nTemporal Skip\nAPScheduler max_instances=1"
    assert layout.names[3:] == ("replace\nK8s Replace\nTemporal TerminateOther", "forbid\nK8s Forbid")


def test_every_run_length_through_the_engine(every_length):
    """The layout measured with the reference model holds the Lua engine's runs exactly."""
    m = every_length
    assert m.simulated() == 200
    layout = m.layout()
    for run in ov.RUNS:
        for p, rows in zip(ov.POLICIES, layout.rows):
            r = m.policy_runs(p, run)
            assert r == ov.reference_runs(p, run * MIN), (p, run)
            assert max(ov.bar_rows(r.jobs), default=0) < rows
    lanes = [m.policy_runs(p, run) for run in ov.RUNS for p in ov.POLICIES]
    assert max(r.most for r in lanes) == layout.most
    assert hm(max(j.finished for r in lanes for j in r.jobs)) == "11:55"     # the axis ends at 12:05
    for p, rows in zip(ov.POLICIES, layout.rows):
        assert max(max(ov.bar_rows(m.policy_runs(p, run).jobs)) + 1 for run in ov.RUNS) == rows
    # replace completes nothing for every run longer than the period
    assert [run for run in ov.RUNS if m.policy_runs("replace", run).completed == 0] == list(range(16, 41))
    # up to the period the five lanes are the same runs
    for run in range(1, 16):
        assert len({m.policy_runs(p, run).jobs for p in ov.POLICIES}) == 1


def test_a_frame_runs_only_its_own_run_length():
    m = ov.OverlapModel()
    assert (m.simulated(), m._layout) == (0, None)       # building it runs nothing
    first = m.frame()
    assert m.simulated() == 5                              # the five lanes of 20 minutes
    m.frame(run=15)
    assert m.simulated() == 10
    assert m.frame(run=20) is first and m.simulated() == 10  # moving back is free
    assert m.policy_runs("skip", 20) is first.runs[1]


def test_a_bad_run_length_is_refused_and_nothing_is_kept():
    m = ov.OverlapModel()
    m.frame()
    for bad in (41, 0, 20.0, True, "20", "20m"):
        with pytest.raises(InputError) as refused:
            m.frame(run=bad)
        # the message names the control, the value refused and the slider's range
        text = str(refused.value)
        assert text.startswith(f"run (min) {bad!r} ") and "1" in text and "40" in text, text
    with pytest.raises(InputError, match="no control 'minutes'"):
        m.frame(minutes=20)
    with pytest.raises(InputError, match="run 41 is not one of 1, 2"):
        m.policy_runs("skip", 41)
    assert m.simulated() == 5 and len(m._frames) == 1


# -- section 4: the pump against BullMQ's chain -------------------------------------------------

def test_backlog_growth():
    assert ov.backlog_growth() == """\
 4 runs: pump  2 waiting, up to  75 min late · bullmq 1 waiting, up to 35 min late
 8 runs: pump  5 waiting, up to 175 min late · bullmq 1 waiting, up to 35 min late
16 runs: pump 10 waiting, up to 375 min late · bullmq 1 waiting, up to 35 min late
32 runs: pump 20 waiting, up to 775 min late · bullmq 1 waiting, up to 35 min late"""
    assert ov.backlog_growth((4,), run="10m") == (" 4 runs: pump  0 waiting, up to   0 min late"
                                                  " · bullmq 0 waiting, up to 0 min late")


def test_snapped_slots():
    assert ov.snapped_slots() == """\
   n  pump slot  started   bullmq slot  started
-----------------------------------------------
   1  09:00:00   09:00:00  09:00:00     09:00:00
   2  09:15:00   09:40:00  09:15:00     09:40:00
   3  09:30:00   10:20:00  09:45:00     10:20:00
   4  09:45:00   11:00:00  10:30:00     11:00:00
   5  10:00:00   11:40:00  11:15:00     11:40:00
   6  10:15:00   12:20:00  11:45:00     12:20:00
pump: 6 runs · starts up to 7500000 ms late · at most 1 running · at most 4 waiting
bullmq: 6 runs · starts up to 2100000 ms late · at most 1 running · at most 1 waiting
pump: no job for no slot
bullmq: no job for 09:30, 10:00, 10:15, 10:45, 11:00, 11:30
with 3 workers: {'runs': 6, 'late_ms': 0, 'running': 3, 'waiting': 0} · no job for no slot"""
