from __future__ import annotations

import pytest

from emqsim.engine.durations import format_duration, parse_duration


@pytest.mark.parametrize(
    "value, ms",
    [
        (0, 0),
        (1, 1),
        (900000, 900000),
        (1500.0, 1500),
        ("900000ms", 900000),
        ("2000", 2000),
        ("0", 0),
        ("90s", 90000),
        ("15m", 900000),
        ("4min", 240000),
        ("2h", 7200000),
        ("1d", 86400000),
        ("1h30m", 5400000),
        ("1h 30m", 5400000),
        ("1d2h3m4s5ms", 93784005),
        ("1 min 30 s", 90000),
        ("1 h 30 min", 5400000),
        ("1.5s", 1500),
        ("  15M ", 900000),
        ("250 ms", 250),
    ],
)
def test_parse_duration_accepts(value, ms):
    assert parse_duration(value) == ms


@pytest.mark.parametrize(
    "value, match",
    [
        ("-5m", r"^duration '-5m' is negative; give a length like 15m, 90s, 1h30m or 900000ms$"),
        (-1, r"^duration -1 is negative; "),
        (-1.0, r"^duration -1.0 is negative; "),
        ("soon", r"^duration 'soon' is not a duration; give a length like 15m"),
        ("", r"^duration '' is not a duration; "),
        ("5 parsecs", r"^duration '5 parsecs' is not a duration; "),
        ("30m1h", r"^duration '30m1h' is not a duration; "),
        ("1m1m", r"^duration '1m1m' is not a duration; "),
        ("1m 2min", r"^duration '1m 2min' is not a duration; "),
        ("1.5", r"^duration '1.5' is not a duration; "),
        ("1.0005s", r"^duration '1.0005s' is not a duration; "),
        ("m", r"^duration 'm' is not a duration; "),
        (True, r"^duration True is not a duration; "),
        (1.5, r"^duration 1.5 is not a duration; "),
        (float("nan"), r"^duration nan is not a duration; "),
        (None, r"^duration None is not a duration; "),
    ],
)
def test_parse_duration_rejects(value, match):
    with pytest.raises(ValueError, match=match):
        parse_duration(value)


@pytest.mark.parametrize("value", [0, "0", "0m", "0ms"])
def test_parse_duration_zero_rejected_when_not_allowed(value):
    with pytest.raises(ValueError, match=rf"^every {value!r} must be positive; give a length like 15m"):
        parse_duration(value, name="every", allow_zero=False)


def test_parse_duration_name_used_in_every_message():
    with pytest.raises(ValueError, match=r"^tick 'soon' is not a duration"):
        parse_duration("soon", name="tick")
    assert parse_duration("1ms", name="run", allow_zero=False) == 1


@pytest.mark.parametrize(
    "ms, text",
    [
        (0, "0 s"),
        (1, "1 ms"),
        (250, "250 ms"),
        (1000, "1 s"),
        (1500, "1.5 s"),
        (1250, "1.25 s"),
        (90000, "1 min 30 s"),
        (240000, "4 min"),
        (900000, "15 min"),
        (3600000, "1 h"),
        (5400000, "1 h 30 min"),
        (86400000, "1 d"),
        (90061500, "1 d 1 h 1 min 1.5 s"),
        (60250, "1 min 0.25 s"),
    ],
)
def test_format_duration(ms, text):
    assert format_duration(ms) == text
    assert parse_duration(text) == ms


@pytest.mark.parametrize("bad, match", [(-1, "-1"), (1.5, "1.5"), (True, "True")])
def test_format_duration_rejects(bad, match):
    with pytest.raises(ValueError, match=match):
        format_duration(bad)
