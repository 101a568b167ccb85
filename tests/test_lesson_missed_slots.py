"""Lesson 04, missed slots: seven lanes after one outage, the facts their readouts and the
engine's texts state (one test each that the words carry them), the model."""

from __future__ import annotations

import contextlib
import io
import re

import pytest

from emqsim import InputError
from emqsim.engine.cadence import Every
from emqsim.cli import main
from emqsim.lessons import missed_slots as mx
from emqsim.engine.timefmt import at, hm, hms

MIN = 60_000


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


#: what each policy's readout line states after the example outage (09:30 to 10:10, deadline
#: 5 min): its catch-up jobs (slot, released), its skips, the next two releases and the phase
#: before and after, as ("09:37", "10:10") clock texts
EXAMPLE = {
    "snap": ([("09:37", "10:10:00")], [], ["10:22", "10:37"], (":07", ":07")),
    "snap-v5": ([("09:37", "10:10:00")], [], ["10:22", "10:37"], (":07", ":07")),
    "epoch": ([("09:37", "10:10:00")], [], ["10:15", "10:30"], (":07", ":00")),
    "release": ([("09:37", "10:10:00")], [], ["10:25", "10:40"], (":07", ":10")),
    "all": ([("09:37", "10:10:00"), ("09:52", "10:10:01"), ("10:07", "10:10:02")], [], ["10:22", "10:37"],
            (":07", ":07")),
    "once": ([("10:07", "10:10:00")], [], ["10:22", "10:37"], (":07", ":07")),
    "deadline": ([("10:07", "10:10:00")], [], ["10:22", "10:37"], (":07", ":07")),
}


def line_facts(runs) -> dict:
    """Per policy, `mx.line_facts` as clock texts (see EXAMPLE)."""
    out = {}
    for r in runs:
        f = mx.line_facts(r)
        out[r.policy] = ([(hm(s), hms(x)) for s, x in f["catch_up"]], [(hm(s), hms(x)) for s, x in f["skipped"]],
                         [hm(x) for x in f["then"]], f["phase"])
    return out


def runs_of(runs, policy):
    return next(r for r in runs if r.policy == policy)


# -- the module ----------------------------------------------------------------------------------

def test_constants_come_from_the_course_and_the_engine():
    from emqsim.lessons import course
    from emqsim.engine.schedule import MISSED

    assert mx.POLICIES == ("snap", "snap-v5", "epoch", "release", "all", "once", "deadline")
    assert {mx.lane_schedule(p).missed for p in mx.POLICIES} <= set(MISSED)
    assert mx.CADENCE == Every(course.EVERY) and mx.FIRST == t("09:07") and mx.PHASE == 7 * MIN
    assert mx.GRID == tuple(range(t("09:07"), t("11:15") + 1, 15 * MIN))
    assert (mx.TIMES[0], mx.TIMES[-1], len(mx.TIMES)) == (t("09:10"), t("11:00"), 111)
    assert mx.DEADLINES[5] == 5 * MIN and len(mx.DEADLINES) == 61 and mx.DEADLINES[0] == 1000  # APScheduler's default
    assert mx.ROW == {"snap": 6, "snap-v5": 5, "epoch": 4, "release": 3, "all": 2, "once": 1, "deadline": 0}


# -- the data ----------------------------------------------------------------------------------

def test_the_example_releases_per_policy():
    runs = mx.policy_runs("09:30", "10:10", "5m")
    got = {r.policy: [(hms(rel), hm(s)) for s, rel in r.fires if rel >= t("10:10")][:4] for r in runs}
    assert got == {
        "snap": [("10:10:00", "09:37"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
        "snap-v5": [("10:10:00", "09:37"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
        "epoch": [("10:10:00", "09:37"), ("10:15:00", "10:15"), ("10:30:00", "10:30"), ("10:45:00", "10:45")],
        "release": [("10:10:00", "09:37"), ("10:25:00", "10:25"), ("10:40:00", "10:40"), ("10:55:00", "10:55")],
        "all": [("10:10:00", "09:37"), ("10:10:01", "09:52"), ("10:10:02", "10:07"), ("10:22:00", "10:22")],
        "once": [("10:10:00", "10:07"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
        "deadline": [("10:10:00", "10:07"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
    }
    late = runs_of(runs, "deadline")           # 10:07 is 3 min old at 10:10, inside 5 min: it runs
    assert late.skips == () and late.collapsed == (t("09:37"), t("09:52"))
    # APScheduler's defaults (grace 1 s): the coalesced run for 10:07 is dropped, nothing runs
    dropped = mx.policy_run("deadline", "09:30", "10:10", 1000)
    assert dropped.skips == ((t("10:07"), t("10:10")),) and dropped.catch_up == ()
    assert dropped.collapsed == (t("09:37"), t("09:52"))
    assert runs_of(runs, "once").collapsed == (t("09:37"), t("09:52"))
    assert runs_of(runs, "all").collapsed == ()
    assert runs_of(runs, "snap").catch_up == ((t("09:37"), t("10:10")),)
    assert runs_of(runs, "snap").then[:2] == (t("10:22"), t("10:37"))
    assert {r.missed for r in runs} == {(t("09:37"), t("09:52"), t("10:07"))}
    # before the outage all seven agree: 09:07 and 09:22
    assert {tuple(f for f in r.fires if f[1] < t("09:30")) for r in runs} == \
        {((t("09:07"), t("09:07")), (t("09:22"), t("09:22")))}
    assert line_facts(runs) == EXAMPLE
    assert {r.deadline for r in runs} == {None, 5 * MIN}


def test_the_readout_states_its_facts():
    """The one test of the readout's words: the outage and its missed slots head it; each
    policy's line names its catch-up jobs, skips, next releases, phase and deadline."""
    for down, up, deadline in [("09:30", "10:10", "5m"), ("09:30", "10:10", "1s"), ("09:30", "09:35", "5m")]:
        runs = mx.policy_runs(down, up, deadline)
        lines = mx.readout_text(t(down), t(up), runs).splitlines()
        assert lines[0].startswith(f"pump down {down} \u2192 {up} (")
        assert all(hm(s) in lines[0] for s in runs[0].missed) and ("no slot missed" in lines[0]) == (not runs[0].missed)
        for line, r in zip(lines[1:], runs):
            f = mx.line_facts(r)
            assert line.startswith(f"{r.policy}:")
            assert all(f"(slot {hm(s)}" in line for s, _ in f["catch_up"])
            assert all(f"{hm(s)} skipped at {hm(x)}" in line for s, x in f["skipped"])
            assert ", ".join(hm(x) for x in f["then"]) in line
            before, after = f["phase"]
            assert (f"phase {before} kept" if before == after else f"phase {before} \u2192 {after}") in line
            assert r.deadline is None or f"misfire_grace_time {mx.format_duration(r.deadline)}" in line
            assert ("misfire_grace_time" in line) == (r.deadline is not None)


def test_a_restart_just_before_a_slot_parts_the_three_snaps():
    runs = {r.policy: r for r in mx.policy_runs("09:30", "10:05", "5m")}
    assert [hm(r) for r in runs["snap"].then[:2]] == ["10:07", "10:22"]      # bullmq 6.7.0: nearest :07 slot
    assert [hm(r) for r in runs["snap-v5"].then[:2]] == ["10:22", "10:37"]   # bullmq 5.58.8-5.80.1: steps over 10:07
    assert [hm(r) for r in runs["epoch"].then[:2]] == ["10:15", "10:30"]     # legacy repeatable: quarter hours
    assert mx.policy_runs("09:30", "10:05", "5m", engine=True) == list(runs.values())
    assert {p: f for p, f in line_facts(runs.values()).items() if p in ("snap", "snap-v5", "epoch")} == {
        "snap": ([("09:37", "10:05:00")], [], ["10:07", "10:22"], (":07", ":07")),
        "snap-v5": ([("09:37", "10:05:00")], [], ["10:22", "10:37"], (":07", ":07")),
        "epoch": ([("09:37", "10:05:00")], [], ["10:15", "10:30"], (":07", ":00"))}


def test_engine_agrees_with_the_reference_model():
    for down, up, deadline in [("09:30", "10:10", "5m"), ("09:30", "10:07", "35m"), ("09:12", "10:34", "1s"),
                               ("09:30", "09:35", "5m"), ("10:00", "11:00", "60m")]:
        assert mx.policy_runs(down, up, deadline, engine=True) == mx.policy_runs(down, up, deadline)
        lines = mx.engine_check(down, up, deadline).splitlines()
        assert len(lines) == 8
        assert all("engine = reference" in line and "lost 0" in line and "duplicates 0" in line
                   for line in lines[1:])


def test_engine_check_text():
    jobs = {"snap": 9, "snap-v5": 9, "epoch": 10, "release": 9, "all": 11, "once": 9, "deadline": 9}
    assert mx.engine_counts() == {p: {"same": True, "jobs": n, "skipped": 0, "lost": 0, "duplicates": 0, "rows": 1}
                                  for p, n in jobs.items()}
    lines = mx.engine_check().splitlines()
    assert lines[0] == "pump down 09:30 \u2192 10:10, deadline 5 min" and len(lines) == 1 + len(jobs)
    assert all(line.startswith(p + ":") and f"{n} jobs" in line for line, (p, n) in zip(lines[1:], jobs.items()))


def test_snap_arithmetic():
    e = Every("15m")
    phase = e.phase(t("09:07"))
    assert phase == 7 * MIN
    assert e.after(t("09:37"), t("10:10"), phase, "offset") == t("10:22")
    assert e.after(t("09:37"), t("10:10"), phase, "epoch") == t("10:15")
    assert mx.snap_facts() == {"every": 15 * MIN, "phase": 7 * MIN, "prev": t("09:37"), "now": t("10:10"),
                               "base": t("10:00"), "a": t("10:07"), "offset": t("10:22"), "v5": t("10:22"),
                               "epoch": t("10:15")}
    # restart at 10:05: a = 10:07 is still ahead, so the offset snap lands there, where the
    # 5.58.8-5.80.1 formula steps over 10:07 to 10:22, and the legacy one goes to 10:15
    assert {k: hm(v) for k, v in mx.snap_facts("09:37", "10:05").items() if k in ("a", "offset", "v5", "epoch")} == \
        {"a": "10:07", "offset": "10:07", "v5": "10:22", "epoch": "10:15"}
    # the worked lines name every number, and say which side of now `a` fell
    for now in ("10:10", "10:05"):
        f, text = mx.snap_facts("09:37", now), mx.snap_arithmetic("09:37", now)
        assert all(str(f[k]) in text for k in ("every", "phase", "prev", "now", "base", "a", "offset", "v5", "epoch"))
        assert ("a <= now" in text) == (f["a"] <= f["now"])
    assert mx.snap_arithmetic("09:37", "09:45") == (
        f"prev + every = {t('09:52')} (09:52) is not before now = {t('09:45')} (09:45): "
        "nothing to snap, the next run is 09:52 under all three formulas")


def test_schedule_and_inputs():
    assert mx.lane_schedule("release").rule == "release"
    s = mx.lane_schedule("deadline", "5m")                     # emqsim.peers.apscheduler.settings(300)
    assert (s.missed, s.deadline, s.overlap) == ("once", 300_000, "skip")
    assert (mx.lane_schedule("all").missed, mx.lane_schedule("once").missed, mx.lane_schedule("once").deadline) == ("all", "once", None)
    with pytest.raises(InputError, match=r"^deadline 1500 must be whole seconds, 1 s or more"):
        mx.lane_schedule("deadline", 1500)
    assert mx.lane_schedule("snap").missed == "snap"
    with pytest.raises(InputError,
                       match=r"^policy 'late' is not one of snap, snap-v5, epoch, release, all, once, deadline$"):
        mx.lane_schedule("late")
    assert mx.clock_time("9:30") == t("09:30")
    assert mx.clock_time(t("09:30")) == t("09:30")
    for bad in ("25:00", "soon", "\uff11\uff10:\uff11\uff10", 9.5, True):
        with pytest.raises(InputError, match=r"^pump down .* is not a time; give HH:MM"):
            mx.policy_runs(bad, "10:10")
    # the outage checks are the engine's: Faults refuses an outage that ends before it starts,
    # the run one that begins before the schedule's first run (09:07)
    with pytest.raises(InputError, match=r"^outage ends at \d+ before it starts at \d+"):
        mx.policy_runs("10:30", "10:00")
    with pytest.raises(InputError, match=r"^outage begins at \d+, before the start \d+"):
        mx.policy_runs("09:00", "10:10")
    with pytest.raises(InputError, match=r"^outage begins at \d+, before the start \d+"):
        mx.engine_check("09:00", "10:10")


def test_every_outage_on_a_10_minute_lattice():
    # the policies' promises, for every outage the sliders reach in 10-min steps
    grid = range(t("09:10"), t("11:00") + 1, 10 * MIN)
    for down in grid:
        for up in (u for u in grid if u >= down):
            runs = {r.policy: r for r in mx.policy_runs(down, up, "5m")}
            text = mx.readout_text(down, up, list(runs.values()))
            assert len(text.splitlines()) == 8
            missed = runs["snap"].missed
            assert all((r - t("09:07")) % (15 * MIN) == 0 for r in runs["snap"].then)      # phase kept
            assert all((r - t("09:07")) % (15 * MIN) == 0 for r in runs["snap-v5"].then)   # phase kept
            # the two job-scheduler snaps differ only when the nearest :07 slot is still ahead
            # of the release: the 5.58.8-5.80.1 formula steps over it, one gap later
            if runs["snap"].then and runs["snap-v5"].then and runs["snap"].then[0] != runs["snap-v5"].then[0]:
                assert runs["snap-v5"].then[0] == runs["snap"].then[0] + 15 * MIN
            # the epoch snap moves to quarter hours only when prev + every is behind the release;
            # a row late by less than a gap just takes prev + every, still on :07
            if missed and up > missed[0] + 15 * MIN:
                assert all(r % (15 * MIN) == 0 for r in runs["epoch"].then)
            else:
                assert all((r - t("09:07")) % (15 * MIN) == 0 for r in runs["epoch"].then)
            assert [s for s, _ in runs["all"].catch_up] == list(missed)                    # one job per slot
            for p in ("snap", "snap-v5", "epoch", "release", "once"):
                assert len(runs[p].catch_up) == (1 if missed else 0)
            if missed:
                assert runs["release"].then[0] == up + 15 * MIN
                assert runs["once"].catch_up[0][0] == missed[-1]                           # the latest slot
                assert runs["snap"].catch_up[0][0] == missed[0]                            # the row's slot
                late = runs["deadline"].catch_up or runs["deadline"].skipped
                assert [s for s, _ in late] == [missed[-1]]                                # the latest, run or dropped


# -- the engine's runs as text (the notebook's sections 4 to 6) ------------------------------------

def test_deadline_trace():
    lines = mx.deadline_trace("1s").splitlines()
    assert [line.split()[1:3] for line in lines[2:6]] == [["09:07:00", "09:07:00"], ["09:22:00", "09:22:00"],
                                                          ["10:22:00", "10:22:00"], ["10:37:00", "10:37:00"]]
    assert lines[6] == "registry rows 1 \u00b7 next run 10:52:00 \u00b7 duplicates 0 \u00b7 lost 0 \u00b7 skipped 1"
    assert lines[7] == "[('10:07', '10:10:00', 'deadline')]"
    assert len(lines) == 8
    # inside a 5-min deadline 10:07 runs late at 10:10 and nothing is skipped
    assert mx.deadline_trace("5m").splitlines()[-1] == "[]"


def test_the_cli_prints_the_replay_all_lane():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(["trace", "--every", "15m", "--start", "2026-11-30T09:07:00Z",
                       "--outage", "2026-11-30T09:30:00Z/2026-11-30T10:10:00Z", "--missed", "all",
                       "--until", "2026-11-30T10:40:00Z"])
    assert status == 0
    lines = out.getvalue().splitlines()
    runs = runs_of(mx.policy_runs(), "all")
    assert [(line.split()[1], line.split()[2]) for line in lines[2:9]] == \
        [(hms(s), hms(r)) for s, r in runs.fires if r <= t("10:40")]
    assert lines[9] == "registry rows 1 \u00b7 next run 10:52:00 \u00b7 duplicates 0 \u00b7 lost 0"


def test_bullmq_store():
    def job(slot):
        return (f"repeat:reports:{t(slot)}", t(slot))

    states = mx.bullmq_states()
    assert states == {"09:29": {"score": t("09:37"), "delayed": (job("09:37"),), "ic": 3},
                      "10:09": {"score": t("09:37"), "delayed": (job("09:37"),), "ic": 3},
                      "10:10": {"score": t("10:22"), "delayed": (job("10:22"),), "ic": 4}}
    for line, (clock, st) in zip(mx.bullmq_store().splitlines(), states.items()):
        assert line.startswith(f"{clock}  row {hm(st['score'])}") and st["delayed"][0][0] in line
        assert line.endswith(f"ic {st['ic']}")


def test_designs():
    def clocks(by_design):
        return {d: [hm(x) for x in slots] for d, slots in by_design.items()}

    pump = mx.designs_facts("pump")
    assert pump["outage"] == (t("09:30"), t("10:10"))
    assert clocks(pump["waiting"]) == {"pump": [], "bullmq": ["09:37"]}
    assert clocks(pump["no_job"]) == {"pump": ["09:52", "10:07"], "bullmq": ["09:52", "10:07"]}
    third = list(pump["comparison"].pump)[2], list(pump["comparison"].bullmq)[2]
    assert [(hm(x.slot), hm(x.started)) for x in third] == [("09:37", "10:10"), ("09:37", "10:10")]
    workers = mx.designs_facts("workers")
    assert clocks(workers["waiting"]) == {"pump": ["09:37", "09:52", "10:07"], "bullmq": ["09:37"]}
    assert clocks(workers["no_job"]) == {"pump": [], "bullmq": ["09:52", "10:07"]}
    assert workers["comparison"].summary()["pump"]["runs"] == 7
    assert workers["comparison"].summary()["pump"]["waiting"] == 3
    # the text prints them: the outage, the comparison's table, then a line a design
    for stopped, f in (("pump", pump), ("workers", workers)):
        text = mx.designs(stopped).splitlines()
        assert text[0].startswith(f"pump design with the {stopped} stopped") and "09:30 to 10:10" in text[0]
        assert "\n".join(text[1:-2]) == f["comparison"].table()
        for line, design in zip(text[-2:], ("pump", "bullmq")):
            assert line.startswith(design) and str(clocks(f["waiting"])[design]) in line
            assert line.endswith(f"no job for {clocks(f['no_job'])[design]}")
    with pytest.raises(InputError, match="stopped 'nobody'"):
        mx.designs("nobody")


# -- the model -------------------------------------------------------------------------------------

def test_default_frame_is_the_example():
    f = mx.MissedModel().frame()
    assert line_facts(f.runs) == EXAMPLE and f.readout == mx.readout_text(f.down, f.up, f.runs)
    assert (f.down, f.up, f.deadline) == (t("09:30"), t("10:10"), 5 * MIN)
    assert f.title == "pump down 09:30 \u2192 10:10 \u00b7 deadline 5 min"
    assert f.band == (t("09:30"), 40 * MIN)
    assert [r.policy for r in f.runs] == list(mx.POLICIES)
    assert f.runs == tuple(mx.policy_runs())


def test_frame_points():
    f = mx.MissedModel().frame()
    deadline_lane = sorted(x for x, y in f.released if y == 0)
    assert deadline_lane == [t(x) for x in ("09:07", "09:22", "10:10", "10:22", "10:37", "10:52", "11:07", "11:22",
                                            "11:37")]
    all_lane = sorted(x for x, y in f.released if y == 2)
    assert all_lane[2:5] == [t("10:10"), t("10:10") + 1000, t("10:10") + 2000]
    assert f.rings == ((t("09:37"), 6), (t("09:37"), 5), (t("09:37"), 4), (t("09:37"), 3), (t("09:37"), 2),
                       (t("09:52"), 2), (t("10:07"), 2), (t("10:07"), 1), (t("10:07"), 0))
    assert f.links[-1] == ((t("10:07"), 0), (t("10:10"), 0))
    assert f.skips == () and f.skip_links == ()
    assert f.collapsed == ((t("09:52"), 6), (t("10:07"), 6), (t("09:52"), 5), (t("10:07"), 5), (t("09:52"), 4),
                           (t("10:07"), 4), (t("09:52"), 3), (t("10:07"), 3), (t("09:37"), 1), (t("09:52"), 1),
                           (t("09:37"), 0), (t("09:52"), 0))
    # a count where several jobs catch up, placed at the first
    assert f.counts == (("", t("10:10")),) * 4 + (("\u00d73", t("10:10")), ("", t("10:10")), ("", t("10:10")))
    # APScheduler's default grace: the deadline lane drops 10:07, a cross joined to 10:10
    f = mx.MissedModel().frame(deadline=1000)
    assert f.skips == ((t("10:07"), 0),) and f.skip_links == (((t("10:07"), 0), (t("10:10"), 0)),)
    assert f.counts[-1] == ("", mx.VIEW[0])


def test_moving_the_restart_and_the_deadline():
    m = mx.MissedModel()
    f = m.frame(up=t("10:07"))
    facts = line_facts(f.runs)
    assert facts["snap"] == facts["release"] == ([("09:37", "10:07:00")], [], ["10:22", "10:37"], (":07", ":07"))
    assert facts["once"] == ([("10:07", "10:07:00")], [], ["10:22", "10:37"], (":07", ":07"))
    assert f.band == (t("09:30"), 37 * MIN)
    f = m.frame(deadline=1000)
    assert line_facts(f.runs)["deadline"] == ([], [("10:07", "10:10:00")], ["10:22", "10:37"], (":07", ":07"))
    assert f.runs[-1].deadline == 1000
    assert f.skips == ((t("10:07"), 0),)
    assert f.title.endswith("deadline 1 s")
    f = m.frame(up=t("10:05"))
    assert f.runs[0].missed == (t("09:37"), t("09:52"))
    assert {p: x[2] for p, x in line_facts(f.runs).items() if p in ("snap", "snap-v5", "epoch")} == {
        "snap": ["10:07", "10:22"], "snap-v5": ["10:22", "10:37"], "epoch": ["10:15", "10:30"]}
    f = m.frame(down=t("09:30"), up=t("09:35"))
    assert f.runs[0].missed == ()
    assert line_facts(f.runs) == {p: ([], [], ["09:37", "09:52"], (":07", ":07")) for p in mx.POLICIES}


def test_pump_up_offers_only_restarts_at_or_after_pump_down():
    """The two sliders cannot cross: pump up's positions start at pump down (an outage of no
    length is one, the engine accepts it and nothing is missed), so no position draws a refusal."""
    m = mx.MissedModel()
    assert mx.restarts(t("10:30")) == tuple(range(t("10:30"), t("11:00") + 1, MIN))
    ups = m.positions("up", {"down": t("10:30")})
    assert (len(ups), ups[0], ups[-1]) == (31, ("10:30", t("10:30")), ("11:00", t("11:00")))
    assert len(m.positions("up", m.defaults())) == 91          # 09:30 to 11:00, not the 111 of TIMES
    assert m.positions("up", {"down": t("11:00")}) == (("11:00", t("11:00")),)
    with pytest.raises(InputError, match=r"^pump up 1796032800000 \(10:00\) is refused; give one of the 31 "
                                         r"positions from 1796034600000 \(10:30\) to 1796036400000 \(11:00\)$"):
        m.frame(down=t("10:30"), up=t("10:00"))
    # moving pump down past pump up takes pump up with it, to the first restart offered
    assert m.values(None, down=t("10:30"))["up"] == t("10:30")
    assert m.values({"down": t("09:30"), "up": t("10:40"), "deadline": mx.DEADLINE}, down=t("10:30"))["up"] == \
        t("10:40")
    assert m.frame(down=t("10:30"), up=t("10:40")).readout.splitlines()[0] == \
        "pump down 10:30 \u2192 10:40 (10 min): slot 10:37 missed"
    assert m.frame(down=t("10:30"), up=t("10:30")).readout.splitlines()[0] == \
        "pump down 10:30 \u2192 10:30 (0 s): no slot missed"


@pytest.mark.parametrize("name,bad", [
    ("down", t("09:05")), ("down", "09:30"), ("down", t("09:30") + 1), ("down", float(t("09:30"))), ("down", True),
    ("up", t("11:01")), ("up", "soon"), ("deadline", -5 * MIN), ("deadline", 90_000), ("deadline", "5m"),
    ("deadline", 61 * MIN), ("nope", 1),
])
def test_bad_values_raise_and_change_nothing(name, bad):
    from emqsim.figures.catalogue import figure

    fig = figure("04 missed slots")
    fig.update(up=t("10:07"))
    before = (dict(fig.values), fig.frame)
    label = {"down": "pump down", "up": "pump up", "deadline": "deadline"}.get(name, "no control")
    with pytest.raises(InputError, match=rf"^{label} .*(is refused; give one of the|{name})"):
        fig.update(**{name: bad})
    assert (fig.values, fig.frame) == before
    with pytest.raises(InputError):
        fig.model.frame(**{name: bad})


def test_laziness_and_shared_runs(monkeypatch):
    calls = []
    real = mx.policy_run

    def counted(policy, *a, **kw):
        calls.append(policy)
        return real(policy, *a, **kw)

    monkeypatch.setattr(mx, "policy_run", counted)
    m = mx.MissedModel()
    assert calls == []                                    # building the model runs nothing
    m.frame()
    assert calls == list(mx.POLICIES)                     # one frame: one run per policy
    m.frame(deadline=35 * MIN)
    assert calls[7:] == ["deadline"]                      # the deadline reruns only its lane
    m.frame(deadline=5 * MIN, up=t("10:07"))
    m.frame(up=t("10:10"))
    assert len(calls) == 15                               # back to the default: nothing reruns
    with pytest.raises(InputError):
        m.frame(down=t("10:30"), up=t("10:00"))
    assert len(calls) == 15                               # a refused outage runs nothing


def test_reachable_walks_the_restart():
    m = mx.MissedModel()
    combos, held = m.reachable()
    assert held == ["down", "deadline"]
    assert [c["up"] for c in combos] == list(mx.TIMES[20:])   # 09:30 (pump down) to 11:00
    assert {(c["down"], c["deadline"]) for c in combos} == {(mx.DOWN, mx.DEADLINE)}
    assert m.main().name == "up" and m.main().play.max_step == 15
    assert m.positions("deadline", m.defaults())[5] == ("5 min", 5 * MIN)
    assert m.positions("down", m.defaults())[0] == ("09:10", t("09:10"))
    frames = [m.frame_at(c) for c in combos]
    # every position the site renders is an outage: a head line and seven lanes, none refused
    assert len(frames) == 91 and all(len(f.readout.splitlines()) == 8 and f.runs for f in frames)


def test_the_deadline_lane_names_apschedulers_setting_and_default():
    """Issue 28: the lane runs 10:07 at 10:10 only because its grace is the slider's 5 min;
    APScheduler 3's own default misfire_grace_time (1 s, asked live) drops it. The label and the
    readout name the setting and the default."""
    from apscheduler.schedulers.background import BackgroundScheduler
    sched = BackgroundScheduler()
    sched.start(paused=True)
    try:
        job = sched.add_job(print, "interval", minutes=15)
    finally:
        sched.shutdown(wait=False)
    assert job.misfire_grace_time == 1                    # the live default, as the readout says
    assert mx.LABELS["deadline"].endswith("APScheduler, its grace:\nthe deadline")
    five = mx.readout_text(mx.DOWN, mx.UP, mx.policy_runs()).splitlines()[7]
    assert five.endswith(f"misfire_grace_time 5 min (default {job.misfire_grace_time} s)")
    one = mx.readout_text(mx.DOWN, mx.UP, mx.policy_runs(deadline=1000)).splitlines()[7]
    assert "10:07 skipped" in one and one.endswith("misfire_grace_time 1 s")


def test_lane_labels_say_their_settings_in_words():
    """The deadline lane was labelled "APScheduler grace=slider" (issue 30): a setting written as
    code, naming a control the site holds still. Each lane's label is words: no `name=value`, and
    the deadline lane says its grace is the deadline the title and the slider name."""
    assert [label for label in mx.LABELS.values() if re.search(r"\w=\w", label)] == []
    assert "slider" not in " ".join(mx.LABELS.values())
    assert "deadline" in " ".join(mx.LABELS["deadline"].splitlines()[1:])
