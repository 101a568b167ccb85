"""The fast-forward (many quiet fires in one script call: `forward` in the pump design, `pickups`
in BullMQ's) leaves exactly what the event-by-event path leaves: the trace, the answers, the job
ids, every key in Redis.

Each case runs twice on a fresh store, with the design's one switch (`pump_fast.enabled`,
`bullmq_fast.enabled`) on and off, and the two runs are compared whole."""

from __future__ import annotations

import random

import pytest

from backends import BACKENDS, make_store
from emqsim.engine import bullmq_fast, pump_fast
from emqsim.engine.cadence import Cron, Every
from emqsim.engine.chain import BullMQ, Chain
from emqsim.engine.errors import InputError
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.registry import Registry, RegistryChanged
from emqsim.engine.schedule import Schedule
from emqsim.engine.scripts import Err, ScriptError
from emqsim.engine.scripts import FORWARD
from emqsim.engine.sim import PumpDesign
from emqsim.engine.timefmt import at
from emqsim.engine.worker import Worker

T9 = at("2026-11-30 09:00")
MIN = 60_000


def scenario(r: random.Random):
    """One to three schedules, the pump and workers in any mode, now and then a fault: most
    runs have long quiet stretches, many have a policy or a fault at work somewhere."""
    start = T9 + r.randint(0, 3_600_000)
    schedules = []
    for i in range(r.choice([1, 1, 1, 2, 3])):
        if r.choice([True, True, False]):
            ms = r.choice([1000, 60_000, 15 * MIN, r.randint(500, 20_000)])
            cad = Every(ms, r.choice([None, r.randint(0, ms - 1)]))
        else:
            cad, ms = Cron(r.choice(["* * * * *", "*/5 * * * *", "*/10 * * * * *"])), 60_000
        rule = r.choice(["schedule", "schedule", "release", "finish"])
        missed = r.choice(["snap", "snap", "epoch", "skip"] + (["all", "once", "now"] if rule == "schedule" else []))
        schedules.append(Schedule(
            f"s{i}", cad, rule=rule, missed=missed,
            deadline=r.choice([0, r.randint(0, 2 * ms)]) if missed == "skip" else None,
            overlap=r.choice(["allow", "allow", "skip", "buffer-one", "replace"]),
            limit=r.choice([0, 0, 0, r.randint(1, 60)]),
            template=r.choice(["{}", '{"n": 1}'])))
    tick = r.choice([0, 1000, r.randint(100, 5000)])
    pump = Pump(tick=tick, jitter=r.choice([0, r.randint(0, tick - 1)]) if tick else 0, seed=r.randint(0, 9),
                latency=r.choice([0, 0, 0, r.randint(1, 3000)]), mode=r.choice(["two-step", "atomic"]),
                ids=r.choice(["fresh", "fresh", "slot"]), beat=r.choice(["grid", "rearm"]))
    worker = Worker(run=r.choice([0, r.randint(0, 30_000), r.randint(0, 30 * MIN)]),
                    spread=r.choice([0, 0, r.randint(0, 5000)]), concurrency=r.choice([1, 1, 2, 3]),
                    poll=r.choice([0, 0, 0, r.randint(100, 5000)]), seed=r.randint(0, 9))
    faults = Faults()
    if r.randint(0, 4) == 0:
        down = start + r.randint(0, 30 * MIN)
        faults = r.choice([Faults(outage=(down, down + r.randint(0, 20 * MIN))), Faults(pumps=2),
                           Faults(crash_after_enqueue=r.randint(1, 30), restart_after=r.randint(0, 5000)),
                           Faults(cancel_at=r.randint(1, 30)), Faults(workers_down=(down, down + 5 * MIN))])
    period = min(map(gap, schedules))
    fires, until = r.choice([(r.randint(1, 150), None), (None, start + r.randint(0, 150) * period),
                             (r.randint(1, 150), start + r.randint(0, 300) * period)])
    return dict(schedules=schedules, start=start, pump=pump, worker=worker, faults=faults), fires, until


CRON_GAPS = {"* * * * *": MIN, "*/5 * * * *": 5 * MIN, "*/10 * * * * *": 10_000}


def gap(schedule: Schedule) -> int:
    """The gap between a schedule's runs, so a run `until` a time makes at most a few hundred."""
    return getattr(schedule.cadence, "ms", None) or CRON_GAPS[schedule.cadence.expr]


def snapshot(store) -> list:
    """Every key of the run's queue, named without the queue, with its type and content (a
    hash's fields in the order Redis keeps them)."""
    c, base = store.client, store.keys.base
    out = []
    for key in sorted(k.decode() for k in store.queue_keys()):
        kind = c.type(key).decode()
        body = {"hash": lambda: list(c.hgetall(key).items()), "zset": lambda: c.zrange(key, 0, -1, withscores=True),
                "list": lambda: c.lrange(key, 0, -1), "string": lambda: c.get(key)}[kind]()
        out.append((key.replace(base, "Q", 1), kind, body))
    return out


def run_once(backend: str, parts: dict, fires, until, forward: bool, runs: int = 1):
    """The trace, the answers in the order first given, the keyspace and the clock, after
    `runs` calls of `run` (a lesson moving a slider calls it again and again)."""
    store = make_store(backend)
    made = []
    old, pump_fast.enabled = pump_fast.enabled, forward
    real = Registry.forward

    def counted(self, name, slot, nxt, template, jobs):
        made.append(len(jobs))
        return real(self, name, slot, nxt, template, jobs)

    Registry.forward = counted
    try:
        with PumpDesign(store=store, **parts) as sim:
            traces = [sim.run(fires=fires, until=until) for _ in range(runs)]
            seen = [(t.to_json(), t.count, t.skipped, t.duplicates, t.lost, t.next, t.registry_size,
                     list(t.answers.items()), t.refused) for t in traces]
            return seen, snapshot(store), sim.clock.now, made
    finally:
        pump_fast.enabled, Registry.forward = old, real
        store.close()


def check(backend, seed) -> list[int]:
    parts, fires, until = scenario(random.Random(seed))
    runs = 1 + seed % 2
    fast = run_once(backend, parts, fires, until, True, runs)
    slow = run_once(backend, parts, fires, until, False, runs)
    assert slow[3] == []
    assert fast[:3] == slow[:3]
    return fast[3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_fast_forward_equals_the_event_path_on_seeded_runs(backend):
    """Over 40 seeded runs both paths leave the same; the fast-forward did run in some of them
    (the exact share is a property of the seeds, checked so the sweep proves something)."""
    used = [check(backend, seed) for seed in range(40)]
    assert sum(1 for u in used if u) == 16
    assert sum(map(sum, used)) == 607


@pytest.mark.parametrize("design_mode", ["two-step", "atomic"])
def test_a_quiet_run_is_made_in_calls_of_FORWARD_fires(design_mode):
    """Every 15 min, an on-time worker: after the first beat's due read every fire is quiet,
    so 700 fires take two calls, the last one short; the event path makes the same."""
    parts = dict(schedules=Schedule("s", Every("15m")), start=T9, pump=Pump(mode=design_mode),
                 worker=Worker(run="4m"))
    fast = run_once("fakeredis", parts, 700, None, True)
    assert fast[3] == [FORWARD, 200]
    assert fast[:3] == run_once("fakeredis", parts, 700, None, False)[:3]


def test_an_overlap_ends_the_stretch_and_the_event_path_takes_it():
    """A 20-minute run every 15 min under overlap="skip": the release at :15 is refused (the
    event path), the one at :30 is quiet but the next would overlap it, so each stretch is one
    fire; a worker that polls, or a pump with latency, keeps every fire on the event path."""
    parts = dict(schedules=Schedule("s", Every("15m"), overlap="skip"), worker=Worker(run="20m"), start=T9)
    fast = run_once("fakeredis", parts, 50, None, True)
    assert fast[3] == [1] * 50
    assert fast[:3] == run_once("fakeredis", parts, 50, None, False)[:3]
    assert fast[0][0][2] == 49   # the releases refused between the 50 fires
    for parts in [dict(schedules=Schedule("s", Every("15m")), worker=Worker(poll="1m")),
                  dict(schedules=Schedule("s", Every("15m")), pump=Pump(latency=10))]:
        assert run_once("fakeredis", dict(start=T9, **parts), 50, None, True)[3] == []


def test_two_schedules_forward_only_between_each_others_fires():
    """Every 1 min and every 1 h: the minutely row runs quiet for 59 fires between the hourly
    ones, which the event path makes (each hour's beat reads both rows due)."""
    parts = dict(schedules=[Schedule("m", Every("1m")), Schedule("h", Every("1h"))], start=T9)
    fast = run_once("fakeredis", parts, 183, None, True)
    assert fast[3] == [59, 59, 59]
    assert fast[:3] == run_once("fakeredis", parts, 183, None, False)[:3]


def forward_call(store):
    k = store.keys
    keys = [k.repeat, k.pending, k.marker, k.record("r"), k.job("J1"), k.job("J2")]
    args = ["r", T9, T9 + 30 * MIN, "{}", f"{T9} {T9 + 15 * MIN}", f"{T9} {T9 + 15 * MIN}", f"{T9 + 4 * MIN} -"]
    return keys, args


@pytest.fixture
def reg():
    store = make_store("fakeredis")
    reg = Registry(store)
    reg.register(Schedule("r", Every("15m")), T9)
    yield reg
    store.close()



def refused_before_any_write(store, verb, tries, before):
    """Each (keys, args, code) of `tries` is refused by `verb` with that code, the store as `before`."""
    for ks, a, code in tries:
        with pytest.raises(ScriptError) as err:
            store.scripts.run(verb, ks, a)
        assert err.value.code == code, a
        assert snapshot(store) == before, a


def test_the_forward_script_refuses_each_bad_argument_before_any_write(reg):
    store = reg.store
    keys, args = forward_call(store)
    before = snapshot(store)
    tries = [(keys, ["", *args[1:]], Err.ERR_NAME)]
    bad = ("nan", "1.5", "+inf", str(2**53), "-", "")
    tries += [(keys, [*args[:1], v, *args[2:]], Err.ERR_SCORE) for v in bad]
    tries += [(keys, [*args[:2], v, *args[3:]], Err.ERR_SCORE) for v in ("nan", "-inf", str(2**53), "")]
    for i in (4, 5, 6):   # each word of each list
        for w in (0, 1):
            tries += [(keys, [*args[:i], " ".join(v if j == w else x for j, x in enumerate(args[i].split())),
                              *args[i + 1:]], Err.ERR_SCORE) for v in bad[:4] + (("-",) if i < 6 else ())]
    tries += [(keys[:-1], args, Err.ERR_ARITY), (keys, args[:-1], Err.ERR_ARITY), (keys[:4], args[:4], Err.ERR_ARITY),
              (keys, [*args, ""], Err.ERR_ARITY)]
    for i in (4, 5, 6):   # a list with a word too few or too many, or an empty one
        for v in (args[i].split()[0], args[i] + " " + args[i].split()[0], "", " " + args[i], args[i] + " ",
                  args[i].replace(" ", "  ")):
            tries.append((keys, [*args[:i], v, *args[i + 1:]], Err.ERR_ARITY))
    refused_before_any_write(store, "forward", tries, before)
    assert store.scripts.run("forward", keys, args) == [1, str(T9 + 30 * MIN).encode()]
    assert reg.job("J1") == {"name": "r", "slot": str(T9), "released": str(T9), "data": "{}", "state": "done",
                             "started": str(T9), "finished": str(T9 + 4 * MIN)}
    assert reg.job("J2") == {"name": "r", "slot": str(T9 + 15 * MIN), "released": str(T9 + 15 * MIN),
                             "data": "{}", "state": "active", "started": str(T9 + 15 * MIN)}
    assert reg.record("r")["fired"] == "2" and reg.rows() == [("r", T9 + 30 * MIN)]


def test_the_forward_verb_names_a_bad_value(reg):
    for call, what in [(lambda: reg.forward("r", T9, T9 + 15 * MIN, "{}", []), "jobs"),
                       (lambda: reg.forward("r", T9, T9 + 15 * MIN, "{}", [("J", T9, T9)]), "jobs"),
                       (lambda: reg.forward("", T9, T9 + 15 * MIN, "{}", [("J", T9, T9, None)]), "name"),
                       (lambda: reg.forward("r", T9, 1.5, "{}", [("J", T9, T9, None)]), "next score"),
                       (lambda: reg.forward("r", T9, T9 + 15 * MIN, "{}", [("J", -1, T9, None)]), "label"),
                       (lambda: reg.forward("r", T9, T9 + 15 * MIN, "{}", [("J", T9, T9, "soon")]), "finished")]:
        with pytest.raises(InputError) as err:
            call()
        assert err.value.arg == what


@pytest.mark.parametrize("spoil", ["moved", "pending", "marker", "job"])
def test_the_forward_writes_nothing_on_a_store_not_as_the_simulation_left_it(reg, spoil):
    k, c = reg.k, reg.client
    {"moved": lambda: c.zadd(k.repeat, {"r": T9 + 1}), "pending": lambda: c.rpush(k.pending, "X"),
     "marker": lambda: c.zadd(k.marker, {"0": 0}), "job": lambda: c.hset(k.job("J2"), "state", "done")}[spoil]()
    before = snapshot(reg.store)
    with pytest.raises(RegistryChanged, match="not as the run left it; nothing was written"):
        reg.forward("r", T9, T9 + 30 * MIN, "{}", [("J1", T9, T9, None), ("J2", T9 + 15 * MIN, T9 + 15 * MIN, None)])
    assert snapshot(reg.store) == before


def test_a_small_retention_bound_deletes_the_same_jobs():
    """retain=7: the jobs a fast-forward made and finished go to the retention bound in the
    order the event path's finishes give them, so the same seven jobs are left."""
    parts = dict(schedules=Schedule("s", Every("15m")), start=T9, worker=Worker(run="4m"), retain=7)
    fast = run_once("fakeredis", parts, 600, None, True, runs=2)
    assert fast[3] == [FORWARD, 100, FORWARD, 100]
    assert sum(1 for key, *_ in fast[1] if key.startswith("Q:job:")) == 7
    assert fast[:3] == run_once("fakeredis", parts, 600, None, False, runs=2)[:3]


def test_the_command_lines_run_fast_forwards_too(monkeypatch):
    """`emqsim trace` passes `restart_after` (1 s) whatever the faults; with no crash it acts on
    nothing, so it must not send every fire down the event path (it did: Faults() != it)."""
    import contextlib
    import io

    from emqsim.cli import main
    from emqsim.engine import sim as sim_module

    calls = []
    real = sim_module.Registry.forward
    monkeypatch.setattr(sim_module.Registry, "forward", lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["trace", "--every", "15m", "--fires", "600"]) == 0
    assert calls, "no fire of a quiet command-line run was fast-forwarded"


def test_a_fault_that_acts_is_not_quiet():
    from emqsim.engine.faults import Faults

    assert Faults().quiet and Faults(restart_after="5m").quiet
    assert not Faults(crash_after_enqueue=3).quiet and not Faults(pumps=2).quiet
    assert not Faults(cancel_at=2).quiet
    assert not Faults(outage=(1796029200000, 1796029260000)).quiet
    assert not Faults(workers_down=(1796029200000, 1796029260000)).quiet


# -- BullMQ's design --------------------------------------------------------------------------


def chain_scenario(r: random.Random):
    """One to three job schedulers (intervals with or without an offset, cron patterns, now and
    then a limit, a start or an end date), workers in any mode, now and then an outage."""
    start = T9 + r.randint(0, 3_600_000)
    schedules = []
    for i in range(r.choice([1, 1, 1, 2, 3])):
        if r.choice([True, True, False]):
            ms = r.choice([1000, 60_000, 15 * MIN, r.randint(500, 20_000)])
            cad = Every(ms, r.choice([None, r.randint(1, ms - 1)]))
        else:
            cad, ms = Cron(r.choice(["* * * * *", "*/5 * * * *", "*/10 * * * * *"])), 60_000
        first = r.choice([None, None, start + r.randint(0, 10 * ms)])
        schedules.append(Schedule(
            f"s{i}", cad, rule="schedule", limit=r.choice([0, 0, 0, r.randint(1, 60)]), start=first,
            end=r.choice([None, None, None, (first or start) + r.randint(1, 200 * ms)]),
            template=r.choice(["{}", '{"n": 1}'])))
    worker = Worker(run=r.choice([0, r.randint(0, 30_000), r.randint(0, 30 * MIN)]),
                    spread=r.choice([0, 0, r.randint(0, 5000)]), concurrency=r.choice([1, 1, 2, 3]),
                    poll=r.choice([0, 0, 0, r.randint(100, 5000)]), seed=r.randint(0, 9))
    faults = Faults()
    if r.randint(0, 3) == 0:
        down = start + r.randint(0, 30 * MIN)
        faults = Faults(outage=(down, down + r.randint(0, 20 * MIN)))
    period = min(map(gap, schedules))
    fires, until = r.choice([(r.randint(1, 150), None), (None, start + r.randint(0, 150) * period),
                             (r.randint(1, 150), start + r.randint(0, 300) * period)])
    return dict(schedules=schedules, start=start, worker=worker, faults=faults, retain=r.choice([10_000, 7])), \
        fires, until


def chain_once(backend: str, parts: dict, fires, until, forward: bool, runs: int = 1):
    """`run_once` for a Chain: the traces, the keyspace, and the pickups each call made."""
    store = make_store(backend)
    made = []
    old, bullmq_fast.enabled = bullmq_fast.enabled, forward
    real = BullMQ.pickups

    def counted(self, name, slot, count, picks):
        made.append(len(picks))
        return real(self, name, slot, count, picks)

    BullMQ.pickups = counted
    try:
        with Chain(store=store, **parts) as chain:
            traces = [chain.run(fires=fires, until=until) for _ in range(runs)]
            seen = [(t.to_json(), t.count, t.next, t.registry_size, [(f.name, f.next, f.size) for f in t])
                    for t in traces]
            return seen, snapshot(store), made
    finally:
        bullmq_fast.enabled, BullMQ.pickups = old, real
        store.close()


def chain_check(backend, seed) -> tuple[int, int]:
    """(pickups made in `pickups` calls, pickups in all) of seeded run `seed`, both paths equal."""
    parts, fires, until = chain_scenario(random.Random(seed))
    runs = 1 + seed % 2
    fast = chain_once(backend, parts, fires, until, True, runs)
    slow = chain_once(backend, parts, fires, until, False, runs)
    assert slow[2] == []
    assert fast[:2] == slow[:2]
    return sum(fast[2]), fast[0][-1][1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_bullmq_design_fast_forward_equals_the_event_path_on_seeded_runs(backend):
    """Over 40 seeded runs of BullMQ's design both paths leave the same; the fast-forward made
    most pickups, the event path the rest (the exact counts are a property of the seeds, checked
    so the sweep proves something)."""
    used = [chain_check(backend, seed) for seed in range(40)]
    forwarded, total = map(sum, zip(*used))
    assert (sum(1 for f, _ in used if f), sum(1 for f, n in used if f < n), forwarded, total) == (40, 17, 1539, 1828)


def test_bullmq_design_a_quiet_run_is_made_in_calls_of_FORWARD_pickups():
    """Every 15 min, an on-time worker: 700 pickups take two calls, the last one short."""
    from emqsim.engine.scripts import FORWARD as CHAIN_FORWARD

    parts = dict(schedules=Schedule("s", Every("15m")), start=T9, worker=Worker(run="4m"))
    fast = chain_once("fakeredis", parts, 700, None, True)
    assert fast[2] == [CHAIN_FORWARD, 200]
    assert fast[:2] == chain_once("fakeredis", parts, 700, None, False)[:2]


def test_the_pickups_script_refuses_each_bad_argument_before_any_write():
    """pickups-5.lua: a bad name, id, count or instant, a word too many or too few in a list,
    an id too many or too few: its code, nothing written; the good call then writes."""
    from emqsim.engine.chain import job_id

    store = make_store("fakeredis")
    bull, k = BullMQ(store), store.keys
    bull.upsert(Schedule("b", Every("15m")), T9)
    runs = [T9 + 15 * MIN, T9 + 30 * MIN]
    keys = [k.repeat, k.record("b"), k.delayed, k.pending, k.marker, k.job(job_id("b", T9))] + \
        [k.job(job_id("b", t)) for t in runs]
    args = ["b", str(T9), "1", job_id("b", T9), f"{runs[0]} {runs[1]}", f"{T9} {runs[0]}",
            f"{T9 + 4 * MIN} {runs[0] + 4 * MIN}", job_id("b", runs[0]), job_id("b", runs[1])]
    before = snapshot(store)
    tries = [(keys, [*args[:i], "", *args[i + 1:]], Err.ERR_NAME) for i in (0, 3, 7, 8)]
    bad = ("nan", "1.5", "+inf", str(2**53), "-")
    tries += [(keys, [*args[:i], v, *args[i + 1:]], Err.ERR_SCORE) for i in (1, 2) for v in bad + ("",)]
    for i in (4, 5, 6):
        for w in (0, 1):
            tries += [(keys, [*args[:i], " ".join(v if j == w else x for j, x in enumerate(args[i].split())),
                              *args[i + 1:]], Err.ERR_SCORE) for v in bad]
        for v in (args[i].split()[0], args[i] + " 1", "", " " + args[i], args[i].replace(" ", "  ")):
            tries.append((keys, [*args[:i], v, *args[i + 1:]], Err.ERR_ARITY))
    tries += [(keys, args[:-1], Err.ERR_ARITY), (keys, [*args, "x"], Err.ERR_ARITY), (keys[:-1], args, Err.ERR_ARITY),
              (keys[:6], args[:7], Err.ERR_ARITY)]
    try:
        refused_before_any_write(store, "pickups", tries, before)
        assert store.scripts.run("pickups", keys, args) == [1, str(T9 + 30 * MIN).encode()]
        assert store.client.hgetall(k.job(job_id("b", runs[0]))) == {
            b"name": b"b", b"slot": str(runs[0]).encode(), b"created": str(T9).encode(), b"count": b"2",
            b"data": b"{}", b"state": b"done", b"started": str(runs[0]).encode(),
            b"finished": str(runs[0] + 4 * MIN).encode()}
    finally:
        store.close()
