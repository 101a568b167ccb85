"""The cron rules of `emqsim.dst` held to the libraries themselves.

- cron-parser 5.10.3: every recorded case (tests/oracles/recorded/cron_parser.json), both the
  one-iterator runs and BullMQ's fresh-parse chain, run for run; where Node is here, the real
  library is asked again and must still give the recording.
- croniter and cronsim: asked live on the same cases, through their own APIs.
- A table pinned per zone, so a change to any rule shows up as a named difference.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import oracle
import pytest
import questions
from croniter import croniter
from cronsim import CronSim

from emqsim.cron import rules as dst
from emqsim.engine.errors import InputError
from emqsim.engine.timefmt import at, iso, zone

REC = oracle.recording("cron_parser")
CASES = list(zip(REC["questions"], REC["answers"]))
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)


def _id(case) -> str:
    q = case[0] if isinstance(case, tuple) else case
    return f"{q['tz']}|{iso(q['from'])}|{q['expr']}"


def test_the_recording_covers_the_brief():
    zones = {q["tz"] for q, _ in CASES}
    assert {"America/New_York", "Europe/London", "Australia/Sydney", "Australia/Lord_Howe",
            "America/Santiago", "America/Havana"} <= zones
    assert len(CASES) >= 40
    assert REC["questions"] == questions.QUESTIONS["cron_parser"]()   # re-record after changing the set


@pytest.mark.parametrize("q, a", CASES, ids=[_id(c) for c in CASES])
def test_cron_parser_rule_equals_the_recording(q, a):
    # cron-parser's iterator, and BullMQ's fresh parse from each run; where the library gave up
    # part-way, the same runs before it and the same refusal; where it refused the expression,
    # an InputError carrying its own message
    if "error" in a:
        for rule in ("cron-parser", "bullmq"):
            with pytest.raises(InputError) as refused:
                dst.listing(q["expr"], q["tz"], q["from"], q["until"], rule)
            assert str(refused.value) == f"cron {q['expr']!r}: cron-parser 5.10.3 refuses it: {a['error']}"
        return
    for rule, key in (("cron-parser", "runs"), ("bullmq", "chain")):
        got, stopped = dst.listing(q["expr"], q["tz"], q["from"], q["until"], rule)
        assert got == a[key]
        assert (stopped is None) == (f"{key}_error" not in a)


def test_live_cron_parser_still_gives_the_recording():
    if oracle.node() is None:
        pytest.skip(oracle.status())
    assert oracle.ask("cron_parser", REC["questions"]) == REC["answers"]


# -- croniter and cronsim, asked live ------------------------------------------------------------------

def croniter_runs(expr: str, tz: str, after: int, until: int) -> list[int]:
    expr = dst._expand(expr)
    it = croniter(expr, (_EPOCH + after * _MS).astimezone(zone(tz)), second_at_beginning=len(expr.split()) == 6)
    out = []
    while (t := round(it.get_next(float) * 1000)) < until:
        out.append(t)
    return out


def cronsim_runs(expr: str, tz: str, after: int, until: int) -> list[int]:
    out = []
    for dt in CronSim(dst._expand(expr), (_EPOCH + after * _MS).astimezone(zone(tz))):
        t = (dt - _EPOCH) // _MS
        if t >= until:
            return out
        if t > after:
            out.append(t)
    return out


QS = REC["questions"]


_ASKED: dict = {}


def _asked(library, *args):
    """The library's runs, or the exception it raised (it refused the expression); asked once
    per process, as test_cli_cron.py puts the same questions to the same libraries."""
    key = (library.__name__, *args)
    if key not in _ASKED:
        try:
            _ASKED[key] = library(*args)
        except Exception as exc:       # noqa: BLE001  (whatever the library raises is its refusal)
            _ASKED[key] = exc
    return _ASKED[key]


@pytest.mark.parametrize("q", QS, ids=[_id(q) for q in QS])
def test_croniter_and_debian_rules_are_the_libraries(q):
    # the same runs, or a refusal where the library refuses (InputError naming the library)
    args = (q["expr"], q["tz"], q["from"], q["until"])
    for rule, library, name in (("croniter", croniter_runs, "croniter"), ("debian", cronsim_runs, "cronsim")):
        want = _asked(library, *args)
        if rule == "croniter" and len(q["expr"].split()) > 6:
            # emqsim reads croniter with seconds first (second_at_beginning) and no year field
            with pytest.raises(InputError, match="7 fields"):
                dst.runs_after(*args, rule)
        elif isinstance(want, Exception):
            with pytest.raises(InputError, match=f"{name} .*refuses it"):
                dst.runs_after(*args, rule)
        else:
            assert dst.runs_after(*args, rule) == want


# -- a table pinned per zone: runs on the local day by croniter, Debian cron, cron-parser, BullMQ ---------

NY, LON, SYD = "America/New_York", "Europe/London", "Australia/Sydney"
PINNED = {
    (NY, "2026-03-08"): {
        "30 1 * * *": (1, 1, 1, 1), "30 2 * * *": (1, 1, 1, 1), "*/20 2 * * *": (1, 0, 3, 1),
        "30 1-3 * * *": (3, 3, 2, 2), "* 1 * * *": (60, 60, 60, 60), "*/20 1 * * *": (3, 3, 3, 3),
        "0,30 1 * * *": (2, 2, 2, 2), "0 * * * *": (23, 23, 23, 23), "*/30 * * * *": (46, 46, 46, 46),
        "15 0 * * *": (1, 1, 1, 1)},
    (NY, "2026-11-01"): {
        "30 1 * * *": (2, 1, 1, 1), "30 2 * * *": (1, 1, 1, 1), "*/20 2 * * *": (3, 3, 3, 3),
        "30 1-3 * * *": (4, 3, 3, 3), "* 1 * * *": (120, 120, 60, 60), "*/20 1 * * *": (6, 6, 3, 3),
        "0,30 1 * * *": (4, 2, 2, 2), "0 * * * *": (25, 25, 25, 25), "*/30 * * * *": (50, 50, 50, 50),
        "15 0 * * *": (1, 1, 1, 1)},
    (LON, "2026-03-29"): {
        "30 1 * * *": (1, 1, 1, 1), "*/20 1 * * *": (1, 0, 3, 1), "30 1-3 * * *": (3, 3, 2, 2),
        "* 1 * * *": (1, 0, 60, 1), "0,30 1 * * *": (1, 1, 2, 1), "0 * * * *": (23, 23, 23, 23)},
    (LON, "2026-10-25"): {
        "30 1 * * *": (2, 1, 1, 1), "30 1-3 * * *": (4, 3, 3, 3), "* 1 * * *": (120, 120, 60, 60),
        "*/20 1 * * *": (6, 6, 3, 3), "0,30 1 * * *": (4, 2, 2, 2), "*/30 * * * *": (50, 50, 50, 50)},
    (SYD, "2026-10-04"): {
        "30 2 * * *": (1, 1, 1, 1), "*/20 2 * * *": (1, 0, 3, 1), "30 1-3 * * *": (3, 3, 2, 2),
        "0 * * * *": (23, 23, 23, 23)},
    (SYD, "2026-04-05"): {
        "30 2 * * *": (2, 1, 1, 1), "*/20 2 * * *": (6, 6, 3, 3), "30 1-3 * * *": (4, 3, 3, 3),
        "0 * * * *": (25, 25, 25, 25)},
    ("Australia/Lord_Howe", "2026-10-04"): {       # 02:00 -> 02:30: a half hour skipped
        "*/20 2 * * *": (2, 1, 1, 1), "*/30 * * * *": (47, 47, 46, 46)},
    ("Australia/Lord_Howe", "2026-04-05"): {       # 02:00 -> 01:30: a half hour repeated
        "30 1 * * *": (2, 1, 1, 1), "*/20 1 * * *": (3, 4, 3, 3), "0,30 1 * * *": (3, 2, 2, 2),
        "*/30 * * * *": (49, 49, 48, 48)},
    ("America/Havana", "2026-11-01"): {            # 01:00 -> 00:00: midnight's hour repeated
        "15 0 * * *": (2, 1, 1, 1), "0 * * * *": (25, 25, 25, 25)},
    ("America/Santiago", "2026-09-06"): {          # 00:00 -> 01:00: the day starts at 01:00
        "15 0 * * *": (1, 1, 1, 1), "0 * * * *": (23, 23, 23, 23)},
}
PINNED_CASES = [(tz, day, e, n) for (tz, day), rows in PINNED.items() for e, n in rows.items()]


@pytest.mark.parametrize("tz, day, expr, counts", PINNED_CASES, ids=[f"{c[0]}|{c[1]}|{c[2]}" for c in PINNED_CASES])
def test_pinned_counts(tz, day, expr, counts):
    got = dst.compare(expr, tz, day)
    assert tuple(len(got[r]) for r in dst.ALL) == counts


def utc(*times: str) -> list[int]:
    return [at(t) for t in times]


@pytest.mark.parametrize("tz, day, expr, rule, expected", [
    # the repeated hour: once, in its first pass (EDT), unless the hour field lists all 24 hours
    (NY, "2026-11-01", "30 1 * * *", "cron-parser", utc("2026-11-01 05:30")),
    (NY, "2026-11-01", "*/20 1 * * *", "cron-parser", utc("2026-11-01 05:00", "2026-11-01 05:20", "2026-11-01 05:40")),
    (NY, "2026-11-01", "0 * * * *", "cron-parser", [at("2026-11-01 04:00") + h * 3_600_000 for h in range(25)]),
    # a skipped slot moves into the landing hour keeping its minute: 02:30 EST -> 03:30 EDT
    (NY, "2026-03-08", "30 2 * * *", "cron-parser", utc("2026-03-08 07:30")),
    (NY, "2026-03-08", "*/20 2 * * *", "cron-parser", utc("2026-03-08 07:00", "2026-03-08 07:20", "2026-03-08 07:40")),
    (NY, "2026-03-08", "*/20 2 * * *", "bullmq", utc("2026-03-08 07:00")),           # a fresh parse forgets
    (NY, "2026-03-08", "30 1-3 * * *", "cron-parser", utc("2026-03-08 06:30", "2026-03-08 07:30")),
    (LON, "2026-03-29", "0,30 1 * * *", "cron-parser", utc("2026-03-29 01:00", "2026-03-29 01:30")),
    (LON, "2026-03-29", "0,30 1 * * *", "bullmq", utc("2026-03-29 01:00")),
    (SYD, "2026-04-05", "30 2 * * *", "cron-parser", utc("2026-04-04 15:30")),         # 02:30 AEDT only
    ("Australia/Lord_Howe", "2026-04-05", "30 1 * * *", "cron-parser", utc("2026-04-04 14:30")),
    ("America/Havana", "2026-11-01", "15 0 * * *", "cron-parser", utc("2026-11-01 04:15")),
])
def test_pinned_instants(tz, day, expr, rule, expected):
    assert dst.slots(expr, tz, day, rule) == expected


def test_cron_parser_gives_up_on_lord_howes_fall_back():
    # cron-parser's own answer (recorded): loop limit exceeded before the 01:30 -> 01:30 hour ends
    q = {"expr": "0 9 * * *", "tz": "Australia/Lord_Howe"}
    rec = [a for qq, a in CASES if {k: qq[k] for k in q} == q and qq["from"] == at("2026-04-04 01:00")]
    assert rec == [{"runs": [], "runs_error": "Invalid expression, loop limit exceeded", "chain": [],
                    "chain_error": "Invalid expression, loop limit exceeded"}]
    with pytest.raises(ValueError, match="gives up after 10,000 steps"):
        dst.slots("0 9 * * *", "Australia/Lord_Howe", "2026-04-05", "cron-parser")
