"""Cron across daylight saving under each library's rule, pinned to America/New_York (cronsim's
style), and the Debian rule checked slot for slot against the real cronsim library. The
cron-parser and BullMQ rules are held to cron-parser's recorded answers in test_oracle_cron.py;
the zone's clock (offsets, changes, day bounds, labels) is tested in test_timefmt.py."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from cronsim import CronSim

from emqsim import InputError
from emqsim.cron import rules as dst
from emqsim.engine.timefmt import at, day_bounds, local, zone

NY = "America/New_York"
SPRING, FALL = "2026-03-08", "2026-11-01"
H = 3_600_000


def utc(*times: str) -> list[int]:
    return [at(t) for t in times]


def hours(day: str, *hh: int) -> list[int]:
    """Top of each UTC hour `hh` of `day`, past 23 rolling into the next day."""
    return [at(day) + h * H for h in hh]


# -- the table: (expression, day, rule) -> the instants it fires, as UTC ------------------------------

CASES = [
    # spring forward: 02:00 EST -> 03:00 EDT at 07:00Z; 02:30 never happens
    ("30 2 * * *", SPRING, "croniter", utc("2026-03-08 07:00")),        # 03:00 EDT, at the change
    ("30 2 * * *", SPRING, "debian", utc("2026-03-08 07:00")),          # 03:00 EDT
    ("30 2 * * *", SPRING, "cron-parser", utc("2026-03-08 07:30")),     # 03:30 EDT, shifted by the gap
    ("30 1 * * *", SPRING, "croniter", utc("2026-03-08 06:30")),        # 01:30 EST, untouched
    ("30 1 * * *", SPRING, "debian", utc("2026-03-08 06:30")),
    ("30 1 * * *", SPRING, "cron-parser", utc("2026-03-08 06:30")),
    # fall back: 02:00 EDT -> 01:00 EST at 06:00Z; 01:30 happens twice
    ("30 1 * * *", FALL, "croniter", utc("2026-11-01 05:30", "2026-11-01 06:30")),
    ("30 1 * * *", FALL, "debian", utc("2026-11-01 05:30")),            # once, the first hour
    ("30 1 * * *", FALL, "cron-parser", utc("2026-11-01 05:30")),       # once, the first pass (recorded)
    ("30 1 * * *", FALL, "bullmq", utc("2026-11-01 05:30")),
    ("30 2 * * *", FALL, "croniter", utc("2026-11-01 07:30")),          # 02:30 EST, once
    ("30 2 * * *", FALL, "debian", utc("2026-11-01 07:30")),
    ("30 2 * * *", FALL, "cron-parser", utc("2026-11-01 07:30")),
    ("30 2 * * *", SPRING, "bullmq", utc("2026-03-08 07:30")),
]


@pytest.mark.parametrize("expr, day, rule, expected", CASES)
def test_fixed_time_jobs_across_the_change(expr, day, rule, expected):
    assert dst.slots(expr, NY, day, rule) == expected


@pytest.mark.parametrize("rule", dst.ALL)
def test_hourly_runs_in_both_one_oclock_hours_under_every_rule(rule):
    # local midnight EDT is 04:00Z; the day is 25 hours long and has 25 top-of-hour runs
    got = dst.slots("0 * * * *", NY, FALL, rule)
    assert got == hours("2026-11-01", *range(4, 29))
    assert [local(t, NY) for t in got[1:3]] == ["01:00 EDT", "01:00 EST"]


@pytest.mark.parametrize("rule", dst.ALL)
def test_hourly_has_no_two_oclock_on_the_spring_day(rule):
    got = dst.slots("0 * * * *", NY, SPRING, rule)
    assert got == hours("2026-03-08", *range(5, 28))                    # 23 runs
    assert [local(t, NY) for t in got[:3]] == ["00:00 EST", "01:00 EST", "03:00 EDT"]


@pytest.mark.parametrize("rule", dst.ALL)
def test_every_half_hour_runs_in_both_hours(rule):
    got = dst.slots("*/30 * * * *", NY, FALL, rule)
    assert len(got) == 50
    assert got[2:6] == utc("2026-11-01 05:00", "2026-11-01 05:30", "2026-11-01 06:00", "2026-11-01 06:30")


def test_croniter_rule_is_emqsims_cron_iterated():
    from emqsim.engine.cadence import Cron

    start, end = day_bounds(NY, FALL)
    c, t, got = Cron("30 1 * * *", NY), start - 1, []
    while (t := c.after(t)) < end:
        got.append(t)
    assert dst.slots("30 1 * * *", NY, FALL) == got
    # the window is half open: a slot at its end is the next window's
    assert dst.slots_between("30 1 * * *", NY, got[0], got[1]) == got[:1]
    assert dst.slots_between("30 1 * * *", NY, got[0], got[1] + 1) == got


@pytest.mark.parametrize("rule", dst.ALL)
def test_a_cron_that_never_matches_is_refused_under_every_rule(rule):
    # croniter's walk has no slot at all: refused like the others, not read as an empty day
    with pytest.raises(InputError, match=r"cron '0 0 30 2 \*'"):
        dst.slots("0 0 30 2 *", "UTC", FALL, rule)


def test_one_epoch_for_every_module():
    from emqsim.engine import cron_parser, timefmt

    assert dst._EPOCH is timefmt._EPOCH and dst._MS is timefmt._MS
    assert (cron_parser._EPOCH, cron_parser._NAIVE_EPOCH, cron_parser._MS) == (
        timefmt._EPOCH, timefmt._NAIVE_EPOCH, timefmt._MS)
    assert cron_parser._EPOCH is timefmt._EPOCH and cron_parser._NAIVE_EPOCH is timefmt._NAIVE_EPOCH


def test_compare_gives_every_rule():
    assert dst.compare("30 2 * * *", NY, SPRING) == {
        "croniter": utc("2026-03-08 07:00"), "debian": utc("2026-03-08 07:00"),
        "cron-parser": utc("2026-03-08 07:30"), "bullmq": utc("2026-03-08 07:30")}
    assert dst.compare("30 1 * * *", NY, FALL, dst.RULES) == {
        "croniter": utc("2026-11-01 05:30", "2026-11-01 06:30"), "debian": utc("2026-11-01 05:30"),
        "cron-parser": utc("2026-11-01 05:30")}


def test_a_repeated_hour_runs_once_under_cron_parser_unless_every_hour_is_listed():
    # the hour field lists one hour: the second pass is stepped over; all 24: both passes run
    assert dst.slots("*/20 1 * * *", NY, FALL, "cron-parser") == utc("2026-11-01 05:00", "2026-11-01 05:20",
                                                                    "2026-11-01 05:40")
    assert len(dst.slots("* 1 * * *", NY, FALL, "cron-parser")) == 60
    assert len(dst.slots("* 1 * * *", NY, FALL, "croniter")) == 120
    assert dst.slots("30 1-3 * * *", NY, FALL, "cron-parser") == utc("2026-11-01 05:30", "2026-11-01 07:30",
                                                                    "2026-11-01 08:30")


def test_runs_after_is_strictly_after():
    t = at("2026-11-01 05:30")
    assert dst.runs_after("30 1 * * *", NY, t, t + 3 * H, "croniter") == utc("2026-11-01 06:30")
    assert dst.runs_after("30 1 * * *", NY, t - 1, t + 1, "cron-parser") == [t]
    assert dst.runs_after("30 1 * * *", NY, t, t + 3 * H, "cron-parser") == []


def test_slots_between_a_window_across_the_change():
    got = dst.slots_between("30 1 * * *", NY, at("2026-10-31 12:00"), at("2026-11-03 00:00"), "debian")
    assert got == utc("2026-11-01 05:30", "2026-11-02 06:30")


# -- bad input names the value ---------------------------------------------------------------------

@pytest.mark.parametrize("call, message", [
    (lambda: dst.slots("30 1 * * *", "Mars/Base", FALL), "unknown time zone 'Mars/Base'"),
    (lambda: dst.slots("30 1 * * *", NY, FALL, "vixie"), "rule 'vixie' is not one of croniter, debian, cron-parser"),
    (lambda: dst.slots("30 1 * * *", NY, "2026-02-30"), "day '2026-02-30' is not a date"),
    (lambda: dst.slots("30 1 * * *", NY, "tomorrow"), "day 'tomorrow' is not a date"),
    (lambda: dst.slots("61 1 * * *", NY, FALL), "invalid cron '61 1 \\* \\* \\*'"),
    (lambda: dst.slots_between("30 1 * * *", NY, 10, 10), "window end 10 ms is not after start 10 ms"),
])
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("rule", dst.ALL)
@pytest.mark.parametrize("args, message", [
    (("30 1 * * *", "Mars/Base", 0, H), "unknown time zone 'Mars/Base'"),
    (("30 1 * * *", NY, H, H), f"window end {H} ms is not after start {H + 1} ms"),
])
def test_listing_refuses_bad_input_alike_under_every_rule(rule, args, message):
    # refused before any run, never returned as a library stopping part-way
    with pytest.raises(InputError, match=message):
        dst.listing(*args, rule)


@pytest.mark.parametrize("rule, message", [
    ("croniter", "invalid cron '61 1 * * *'; write five fields such as '0 9 * * *' (minute hour day-of-month "
                 "month day-of-week) or a macro like @hourly (croniter refuses it: [61 1 * * *] is not acceptable, "
                 "out of range)"),
    ("debian", "cron '61 1 * * *': cronsim (Debian cron's rule) refuses it: Bad minute"),
    ("cron-parser", "cron '61 1 * * *': cron-parser 5.10.3 refuses it: "
                    "Constraint error, got value 61 expected range 0-59"),
    ("bullmq", "cron '61 1 * * *': cron-parser 5.10.3 refuses it: Constraint error, got value 61 expected range 0-59"),
])
def test_a_bad_cron_is_refused_in_its_librarys_words(rule, message):
    # before any run, one line naming the library that refuses it
    with pytest.raises(InputError) as refused:
        dst.listing("61 1 * * *", NY, 0, H, rule)
    assert str(refused.value) == message


def test_listing_gives_cron_parsers_runs_and_where_it_stopped():
    t = at("2026-10-31 12:00")
    assert dst.listing("30 1 * * *", NY, t, t + 3 * 24 * H, "cron-parser") == (
        utc("2026-11-01 05:30", "2026-11-02 06:30", "2026-11-03 06:30"), None)
    assert dst.listing("30 1 * * *", NY, t, t + 3 * 24 * H) == (
        utc("2026-11-01 05:30", "2026-11-01 06:30", "2026-11-02 06:30", "2026-11-03 06:30"), None)
    runs, stopped = dst.listing("0 9 * * *", "Australia/Lord_Howe", at("2026-04-04 01:00"),
                                at("2026-04-06 01:00"), "cron-parser")
    assert runs == [] and stopped.startswith("cron '0 9 * * *': cron-parser gives up after 10,000 steps")
    with pytest.raises(InputError, match="cron-parser 5.10.3 refuses it: Invalid characters, got value: 15W"):
        dst.listing("0 1 15W * *", NY, t, t + H, "cron-parser")


# -- the Debian rule against cronsim itself -------------------------------------------------------------

ZONE_DAYS = [
    (NY, SPRING), (NY, FALL), (NY, "2026-06-15"),
    ("Europe/London", "2026-03-29"), ("Europe/London", "2026-10-25"),
    ("Australia/Sydney", "2026-04-05"), ("Australia/Sydney", "2026-10-04"),
    ("America/Santiago", "2026-09-06"),          # the clocks jump at midnight: the day starts at 01:00
    ("UTC", FALL),
]
EXPRESSIONS = ["30 2 * * *", "30 1 * * *", "0 * * * *", "*/30 * * * *", "0 2 * * *", "0 1-3 * * *",
               "15,45 1-3 * * *", "* 2 * * *", "0 */2 * * *", "30 0 * * *", "5 2-4 * * *"]


def cronsim_day(expr: str, tz: str, day: str) -> list[int]:
    start, end = day_bounds(tz, day)
    begin = datetime.fromtimestamp((start - 1000) / 1000, zone(tz))   # cronsim: strictly after, whole seconds
    out = []
    for t in CronSim(expr, begin):
        ms = round(t.astimezone(timezone.utc).timestamp() * 1000)
        if ms >= end:
            return out
        out.append(ms)
    return out


@pytest.mark.parametrize("tz, day", ZONE_DAYS)
@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_debian_rule_matches_cronsim(expr, tz, day):
    assert dst.slots(expr, tz, day, "debian") == cronsim_day(expr, tz, day)


def test_the_cronsim_check_can_tell_the_rules_apart():
    # guards the comparison above: croniter's double 01:30 is not what cronsim gives
    assert cronsim_day("30 1 * * *", NY, FALL) == utc("2026-11-01 05:30")
    assert dst.slots("30 1 * * *", NY, FALL, "croniter") != cronsim_day("30 1 * * *", NY, FALL)


@pytest.mark.parametrize("tz, day, expr, expected", [
    ("Europe/London", "2026-03-29", "30 1 * * *", utc("2026-03-29 01:00")),       # 02:00 BST, the change
    ("Europe/London", "2026-10-25", "30 1 * * *", utc("2026-10-25 00:30")),       # 01:30 BST only
    ("Australia/Sydney", "2026-04-05", "30 2 * * *", utc("2026-04-04 15:30")),    # 02:30 AEDT only
    ("Australia/Sydney", "2026-10-04", "30 2 * * *", utc("2026-10-03 16:00")),    # 03:00 AEDT, the change
])
def test_debian_in_other_zones_exact(tz, day, expr, expected):
    assert dst.slots(expr, tz, day, "debian") == expected


@pytest.mark.parametrize("tz, day, expr, expected", [
    ("Europe/London", "2026-03-29", "30 1 * * *", utc("2026-03-29 01:30")),       # 02:30 BST
    ("Australia/Sydney", "2026-10-04", "30 2 * * *", utc("2026-10-03 16:30")),    # 03:30 AEDT
    ("Australia/Sydney", "2026-04-05", "30 2 * * *", utc("2026-04-04 15:30")),       # 02:30 AEDT only
])
def test_cron_parser_in_other_zones(tz, day, expr, expected):
    assert dst.slots(expr, tz, day, "cron-parser") == expected
