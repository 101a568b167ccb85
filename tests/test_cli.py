from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from emqsim.cli import main
from emqsim.engine.timefmt import at
from servers import needs_redis_server, redis_server

DAY = "2026-11-30 "


def run_json(capsys, *args: str) -> dict:
    assert main(["trace", *args, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count("\n") == 1  # exactly one JSON object on one line
    return json.loads(out)


def ms(*hhmmss: str) -> list[int]:
    return [at(DAY + t) for t in hhmmss]


def test_finish_rule_measures_the_gap_from_the_end_of_the_run(capsys):
    out = run_json(capsys, "--every", "15m", "--run", "4m", "--fires", "4", "--rule", "finish")
    assert [f["released"] for f in out["fires"]] == ms("09:00", "09:19", "09:38", "09:57")
    assert [f["finished"] for f in out["fires"]] == ms("09:04", "09:23", "09:42", "10:01")
    assert [f["n"] for f in out["fires"]] == [1, 2, 3, 4]
    assert out["registry_size"] == 1
    assert out["next"] == at(DAY + "10:16")
    assert (out["duplicates"], out["lost"], out["skipped"]) == (0, 0, 0)
    assert set(out) == {"fires", "registry_size", "next", "duplicates", "lost", "skipped"}
    assert set(out["fires"][0]) == {"n", "slot", "released", "started", "finished", "job_id", "cancelled"}


def test_schedule_rule_keeps_the_slots(capsys):
    out = run_json(capsys, "--every", "15m", "--run", "4m", "--fires", "4")
    assert [f["slot"] for f in out["fires"]] == ms("09:00", "09:15", "09:30", "09:45")
    assert [f["released"] for f in out["fires"]] == ms("09:00", "09:15", "09:30", "09:45")
    assert out["next"] == at(DAY + "10:00")
    assert out["registry_size"] == 1


@pytest.mark.parametrize("start", ["2026-11-30T08:48:00Z", "2026-11-30T09:00:00Z"])
def test_cron_first_run_is_the_first_slot_at_or_after_start(capsys, start):
    out = run_json(capsys, "--cron", "0 9 * * *", "--start", start, "--fires", "1")
    assert [f["slot"] for f in out["fires"]] == ms("09:00:00")
    assert out["next"] == at("2026-12-01 09:00")


def test_cron_in_a_zone_reads_naive_times_there(capsys):
    out = run_json(capsys, "--cron", "0 9 * * *", "--tz", "America/New_York",
                   "--start", "2026-11-30T08:00:00", "--fires", "1")
    assert out["fires"][0]["slot"] == at(DAY + "14:00")  # 09:00 EST


def test_two_step_crash_after_enqueue_duplicates_the_slot(capsys):
    out = run_json(capsys, "--every", "15m", "--fires", "6", "--crash-after-enqueue", "3")
    assert (out["duplicates"], out["lost"]) == (1, 0)
    assert [f["slot"] for f in out["fires"]] == ms("09:00", "09:15", "09:30", "09:30", "09:45", "10:00")
    # the restart comes one tick (1 s) after the crash and re-fires 09:30 under a new id
    assert out["fires"][3]["released"] == at(DAY + "09:30:01")
    assert out["fires"][2]["job_id"] != out["fires"][3]["job_id"]


def test_atomic_pump_survives_the_same_crash(capsys):
    out = run_json(capsys, "--every", "15m", "--fires", "6", "--crash-after-enqueue", "3", "--pump", "atomic")
    assert (out["duplicates"], out["lost"]) == (0, 0)
    assert [f["slot"] for f in out["fires"]] == ms("09:00", "09:15", "09:30", "09:45", "10:00", "10:15")


def test_outage_collapses_missed_slots_and_keeps_the_phase(capsys):
    out = run_json(capsys, "--start", "2026-11-30T09:07:00Z", "--every", "15m", "--fires", "4",
                   "--outage", "2026-11-30T09:30:00Z/2026-11-30T10:10:00Z")
    assert [f["released"] for f in out["fires"]] == ms("09:07", "09:22", "10:10", "10:22")
    assert [f["slot"] for f in out["fires"]] == ms("09:07", "09:22", "09:37", "10:22")
    assert (out["duplicates"], out["lost"]) == (0, 0)


OUTAGE = ["--start", "2026-11-30T09:07:00Z", "--every", "15m", "--until", "2026-11-30T10:40:00Z",
          "--outage", "2026-11-30T09:30:00Z/2026-11-30T10:10:00Z"]


@pytest.mark.parametrize("flags, released, slots, skipped", [
    ([], ("09:07", "09:22", "10:10", "10:22", "10:37"), ("09:07", "09:22", "09:37", "10:22", "10:37"), 0),
    (["--missed", "epoch"], ("09:07", "09:22", "10:10", "10:15", "10:30"),
     ("09:07", "09:22", "09:37", "10:15", "10:30"), 0),
    (["--rule", "release"], ("09:07", "09:22", "10:10", "10:25", "10:40"),
     ("09:07", "09:22", "09:37", "10:25", "10:40"), 0),
    (["--missed", "all"], ("09:07", "09:22", "10:10:00", "10:10:01", "10:10:02", "10:22", "10:37"),
     ("09:07", "09:22", "09:37", "09:52", "10:07", "10:22", "10:37"), 0),
    (["--missed", "once"], ("09:07", "09:22", "10:10", "10:22", "10:37"),
     ("09:07", "09:22", "10:07", "10:22", "10:37"), 0),
    (["--missed", "skip", "--deadline", "5m"], ("09:07", "09:22", "10:22", "10:37"),
     ("09:07", "09:22", "10:22", "10:37"), 1),
])
def test_missed_slots_after_an_outage(capsys, flags, released, slots, skipped):
    out = run_json(capsys, *OUTAGE, *flags)
    assert [f["released"] for f in out["fires"]] == ms(*released)
    assert [f["slot"] for f in out["fires"]] == ms(*slots)
    assert (out["skipped"], out["lost"], out["duplicates"]) == (skipped, 0, 0)


@pytest.mark.parametrize("policy, slots, started, cancelled, skipped", [
    ("allow", ("09:00", "09:15", "09:30", "09:45"), ("09:00", "09:15", "09:30", "09:45"), 0, 0),
    ("skip", ("09:00", "09:30"), ("09:00", "09:30"), 0, 2),
    ("buffer-one", ("09:00", "09:15", "09:30", "09:45"), ("09:00", "09:20", "09:40", "10:00"), 0, 0),
    ("replace", ("09:00", "09:15", "09:30", "09:45"), ("09:00", "09:15", "09:30", "09:45"), 3, 0),
])
def test_overlap_policies(capsys, policy, slots, started, cancelled, skipped):
    out = run_json(capsys, "--every", "15m", "--run", "20m", "--concurrency", "2", "--overlap", policy,
                   "--until", "2026-11-30T09:45:00Z")
    assert [f["slot"] for f in out["fires"]] == ms(*slots)
    assert [f["started"] for f in out["fires"]] == ms(*started)
    assert sum(f["cancelled"] for f in out["fires"]) == cancelled
    assert out["skipped"] == skipped


def test_table_marks_cancelled_runs_and_counts_skips(capsys):
    assert main(["trace", "--every", "15m", "--run", "20m", "--overlap", "replace", "--fires", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "   1  09:00:00  09:00:00  09:00:00  09:15:00  JOB0SUaKlrtAo4  cancelled"
    assert lines[-1] == "registry rows 1 · next run 09:30:00 · duplicates 0 · lost 0"
    assert main(["trace", "--every", "15m", "--run", "20m", "--overlap", "skip", "--fires", "2"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == \
        "registry rows 1 · next run 09:45:00 · duplicates 0 · lost 0 · skipped 1"


def test_until_stops_at_the_horizon(capsys):
    out = run_json(capsys, "--every", "15m", "--until", "2026-11-30T10:00:00Z")
    assert [f["slot"] for f in out["fires"]] == ms("09:00", "09:15", "09:30", "09:45", "10:00")
    assert out["next"] == at(DAY + "10:15")


def test_a_parked_row_prints_next_as_null(capsys):
    out = run_json(capsys, "--every", "15m", "--run", "20m", "--rule", "finish", "--until", "2026-11-30T09:10:00Z")
    assert out["next"] is None  # the run ends at 09:20: until then the row is parked
    assert [f["finished"] for f in out["fires"]] == ms("09:20")


def test_table_format(capsys):
    assert main(["trace", "--every", "15m", "--run", "4m", "--fires", "4", "--rule", "finish"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "   n  slot      released  started   finished  job_id"
    assert lines[1] == "-" * len(lines[0])
    assert lines[3][:50] == "   2  09:19:00  09:19:00  09:19:00  09:23:00  JOB0"
    assert len(lines[3]) == 60
    assert lines[-1] == "registry rows 1 · next run 10:16:00 · duplicates 0 · lost 0"
    assert len(lines) == 7


def test_table_dates_rows_when_the_trace_spans_days(capsys):
    assert main(["trace", "--cron", "0 9 * * *", "--fires", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "   n  date        slot      released  started   finished  job_id"
    assert [ln[:26] for ln in lines[2:5]] == ["   1  2026-11-30  09:00:00", "   2  2026-12-01  09:00:00",
                                              "   3  2026-12-02  09:00:00"]


def test_beat_rearm_is_echomqs_pump(capsys):
    grid = run_json(capsys, "--every", "1500ms", "--tick", "1s", "--latency", "200ms", "--fires", "5")
    rearm = run_json(capsys, "--every", "1500ms", "--tick", "1s", "--latency", "200ms", "--fires", "5",
                     "--beat", "rearm")
    t0 = at(DAY + "09:00")
    assert [f["released"] - t0 for f in grid["fires"]] == [200, 2200, 3200, 5200, 6200]
    assert [f["released"] - t0 for f in rearm["fires"]] == [200, 2400, 3600, 4800, 7000]


def test_table_shows_times_in_the_zone(capsys):
    assert main(["trace", "--every", "1h", "--fires", "1", "--tz", "Asia/Kolkata"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[2].startswith("   1  14:30:00  14:30:00")  # 09:00Z is 14:30 IST
    assert lines[-1] == "registry rows 1 · next run 15:30:00 · duplicates 0 · lost 0"


def test_job_ids_are_the_same_on_every_run(capsys):
    first = run_json(capsys, "--every", "15m", "--fires", "3")
    again = run_json(capsys, "--every", "15m", "--fires", "3")
    assert [f["job_id"] for f in first["fires"]] == [f["job_id"] for f in again["fires"]]


BAD = [
    (["--cron", "0 25 * * *", "--fires", "1"], "--cron: invalid cron '0 25 * * *'"),
    (["--every", "0", "--fires", "1"],
     "--every '0' must be positive; give a length like 15m, 90s, 1h30m or 900000ms"),
    (["--every", "15m", "--tz", "Mars/Olympus", "--fires", "1"], "--tz: unknown time zone 'Mars/Olympus'"),
    (["--every", "15m", "--run", "-4m", "--fires", "1"], "--run '-4m' is negative"),
    (["--every", "15m", "--run=-4m", "--fires", "1"], "--run '-4m' is negative"),
    (["--every", "15m", "--tick", "soon", "--fires", "1"], "--tick 'soon' is not a duration"),
    (["--every", "15m", "--fires", "1", "--outage", "2026-11-30T10:00:00Z/2026-11-30T09:30:00Z"],
     "--outage ends at 2026-11-30T09:30:00Z before it starts at 2026-11-30T10:00:00Z"),
    (["--every", "15m", "--fires", "0"], "--fires '0' must be a whole number, 1 or more"),
    (["--every", "15m", "--fires", "-2"], "--fires '-2' must be a whole number, 1 or more"),
    (["--every", "15m", "--fires", "2000000"], "--fires '2000000' is too many; give at most 1,000,000"),
    (["--every", "15m", "--start", "30/11/2026 09:00", "--fires", "1"],
     "--start: '30/11/2026 09:00' is not an ISO 8601 time; write it like 2026-11-30T09:00:00Z"),
    (["--every", "15m", "--until", "tomorrow"], "--until: 'tomorrow' is not an ISO 8601 time"),
    (["--cron", "0 9 * * *", "--offset", "3m", "--fires", "1"], "--offset '3m' applies to --every, not to --cron"),
    (["--every", "15m", "--cron", "0 9 * * *", "--fires", "1"], "argument --cron: not allowed with argument --every"),
    (["--fires", "1"], "one of the arguments --every --cron is required"),
    (["--every", "15m", "--fires", "1", "--until", "2026-11-30T10:00:00Z"],
     "argument --until: not allowed with argument --fires"),
    (["--every", "15m"], "one of the arguments --fires --until is required"),
    (["--every", "1s", "--until", "2026-12-30T09:00:00Z"], "--until '2026-12-30T09:00:00Z' is about 2,592,001 fires"),
    (["--cron", "* * * * * *", "--until", "2026-12-30T09:00:00Z"], "--until '2026-12-30T09:00:00Z' is about 2,592,"),
    (["--every", "15m", "--until", "2026-11-30T08:00:00Z"], "--until '2026-11-30T08:00:00Z' is before start"),
    (["--every", "15m", "--fires", "1", "--rule", "sometimes"], "argument --rule: invalid choice: 'sometimes'"),
    (["--every", "15m", "--fires", "1", "--crash-after-enqueue", "0"], "--crash-after-enqueue '0' must be a whole number"),
    (["--every", "15m", "--fires", "1", "--concurrency", "two"], "--concurrency 'two' must be a whole number"),
    (["--every", "15m", "--fires", "1", "--missed", "skip"],
     "--deadline: missed 'skip' needs a deadline: how late a release may still run, like 5m"),
    (["--every", "15m", "--fires", "1", "--deadline", "5m"], "--deadline '5m' applies to missed 'skip' or 'once', not to 'snap'"),
    (["--every", "15m", "--fires", "1", "--missed", "skip", "--deadline", "-5m"], "--deadline '-5m' is negative"),
    (["--every", "15m", "--fires", "1", "--missed", "all", "--rule", "finish"],
     "--missed 'all' needs rule 'schedule', not 'finish'"),
    (["--every", "15m", "--fires", "1", "--missed", "late"], "argument --missed: invalid choice: 'late'"),
    (["--every", "15m", "--fires", "1", "--overlap", "queue"], "argument --overlap: invalid choice: 'queue'"),
    (["--every", "15m", "--fires", "1", "--snap", "epoch"], "unrecognized arguments: --snap epoch"),
    (["--every", "15m", "--fires", "3", "--missed", "skip", "--deadline", "0", "--latency", "2s"],
     "--fires: 1000 occurrences in a row were skipped and none produced, so fires=3 is never reached"),
]


@pytest.mark.parametrize("args, message", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    assert main(["trace", *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"emqsim: error: {message}")
    assert "Traceback" not in err


def test_no_command_is_an_error(capsys):
    assert main([]) == 2
    assert capsys.readouterr().err == "emqsim: error: the following arguments are required: COMMAND\n"


def test_help_exits_0(capsys):
    assert main(["trace", "--help"]) == 0
    assert capsys.readouterr().out.startswith("usage: emqsim trace ")


def test_importing_the_cli_stays_light():
    code = ("import sys, emqsim.cli; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'matplotlib', 'ipywidgets', 'fakeredis'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "[]\n"


def test_python_dash_m(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "emqsim", "trace", "--every", "15m", "--fires", "2", "--format", "json"],
                        capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert [f["released"] for f in json.loads(ok.stdout)["fires"]] == ms("09:00", "09:15")
    bad = subprocess.run([sys.executable, "-m", "emqsim", "trace", "--every", "0", "--fires", "2"],
                         capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert bad.returncode == 2
    assert bad.stdout == ""
    assert bad.stderr == ("emqsim: error: --every '0' must be positive; "
                          "give a length like 15m, 90s, 1h30m or 900000ms\n")
    assert "Traceback" not in bad.stderr


def test_main_leaves_the_callers_sigterm_handler_in_place():
    """Called in-process, `main` must not leave its own SIGTERM handler installed."""
    import signal

    before = signal.getsignal(signal.SIGTERM)
    assert main(["trace", "--every", "15m", "--fires", "1"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before


@needs_redis_server
def test_a_trace_on_a_real_server_loads_no_numpy(tmp_path):
    """A classroom starts `emqsim trace` thirty times at once (test_classroom.py): numpy was a third
    of each start-up, loaded for `Trace.arrays`, which only a plot reads. On the embedded server
    fakeredis loads it anyway."""
    code = ("import sys; from emqsim.cli import main; code = main(['trace', '--every', '15m', '--fires', '3']); "
            "print(code, 'numpy' in sys.modules, file=sys.stderr)")
    with redis_server(tmp_path) as server:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "EMQSIM_REDIS_URL": server.url})
    assert out.stderr == "0 False\n"
    assert out.stdout.count("JOB") == 3


def _help(capsys) -> str:
    assert main(["trace", "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())


def test_help_says_the_scripts_are_models(capsys):
    """Issue 28: the scripts are this course's models of the two schedulers, not their code."""
    text = _help(capsys)
    assert "real Lua" not in text and "model the two schedulers' own" in text


def _slots(*args: str) -> list[int]:
    out = subprocess.run([sys.executable, "-m", "emqsim", "trace", "--every", "15m", "--until", "2026-11-30T11:00:00Z",
                          "--outage", *args, "--format", "json"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [f["slot"] for f in json.loads(out.stdout)["fires"]]


def test_snap_v5_is_one_gap_later_only_when_the_offset_is_past_the_release(capsys):
    """Issue 28: bullmq 5.80.1's snap differs from 6.7.0's only when offset > now mod every: with
    the default start (offset 0) the two list the same fires; with offset 7m and a release at
    10:03 (3 min past a quarter hour) snap-v5 steps over 10:07 to 10:22."""
    assert "one gap later when the offset is greater than" in _help(capsys)
    plain = "2026-11-30T09:20:00Z/2026-11-30T10:10:00Z"
    assert _slots(plain, "--missed", "snap") == _slots(plain, "--missed", "snap-v5")
    late = ("2026-11-30T09:20:00Z/2026-11-30T10:03:00Z", "--offset", "7m")
    snap, v5 = _slots(*late, "--missed", "snap"), _slots(*late, "--missed", "snap-v5")
    (at0707,), (at1022,) = ms("10:07"), ms("10:22")
    assert at0707 in snap and at0707 not in v5 and at1022 in v5


def test_cron_help_names_cronsim_and_croniters_setting(capsys):
    """Issue 28: the debian rule's extensions are cronsim's, and croniter reads seconds first only
    with second_at_beginning=True: the help of both commands says so."""
    assert main(["cron", "--help"]) == 0
    cron = " ".join(capsys.readouterr().out.split())
    assert "cronsim's own, Debian cron refuses them" in cron and "second_at_beginning=True" in cron
    assert "croniter, Debian cron or cron-parser" not in cron
    assert "second_at_beginning=True" in _help(capsys)
