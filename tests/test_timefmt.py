from __future__ import annotations

import pytest

from emqsim.engine import timefmt
from emqsim.engine.timefmt import (Change, WallTime, abbreviation, at, changes, day_bounds, hm, hms, iso, label, local,
                            offset, parse_day, parse_instant, parse_interval, resolve, table, utc, utc_offset, wall,
                            year_changes, zone)

NOV30_9 = 1796029200000  # 2026-11-30T09:00:00Z


@pytest.mark.parametrize("name", ["UTC", "Europe/London", "America/New_York"])
def test_zone_known(name):
    assert zone(name).key == name


@pytest.mark.parametrize("name", ["Mars/Base", "../x", "", "/etc/passwd", "Europe", None])
def test_zone_unknown(name):
    with pytest.raises(
        ValueError,
        match=rf"^unknown time zone {name!r}; use an IANA name such as 'UTC', 'Europe/London' or 'America/New_York'$",
    ):
        zone(name)


@pytest.mark.parametrize(
    "text, tz, ms",
    [
        ("2026-11-30T09:00:00Z", "UTC", NOV30_9),
        ("2026-11-30T09:00:00Z", "America/New_York", NOV30_9),
        ("2026-11-30T09:00", "UTC", NOV30_9),
        ("2026-11-30 09:00:00+01:00", "UTC", NOV30_9 - 3_600_000),
        ("2026-11-30T09:00:00.250Z", "UTC", NOV30_9 + 250),
        ("2026-11-30T09:00", "America/New_York", NOV30_9 + 5 * 3_600_000),
        ("2026-07-01T09:00", "Europe/London", 1782892800000),
        ("2026-11-30", "UTC", NOV30_9 - 9 * 3_600_000),
        ("1969-12-31T23:59:59.999Z", "UTC", -1),
    ],
)
def test_parse_instant(text, tz, ms):
    assert parse_instant(text, tz) == ms


def test_at_is_parse_instant():
    assert at("2026-11-30 09:00") == NOV30_9
    assert at("2026-11-30 04:00", "America/New_York") == NOV30_9


@pytest.mark.parametrize("text", ["tomorrow", "", "2026-13-01T00:00:00Z", "09:00", None])
def test_parse_instant_rejects(text):
    with pytest.raises(
        ValueError, match=rf"^{text!r} is not an ISO 8601 time; write it like 2026-11-30T09:00:00Z$"
    ):
        parse_instant(text)


def test_parse_instant_rejects_bad_zone():
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Base'"):
        parse_instant("2026-11-30T09:00", "Mars/Base")


@pytest.mark.parametrize(
    "text, tz, span",
    [
        ("2026-11-30T09:00:00Z/2026-11-30T10:00:00Z", "UTC", (NOV30_9, NOV30_9 + 3_600_000)),
        ("2026-11-30T04:00 / 2026-11-30T04:30", "America/New_York", (NOV30_9, NOV30_9 + 1_800_000)),
        ("2026-11-30T09:00Z/2026-11-30T09:00Z", "UTC", (NOV30_9, NOV30_9)),
    ],
)
def test_parse_interval(text, tz, span):
    assert parse_interval(text, tz) == span


def test_parse_interval_end_before_start():
    with pytest.raises(
        ValueError, match=r"^outage ends at 2026-11-30T08:00Z before it starts at 2026-11-30T09:00Z; "
    ):
        parse_interval("2026-11-30T09:00Z/2026-11-30T08:00Z")


@pytest.mark.parametrize("text", ["2026-11-30T09:00Z", "a/b/c", ""])
def test_parse_interval_needs_one_slash(text):
    with pytest.raises(ValueError, match=rf"^{text!r} is not an interval; write it like "):
        parse_interval(text)


def test_parse_interval_bad_side():
    with pytest.raises(ValueError, match=r"^'later' is not an ISO 8601 time"):
        parse_interval("2026-11-30T09:00Z/later")


@pytest.mark.parametrize(
    "ms, tz, expected",
    [
        (NOV30_9, "UTC", ("09:00:00", "09:00", "2026-11-30T09:00:00Z")),
        (NOV30_9 + 250, "UTC", ("09:00:00", "09:00", "2026-11-30T09:00:00.250Z")),
        (NOV30_9, "America/New_York", ("04:00:00", "04:00", "2026-11-30T04:00:00-05:00")),
        (NOV30_9, "Europe/London", ("09:00:00", "09:00", "2026-11-30T09:00:00+00:00")),
        (1793511000000, "America/New_York", ("01:30:00", "01:30", "2026-11-01T01:30:00-04:00")),
        (1793514600000, "America/New_York", ("01:30:00", "01:30", "2026-11-01T01:30:00-05:00")),
        (0, "UTC", ("00:00:00", "00:00", "1970-01-01T00:00:00Z")),
    ],
)
def test_formatting(ms, tz, expected):
    assert (hms(ms, tz), hm(ms, tz), iso(ms, tz)) == expected


@pytest.mark.parametrize("ms", [NOV30_9, NOV30_9 + 1, 1793511000000, 1793514600000])
@pytest.mark.parametrize("tz", ["UTC", "America/New_York", "Europe/London"])
def test_iso_round_trips(ms, tz):
    assert parse_instant(iso(ms, tz)) == ms


@pytest.mark.parametrize("bad", [1.5, "0", True])
def test_formatting_rejects_non_int(bad):
    with pytest.raises(ValueError, match=rf"^time {bad!r} is not Unix ms"):
        iso(bad)


# -- a zone's clock: offsets, changes, wall times, local days ------------------------------------------

NY = "America/New_York"
H = 3_600_000


def test_offsets_and_abbreviations():
    assert offset(at("2026-06-15 12:00"), NY) == -4 * H and offset(NOV30_9, NY) == -5 * H
    assert offset(NOV30_9, "UTC") == 0
    assert [abbreviation(t, NY) for t in (at("2026-06-15 12:00"), NOV30_9)] == ["EDT", "EST"]
    assert abbreviation(at("2026-07-01 12:00"), "Europe/London") == "BST"
    assert wall(NOV30_9, NY) == at("2026-11-30 04:00")
    with pytest.raises(ValueError, match=r"^time 1.5 is not Unix ms"):
        offset(1.5, NY)


@pytest.mark.parametrize("tz, day, hours_long", [
    (NY, "2026-03-08", 23), (NY, "2026-11-01", 25), (NY, "2026-06-15", 24), ("UTC", "2026-03-08", 24),
    ("UTC", "2026-11-01", 24), ("Europe/London", "2026-03-29", 23), ("Australia/Sydney", "2026-04-05", 25),
    ("Australia/Lord_Howe", "2026-04-05", 24.5),
])
def test_day_lengths(tz, day, hours_long):
    start, end = day_bounds(tz, day)
    assert (end - start) == hours_long * H


def test_a_day_that_starts_at_one():
    # Santiago springs forward at midnight: 00:00 never shows, the day starts at 01:00 (04:00Z)
    assert day_bounds("America/Santiago", "2026-09-06")[0] == at("2026-09-06 04:00")


def test_new_york_changes_in_2026():
    assert year_changes(NY, 2026) == [
        Change(at("2026-03-08 07:00"), -5 * H, -4 * H),
        Change(at("2026-11-01 06:00"), -4 * H, -5 * H)]
    assert year_changes("UTC", 2026) == []
    # a window holding one change; none in a window that ends just before it
    assert changes(NY, at("2026-11-01 00:00"), at("2026-11-02 00:00")) == [year_changes(NY, 2026)[1]]
    assert changes(NY, at("2026-11-01 00:00"), at("2026-11-01 06:00")) == []


def test_change_walls():
    spring, fall = year_changes(NY, 2026)
    assert spring.forward and not fall.forward
    assert spring.wall == (at("2026-03-08 02:00"), at("2026-03-08 03:00"))    # skipped, as bare clock
    assert fall.wall == (at("2026-11-01 01:00"), at("2026-11-01 02:00"))      # repeated


def test_resolve_wall_times():
    twice = resolve(at("2026-11-01 01:30"), NY)
    assert twice == WallTime((at("2026-11-01 05:30"), at("2026-11-01 06:30")), at("2026-11-01 05:30"))
    assert twice.repeated and not twice.skipped
    gap = resolve(at("2026-03-08 02:30"), NY)
    assert gap.skipped and gap.change == at("2026-03-08 07:00") and gap.shifted == at("2026-03-08 07:30")
    assert resolve(at("2026-06-15 09:00"), NY).instants == (at("2026-06-15 13:00"),)


@pytest.mark.parametrize("day", ["2026-02-30", "tomorrow", None, 20261101])
def test_parse_day_names_the_value(day):
    with pytest.raises(ValueError, match=rf"^day {day!r} is not a date; write it like '2026-11-01'$"):
        parse_day(day)


def test_parse_day():
    from datetime import date

    assert parse_day("2026-11-01") == parse_day(date(2026, 11, 1)) == date(2026, 11, 1)


def test_short_texts():
    t = at("2026-11-01 06:30")
    assert local(t, NY) == "01:30 EST"
    assert utc(t) == "06:30Z" and utc(t + 5_000) == "06:30:05Z"
    assert label(t, NY) == "01:30 EST (06:30Z)"
    assert label(at("2026-03-29 01:00"), "Europe/London") == "02:00 BST (01:00Z)"
    assert local(at("2026-06-15 09:00:05"), "UTC") == "09:00:05 UTC"
    assert utc_offset(-4 * H) == "UTC-04:00" and utc_offset(0) == "UTC+00:00"
    assert utc_offset(10 * H + H // 2) == "UTC+10:30"


def test_table():
    assert table([at("2026-11-01 05:30"), at("2026-11-02 06:30")], NY).splitlines() == [
        "   n  date        local     offset           UTC",
        "-" * 66,
        "   1  2026-11-01  01:30:00  UTC-04:00 EDT    2026-11-01T05:30:00Z",
        "   2  2026-11-02  01:30:00  UTC-05:00 EST    2026-11-02T06:30:00Z"]


def test_the_epoch_is_defined_here_once():
    from datetime import datetime, timedelta, timezone

    assert timefmt._EPOCH == datetime(1970, 1, 1, tzinfo=timezone.utc)
    assert timefmt._NAIVE_EPOCH == datetime(1970, 1, 1) and timefmt._MS == timedelta(milliseconds=1)
