"""`make bench`'s lines on what each model script buys over BullMQ's own scripts
(benchmarks/bench_speed.py `model_lines`): both sides make the same run, and each line names
the model's path, both costs and the ratio. Timed figures are printed, never asserted."""

from __future__ import annotations

import re

import pytest

from bench_speed import model_lines, model_run_time, real_run_time
from emqsim.engine.bullmq_scripts import package

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))


def test_both_sides_make_the_fires_they_are_timed_for():
    for path in ("fast-forward", "event path"):
        assert model_run_time(30, path) > 0     # it asserts the trace holds 30 fires
    assert real_run_time(30) > 0                # it raises when a fire made no job


def test_one_line_per_run_and_one_for_the_upsert():
    lines = model_lines(((25, "fast-forward"), (25, "event path")), rounds=1)
    assert len(lines) == 3
    assert "model fast-forward (pickups-5" in lines[0] and "model event path (activate-3, chain-6" in lines[1]
    assert "model scheduler-7" in lines[2] and "addJobScheduler-11" in lines[2]
    for line in lines:
        assert re.search(r"the model buys \d+\.\dx$", line), line
