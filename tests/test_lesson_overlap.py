"""Lesson 05: runs longer than the period under each overlap policy, as the engine runs them;
the model's frames, its laziness, and the facts the text the notebook prints states."""

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
    runs = tuple(ov.policy_runs(p, "20m") for p in ov.POLICIES)

    def row(slot):
        return [ov.outcome(r.policy, next((j for j in r.jobs if j.slot == t(slot)), None)) for r in runs]

    assert row("09:15") == [("ran", t("09:15"), t("09:35"), 0), ("skipped", "running"),
                            ("waited", t("09:20"), t("09:40"), 5 * MIN), ("cancelled", t("09:15"), t("09:30"), 0),
                            ("held", t("09:20"), t("09:40"), 5 * MIN)]
    assert row("09:45")[2:] == [("waited", t("10:00"), t("10:20"), 15 * MIN), ("cancelled", t("09:45"), t("10:00"), 0),
                                ("skipped", "running")]
    assert row("10:15")[1:3] == [("skipped", "running"), ("skipped", "waiting")]
    table = ov.slots_table(runs).splitlines()
    assert table[0].split() == ["slot", *ov.POLICIES] and len(table) == 2 + ov.SLOTS
    # the cells' words carry the outcomes
    assert table[3].startswith("09:15  09:15-09:35  skipped (one running)  09:20-09:40 (waited 5 min)")
    assert "09:45-10:00 cancelled" in table[5] and "(held 5 min)" in table[7]
    assert "skipped (one waiting)" in table[7]


def test_forbid_is_not_skip():
    """Kubernetes Forbid keeps the declined time: 09:15 runs when 09:00 ends, at 09:20 (skip drops
    it), and at 10:00 the latest time passed is 10:00 itself, so 09:45 never runs."""
    r = ov.policy_runs("forbid", "20m")
    assert spans(r) == [("09:00", "09:00", "09:20", False), ("09:15", "09:20", "09:40", False),
                        ("09:30", "09:40", "10:00", False), ("10:00", "10:00", "10:20", False),
                        ("10:15", "10:20", "10:40", False), ("10:30", "10:40", "11:00", False)]
    assert [hm(s) for s in r.skipped] == ["09:45", "10:45"]
    assert ov.PEERS["forbid"] == "Kubernetes Forbid" and "Forbid" not in ov.PEERS["skip"]
    assert ov.lane("forbid") == {"missed": "once", "overlap": "forbid"}


# -- the model's frames ---------------------------------------------------------------------------

def lane_facts(frame) -> dict:
    """Per policy, what its readout line states: (runs, completed, cancelled, skipped, most at once,
    longest wait in min, min into each run where nothing completes or None)."""
    return {r.policy: (lambda f: (f["runs"], f["completed"], f["cancelled"], f["skipped"], f["most"],
                                  f["longest_wait"] // MIN, None if f["cut"] is None else f["cut"] // MIN))(r.facts())
            for r in frame.runs}


def test_the_slider():
    m = ov.OverlapModel()
    (run,) = m.controls
    assert (run.name, run.kind, run.default, run.main, run.label) == ("run", "slider", 10, True, "run (min)")
    assert [v for _, v in run.positions] == list(range(1, 41))
    assert (run.play.step, run.play.max_step, run.play.interval) == (1, 5, 400)
    assert m.readout_id == "overlap-readout"
    combos, held = m.reachable()
    assert [c["run"] for c in combos] == list(range(1, 41)) and held == []


def test_readout_at_20_min(model):
    assert lane_facts(model.frame(run=20)) == {
        "allow": (8, 8, 0, 0, 2, 0, None), "skip": (4, 4, 0, 4, 1, 0, None), "buffer-one": (7, 7, 0, 1, 1, 20, None),
        "replace": (8, 0, 8, 0, 1, 0, 15), "forbid": (6, 6, 0, 2, 1, 0, None)}
    assert model.frame(run=20).title == "20 min"
    # the default: shorter than the period, every lane alike (the questions' numbers are not on show)
    assert lane_facts(model.frame()) == {p: (8, 8, 0, 0, 1, 0, None) for p in ov.POLICIES}
    assert model.frame() is model.frame(run=10)


def test_readout_at_15_min_all_lanes_agree(model):
    assert lane_facts(model.frame(run=15)) == {p: (8, 8, 0, 0, 1, 0, None) for p in ov.POLICIES}


def test_readout_at_40_min(model):
    assert lane_facts(model.frame(run=40)) == {
        "allow": (8, 8, 0, 0, 3, 0, None), "skip": (3, 3, 0, 5, 1, 0, None), "buffer-one": (4, 4, 0, 4, 1, 35, None),
        "replace": (8, 0, 8, 0, 1, 0, 15), "forbid": (3, 3, 0, 5, 1, 0, None)}


@pytest.mark.parametrize("run", [15, 20, 40])
def test_the_readout_states_its_facts(model, run):
    """The one test of the readout's words: the header names the run, the gap, the window and the
    workers; each policy's line names each of its facts."""
    f = model.frame(run=run)
    text = f.readout
    assert text.splitlines()[0] == (f"runs of {run} min, a release every 15 min from 09:00 to 10:45 "
                                    f"({ov.SLOTS} slots), {ov.WORKERS} workers a lane")
    for r in f.runs:
        x, line = r.facts(), r.line()
        assert line in text and line.startswith(r.policy)
        assert (f"{x['runs']} run" in line and f"{x['completed']} completed" in line
                and f"{x['cancelled']} cancelled" in line and f"{x['skipped']} skipped" in line
                and f"at most {x['most']} at once" in line)
        assert (f"longest wait {x['longest_wait'] // MIN} min" in line) == bool(x["longest_wait"])
        assert ("nothing completes" in line) == (x["cut"] is not None)


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
    assert layout.names[0] == "allow\nKubernetes Allow\nTemporal AllowAll"
    assert layout.names[1] == "skip\nTemporal Skip\nAPScheduler max_instances=1"
    assert layout.names[3:] == ("replace\nKubernetes Replace\nTemporal TerminateOther", "forbid\nKubernetes Forbid")


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
    assert m.simulated() == 5                              # the five lanes of 10 minutes
    m.frame(run=15)
    assert m.simulated() == 10
    assert m.frame(run=10) is first and m.simulated() == 10  # moving back is free
    assert m.policy_runs("skip", 10) is first.runs[1]


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
    facts = ov.backlog_facts()
    assert {n: (x["pump"]["waiting"], x["pump"]["late_ms"] // MIN, x["bullmq"]["waiting"],
                x["bullmq"]["late_ms"] // MIN) for n, x in facts.items()} == {
        4: (2, 75, 1, 35), 8: (5, 175, 1, 35), 16: (10, 375, 1, 35), 32: (20, 775, 1, 35)}
    short = ov.backlog_facts((4,), run="10m")[4]
    assert (short["pump"]["waiting"], short["pump"]["late_ms"], short["bullmq"]["waiting"],
            short["bullmq"]["late_ms"]) == (0, 0, 0, 0)
    lines = ov.backlog_growth().splitlines()
    for line, (n, x) in zip(lines, facts.items()):
        assert line.split() == [str(n), "runs:", "pump", str(x["pump"]["waiting"]), "waiting,", "up", "to",
                                str(x["pump"]["late_ms"] // MIN), "min", "late", "\u00b7", "bullmq",
                                str(x["bullmq"]["waiting"]), "waiting,", "up", "to", str(x["bullmq"]["late_ms"] // MIN),
                                "min", "late"]


def test_snapped_slots():
    f = ov.snapped_facts()
    one = f["one"]
    assert [(hm(x.slot), hm(x.started)) for x in one.pump] == [
        ("09:00", "09:00"), ("09:15", "09:40"), ("09:30", "10:20"), ("09:45", "11:00"), ("10:00", "11:40"),
        ("10:15", "12:20")]
    assert [(hm(x.slot), hm(x.started)) for x in one.bullmq] == [
        ("09:00", "09:00"), ("09:15", "09:40"), ("09:45", "10:20"), ("10:30", "11:00"), ("11:15", "11:40"),
        ("11:45", "12:20")]
    assert one.summary() == {"pump": {"runs": 6, "late_ms": 7_500_000, "running": 1, "waiting": 4},
                             "bullmq": {"runs": 6, "late_ms": 2_100_000, "running": 1, "waiting": 1}}
    assert {d: [hm(x) for x in slots] for d, slots in f["no_job"].items()} == {
        "pump": [], "bullmq": ["09:30", "10:00", "10:15", "10:45", "11:00", "11:30"]}
    assert (f["workers"], f["more"], f["more_no_job"]) == (
        3, {"runs": 6, "late_ms": 0, "running": 3, "waiting": 0}, [])
    text = ov.snapped_slots()
    assert text.startswith(one.table())
    assert "pump: no job for no slot" in text and "bullmq: no job for 09:30, 10:00, 10:15, 10:45, 11:00, 11:30" in text
    assert text.endswith(f"with 3 workers: {f['more']} \u00b7 no job for no slot")


def test_05_forbid_s_right_option_says_what_happens_in_plain_words():
    """Student review: 05's forbid question's right option read "2: the newest overtakes older ones",
    a race where nothing races. It says what the figure shows: of two slots ready when a run ends,
    only the later one runs."""
    q = next(q for q in ov.OverlapModel.questions if q.id == "05-forbid-skips")
    assert q.option("2").text == "2: when two are ready, only the later runs"


def test_runs_that_take_no_time_print_no_running_count():
    """ref_bullmq_design's summary read "5 runs · ... · at most 0 running" for runs of no length
    (issue 30, h68r): the count is left out where no run takes time, kept where one does."""
    from emqsim.lessons.designs import compare

    c = compare(Schedule("reports", Every("15m")), start=at("2026-11-30 09:00"), fires=3)
    assert c.table().splitlines()[-2:] == ["pump: 3 runs \u00b7 every start on time \u00b7 at most 0 waiting",
                                           "bullmq: 3 runs \u00b7 every start on time \u00b7 at most 0 waiting"]
    timed = compare(Schedule("reports", Every("15m")), start=at("2026-11-30 09:00"), fires=3,
                    worker=Worker(run="4m"))
    assert "pump: 3 runs \u00b7 every start on time \u00b7 at most 1 running \u00b7 at most 0 waiting" in timed.table()
