from __future__ import annotations

import pytest

from emqsim.timefmt import at, hm, hms, iso, parse_instant, parse_interval, zone

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
