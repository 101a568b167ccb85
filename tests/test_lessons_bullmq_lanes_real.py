"""Every lane a lesson computes in BullMQ's design goes through `lessons.bullmq_lane`: BullMQ
6.7.0's own scripts where the pinned package is installed, this course's model scripts
(scheduler-7, activate-3, chain-6, pickups-5, through `engine.chain.Chain`) where it is not.
Held here, lane by lane, with no Node: the two give the same fires (slot, pickup, finish, job
id, the next run each pickup made), the same registry and the same store at the pages'
positions and over seeded lanes; and without the package the models run and one line says
what to install. (04's `snap` lane: tests/test_lesson_missed_slots_real.py.)"""

from __future__ import annotations

import random

import pytest

from emqsim.engine.bullmq_scripts import package
from emqsim.engine.cadence import Cron, Every
from emqsim.engine.schedule import Schedule
from emqsim.engine.worker import Worker
from emqsim.lessons import bullmq_lane, overlap, script_steps
from emqsim.lessons import missed_slots as mx
from emqsim.lessons.course import EVERY, NAME, START
from emqsim.lessons.designs import compare

real_only = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))

MIN, HOUR, DAY = 60_000, 3_600_000, 86_400_000


def seen(trace) -> tuple:
    """What a lane shows and what its run left: each fire's record and next run, the registry."""
    return ([(f.record(), f.next, f.size) for f in trace], trace.count, trace.registry_size, trace.next)


def both(schedule, **options) -> tuple:
    real = bullmq_lane.lane(schedule, **options)
    model = bullmq_lane.lane(schedule, real=False, **options)
    assert real.count > 0
    return seen(real), seen(model)


@real_only
@pytest.mark.parametrize("stopped", ["pump", "workers"])
def test_04_designs_bullmq_side_is_the_scripts_and_the_models_equal_it(stopped, monkeypatch):
    calls = []
    lane = bullmq_lane.Lane
    monkeypatch.setattr(bullmq_lane, "Lane", lambda *a, **k: calls.append(lane(*a, **k)) or calls[-1])
    f = mx.designs_facts(stopped)
    assert [c.real for c in calls] == [True]
    real, model = both(mx.lane_schedule("snap"), start=mx.FIRST, until=mx.LISTED, outage=f["outage"])
    assert real == model
    assert [(r.slot, r.started) for r in f["comparison"].bullmq] == [(x[0].slot, x[0].started) for x in real[0]]


@real_only
@pytest.mark.parametrize("fires,workers", [(n, 1) for n in overlap.CHAIN_FIRES] + [(6, 1), (6, 3)])
def test_05_backlog_lanes_are_the_scripts_and_the_models_equal_them(fires, workers):
    worker = Worker(run=overlap.CHAIN_RUN, concurrency=workers)
    real, model = both(Schedule(NAME, Every(EVERY)), start=START, fires=fires, worker=worker)
    assert real == model and real[1] == fires
    c = compare(Schedule(NAME, Every(EVERY)), start=START, fires=fires, worker=worker)
    assert seen(c.bullmq) == real


@real_only
def test_04_bullmq_store_is_the_scripts_and_the_models_equal_it_every_five_minutes():
    times = tuple(mx.hm(t) for t in range(mx.on_day("09:05"), mx.on_day("11:00") + 1, 5 * MIN))
    for down, up in ((mx.DOWN, mx.UP), (mx.on_day("09:10"), mx.on_day("10:52")), (mx.DOWN, mx.on_day("09:52"))):
        with bullmq_lane.Lane(mx.lane_schedule("snap"), start=mx.FIRST, outage=(down, up)) as one:
            assert one.real
        real = mx.bullmq_states(times, down, up)
        orig = bullmq_lane._driver
        try:
            bullmq_lane._driver = lambda: None                  # the models' answer, for the same calls
            model = mx.bullmq_states(times, down, up)
        finally:
            bullmq_lane._driver = orig
        assert real == model, (mx.hm(down), mx.hm(up))
        assert real["10:00"]["score"] is not None


def seeded_lane(seed: int) -> tuple[Schedule, dict]:
    """A schedule (every with or without an offset, or cron in a zone), workers (run length,
    concurrency, a poll) and sometimes an outage, from the course's day."""
    rng = random.Random(seed)
    if rng.random() < 0.65:
        every = rng.choice((90_000, 15 * MIN, HOUR))
        cad = Every(every, rng.choice([None, rng.randrange(1, every)]))
    else:
        cad = Cron(*rng.choice((("0 9 * * *", "UTC"), ("*/15 * * * *", "UTC"), ("30 1 * * *", "America/New_York"),
                                ("0 9 * * 1-5", "Europe/London"))))
    worker = Worker(run=rng.choice((0, 4 * MIN, 20 * MIN, 40 * MIN)), concurrency=rng.choice((1, 1, 3)),
                    poll=rng.choice((0, 0, 4 * MIN)))
    start = START + rng.randrange(0, HOUR)
    options = {"start": start, "worker": worker, "fires": rng.randrange(5, 30)}
    if rng.random() < 0.5:
        down = start + rng.randrange(1, 3 * HOUR)
        options["outage"] = (down, down + rng.choice((7 * MIN, HOUR, 25 * HOUR)))
    return Schedule(NAME, cad), options


@real_only
@pytest.mark.parametrize("seed", range(3300, 3340))
def test_a_seeded_lane_is_the_same_on_the_scripts_and_the_models(seed):
    schedule, options = seeded_lane(seed)
    real, model = both(schedule, **options)
    assert real == model


def test_the_seeded_lanes_cover_every_kind():
    kinds = set()
    for seed in range(3300, 3340):
        s, o = seeded_lane(seed)
        kinds |= {type(s.cadence).__name__, "outage" if "outage" in o else "no outage",
                  "poll" if o["worker"].poll else "parked", "several" if o["worker"].concurrency > 1 else "one"}
    assert kinds == {"Every", "Cron", "outage", "no outage", "poll", "parked", "several", "one"}


def _without_the_package(monkeypatch) -> str:
    """The package check failing as it does where the wheel is not installed, and the lane
    module's cached driver and reason forgotten; the one line the check gives."""
    line = f"BullMQ's scripts: the PyPI package bullmq is not installed; expected bullmq=={package.VERSION}: " \
           f"{package.INSTALL}"
    monkeypatch.setattr(package, "available", lambda: line)
    monkeypatch.setattr(bullmq_lane, "_DRIVER", [])
    monkeypatch.setattr(bullmq_lane, "_WHY", [])
    return line


def test_without_the_package_the_models_run_and_one_line_says_what_to_install(monkeypatch):
    line = _without_the_package(monkeypatch)
    assert bullmq_lane.missing() == line
    said = bullmq_lane.computed_by()
    assert "\n" not in said and said.endswith(f"{package.INSTALL})") and "model scripts" in said
    with bullmq_lane.Lane(mx.lane_schedule("snap"), start=mx.FIRST, outage=(mx.DOWN, mx.UP)) as one:
        assert one.real is False
        trace = one.run(until=mx.HORIZON)
    assert [(f.slot, f.started) for f in trace] == list(mx.snap_lane(mx.DOWN, mx.UP))
    assert mx.snap_lane(mx.DOWN, mx.UP)[2] == (mx.on_day("09:37"), mx.UP)
    assert script_steps.walk.__wrapped__("bullmq")[1] == "model"     # the steps' walk follows the same rule


@real_only
def test_with_the_package_the_line_names_bullmqs_own_scripts():
    assert bullmq_lane.missing() is None
    assert bullmq_lane.computed_by() == f"BullMQ's lanes: BullMQ {package.NPM_RELEASE}'s own scripts"


def test_a_schedule_bullmq_cannot_run_is_refused_in_the_projects_words():
    from emqsim.engine.errors import InputError

    with pytest.raises(InputError, match="design 'bullmq'"):
        bullmq_lane.lane(Schedule(NAME, Every(EVERY), rule="release"), start=START, fires=2)


@real_only
def test_03_the_marker_is_the_scripts_and_the_models_equal_it():
    from emqsim.engine.store import Store
    from emqsim.lessons import start_to_start as st

    with bullmq_lane.Lane(Schedule(NAME, Every("15m")), start=START) as one:
        assert one.real
    real = st.bullmq_marker_facts()
    with Store() as store:
        model = st.bullmq_marker_facts(store)
    assert real == model
    assert real["pickup"]["marker"] == [("0", 0), ("1", START + 15 * MIN)] and real["pickup"]["waiting"] == []


def demo_fields(step, names: tuple) -> tuple:
    """What 02's table states of a step, the record's fields read under `names` (every, ic, offset)."""
    return (step.at, step.call, step.answer, step.size, step.rows, tuple(step.record.get(n) for n in names))


DEMOS = [(4, "5m"), (1, "1m"), (3, "20m"), (6, "2h"), (2, 15 * MIN)]


@real_only
@pytest.mark.parametrize("fires,later", DEMOS, ids=[f"{f} pickups, {x} later" for f, x in DEMOS])
def test_02_bullmq_demo_is_the_scripts_and_the_models_equal_them(fires, later):
    """02's `bullmq_demo`, step by step and field by field: the answer, ZCARD, the rows and their
    scores, and the hash's every, ic and offset (BullMQ's `every` is the models' `every_ms`)."""
    from emqsim.engine.store import Store
    from emqsim.lessons.one_row_rewritten import bullmq_demo, steps_table

    with Store() as store:
        real = bullmq_demo(store, START, fires=fires, later=later)
        assert store.client.zcard(store.keys.repeat) == 0      # the scripts ran, not the models on the page's store
    with Store() as store:
        model = bullmq_demo(store, START, fires=fires, later=later, real=False)
    assert len(real) == len(model) == 4
    assert set(real[0].record) == {"name", "every", "offset", "ic"}             # BullMQ's own names
    for r, m in zip(real, model):
        assert demo_fields(r, ("every", "ic", "offset")) == demo_fields(m, ("every_ms", "ic", "offset")), r
    assert steps_table(real, count="ic") == steps_table(model, count="ic")
    assert [s.answer for s in real] == ["created", "-", "rewritten", "kept"]
    assert [s.record["ic"] for s in real] == ["1"] + [str(fires + 1)] * 3


@real_only
@pytest.mark.parametrize("case", ["new", "same every", "another every", "same cron", "another zone"])
def test_each_upsert_gets_the_models_word_on_the_scripts(case):
    """`upsert_answer`: BullMQ's addJobScheduler-11 answers a job id whatever it did; the word the
    models give (`BullMQ.upsert`) is read from the row before, the same for both."""
    from emqsim.engine.bullmq_scripts.driver import BullMQScripts
    from emqsim.engine.chain import BullMQ
    from emqsim.engine.store import Store

    first, then = {"new": (None, Every(EVERY)), "same every": (Every(EVERY), Every(EVERY)),
                   "another every": (Every(EVERY), Every("5m")),
                   "same cron": (Cron("0 9 * * *", "Europe/London"), Cron("0 9 * * *", "Europe/London")),
                   "another zone": (Cron("0 9 * * *", "UTC"), Cron("0 9 * * *", "Europe/London"))}[case]

    def opts(c):
        return {"every": c.ms} if isinstance(c, Every) else {"pattern": c.expr, "tz": c.tz}

    b = BullMQScripts()
    if first is not None:
        b.upsert(NAME, START, **opts(first))
    before = b.scheduler(NAME)
    b.upsert(NAME, START + MIN, **opts(then))
    real = bullmq_lane.upsert_answer(before, then)
    with Store() as store:
        m = BullMQ(store)
        if first is not None:
            m.upsert(Schedule(NAME, first), START)
        model = m.upsert(Schedule(NAME, then), START + MIN)
    assert real == model == {"new": "created", "same every": "kept", "another every": "rewritten",
                             "same cron": "kept", "another zone": "rewritten"}[case]


def test_without_the_package_02_bullmq_demo_runs_on_the_models(monkeypatch):
    from emqsim.engine.store import Store
    from emqsim.lessons.one_row_rewritten import bullmq_demo

    monkeypatch.setattr(package, "available", lambda: "BullMQ's scripts: not installed here")
    monkeypatch.setattr(bullmq_lane, "_DRIVER", [])
    monkeypatch.setattr(bullmq_lane, "_WHY", [])
    with bullmq_lane.scripts() as driver:
        assert driver is None
    with Store() as store:
        steps = bullmq_demo(store, START)
        assert store.client.zcard(store.keys.repeat) == 1          # the models ran on the page's store
    assert [(s.answer, s.record["every_ms"], s.record["ic"]) for s in steps] == [
        ("created", "900000", "1"), ("-", "900000", "5"), ("rewritten", "300000", "5"), ("kept", "300000", "5")]


@real_only
def test_scripts_hands_out_the_shared_driver_cleared_and_gives_it_back():
    with bullmq_lane.scripts() as driver:
        driver.upsert(NAME, START, every=15 * MIN)
        with bullmq_lane.scripts() as inner:                     # busy: a driver of its own
            assert inner is not driver and inner.scheduler(NAME) is None
        assert driver is bullmq_lane._driver()
    with bullmq_lane.scripts() as again:
        assert again is driver and again.scheduler(NAME) is None  # cleared
    with bullmq_lane.scripts(real=False) as none:
        assert none is None


def test_the_bench_times_every_lane_both_ways():
    from bench_speed import lane_cases, lane_lines

    cases = lane_cases(frames=2)
    assert [n[:2] for n, _ in cases] == ["04", "04", "04", "05", "03"]
    for _, calls in cases:
        for call in calls:
            call(False)                                         # each call runs on the models
    lines = lane_lines(frames=2, rounds=1)
    if bullmq_lane.missing() is None:
        assert len(lines) == len(cases)
        assert all("own scripts median" in x and "model scripts median" in x for x in lines)
    else:
        assert lines == [f"BullMQ's lanes a frame: the model scripts only ({bullmq_lane.missing()})"]


@real_only
def test_a_lane_inside_a_lane_gets_a_driver_of_its_own_and_both_are_right():
    snap = mx.lane_schedule("snap")
    with bullmq_lane.Lane(snap, start=mx.FIRST, outage=(mx.DOWN, mx.UP)) as outer:
        first = outer.run(until=mx.on_day("09:40"))
        inner = bullmq_lane.lane(Schedule(NAME, Every(EVERY)), start=START, fires=3)
        rest = outer.run(until=mx.HORIZON)
    assert [f.slot for f in inner] == [START, START + 15 * MIN, START + 30 * MIN]
    assert tuple((f.slot, f.started) for f in rest) == mx.snap_lane(mx.DOWN, mx.UP)
    assert first is rest and outer._b is bullmq_lane._driver()
    assert bullmq_lane._BUSY.acquire(blocking=False)             # given back
    bullmq_lane._BUSY.release()


# -- 06's retried chain step (`faults.retry_facts`, `bullmq_lane.retried`) --------------------------

@real_only
def test_06_retry_is_the_scripts_and_the_models_equal_them(monkeypatch):
    from emqsim.lessons import faults

    calls = []
    lane = bullmq_lane.Lane
    monkeypatch.setattr(bullmq_lane, "Lane", lambda *a, **k: calls.append(lane(*a, **k)) or calls[-1])
    real = faults.retry_facts()
    assert [c.real for c in calls] == [True]
    model = bullmq_lane.retried(Schedule(NAME, Every(EVERY)), start=START, real=False)
    assert [c.real for c in calls] == [True, False]
    assert real == model
    slot = START + 15 * MIN
    assert real == {"job_id": f"repeat:{NAME}:{START}", "pickup": ("chained", slot), "again": ("stale", float("inf")),
                    "score": slot, "ic": 2, "delayed": [[f"repeat:{NAME}:{slot}", slot]]}


@real_only
@pytest.mark.parametrize("seed", range(3400, 3412))
def test_a_seeded_retry_is_the_same_on_the_scripts_and_the_models(seed):
    """Every cadence of the seeded lanes, retried a second to an hour later."""
    schedule, options = seeded_lane(seed)
    after = random.Random(seed).choice((1000, 7 * MIN, HOUR))
    real = bullmq_lane.retried(schedule, start=options["start"], after=after)
    model = bullmq_lane.retried(schedule, start=options["start"], after=after, real=False)
    assert real == model
    assert real["pickup"][0] == "chained" and real["again"][0] == "stale" and real["ic"] == 2


def _taken_twice(real: bool, meddle) -> tuple:
    """Upsert, take the first job, `meddle(client, row key, record key, slot)`, run the step again:
    both steps' answers in the models' words."""
    from emqsim.engine.chain import BullMQ
    from emqsim.engine.bullmq_scripts.driver import BullMQScripts
    from emqsim.engine.store import Store

    if real:
        b = BullMQScripts()
        b.upsert(NAME, START, every=15 * MIN)
        row = b.scheduler(NAME)
        job = b.take(START)
        first = bullmq_lane.chain_answer(job.made, row, START)
        meddle(b.client, b.keys["repeat"], f"{b.keys['repeat']}:{NAME}", START)
        second = bullmq_lane.chain_answer(b.update(job, START + 1000), b.scheduler(NAME), START)
        b.client.close()
        return first, second
    with Store() as store:
        m = BullMQ(store)
        m.upsert(Schedule(NAME, Every(EVERY)), START)
        taken = m.pickup(START)
        meddle(m.client, m.k.repeat, m.k.record(NAME), START)
        again = m.retry_chain(taken, START + 1000)
        return (taken.result, taken.next), (again.result, again.next)


@real_only
@pytest.mark.parametrize("case,word", [("as it is", "stale"), ("row put back on the slot", "duplicate"),
                                       ("scheduler gone", "absent")])
def test_each_nil_of_update_job_scheduler_maps_to_the_models_word(case, word):
    """updateJobScheduler-12 answers nil for three reasons; `chain_answer` names each as chain-6 does."""
    def meddle(client, row, record, slot):
        if case == "row put back on the slot":
            client.zadd(row, {NAME: slot})
        elif case == "scheduler gone":
            client.zrem(row, NAME)
            client.delete(record)

    real, model = _taken_twice(True, meddle), _taken_twice(False, meddle)
    assert real == model == (("chained", START + 15 * MIN), (word, float("inf")))


def test_without_the_package_06_retry_runs_on_the_models(monkeypatch):
    from emqsim.lessons import faults

    line = _without_the_package(monkeypatch)
    calls = []
    lane = bullmq_lane.Lane
    monkeypatch.setattr(bullmq_lane, "Lane", lambda *a, **k: calls.append(lane(*a, **k)) or calls[-1])
    assert faults.bullmq_retry().splitlines() == [f"pickup of repeat:{NAME}:{START}: chained, next run 09:15",
                                                  "the same step again: stale, next run inf",
                                                  f"row 09:15 \u00b7 ic 2 \u00b7 delayed "
                                                  f"[['repeat:{NAME}:{START + 15 * MIN}', {START + 15 * MIN}]]"]
    assert [c.real for c in calls] == [False]
