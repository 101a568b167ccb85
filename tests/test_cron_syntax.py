"""Each cron rule reads the syntax its library reads: `L`, `#`, `W`, day of month with day of week,
six fields and backwards ranges, accepted or refused as croniter 7.0.0, cronsim 2.9 and
cron-parser 5.10.3 do, with that library's own refusal; and BullMQ's design reads a pattern as
BullMQ 6.7.0 does, through cron-parser (job-scheduler.js `defaultRepeatStrategy`).

The table pins each rule's first three runs in New York in 2026 (or its refusal). Its
cron-parser rows are held to the recording (tests/oracles/recorded/cron_parser.json, questions
`CRON_ACCEPTANCE`), its croniter and cronsim rows to the libraries asked here.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import oracle
import pytest
import questions
from croniter import croniter
from cronsim import CronSim

from emqsim.cron import rules as dst
from emqsim.engine.cadence import Cron
from emqsim.engine.chain import INF, BullMQ, Chain
from emqsim.engine.errors import InputError
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import simulate
from emqsim.engine.store import Store
from emqsim.engine.timefmt import at, day_bounds, zone

NY = "America/New_York"
START, END = day_bounds(NY, "2026-01-01")[0], day_bounds(NY, "2027-01-01")[0]
CP = "cron-parser 5.10.3 refuses it: "
#: the releases whose own refusals these tables (and test_dst's, test_cli_cron's) quote to a reader,
#: as notebook 07 shows them: the lock pins them; a lock that moves them must look at the words again
QUOTED = {"croniter": "7.0.0", "cronsim": "2.9"}


def test_the_libraries_whose_words_are_quoted_are_the_locked_releases():
    import lock
    from importlib.metadata import version

    locked = lock.pins(lock.LOCKS / "test.txt")
    assert {name: locked[name] for name in QUOTED} == QUOTED == {name: version(name) for name in QUOTED}


# expr: (croniter, debian, cron-parser, bullmq): three local runs, or the library's refusal
TABLE = {
    "0 12 L * *": 4 * [("01-31 12:00", "02-28 12:00", "03-31 12:00")],          # last day of the month
    "0 9 * * 5L": ["croniter refuses it: [0 9 * * 5l] is not acceptable"]       # last Friday
                  + 3 * [("01-30 09:00", "02-27 09:00", "03-27 09:00")],
    "0 0 * * L5": [("01-30 00:00", "02-27 00:00", "03-27 00:00"),               # croniter's spelling of it
                   "cronsim (Debian cron's rule) refuses it: Bad day-of-week"]
                  + 2 * [CP + "CronDayOfWeek Validation error, got value L5 expected range 0-7 or chars L"],
    "0 9 * * 5#3": 4 * [("01-16 09:00", "02-20 09:00", "03-20 09:00")],         # third Friday
    "0 0 15W * *": [("01-15 00:00", "02-16 00:00", "03-16 00:00"),              # weekday nearest the 15th
                    "cronsim (Debian cron's rule) refuses it: Bad day-of-month"]
                   + 2 * [CP + "Invalid characters, got value: 15W"],
    "0 0 LW * *": ["croniter refuses it: [0 0 lw * *] is not acceptable",       # last weekday of the month
                   ("01-30 00:00", "02-27 00:00", "03-31 00:00")]
                  + 2 * [CP + "Invalid characters, got value: LW"],
    "0 0 13 * 5": 4 * [("01-02 00:00", "01-09 00:00", "01-13 00:00")],          # the 13th OR a Friday
    "0 0 L * 5": 4 * [("01-02 00:00", "01-09 00:00", "01-16 00:00")],           # the last day OR a Friday
    "0 0 30 2 1": 4 * [("02-02 00:00", "02-09 00:00", "02-16 00:00")],          # no 30 February: Mondays
    "30 0 9 * * *": 4 * [("01-01 09:00:30", "01-02 09:00:30", "01-03 09:00:30")],   # seconds first
    "0 5-1 * * *": [("01-01 01:00", "01-01 05:00", "01-01 06:00"),              # croniter wraps round
                    "cronsim (Debian cron's rule) refuses it: Bad hour"]
                   + 2 * [CP + "Invalid range: 5-1, min(5) > max(1)"],
}
ROWS = [(e, r, want) for e, wants in TABLE.items() for r, want in zip(dst.ALL, wants)]


def local(runs: list[int]) -> tuple[str, ...]:
    fmt = lambda t: datetime.fromtimestamp(t / 1000, zone(NY)).strftime("%m-%d %H:%M:%S").removesuffix(":00")
    return tuple(fmt(t) for t in runs[:3])


@pytest.mark.parametrize("expr, rule, want", ROWS, ids=[f"{r}|{e}" for e, r, _ in ROWS])
def test_each_rule_accepts_and_refuses_as_its_library(expr, rule, want):
    if isinstance(want, tuple):
        assert local(dst.runs_after(expr, NY, START, END, rule)) == want
        dst.check(expr, rule, NY)                     # no refusal
        return
    with pytest.raises(InputError) as refused:
        dst.runs_after(expr, NY, START, END, rule)
    assert want in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(InputError):
        dst.check(expr, rule, NY)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _library(rule: str, expr: str):
    """croniter's or cronsim's own first three runs from the table's start, or None if it refuses."""
    begin = (_EPOCH + timedelta(milliseconds=START)).astimezone(zone(NY))
    try:
        if rule == "croniter":
            it = croniter(expr, begin, second_at_beginning=len(expr.split()) == 6)
            return [round(it.get_next(float) * 1000) for _ in range(3)]
        it = iter(CronSim(expr, begin))
        return [int(next(it).timestamp() * 1000) for _ in range(3)]
    except Exception:      # noqa: BLE001  (whatever the library raises is its refusal)
        return None


@pytest.mark.parametrize("expr", TABLE)
def test_the_table_is_the_libraries(expr):
    recording = oracle.recording("cron_parser")
    rec = {q["expr"]: a for q, a in zip(recording["questions"], recording["answers"])
           if q["from"] == START and q["tz"] == NY and q["expr"] in questions.CRON_ACCEPTANCE}
    wants = dict(zip(dst.ALL, TABLE[expr]))
    a = rec[expr]                                              # cron-parser, recorded
    assert wants["cron-parser"] == (CP + a["error"] if "error" in a else local(a["runs"]))
    assert wants["bullmq"] == (CP + a["error"] if "error" in a else local(a["chain"]))
    for rule in ("croniter", "debian"):                        # croniter and cronsim, asked here
        runs = _library(rule, expr)
        assert isinstance(wants[rule], str) if runs is None else wants[rule] == local(runs)


def test_the_oracle_was_asked_every_table_row():
    assert set(TABLE) - {"0 0 * * L5"} <= set(questions.CRON_ACCEPTANCE) | {"0 5-1 * * *"}
    assert {"0 0 * * L5", "0 5-1 * * *"} <= set(questions.CRON_ACCEPTANCE)


# -- BullMQ's design reads cron as BullMQ does ------------------------------------------------------------

def test_bullmq_design_runs_the_repeated_hour_once():
    # bullmq 6.7.0 asks cron-parser, which runs 01:30 once on the fall-back night (EDT); croniter's
    # rule (01:30 EDT and 01:30 EST) is not BullMQ's
    trace = simulate(Schedule("reports", Cron("30 1 * * *", NY)), start=at("2026-10-31 16:00"), fires=3,
                     design="bullmq")
    assert [f.slot for f in trace.fires] == [at("2026-11-01 05:30"), at("2026-11-02 06:30"), at("2026-11-03 06:30")]
    assert [f.slot for f in trace.fires] == dst.runs_after("30 1 * * *", NY, at("2026-10-31 16:00"),
                                                          at("2026-11-03 12:00"), "bullmq")


def test_bullmq_design_refuses_what_cron_parser_refuses():
    with pytest.raises(InputError) as refused:
        simulate(Schedule("reports", Cron("5-1 * * * *", NY)), start=START, fires=1, design="bullmq")
    assert str(refused.value) == "cron '5-1 * * * *': " + CP + "Invalid range: 5-1, min(5) > max(1)"


def test_bullmq_design_takes_what_cron_parser_takes():
    # croniter refuses '5L' (its spelling is 'L5'), cron-parser and so BullMQ read it as the last Friday
    with pytest.raises(InputError, match="croniter refuses it"):
        dst.check("0 9 * * 5L", "croniter")
    trace = simulate(Schedule("reports", Cron("0 9 * * 5L", NY, "cron-parser")), start=START, fires=3,
                     design="bullmq")
    assert local([f.slot for f in trace.fires]) == ("01-30 09:00", "02-27 09:00", "03-27 09:00")


LH = "Australia/Lord_Howe"


def test_bullmq_on_lord_howe_stops_until_upserted_again():
    # cron-parser gives up (its loop limit) on the next run after 4 April 09:00, the night Lord Howe
    # falls back half an hour; bullmq 6.7.0's defaultRepeatStrategy swallows the error and
    # upsertJobScheduler adds no job: the chain stops, the row stays on its last run
    sched = Schedule("reports", Cron("0 9 * * *", LH))
    with Chain([sched], start=at("2026-04-02 01:00")) as chain:        # 12:00 local
        trace = chain.run(fires=10)
        assert [f.slot for f in trace.fires] == [at("2026-04-02 22:00"), at("2026-04-03 22:00")]
        assert trace.fires[-1].next == INF
        state = chain.bullmq.state("reports")
        assert (state["score"], state["delayed"], state["waiting"], state["ic"]) == (at("2026-04-03 22:00"), [], [], 2)
        assert chain.run(fires=1).count == 2                           # nothing more, ever
        # upserted again once the change is behind: the next 09:00 is found and the chain goes on
        assert chain.bullmq.upsert(sched, at("2026-04-06 01:00")) == "kept"
        trace = chain.run(fires=2)
        assert [f.slot for f in trace.fires][2:] == [at("2026-04-06 22:30"), at("2026-04-07 22:30")]  # +10:30


def test_an_upsert_while_cron_parser_gives_up_writes_nothing():
    sched = Schedule("reports", Cron("0 9 * * *", LH))
    with Store() as store:
        bullmq = BullMQ(store)
        assert bullmq.upsert(sched, at("2026-04-04 01:00")) == "stopped"
        assert bullmq.state("reports") == {"score": None, "offset": None, "ic": None, "every": None,
                                                 "pattern": None, "delayed": [], "waiting": []}


# bullmq 6.7.0 itself, on redis-server 7.0.15, through the BullMQ oracle (tests/oracles/bullmq.mjs) with
# this scenario: upserted on 2 April, taken each morning, upserted again on 6 April. Its answer is kept
# here (the oracle's own recording is another question set); where Node and EMQSIM_REDIS_URL are
# there, it is asked again.
LORD_HOWE_STEPS = [
    {'op': 'upsert', 'at': 1775091600000, 'pattern': '0 9 * * *', 'tz': 'Australia/Lord_Howe'},
    {'op': 'pickup', 'at': 1775167200000},
    {'op': 'pickup', 'at': 1775253600000},
    {'op': 'pickup', 'at': 1775341800000},
    {'op': 'pickup', 'at': 1775428200000},
    {'op': 'upsert', 'at': 1775439000000, 'pattern': '0 9 * * *', 'tz': 'Australia/Lord_Howe'},
    {'op': 'pickup', 'at': 1775514600000},
]
LORD_HOWE_BULLMQ = [
    {'score': 1775167200000,
     'offset': 0,
     'ic': 1,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [['repeat:s:1775167200000', 1775167200000]],
     'waiting': []},
    {'taken': {'id': 'repeat:s:1775167200000', 'timestamp': 1775091600000},
     'score': 1775253600000,
     'offset': 0,
     'ic': 2,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [['repeat:s:1775253600000', 1775253600000]],
     'waiting': []},
    {'taken': {'id': 'repeat:s:1775253600000', 'timestamp': 1775167200000},
     'score': 1775253600000,
     'offset': 0,
     'ic': 2,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [],
     'waiting': []},
    {'taken': None,
     'score': 1775253600000,
     'offset': 0,
     'ic': 2,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [],
     'waiting': []},
    {'taken': None,
     'score': 1775253600000,
     'offset': 0,
     'ic': 2,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [],
     'waiting': []},
    {'score': 1775514600000,
     'offset': 0,
     'ic': 2,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [['repeat:s:1775514600000', 1775514600000]],
     'waiting': []},
    {'taken': {'id': 'repeat:s:1775514600000', 'timestamp': 1775439000000},
     'score': 1775601000000,
     'offset': 0,
     'ic': 3,
     'every': None,
     'pattern': '0 9 * * *',
     'delayed': [['repeat:s:1775601000000', 1775601000000]],
     'waiting': []},
]


def test_lord_howe_scenario_is_what_bullmq_answers():
    import os

    if oracle.node() is None or not os.environ.get("EMQSIM_REDIS_URL"):
        pytest.skip(oracle.status())
    got = oracle.ask("bullmq", {"scenarios": [{"id": "lord-howe", "steps": LORD_HOWE_STEPS}]})
    assert (got["bullmq"], got["answers"]) == ("6.7.0", [LORD_HOWE_BULLMQ])


def test_bullmq_design_on_lord_howe_is_bullmqs_own_answer():
    # after the 4 April job is taken: no delayed job, the score left on that run, ic 2; the upsert of
    # 6 April finds 7 April 09:00 (+10:30) and keeps ic; the chain goes on
    with Store() as store:
        bullmq = BullMQ(store)
        for step, want in zip(LORD_HOWE_STEPS, LORD_HOWE_BULLMQ, strict=True):
            if step["op"] == "upsert":
                bullmq.upsert(Schedule("s", Cron(step["pattern"], step["tz"])), step["at"])
                assert bullmq.state("s") == want
            else:
                taken = bullmq.pickup(step["at"])
                got = None if taken is None else {"id": taken.job_id, "timestamp": taken.created}
                assert {"taken": got, **bullmq.state("s")} == want
