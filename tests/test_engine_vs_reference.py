"""The Lua engine and the reference model agree, fire for fire, on random single schedules.

Outages may be shorter than the pump's latency: a release read by a pump that has died
since is dropped by both, even when the pump is back before the release instant.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backends import make_store
from emqsim.engine.cadence import Cron, Every
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import engine_fires, engine_skips, reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.store import ENV
from emqsim.engine.timefmt import at
from emqsim.engine.worker import Worker

T9 = at("2026-11-30 09:00")
CRONS = {"* * * * *": 60_000, "*/5 * * * *": 300_000, "0 * * * *": 3_600_000, "*/10 * * * * *": 10_000}
BACKENDS = ["fakeredis", pytest.param("redis", marks=pytest.mark.skipif(
    not os.environ.get(ENV), reason=f"{ENV} is not set: no real Redis to test against"))]


class Draws:
    """Hypothesis's `draw` behind random.Random's `randint`/`choice`, so one scenario builder
    serves both the shrinking property test and the seeded sweep."""

    def __init__(self, draw):
        self.draw = draw

    def randint(self, a: int, b: int) -> int:
        return self.draw(st.integers(a, b))

    def choice(self, seq):
        return self.draw(st.sampled_from(seq))


def scenario(r):
    """A random single schedule with its pump, workers, outage and stopping rule."""
    start = T9 + r.randint(0, 3_600_000)
    if r.choice(["every", "every", "cron"]) == "every":
        ms = r.randint(100, 2000) if r.choice([True, False]) else r.randint(2000, 20_000)
        cad, period = Every(ms, r.choice([None, r.randint(0, ms - 1)])), ms
    else:
        expr = r.choice(sorted(CRONS))
        cad, period = Cron(expr), CRONS[expr]
    opened = r.choice([None, None, None, r.randint(start - period, start + 2 * period)])  # a start date
    first = max(start, opened or start)
    rule = r.choice(["schedule", "schedule", "release", "finish"])
    missed = r.choice(["snap", "snap", "epoch", "skip"] + (["all", "once", "once", "now"] if rule == "schedule" else []))
    # a deadline: always under skip, on half the `once` schedules (Kubernetes, APScheduler)
    deadlined = missed == "skip" or (missed == "once" and r.choice([True, False]))
    sched = Schedule(
        "r", cad, rule=rule, missed=missed,
        deadline=r.choice([0, r.randint(0, 2 * period)]) if deadlined else None,
        overlap=r.choice(["allow", "allow", "skip", "buffer-one", "replace"]
                         + (["forbid", "forbid"] if missed == "once" and not (opened and getattr(cad, "offset", None))
                            else [])),
        start=opened, limit=r.choice([0, 0, 0, r.randint(1, 30)]),
        end=r.choice([None, None, r.randint(first + 1, first + 45 * period)]),
    )
    tick = r.choice([0, r.randint(100, 5000)])
    latency = r.choice([0, r.randint(0, 3000)])
    pump = Pump(tick=tick, jitter=r.choice([0, r.randint(0, tick - 1)]) if tick else 0, seed=r.randint(0, 9),
                latency=latency, mode=r.choice(["two-step", "atomic"]), ids=r.choice(["fresh", "fresh", "slot"]),
                beat=r.choice(["grid", "rearm"]))
    worker = Worker(run=r.choice([0, r.randint(0, 30_000), r.randint(period, 3 * period)]),
                    spread=r.choice([0, r.randint(0, 5000)]),
                    concurrency=r.randint(1, 3), poll=r.choice([0, r.randint(100, 5000)]), seed=r.randint(0, 9))
    outage = None
    if r.choice([True, True, False]):
        down = start + r.randint(0, 20 * period)
        outage = (down, down + r.randint(0, r.choice([latency + 1, period, 8 * period])))
    if r.choice([True, True, False]):
        fires, until = r.randint(1, 40), None
    else:
        fires, until = None, start + r.randint(0, 30 * period)
    if deadlined and until is None:   # a deadline every release misses never reaches N fires
        until = start + 60 * period
    return sched, start, fires, until, pump, worker, outage


@st.composite
def scenarios(draw):
    return scenario(Draws(draw))


def check(store, case) -> None:
    sched, start, fires, until, pump, worker, outage = case
    with PumpDesign(sched, start=start, pump=pump, worker=worker, faults=Faults(outage=outage), store=store) as sim:
        tr = sim.run(fires=fires, until=until)
    ref = reference(sched, start=start, fires=fires, until=until, pump=pump, worker=worker, outage=outage)
    assert engine_fires(tr) == ref.to_fires()
    assert engine_skips(tr) == ref.skips
    assert (tr.count, tr.skipped, tr.next, tr.registry_size) == (ref.count, ref.skipped, ref.next, ref.registry_size)
    assert (tr.duplicates, tr.lost) == (0, 0)


@pytest.mark.parametrize("backend", BACKENDS)
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(case=scenarios())
def test_engine_equals_reference(backend, case):
    store = make_store(backend)
    try:
        check(store, case)
    finally:
        store.close()


@pytest.mark.parametrize("seed", range(60))
def test_engine_equals_reference_seeded_sweep(seed):
    """Hypothesis mostly mutates a few early examples; plain seeded draws spread wider."""
    store = make_store("fakeredis")
    try:
        check(store, scenario(random.Random(seed)))
    finally:
        store.close()


def test_the_default_store_too():
    """What Store() gives (fakeredis, or the server EMQSIM_REDIS_URL names)."""
    sched = Schedule("r", Every("15m", "3m"), rule="release")
    case = (sched, T9 + 1234, 12, None, Pump(jitter=300, latency=700), Worker(run="20m", concurrency=2, poll="1m"),
            (T9 + 40 * 60_000, T9 + 95 * 60_000))
    check(None, case)


def test_10000_fires_of_every_15_min():
    """The notebooks' long horizons come from the reference; over 10,000 fires it is the engine."""
    sched, worker = Schedule("reports", Every("15m")), Worker(run="4m")
    store = make_store("fakeredis")
    try:
        with PumpDesign(sched, start=T9, worker=worker, store=store) as sim:
            tr = sim.run(fires=10_000)
    finally:
        store.close()
    ref = reference(sched, start=T9, fires=10_000, worker=worker)
    assert tr.count == ref.count == 10_000
    assert engine_fires(tr) == ref.to_fires()
    assert tr.next == ref.next == T9 + 10_000 * 15 * 60_000


def test_a_restart_inside_the_latency_drops_the_dead_pumps_release():
    """Down 0.5 s after the 09:00 beat, up again 0.5 s later, latency 2 s: the dead pump's
    release is dropped and the restarted pump releases slot 09:00 once, at :03."""
    sched, pump, outage = Schedule("r", Every("15m")), Pump(latency=2000), (T9 + 500, T9 + 1000)
    store = make_store("fakeredis")
    try:
        with PumpDesign(sched, start=T9, pump=pump, faults=Faults(outage=outage), store=store) as sim:
            tr = sim.run(fires=3)
    finally:
        store.close()
    ref = reference(sched, start=T9, fires=3, pump=pump, outage=outage)
    assert engine_fires(tr) == ref.to_fires()
