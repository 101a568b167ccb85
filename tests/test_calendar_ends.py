"""Cron expressions at the calendar's ends (Python's dates hold years 1 to 9999): no path gives an
OverflowError (36 tracebacks between `emqsim cron`, `Cron` and the rules before). Where a
listing reaches the calendar's end, every rule, `Cron` and `emqsim cron` end it with the same
line; a slot before year 1 is the same line's other end. Table-driven: each expression, zone and
window below goes through every path."""

from __future__ import annotations

import itertools
import json

import pytest

from emqsim import cli
from emqsim.cron import rules
from emqsim.engine.cadence import Cron
from emqsim.engine.errors import CALENDAR_END, CALENDAR_START, CalendarEnd, InputError
from emqsim.engine.schedule import Schedule
from emqsim.engine.timefmt import parse_instant

FIRST = parse_instant("0001-01-01T00:00:00Z", "UTC")        # the first instant the calendar holds
LAST = parse_instant("9999-12-31T23:59:59.999Z", "UTC")     # and the last
DAY = 86_400_000

EXPRS = ["0 0 1 1 *", "59 23 31 12 *", "0 0 29 2 *", "0 0 * * 5", "*/30 * * * *", "30 59 23 31 12 *",
         "0 12 * * *", "@yearly"]
ZONES = ["UTC", "Pacific/Kiritimati", "Pacific/Pago_Pago", "America/New_York"]
#: (from, until) windows in Unix ms near each end
END_WINDOWS = [(LAST - 3 * DAY, LAST), (LAST - 400 * DAY, LAST - DAY), (LAST - 60 * 60_000, LAST)]
START_WINDOWS = [(FIRST, FIRST + 3 * DAY), (FIRST + DAY, FIRST + 40 * DAY)]
CASES = list(itertools.product(EXPRS, ZONES, END_WINDOWS + START_WINDOWS))


def ids(case):
    expr, tz, (a, b) = case
    return f"{expr}|{tz}|{'end' if a > 0 else 'start'}{(b - a) // DAY}d"


def calls(expr: str, tz: str, a: int, b: int):
    """Every path a cron expression takes, as (name, call)."""
    yield "Cron.after", lambda: Cron(expr, tz).after(a)
    yield "Cron.after(last)", lambda: Cron(expr, tz).after(b)
    yield "Cron.before", lambda: Cron(expr, tz).before(a + 1)
    yield "Cron.between", lambda: Cron(expr, tz).between(a, b)
    yield "Cron(cron-parser).after", lambda: Cron(expr, tz, "cron-parser").after(a)
    yield "Cron(cron-parser).between", lambda: Cron(expr, tz, "cron-parser").between(a, b)
    yield "Schedule.on_time_runs", lambda: Schedule("s", Cron(expr, tz)).on_time_runs(a, a, b)
    for rule in rules.ALL:
        yield f"listing {rule}", lambda rule=rule: rules.listing(expr, tz, a, b, rule)
        yield f"slots_between {rule}", lambda rule=rule: rules.slots_between(expr, tz, a + 1, b, rule)


@pytest.mark.parametrize("case", CASES, ids=[ids(c) for c in CASES])
def test_no_path_overflows(case):
    expr, tz, (a, b) = case
    for name, call in calls(expr, tz, a, b):
        try:
            call()
        except CalendarEnd as exc:
            assert exc.line in (CALENDAR_END, CALENDAR_START), name
        except InputError:
            pass   # bad input, named: the expression a rule does not read, a time its zone cannot show
        except Exception as exc:   # noqa: BLE001 - the point of the test
            pytest.fail(f"{name}: {type(exc).__name__}: {exc}")


@pytest.mark.parametrize("case", [c for c in CASES if c[2][0] > 0], ids=[ids(c) for c in CASES if c[2][0] > 0])
def test_every_rule_ends_its_listing_the_same_way(case):
    """Where one rule's runs stop at the calendar's end, each rule that reads the expression
    lists the same runs' count... and ends with the same line."""
    expr, tz, (a, b) = case
    ends = {}
    for rule in rules.ALL:
        try:
            runs, stopped = rules.listing(expr, tz, a, b, rule)
        except InputError:
            continue
        ends[rule] = stopped
    assert set(ends.values()) <= {None, CALENDAR_END}, ends
    assert len(set(ends.values())) <= 1, ends


@pytest.mark.parametrize("rule", rules.RULES)
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_emqsim_cron_says_the_line_and_exits_0(capsys, rule, fmt):
    status = cli.main(["cron", "0 0 1 1 *", "--tz", "Pacific/Kiritimati", "--from", "9999-06-01T00:00:00Z",
                       "--until", "9999-12-31T09:00:00Z", "--rule", rule, "--format", fmt])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    if fmt == "json":
        assert json.loads(out) == {"runs": [], "end": CALENDAR_END}
    else:
        assert out.splitlines()[-1] == CALENDAR_END


def test_cron_says_the_line_at_both_ends():
    with pytest.raises(CalendarEnd) as end:
        Cron("0 0 1 1 *").after(LAST - DAY)
    assert str(end.value) == f"cron '0 0 1 1 *': {CALENDAR_END}"
    with pytest.raises(CalendarEnd) as start:
        Cron("0 12 2 1 *").before(FIRST + DAY)
    assert str(start.value) == f"cron '0 12 2 1 *': {CALENDAR_START}"


def test_on_time_runs_has_a_trace_s_cap():
    """An interval over a long span listed every slot (a MemoryError); now, as a trace, at most
    1,000,000 runs without a cap."""
    from emqsim.engine.cadence import Every

    s = Schedule("s", Every("1s"))
    with pytest.raises(InputError, match=r"more than 1,000,000 runs away"):
        s.on_time_runs(0, 0, LAST)
    assert len(s.on_time_runs(0, 0, LAST, cap=5)) == 5
    assert len(s.on_time_runs(0, 0, 999_999_000)) == 1_000_000
