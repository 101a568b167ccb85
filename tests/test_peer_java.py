"""Java's fixed rate and fixed delay (OpenJDK 17 `ScheduledThreadPoolExecutor.ScheduledFutureTask.
setNextRunTime` and the `ScheduledExecutorService` Javadoc), and the engine lanes notebook 05
names after them, on seeded run lengths."""

from __future__ import annotations

import random

import pytest

from emqsim import Every, Schedule, Worker, simulate
from emqsim.engine.errors import InputError
from emqsim.peers import java

T0 = 1796029200000   # 2026-11-30 09:00 UTC
MIN = 60_000


def test_the_javadoc_example_fixed_rate_starts_late_and_never_overlaps():
    """Period 15 min, runs of 20 min: each run starts when the previous one ends (late), and
    the schedule is not moved: run 4 is due at 09:45 and starts at 10:00."""
    assert java.starts("scheduleAtFixedRate", T0, 15 * MIN, [20 * MIN] * 4) == [
        T0, T0 + 20 * MIN, T0 + 40 * MIN, T0 + 60 * MIN]
    assert java.starts("scheduleAtFixedRate", T0, 15 * MIN, [4 * MIN] * 3) == [T0, T0 + 15 * MIN, T0 + 30 * MIN]


def test_fixed_delay_counts_from_the_end_of_each_run():
    assert java.starts("scheduleWithFixedDelay", T0, 15 * MIN, [4 * MIN] * 3) == [T0, T0 + 19 * MIN, T0 + 38 * MIN]


def test_a_method_java_does_not_have_is_refused():
    with pytest.raises(InputError, match="method 'scheduleAtFixedDelay' is not one of"):
        java.starts("scheduleAtFixedDelay", T0, MIN, [0])


def _engine(method: str, period: int, run: int, fires: int) -> list[int]:
    s = Schedule("j", Every(period), **java.settings(method))
    return [f.started for f in simulate(s, start=T0, fires=fires, worker=Worker(run=run))]


CASES = [(m, random.Random(seed).choice([1, 2, 5, 10, 15]) * MIN, random.Random(seed + 1).randrange(0, 40) * MIN)
         for seed in range(60) for m in java.METHODS]


@pytest.mark.parametrize("method, period, run", CASES)
def test_the_engine_lane_is_javas_rule(method, period, run):
    """120 seeded cases: the same starts from the engine (one worker, the settings of
    `java.settings`) as from Java's rule."""
    assert _engine(method, period, run, 8) == java.starts(method, T0, period, [run] * 8)
