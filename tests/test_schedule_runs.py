"""Schedule.on_time_runs: the scores a row takes in turn when every run goes out on time."""

from __future__ import annotations

import pytest

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.schedule import Schedule
from emqsim.engine.timefmt import at

MIN = 60_000
EIGHT, TEN = at("2026-11-30 08:00"), at("2026-11-30 10:00")


def test_interval_from_its_registration():
    s = Schedule("x", Every("15m"))
    assert s.on_time_runs(EIGHT, EIGHT, TEN) == list(range(EIGHT, TEN + 1, 15 * MIN))
    # registered at 07:07, the marks keep that phase
    assert s.on_time_runs(at("2026-11-30 07:07"), EIGHT, at("2026-11-30 08:40")) == [
        at("2026-11-30 08:07"), at("2026-11-30 08:22"), at("2026-11-30 08:37")]


def test_interval_with_an_offset_starts_strictly_after_the_registration():
    # BullMQ's first run with an offset: registered 08:00, offset 7 min -> 08:07; on 08:07 -> 08:22
    s = Schedule("x", Every("15m", "7m"))
    assert s.on_time_runs(EIGHT, EIGHT, at("2026-11-30 08:40")) == [
        at("2026-11-30 08:07"), at("2026-11-30 08:22"), at("2026-11-30 08:37")]
    reg = at("2026-11-30 08:07")
    assert s.on_time_runs(reg, reg, at("2026-11-30 08:40")) == [at("2026-11-30 08:22"), at("2026-11-30 08:37")]


def test_every_run_is_the_rows_score_at_that_instant():
    """Each run listed is what `on_time_score` holds at it and just after the run before it."""
    for cadence in (Every("15m"), Every("15m", "7m"), Every("20m"), Cron("*/20 8-9 * * *")):
        s = Schedule("x", cadence)
        runs = s.on_time_runs(EIGHT, EIGHT, TEN)
        assert runs and runs == sorted(set(runs))
        assert all(s.on_time_score(EIGHT, r) == r for r in runs)
        assert all(s.on_time_score(EIGHT, a + 1) == b for a, b in zip(runs, runs[1:]))
        assert s.on_time_score(EIGHT, EIGHT) == runs[0]


def test_cron_runs_are_its_slots_and_a_start_date_counts():
    s = Schedule("c", Cron("*/20 8-9 * * *"))
    assert s.on_time_runs(EIGHT, EIGHT, TEN) == Cron("*/20 8-9 * * *").between(EIGHT, TEN)
    late = Schedule("c", Cron("*/20 8-9 * * *"), start=at("2026-11-30 09:00"))
    assert late.on_time_runs(EIGHT, EIGHT, TEN) == [at("2026-11-30 09:00"), at("2026-11-30 09:20"),
                                                     at("2026-11-30 09:40")]
    timed = Schedule("x", Every("15m"), start=at("2026-11-30 09:10"))
    assert timed.on_time_runs(EIGHT, EIGHT, TEN) == [at("2026-11-30 09:10"), at("2026-11-30 09:25"),
                                                      at("2026-11-30 09:40"), at("2026-11-30 09:55")]


def test_cap_empty_span_and_a_cron_that_never_matches():
    s = Schedule("x", Every("1m"))
    assert len(s.on_time_runs(EIGHT, EIGHT, TEN)) == 121
    assert s.on_time_runs(EIGHT, EIGHT, TEN, cap=5) == [EIGHT + k * MIN for k in range(5)]
    assert len(Schedule("c", Cron("* * * * * *")).on_time_runs(EIGHT, EIGHT, TEN, cap=240)) == 240
    assert s.on_time_runs(EIGHT, TEN, EIGHT) == []
    assert Schedule("c", Cron("0 0 30 2 *")).on_time_runs(EIGHT, EIGHT, TEN) == []


@pytest.mark.parametrize("kw, match", [
    ({"start": 1.5}, "start 1.5 must be a whole number"),
    ({"end": "10:00"}, "end '10:00' must be a whole number"),
    ({"cap": -1}, "cap -1 must be a whole number, 0 or more"),
])
def test_bad_arguments_name_themselves(kw, match):
    args = {"start": EIGHT, "end": TEN, **kw}
    with pytest.raises(ValueError, match=match):
        Schedule("x", Every("15m")).on_time_runs(EIGHT, args["start"], args["end"], cap=kw.get("cap"))
