"""The registry counts what its verbs answered, and a run's Trace carries the counts.

`Tally` is the counting Registry subclass the faults lesson used to swap into a built
PumpDesign: it counts under its own names here, so the engine's counts are checked against
an independent count of the same script answers."""

from __future__ import annotations

from collections import Counter

import pytest

from emqsim.engine.cadence import Every
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.registry import Registry
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign, simulate
from emqsim.engine.timefmt import at

T9 = at("2026-11-30 09:00")
MIN = 60_000
UNTIL = T9 + 9 * 15 * MIN


class Tally(Registry):
    """The old faults lesson's counter, kept as the test's oracle (own attribute names)."""

    def __init__(self, store):
        super().__init__(store)
        self.tally: Counter = Counter()
        self.tally_refused: list[tuple[int, int]] = []

    def enqueue(self, job_id, name, slot, now, template="{}", **kw):
        out = super().enqueue(job_id, name, slot, now, template, **kw)
        self.tally[f"enqueue {out}"] += 1
        if out == "duplicate":
            self.tally_refused.append((slot, now))
        return out

    def advance(self, *args, **kw):
        out = super().advance(*args, **kw)
        self.tally[f"advance {out}"] += 1
        return out

    def fire(self, *args, **kw):
        size, head, results = super().fire(*args, **kw)
        self.tally.update(f"fire {r.result}" for r in results)
        return size, head, results


def crash_sim(store, mode, ids, delay, **faults):
    return PumpDesign(Schedule("reports", Every("15m")), start=T9, store=store,
                      faults=Faults(crash_after_enqueue=3, restart_after=delay, **faults),
                      pump=Pump(mode=mode, ids=ids))


@pytest.mark.parametrize("mode, ids, delay, answers, refused", [
    ("two-step", "fresh", MIN, {"enqueue enqueued": 11, "advance advanced": 10}, ()),
    ("two-step", "fresh", 20 * MIN, {"enqueue enqueued": 10, "advance advanced": 9}, ()),
    ("two-step", "slot", MIN, {"enqueue enqueued": 10, "enqueue duplicate": 1, "advance advanced": 10},
     ((T9 + 30 * MIN, T9 + 31 * MIN),)),
    ("two-step", "slot", 20 * MIN, {"enqueue enqueued": 9, "enqueue duplicate": 1, "advance advanced": 9},
     ((T9 + 30 * MIN, T9 + 50 * MIN),)),
    ("atomic", "fresh", MIN, {"fire fired": 10}, ()),
    ("atomic", "slot", 20 * MIN, {"fire fired": 10}, ()),
])
def test_a_crash_runs_answers_match_the_old_tally(store, mode, ids, delay, answers, refused):
    with crash_sim(store, mode, ids, delay) as sim:
        sim.registry = tally = Tally(sim.store)
        tr = sim.run(until=UNTIL)
        assert tr.answers == Counter(answers) == tally.tally
        assert tr.refused == refused == tuple(tally.tally_refused)


def test_the_trace_gets_the_counts_without_a_subclass(store):
    with crash_sim(store, "two-step", "slot", MIN) as sim:
        tr = sim.run(until=UNTIL)
        assert tr.answers == Counter({"enqueue enqueued": 10, "enqueue duplicate": 1, "advance advanced": 10})
        assert tr.refused == ((T9 + 30 * MIN, T9 + 31 * MIN),)
        assert sim.registry.answers == tr.answers and tr.answers is not sim.registry.answers


def test_simulate_fills_the_counts(store):
    tr = simulate(Schedule("r", Every("15m")), start=T9, fires=3, store=store)
    assert tr.answers == Counter({"enqueue enqueued": 3, "advance advanced": 3}) and tr.refused == ()


def test_a_second_run_adds_to_the_counts(store):
    with PumpDesign(Schedule("r", Every("15m")), start=T9, store=store) as sim:
        sim.run(fires=2)
        assert sim.run(fires=2).answers == Counter({"enqueue enqueued": 4, "advance advanced": 4})


@pytest.mark.parametrize("mode, answers", [
    ("two-step", {"enqueue enqueued": 8, "advance advanced": 8}),
    ("atomic", {"fire fired": 4, "fire stale": 4}),
])
def test_two_pumps_answers(store, mode, answers):
    tr = simulate(Schedule("r", Every("15m")), start=T9, until=T9 + 45 * MIN, store=store,
                  pump=Pump(mode=mode), faults=Faults(pumps=2))
    assert tr.answers == Counter(answers)


@pytest.mark.parametrize("mode, answers", [
    ("two-step", {"enqueue enqueued": 3, "advance advanced": 2, "advance absent": 1}),
    ("atomic", {"fire fired": 2, "fire absent": 1}),
])
def test_a_cancel_mid_tick_is_answered_absent(store, mode, answers):
    tr = simulate(Schedule("r", Every("15m")), start=T9, until=T9 + 3 * 60 * MIN, store=store,
                  pump=Pump(mode=mode), faults=Faults(cancel_at=3))
    assert tr.answers == Counter(answers)


def test_a_bullmq_trace_has_no_pump_answers():
    tr = simulate(Schedule("r", Every("15m")), start=T9, fires=2, design="bullmq")
    assert tr.answers == Counter() and tr.refused == ()
