"""Bad input on the command line: each case gives exactly one stderr line that names the
flag it is about, exit status 2 and nothing on stdout; never a traceback (issue 10, part 4)."""

from __future__ import annotations

import pytest

from emqsim import cli

BASE = ["trace", "--fires", "3"]
EVERY = ["--every", "15m"]
NY = ["--tz", "America/New_York"]

#: duration text no flag accepts (the glued form keeps a leading minus a value)
BAD_DURATIONS = [
    "x", "15q", "m", "1.5ms", "1m1h", "15m15m", "\uff11\uff15m", "\u0663m", "\u0969\u0966s", "99999999999d",
    "9" * 5000, "nan", "inf", "1e3", "0x10", "15 m 3", "-1m", "1m-",
]
#: counts no flag accepts
BAD_COUNTS = ["0", "-1", "1.5", "abc", "\uff11", "\u0663", "1e3", "0x10", "9" * 5000, " ", "3 4", "\u00b2"]
#: time text no time flag accepts (read in UTC)
BAD_TIMES = ["abc", "2023-12-31T23:59:00Z", "2200-01-01T00:00:00Z", "2026-13-01T00:00:00Z",
             "\uff12026-11-30T09:00:00Z", "2026-11-30T0\u0669:00:00Z", "", "0001-01-01T00:00:00Z",
             "9999-12-31T23:59:59+00:00"]


def _cases():
    cases = []

    def add(argv, flag, label=None):
        cases.append(pytest.param(argv, flag, id=label or f"{flag}={argv[-1][:20]!r}"[:60] + f"-{len(cases)}"))

    for value in BAD_DURATIONS:
        add(BASE + [f"--every={value}"], "--every")
        add(BASE + EVERY + [f"--run={value}"], "--run")
        add(BASE + EVERY + [f"--poll={value}"], "--poll")
        add(BASE + EVERY + [f"--tick={value}"], "--tick")
        add(BASE + EVERY + [f"--latency={value}"], "--latency")
        add(BASE + ["--every", "1d", f"--offset={value}"], "--offset")
        add(BASE + EVERY + ["--missed", "skip", f"--deadline={value}"], "--deadline")
        add(BASE + EVERY + ["--crash-after-enqueue", "2", f"--restart-after={value}"], "--restart-after")
    for value in ("0", "0ms", "0m"):
        add(BASE + [f"--every={value}"], "--every")
    for value in BAD_COUNTS:
        add(["trace"] + EVERY + [f"--fires={value}"], "--fires")
        add(BASE + EVERY + [f"--concurrency={value}"], "--concurrency")
        add(BASE + EVERY + [f"--crash-after-enqueue={value}"], "--crash-after-enqueue")
    add(["trace"] + EVERY + ["--fires", "1000001"], "--fires")
    add(BASE + EVERY + ["--concurrency", str(10**12)], "--concurrency")
    add(BASE + EVERY + ["--concurrency", "1001"], "--concurrency")
    for value in BAD_TIMES:
        add(BASE + EVERY + [f"--start={value}"], "--start")
        add(["trace"] + EVERY + [f"--until={value}"], "--until")
        add(BASE + EVERY + [f"--outage={value}/2026-11-30T10:00:00Z"], "--outage")
    # local times the clocks skip (spring forward) or repeat (fall back)
    for flag in ("--start", "--until"):
        argv = BASE if flag == "--start" else ["trace"]
        add(argv + EVERY + NY + [flag, "2026-03-08T02:30"], flag, f"{flag}-gap")
        add(argv + EVERY + NY + [flag, "2026-11-01T01:30"], flag, f"{flag}-repeated")
    add(BASE + EVERY + NY + ["--start", "2026-03-01T00:00", "--outage", "2026-03-08T02:30/2026-03-09T00:00"],
        "--outage", "outage-gap")
    add(BASE + EVERY + NY + ["--start", "2026-10-01T00:00", "--outage", "2026-11-01T01:30/2026-11-02T00:00"],
        "--outage", "outage-repeated")
    add(BASE + EVERY + ["--outage", "2026-11-30T08:00:00Z/2026-11-30T10:00:00Z"], "--outage", "outage-before-start")
    add(BASE + EVERY + ["--outage", "2026-11-30T11:00:00Z/2026-11-30T10:00:00Z"], "--outage", "outage-inverted")
    add(BASE + EVERY + ["--outage", "2026-11-30T10:00:00Z"], "--outage", "outage-one-time")
    add(BASE + EVERY + ["--outage", "a/b/c"], "--outage", "outage-three-parts")
    add(["trace"] + EVERY + ["--until", "2026-11-30T08:00:00Z"], "--until", "until-before-start")
    add(["trace", "--every", "1ms", "--until", "2027-11-30T08:00:00Z", "--tick", "0"], "--until", "until-horizon")
    for tz in ("Mars/Base", "", "../../etc/passwd", "utc\u0000", "Europe/L\u00f6ndon", "x" * 300):
        add(BASE + EVERY + ["--tz", tz], "--tz")
    for expr in ("0 9 * * * 30 2026", "0 9 * * * * *", "0 9 * *", "61 * * * *", "\u0663 * * * *",
                 "\uff10 9 * * *", "", "   ", "@never", "0 0 30 2 *", "* " * 150, "0 9 * * MON-XYZ",
                 "0 9 ? * *x", "*/0 * * * *"):
        add(BASE + ["--cron", expr], "--cron")
    for flag in ("--rule", "--missed", "--overlap", "--pump", "--beat", "--design", "--format"):
        add(BASE + EVERY + [flag, "nope"], flag)
    for name in ("a{b}", "", "x" * 300, "line\nbreak"):
        add(BASE + EVERY + ["--name", name], "--name")
    # combinations
    add(BASE + ["--cron", "0 9 * * *", "--offset", "5m"], "--offset", "offset-with-cron")
    add(BASE + ["--every", "15m", "--offset", "15m"], "--offset", "offset-not-shorter")
    add(BASE + EVERY + ["--deadline", "5m"], "--deadline", "deadline-without-skip")
    add(BASE + EVERY + ["--missed", "skip"], "--deadline", "skip-without-deadline")
    add(BASE + EVERY + ["--missed", "all", "--rule", "release"], "--missed", "all-with-release")
    add(BASE + EVERY + ["--restart-after", "1m"], "--restart-after", "restart-without-crash")
    add(BASE + EVERY + ["--tick", "1s", "--latency", "0", "--design", "bullmq", "--crash-after-enqueue", "2"],
        "--crash-after-enqueue", "bullmq-crash")
    add(BASE + EVERY + ["--design", "bullmq", "--rule", "release"], "--rule", "bullmq-rule")
    # prefixes are not expanded
    add(BASE + ["--ev", "15m"], "--ev", "abbrev-every")
    add(["trace", "--every", "15m", "--fi", "3"], "--fi", "abbrev-fires")
    add(BASE + EVERY + ["--conc", "2"], "--conc", "abbrev-concurrency")
    add(BASE + EVERY + ["--crash", "2"], "--crash", "abbrev-crash")
    add(["cron", "0 9 * * *", "--fr", "2026-11-01T00:00:00Z", "--until", "2026-11-02T00:00:00Z"], "--fr",
        "abbrev-from")
    # missing or doubled
    add(["trace", "--fires", "3"], "--every", "no-cadence")
    add(["trace"] + EVERY, "--fires", "no-end")
    add(BASE + EVERY + ["--cron", "0 9 * * *"], "--cron", "two-cadences")
    add(BASE + EVERY + ["--until", "2026-12-01T00:00:00Z"], "--until", "two-ends")
    add(BASE + EVERY + ["--run"], "--run", "no-value")
    # the cron command
    cron = ["cron", "--from", "2026-11-01T00:00:00Z", "--until", "2026-11-02T00:00:00Z"]
    for expr in ("0 9 * * * 30 2026", "61 * * * *", "\u0663 * * * *", "", "0 9 * *"):
        add(cron + ["--", expr], "cron")
    for value in ("abc", "\uff12026-11-01T00:00:00Z", "2026-02-30T00:00:00Z"):
        add(["cron", "0 9 * * *", "--from", value, "--until", "2026-11-02T00:00:00Z"], "--from")
        add(["cron", "0 9 * * *", "--from", "2026-11-01T00:00:00Z", "--until", value], "--until")
    add(["cron", "0 9 * * *", "--from", "2026-11-03T00:00:00Z", "--until", "2026-11-02T00:00:00Z"], "--until",
        "cron-until-before-from")
    add(["cron", "0 9 * * *", "--tz", "Mars/Base", "--from", "2026-11-01T00:00:00Z", "--until",
         "2026-11-02T00:00:00Z"], "--tz", "cron-tz")
    add(["cron", "0 9 * * *", "--rule", "nope", "--from", "2026-11-01T00:00:00Z", "--until",
         "2026-11-02T00:00:00Z"], "--rule", "cron-rule")
    add(["cron", "30 1 * * *"] + NY + ["--from", "2026-11-01T01:30", "--until", "2026-11-02T00:00"], "--from",
        "cron-from-repeated")
    add(["cron", "30 1 * * *"] + NY + ["--from", "2026-03-08T02:30", "--until", "2026-03-09T00:00"], "--from",
        "cron-from-gap")
    return cases


CASES = _cases()


def test_at_least_190_cases():
    assert len(CASES) >= 190


@pytest.mark.parametrize(("argv", "flag"), CASES)
def test_bad_input_is_one_line_naming_the_flag(argv, flag, capsys):
    status = cli.main(argv)
    out, err = capsys.readouterr()
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err
    assert lines[0].startswith("emqsim: error: ")
    assert flag in lines[0], lines[0]
    assert "Traceback" not in err


def test_run_of_huge_length_is_refused_not_overflowed(capsys):
    """--run 99999999999d gave an OverflowError traceback when the table was printed."""
    assert cli.main(BASE + EVERY + ["--run", "99999999999d"]) == 2
    assert capsys.readouterr().err == ("emqsim: error: --run '99999999999d' is too long; "
                                       "give at most 2,199,023,255,551 ms (about 69.7 years)\n")


def test_help_names_the_span_of_the_ids(capsys):
    """EchoMQ's 41-bit snowflake (fiberfx echo_mq b9f34ed0, snowflake.ex) reaches 2093-09-06."""
    assert cli.main(["trace", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Job ids carry times from 2024-01-01 to 2093-09-06." in out


def test_start_before_the_ids_says_the_span(capsys):
    assert cli.main(BASE + EVERY + ["--start", "2023-12-31T23:59:00Z"]) == 2
    assert capsys.readouterr().err == (
        "emqsim: error: --start '2023-12-31T23:59:00Z' is outside the times job ids can carry; "
        "give a time from 2024-01-01T00:00:00Z to 2093-09-06T15:47:35.551Z\n")


def test_spring_forward_gap_is_named(capsys):
    assert cli.main(BASE + EVERY + NY + ["--start", "2026-03-08T02:30"]) == 2
    assert capsys.readouterr().err == (
        "emqsim: error: --start: '2026-03-08T02:30' does not exist in America/New_York: the clocks skip "
        "from -05:00 to -04:00 that day; give a time outside the gap or an explicit offset\n")


def test_seven_field_cron_is_refused(capsys):
    assert cli.main(BASE + ["--cron", "0 9 * * * 30 2026"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("emqsim: error: --cron: invalid cron '0 9 * * * 30 2026': 7 fields;")


def test_help_example_of_six_fields_has_six(capsys):
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["trace", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "six with seconds first, e.g. '30 0 9 * * *'" in out
    assert "(six fields: seconds first)" not in out


def test_good_input_still_runs(capsys):
    assert cli.main(BASE + EVERY + ["--concurrency", "1000", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("{")
