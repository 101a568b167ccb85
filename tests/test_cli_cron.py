"""`emqsim cron`: each library's runs for every recorded case, the table, and bad input."""

from __future__ import annotations

import json

import oracle
import pytest

from test_oracle_cron import _asked, croniter_runs, cronsim_runs

from emqsim.cli import main
from emqsim.engine.timefmt import iso

REC = oracle.recording("cron_parser")
#: the recorded cases the command is run on: every one where cron-parser refuses the expression or
#: gives up part-way (the command's own statuses and lines), and one in eight of the rest. The rules
#: themselves are held to the libraries on every case by test_oracle_cron.py; here it is the
#: command that is checked (its flags, its JSON, its statuses), so the rest would check them again.
CASES = [(q, a) for i, (q, a) in enumerate(zip(REC["questions"], REC["answers"]))
         if "error" in a or "runs_error" in a or i % 8 == 0]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["cron", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _args(q: dict, rule: str) -> list[str]:
    return [q["expr"], "--tz", q["tz"], "--from", iso(q["from"]), "--until", iso(q["until"]),
            "--rule", rule, "--format", "json"]


@pytest.mark.parametrize("q, a", CASES, ids=[f"{q['tz']}|{iso(q['from'])}|{q['expr']}" for q, _ in CASES])
def test_every_recorded_case(capsys, q, a):
    code, out, err = run(capsys, *_args(q, "cron-parser"))
    if "error" in a:                                        # cron-parser refuses it: its words, status 2
        assert (code, out) == (2, "")
        assert err == f"emqsim: error: cron {q['expr']!r}: cron-parser 5.10.3 refuses it: {a['error']}\n"
        return
    doc = json.loads(out)
    assert doc["runs"] == a["runs"]                         # cron-parser's own answer
    if "runs_error" in a:                                   # it gave up part-way: said, status 1
        assert code == 1 and "cron-parser gives up" in doc["error"]
        assert err.startswith(f"emqsim: cron-parser stopped after {len(a['runs'])} run")
        return
    assert (code, err, set(doc)) == (0, "", {"runs"})
    for rule, library in (("croniter", croniter_runs), ("debian", cronsim_runs)):   # the libraries, asked here
        want = _asked(library, q["expr"], q["tz"], q["from"], q["until"])
        code, out, err = run(capsys, *_args(q, rule))
        if isinstance(want, Exception):                     # that library refuses it: status 2
            assert (code, out) == (2, "") and "refuses it" in err
            continue
        if rule == "croniter" and len(q["expr"].split()) > 6:   # emqsim's croniter: seconds first, no year
            assert (code, out) == (2, "") and "7 fields" in err
            continue
        assert code == 0
        assert json.loads(out)["runs"] == want


def test_the_table(capsys):
    code, out, err = run(capsys, "30 1 * * *", "--tz", "America/New_York", "--from", "2026-10-31T12:00",
                         "--until", "2026-11-03T00:00", "--rule", "cron-parser")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "   n  date        local     offset           UTC",
        "-" * 66,
        "   1  2026-11-01  01:30:00  UTC-04:00 EDT    2026-11-01T05:30:00Z",
        "   2  2026-11-02  01:30:00  UTC-05:00 EST    2026-11-02T06:30:00Z",
        "2 runs of '30 1 * * *' in America/New_York by cron-parser 5.10.3, CronExpression.next() (one iterator)",
    ]


def test_croniter_runs_the_repeated_hour_twice(capsys):
    code, out, _ = run(capsys, "30 1 * * *", "--tz", "America/New_York", "--from", "2026-11-01T00:00",
                       "--until", "2026-11-02T00:00", "--format", "json")
    assert code == 0 and json.loads(out) == {"runs": [1793511000000, 1793514600000]}


def test_from_is_exclusive(capsys):
    code, out, _ = run(capsys, "30 1 * * *", "--tz", "America/New_York", "--from", "2026-11-01T05:30:00Z",
                       "--until", "2026-11-02T00:00", "--rule", "debian", "--format", "json")
    assert code == 0 and json.loads(out) == {"runs": []}


def test_a_library_that_gives_up(capsys):
    code, out, err = run(capsys, "0 9 * * *", "--tz", "Australia/Lord_Howe", "--from", "2026-04-04T12:00",
                         "--until", "2026-04-06T00:00", "--rule", "cron-parser")
    assert code == 1
    assert out.splitlines()[-1].startswith("cron-parser stopped after 0 runs: cron '0 9 * * *': cron-parser gives up")
    assert err.startswith("emqsim: cron-parser stopped after 0 runs")


@pytest.mark.parametrize("argv, message", [
    (["61 1 * * *", "--from", "2026-11-01T00:00Z", "--until", "2026-11-02T00:00Z"], "invalid cron '61 1 * * *'"),
    (["30 1 * * *", "--from", "yesterday", "--until", "2026-11-02T00:00Z"],
     "--from: 'yesterday' is not an ISO 8601 time"),
    (["30 1 * * *", "--from", "2026-11-01T00:00Z", "--until", "soon"], "--until: 'soon' is not an ISO 8601 time"),
    (["30 1 * * *", "--tz", "Mars/Base", "--from", "2026-11-01T00:00Z", "--until", "2026-11-02T00:00Z"],
     "--tz: unknown time zone 'Mars/Base'"),
    (["30 1 * * *", "--from", "2026-11-02T00:00Z", "--until", "2026-11-01T00:00Z"],
     "--until '2026-11-01T00:00Z' is not after --from '2026-11-02T00:00Z'"),
    (["30 1 * * *", "--from", "2026-11-01T00:00Z", "--until", "2026-11-02T00:00Z", "--rule", "vixie"],
     "argument --rule: invalid choice: 'vixie'"),
    (["30 1 * * *", "--until", "2026-11-02T00:00Z"], "the following arguments are required: --from"),
    (["0 1 15W * *", "--from", "2026-11-01T00:00Z", "--until", "2026-11-02T00:00Z", "--rule", "cron-parser"],
     "cron '0 1 15W * *': cron-parser 5.10.3 refuses it: Invalid characters, got value: 15W"),
    (["0 1 LW * *", "--from", "2026-11-01T00:00Z", "--until", "2026-11-02T00:00Z", "--rule", "croniter"],
     "invalid cron '0 1 LW * *'; write five fields such as '0 9 * * *' (minute hour day-of-month month "
     "day-of-week) or a macro like @hourly (croniter refuses it: [0 1 lw * *] is not acceptable)"),
    (["5-1 * * * *", "--from", "2026-11-01T00:00Z", "--until", "2026-11-02T00:00Z", "--rule", "debian"],
     "cron '5-1 * * * *': cronsim (Debian cron's rule) refuses it: Bad minute"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"emqsim: error: {message}") and err.count("\n") == 1


def test_the_documented_example_is_what_the_command_prints(capsys):
    import re
    import shlex
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()
    block = re.search(r"```console\n\$ emqsim (cron .*?)\n(.*?)```", text, re.S)
    assert block, "docs/cli.md has no `emqsim cron` example"
    code = main(shlex.split(block.group(1)))
    assert code == 0
    assert capsys.readouterr().out == block.group(2)
