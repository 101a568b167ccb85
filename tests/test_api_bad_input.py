"""Bad calls of the Python API: each raises emqsim.InputError (a ValueError) whose message
names the argument, never TypeError, OverflowError, AttributeError, OSError or a redis
error (issue 10, part 4)."""

from __future__ import annotations

import numpy as np
import pytest

from emqsim import (Cron, Every, Faults, InputError, Pump, Schedule, PumpDesign, VirtualClock, Worker, at, cadence,
                    iso, parse_duration, simulate)
from emqsim.engine.reference import reference

T9 = at("2026-11-30 09:00")
S = Schedule("r", Every("15m"))
NAN, INF = float("nan"), float("inf")

#: values that are not a whole number of anything
NOT_WHOLE = [1.5, NAN, INF, -INF, "3", None, True, False, [1], {"a": 1}, b"3", 1 + 2j, object()]
#: values that are not a duration
NOT_DURATION = [1.5, NAN, INF, -1, -INF, "x", "15q", "\uff11\uff15m", "\u0663m", "9" * 5000, "99999999999d",
                2**80, True, None, [1], b"15m", object(), 1e300]
#: values that are not whole Unix ms a run can use
NOT_INSTANT = [1.5, NAN, INF, "abc", "2026-11-30", None, True, [T9], 0, -1, 10**20, 2**64,
               at("2023-12-31 23:59"), at("2200-01-01 00:00")]



def _run(**kw):
    """PumpDesign.run with bad arguments, its store closed after (a real server keeps its keys)."""
    with PumpDesign(S, start=T9) as sim:
        sim.run(**kw)

def _cases():
    cases = []

    def add(call, arg, label):
        cases.append(pytest.param(call, arg, id=f"{label}-{len(cases)}"))

    for v in NOT_DURATION:
        add(lambda v=v: Every(v), "every", f"Every({v!r:.12})")
        if v is not None:
            add(lambda v=v: Every("1d", v), "offset", f"Every(offset={v!r:.12})")
        add(lambda v=v: Worker(run=v), "run", f"Worker(run={v!r:.12})")
        add(lambda v=v: Worker(poll=v), "poll", f"Worker(poll={v!r:.12})")
        add(lambda v=v: Pump(tick=v), "tick", f"Pump(tick={v!r:.12})")
        add(lambda v=v: Pump(latency=v), "latency", f"Pump(latency={v!r:.12})")
        add(lambda v=v: Faults(restart_after=v), "restart_after", f"Faults(restart_after={v!r:.12})")
        add(lambda v=v: parse_duration(v, name="gap"), "gap", f"parse_duration({v!r:.12})")
    for v in [*NOT_DURATION, 0, "0"]:
        add(lambda v=v: Schedule("r", Every("15m"), missed="skip", deadline=v) if v not in (0, "0") else
            Schedule("r", Every("15m"), deadline=v), "deadline", f"Schedule(deadline={v!r:.12})")
    for v in [*NOT_WHOLE, 0, -1, 10**12]:
        add(lambda v=v: Worker(concurrency=v), "concurrency", f"Worker(concurrency={v!r:.12})")
        add(lambda v=v: Pump(batch=v), "batch", f"Pump(batch={v!r:.12})")
        add(lambda v=v: Faults(pumps=v), "pumps", f"Faults(pumps={v!r:.12})")
        if v is not None:
            add(lambda v=v: Faults(crash_after_enqueue=v), "crash_after_enqueue", f"Faults(crash={v!r:.12})")
            add(lambda v=v: Faults(cancel_at=v), "cancel_at", f"Faults(cancel_at={v!r:.12})")
    for v in [*NOT_WHOLE, -1, 10**12]:
        if v is not None:
            add(lambda v=v: Schedule("r", Every("15m"), limit=v), "limit", f"Schedule(limit={v!r:.12})")
        if v is not None:
            add(lambda v=v: simulate(S, start=T9, fires=v), "fires", f"simulate(fires={v!r:.12})")
            add(lambda v=v: reference(S, start=T9, fires=v), "fires", f"reference(fires={v!r:.12})")
    for v in (1.5, "3", True, [1], NAN, 2**64, -2**64):
        add(lambda v=v: Pump(seed=v), "seed", f"Pump(seed={v!r:.12})")
        add(lambda v=v: Worker(seed=v), "seed", f"Worker(seed={v!r:.12})")
    for v in NOT_INSTANT:
        if v is not None:
            add(lambda v=v: Schedule("r", Every("15m"), start=v), "start", f"Schedule(start={v!r:.12})")
            add(lambda v=v: Schedule("r", Every("15m"), end=v), "end", f"Schedule(end={v!r:.12})")
        add(lambda v=v: simulate(S, start=v, fires=1), "start", f"simulate(start={v!r:.12})")
        add(lambda v=v: PumpDesign(S, start=v), "start", f"PumpDesign(start={v!r:.12})")
        add(lambda v=v: reference(S, start=v, fires=1), "start", f"reference(start={v!r:.12})")
        if v is not None:
            add(lambda v=v: simulate(S, start=T9, until=v), "until", f"simulate(until={v!r:.12})")
            add(lambda v=v: reference(S, start=T9, until=v), "until", f"reference(until={v!r:.12})")
        add(lambda v=v: Faults(outage=(v, T9)), "outage", f"Faults(outage={v!r:.12})")
    for v in ("abc", 5, None, ["0 9 * * *"], "0 9 * * * 30 2026", "0 9 * * * * *", "0 9 *", "61 * * * *",
              "\u0663 * * * *", "\uff10 9 * * *", "", "   ", "@never", "* " * 150, "*/0 * * * *"):
        add(lambda v=v: Cron(v), "cron", f"Cron({v!r:.12})")
    for v in ("Mars/Base", "", None, 5, "../../etc/passwd", "utc\x00", "x" * 300):
        add(lambda v=v: Cron("0 9 * * *", v), "time zone", f"Cron(tz={v!r:.12})")
        add(lambda v=v: iso(T9, v), "time zone", f"iso(tz={v!r:.12})")
    add(lambda: simulate(Schedule("r", Cron("0 0 30 2 *")), start=T9, fires=1), "cron", "never-matching cron")
    for name, v in (("rule", "sometimes"), ("missed", "late"), ("overlap", "queue"), ("rule", None),
                    ("missed", 5), ("overlap", ["allow"]), ("template", 5), ("template", None), ("extra", [1])):
        add(lambda name=name, v=v: Schedule("r", Every("15m"), **{name: v}), name, f"Schedule({name}={v!r:.12})")
    for v in ("", None, 5, "a{b}", "x" * 300, "line\nbreak", b"r"):
        add(lambda v=v: Schedule(v, Every("15m")), "name", f"Schedule(name={v!r:.12})")
    for v in ("15m", None, 900000, Cron, Every):
        add(lambda v=v: Schedule("r", v), "cadence", f"Schedule(cadence={v!r:.12})")
    for name, v in (("mode", "fast"), ("ids", "uuid"), ("beat", "fixed"), ("mode", None), ("beat", 1)):
        add(lambda name=name, v=v: Pump(**{name: v}), name, f"Pump({name}={v!r:.12})")
    add(lambda: Pump(tick="1s", jitter="1s"), "jitter", "jitter-not-shorter")
    add(lambda: Every("15m", "15m"), "offset", "offset-not-shorter")
    add(lambda: Schedule("r", Every("15m"), start=T9, end=T9), "end", "end-not-after-start")
    add(lambda: Schedule("r", Every("15m"), missed="skip"), "deadline", "skip-without-deadline")
    add(lambda: Schedule("r", Every("15m"), rule="release", missed="all"), "missed", "all-with-release")
    add(lambda: Faults(outage=(T9 + 1, T9)), "outage", "outage-inverted")
    add(lambda: Faults(outage=(T9,)), "outage", "outage-one-time")
    add(lambda: Faults(outage="09:00/10:00"), "outage", "outage-text")
    add(lambda: cadence(), "every", "cadence-none")
    add(lambda: cadence(every="15m", cron="0 9 * * *"), "every", "cadence-both")
    add(lambda: cadence(cron="0 9 * * *", offset="5m"), "offset", "cadence-offset-with-cron")
    # runs
    add(lambda: simulate(S, start=T9), "fires", "simulate-no-end")
    add(lambda: reference(S, start=T9), "fires", "reference-no-end")
    add(lambda: simulate(S, start=T9, until=T9 - 1), "until", "simulate-until-before-start")
    add(lambda: simulate(S, start=T9, fires=1, design="chain"), "design", "simulate-design")
    add(lambda: simulate(S, start=T9, fires=1, design=None), "design", "simulate-design-none")
    add(lambda: simulate(S, start=T9, fires=1, faults=Faults(outage=(T9 - 1, T9))), "outage",
        "simulate-outage-before-start")
    add(lambda: reference(S, start=T9, fires=1, outage=(T9 - 1, T9)), "outage", "reference-outage-before-start")
    add(lambda: reference(S, start=T9, fires=1, outage="x"), "outage", "reference-outage-text")
    add(lambda: reference(S, start=T9, fires=1, ids="uuid"), "ids", "reference-ids")
    add(lambda: reference(S, start=T9, fires=1, ids=["pump"]), "ids", "reference-ids-list")
    add(lambda: reference(S, start=T9, fires=1, keep="yes"), "keep", "reference-keep")
    add(lambda: reference("r", start=T9, fires=1), "schedule", "reference-schedule")
    add(lambda: reference(S, start=T9, fires=1, pump="fast"), "pump", "reference-pump")
    add(lambda: reference(S, start=T9, fires=1, worker=2), "worker", "reference-worker")
    for name, v in (("pump", "fast"), ("worker", 2), ("faults", "crash"), ("store", "redis://"), ("retain", 0),
                    ("retain", 1.5), ("retain", True), ("retain", 10**12)):
        add(lambda name=name, v=v: simulate(S, start=T9, fires=1, **{name: v}), name, f"simulate({name}={v!r:.12})")
        add(lambda name=name, v=v: PumpDesign(S, start=T9, **{name: v}), name, f"PumpDesign({name}={v!r:.12})")
    for v in ("r", None, 5, [], ["r"], [S, S], {"r": S}):
        add(lambda v=v: simulate(v, start=T9, fires=1), "schedules", f"simulate(schedules={v!r:.12})")
    for name, v, said in (("crash_after_enqueue", 2, "crash"), ("pumps", 2, "pumps"), ("cancel_at", 2, "cancel")):
        add(lambda name=name, v=v: simulate(S, start=T9, fires=1, design="bullmq", faults=Faults(**{name: v})),
            said, f"bullmq-{name}")
    for name, v in (("rule", "release"), ("missed", "all"), ("overlap", "skip")):
        add(lambda name=name, v=v: simulate(Schedule("r", Every("15m"), **{name: v}), start=T9, fires=1,
                                            design="bullmq"), name, f"bullmq-{name}")
    for v in (1.5, NAN, "1", True, -1, 10**12):
        add(lambda v=v: _run(fires=v), "fires", f"PumpDesign.run(fires={v!r:.12})")
    add(lambda: _run(), "fires", "PumpDesign.run()")
    # the clock
    for v in (1.5, NAN, "1", True, None, 2**60):
        add(lambda v=v: VirtualClock(v), "start_ms", f"VirtualClock({v!r:.12})")
        add(lambda v=v: VirtualClock(T9).advance(v), "advance", f"advance({v!r:.12})")
        add(lambda v=v: VirtualClock(T9).jump_to(v), "jump_to", f"jump_to({v!r:.12})")
    for v in (1.5, "x", None, 10**20, True):
        add(lambda v=v: iso(v), "time", f"iso({v!r:.12})")
    return cases


CASES = _cases()


def test_at_least_250_cases():
    assert len(CASES) >= 250


@pytest.mark.parametrize(("call", "arg"), CASES)
def test_bad_call_raises_input_error_naming_the_argument(call, arg):
    with pytest.raises(InputError) as info:
        call()
    message = str(info.value)
    assert "\n" not in message
    assert arg in message, message


def test_input_error_is_a_value_error():
    assert issubclass(InputError, ValueError)
    with pytest.raises(ValueError, match=r"^fires -1 must be a whole number of fires, 0 to 1,000,000$"):
        simulate(S, start=T9, fires=-1)


def test_schedule_start_text_is_refused_at_construction():
    """Schedule(start='abc') was accepted and failed later, inside a run."""
    with pytest.raises(InputError, match=r"^start 'abc' is not whole Unix ms"):
        Schedule("r", Every("15m"), start="abc")


def test_fractional_fires_is_refused_not_rounded():
    """simulate(fires=1.5) ran 2 fires."""
    with pytest.raises(InputError, match=r"^fires 1\.5 must be a whole number of fires"):
        simulate(S, start=T9, fires=1.5)


def test_reference_fires_is_capped():
    with pytest.raises(InputError, match=r"^fires 1000000000000 must be a whole number of fires, 0 to 1,000,000$"):
        reference(S, start=T9, fires=10**12, ids=None)


def test_numpy_integers_are_whole_numbers():
    assert Worker(concurrency=np.int64(3)).concurrency == 3
    assert type(Worker(concurrency=np.int64(3)).concurrency) is int
    assert Every(np.int64(900_000)).ms == 900_000


def test_a_never_matching_cron_is_input_error_naming_it():
    with pytest.raises(InputError, match=r"^cron '0 0 30 2 \*' has no slot at or after 1796029200000 ms"):
        simulate([S, Schedule("b", Cron("0 0 30 2 *"))], start=T9, fires=1)


# -- issue 15: the calls that accepted garbage, and a sweep of every public entry point ------------

C = Cron("0 9 * * *")


@pytest.mark.parametrize("call, message", [
    (lambda: C.after(1.5), "time 1.5 must be Unix ms, a whole number"),
    (lambda: C.after(True), "time True must be Unix ms, a whole number"),
    (lambda: C.at_or_after(1.5), "time 1.5 must be Unix ms, a whole number"),
    (lambda: C.between(T9, T9 + 10**9, cap=-1), "cap -1 must be a whole number, 0 or more"),
    (lambda: Every("15m").between(T9, T9 + 10**9, 0, cap=-1), "cap -1 must be a whole number, 0 or more"),
    (lambda: Every("1ms").between(0, 11_000_000, 0), "end 11000000 ms is 11,000,001 slots of every 1 ms after "
                                                     "start 0 ms, more than 10,000; give a nearer end or a cap"),
    (lambda: Cron("* * * * * *").between(T9, T9 + 86_400_000), f"end {T9 + 86_400_000} ms is more than 10,000 "
     f"slots of cron '* * * * * *' after start {T9} ms; give a nearer end or a cap"),
    (lambda: Every("15m").after(T9, T9, phase=-1), "phase -1 must be a phase in ms, 0 or more"),
    (lambda: Every("15m").after(T9, 1.5, 0), "now 1.5 must be a whole number"),
    (lambda: simulate(S, start=T9, fires=3, design="bullmq", pump="x"),
     "pump 'x' does not apply to design 'bullmq', which has no pump; leave pump out, or use design 'pump'"),
])
def test_the_calls_that_accepted_garbage_are_refused(call, message):
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value) == message


def test_a_capped_between_still_lists_up_to_its_cap():
    assert Every("1ms").between(0, 11_000_000, 0, cap=3) == [0, 1, 2]
    assert len(Every("1s").between(0, 9_999_000, 0)) == 10_000   # at the cap, not past it
    assert Cron("* * * * * *").between(T9, T9 + 86_400_000, cap=2) == [T9, T9 + 1000]


#: bad values of every kind: wrong types, bools for ints, NaN, infinities, negatives, huge,
#: empty and unknown text
BAD = [None, True, False, -1, 1.5, NAN, INF, -INF, 10**30, -10**30, "", "nope", "15m", [], {}, b"x", object()]


def _entry_points():
    """(label, call with the bad value in one argument, the Store it may write to or None)."""
    from emqsim import Minter, Registry, Store, Trace, VirtualClock, format_duration, hm, hms, minted_at
    from emqsim.figures import catalogue

    def fresh(call, prepare=lambda st: st):
        """`call(v, prepared)` on a store the loop makes (so a refused call's store is checked
        too), after `prepare(store)`: what the store holds then is what a refusal must leave."""
        call.fresh_store, call.prepare = Store, prepare
        return call

    E, D = Every("15m"), Cron("0 9 * * *")
    out = {
        "Every(ms)": lambda v: Every(v), "Every(offset)": lambda v: Every("1d", v),
        "Every.first": lambda v: E.first(v), "Every.phase": lambda v: E.phase(v),
        "Every.after(prev)": lambda v: E.after(v, T9, 0), "Every.after(now)": lambda v: E.after(T9, v, 0),
        "Every.after(phase)": lambda v: E.after(T9, T9, v), "Every.after(snap)": lambda v: E.after(T9, T9, 0, v),
        "Every.between(start)": lambda v: E.between(v, T9, 0), "Every.between(end)": lambda v: E.between(T9, v, 0),
        "Every.between(phase)": lambda v: E.between(T9, T9, v),
        "Every.between(cap)": lambda v: E.between(T9, T9 + 10**12, 0, cap=v),
        "Every.missed(down)": lambda v: E.missed(v, T9, 0), "Every.missed(up)": lambda v: E.missed(T9, v, 0),
        "Cron(expr)": lambda v: Cron(v), "Cron(tz)": lambda v: Cron("0 9 * * *", v),
        "Cron(reader)": lambda v: Cron("0 9 * * *", "UTC", v),
        "Cron.after": lambda v: D.after(v), "Cron.before": lambda v: D.before(v),
        "Cron.at_or_after": lambda v: D.at_or_after(v), "Cron.first": lambda v: D.first(v),
        "Cron.between(start)": lambda v: D.between(v, T9), "Cron.between(end)": lambda v: D.between(T9, v),
        "Cron.between(cap)": lambda v: D.between(T9, T9 + 10**12, cap=v),
        "cadence(every)": lambda v: cadence(every=v), "cadence(cron)": lambda v: cadence(cron=v),
        "VirtualClock": lambda v: VirtualClock(v), "format_duration": lambda v: format_duration(v),
        "parse_duration": lambda v: parse_duration(v), "Faults(outage)": lambda v: Faults(outage=v),
        "Faults(pumps)": lambda v: Faults(pumps=v), "Minter(worker)": lambda v: Minter(worker=v),
        "Minter(namespace)": lambda v: Minter(namespace=v), "Minter.mint": lambda v: Minter().mint(v),
        "minted_at": lambda v: minted_at(v), "Pump(tick)": lambda v: Pump(tick=v), "Pump(mode)": lambda v: Pump(mode=v),
        "Schedule(name)": lambda v: Schedule(v, E), "Schedule(cadence)": lambda v: Schedule("r", v),
        "Schedule(limit)": lambda v: Schedule("r", E, limit=v), "Schedule(start)": lambda v: Schedule("r", E, start=v),
        "Store(queue)": lambda v: Store(v), "Trace(retain)": lambda v: Trace(v),
        "at": lambda v: at(v), "at(tz)": lambda v: at("2026-11-30 09:00", v), "hm": lambda v: hm(v),
        "hms": lambda v: hms(v), "iso": lambda v: iso(v), "hm(tz)": lambda v: hm(T9, v),
        "Worker(run)": lambda v: Worker(run=v), "Worker(concurrency)": lambda v: Worker(concurrency=v),
        "catalogue.figure": lambda v: catalogue.figure(v), "catalogue.model": lambda v: catalogue.model(v),
    }
    stored = {
        "simulate(start)": fresh(lambda v, st: simulate(S, start=v, fires=1, store=st)),
        "simulate(fires)": fresh(lambda v, st: simulate(S, start=T9, fires=v, store=st)),
        "simulate(until)": fresh(lambda v, st: simulate(S, start=T9, until=v, store=st)),
        "simulate(design)": fresh(lambda v, st: simulate(S, start=T9, fires=1, design=v, store=st)),
        "simulate(bullmq, pump)": fresh(lambda v, st: simulate(S, start=T9, fires=1, design="bullmq", pump=v,
                                                                store=st)),
        "simulate(schedules)": fresh(lambda v, st: simulate(v, start=T9, fires=1, store=st)),
        "simulate(retain)": fresh(lambda v, st: simulate(S, start=T9, fires=1, retain=v, store=st)),
        "PumpDesign.run(fires)": fresh(lambda v, sim: sim.run(fires=v), lambda st: PumpDesign(S, start=T9, store=st)),
        "PumpDesign.run(until)": fresh(lambda v, sim: sim.run(until=v), lambda st: PumpDesign(S, start=T9, store=st)),
        "Registry.register(start)": fresh(lambda v, st: Registry(st).register(S, v)),
        "Registry.register(schedule)": fresh(lambda v, st: Registry(st).register(v, T9)),
        "Registry.upsert(start)": fresh(lambda v, st: Registry(st).upsert(S, v)),
        "Registry.cancel": fresh(lambda v, st: Registry(st).cancel(v)),
    }
    for title in catalogue.SOURCES:
        model = catalogue.model(title)
        for c in model.controls:
            out[f"{title}.frame({c.name})"] = lambda v, m=model, n=c.name: m.frame(**{n: v})
        out[f"{title}.frame(unknown)"] = lambda v, m=model: m.frame(nope=v)
    return out, stored


#: (entry, value) pairs a call may take: the value is a good one there
GOOD = {(label, repr(v)) for label, v in [
    ("Every(ms)", "15m"), ("Every(offset)", "15m"), ("Every(offset)", None), ("parse_duration", "15m"),
    ("Worker(run)", "15m"), ("Pump(tick)", "15m"), ("Faults(outage)", None), ("Schedule(start)", None),
    ("Cron.between(cap)", None), ("Every.between(cap)", None), ("Every.after(snap)", None),
    ("Registry.cancel", "nope"), ("Registry.cancel", "15m"), ("simulate(until)", None),
    ("simulate(bullmq, pump)", None), ("PumpDesign.run(until)", None), ("Cron(tz)", None),
    ("Store(queue)", "nope"), ("Store(queue)", "15m"), ("cadence(every)", "15m"), ("Schedule(name)", "nope"),
    ("Schedule(name)", "15m"), *((f"01 cron vs interval.frame(expr)", v) for v in ("", "nope", "15m")),
    # plain arithmetic on Unix ms takes any whole number (a run checks the span ids can carry)
    *((label, v) for v in (-1, 10**30, -10**30) for label in (
        "Every.first", "Every.phase", "Every.after(prev)", "Every.after(phase)", "Every.after(now)", "Every.between(start)",
        "Every.between(end)", "Every.between(cap)", "Cron.after", "Cron.before", "Cron.at_or_after",
        "Cron.first", "Cron.between(start)", "Cron.between(end)", "Cron.between(cap)", "VirtualClock",
        "format_duration", "hm", "hms", "iso"))]}


def held(store) -> dict:
    """The store's own keys with their DUMP: what a refused call must leave as it found it. Only
    its own: on a shared server other tests' runs hold keys too (a 10,000-fire walk holds 10,002),
    and they come and go while this test runs."""
    return {k: store.client.dump(k) for k in store.queue_keys()}


def test_what_a_refusal_must_leave_is_the_store_s_own_keys(store):
    """held() listed and DUMPed every key of the server: on CI's shared Redis that was other
    workers' 40,000 keys, twice for each of 221 calls (43 minutes), and a failure whenever one
    of those runs wrote between the two reads."""
    neighbour = f"emq:{{{store.keys.queue}x}}:repeat"   # another queue whose name begins like this one
    store.client.hset(store.keys.record("r"), "every_ms", 900_000)
    before = held(store)
    try:
        store.client.zadd(neighbour, {"r": 1})
        store.client.set("elsewhere", 1)
        assert held(store) == before
        assert list(before) == [store.keys.record("r").encode()]
    finally:
        store.client.delete(neighbour, "elsewhere", store.keys.record("r"))


def test_every_public_entry_point_refuses_every_bad_value_with_input_error():
    """Each public call with each bad value in each argument: InputError or a good value's answer,
    never TypeError, KeyError, AttributeError or a plain ValueError; a refused call leaves its store
    empty."""
    plain, stored = _entry_points()
    wrong, accepted = [], []

    for label, call in [*plain.items(), *stored.items()]:
        for v in BAD:
            store = None
            try:
                if label in stored:
                    store = call.fresh_store()
                    prepared = call.prepare(store)
                    before = held(store)
                    got = call(v, prepared)
                else:
                    got = call(v)
            except InputError:
                if store is not None and held(store) != before:
                    wrong.append(f"{label}({v!r:.20}): refused after writing to {sorted(held(store))}")
            except Exception as exc:
                wrong.append(f"{label}({v!r:.20}): {type(exc).__name__}: {str(exc)[:80]}")
            else:
                if (label, repr(v)) not in GOOD:
                    accepted.append(f"{label}({v!r:.20})")
            finally:
                if store is not None:
                    store.close()
    assert wrong == []
    assert accepted == []


def _engine_sources():
    from pathlib import Path
    return sorted((Path(__file__).resolve().parent.parent / "emqsim" / "engine").rglob("*.py"))


def test_the_engine_raises_no_bare_value_error():
    """Bad input is an InputError (a ValueError that names its argument), never a bare one."""
    import ast
    found = []
    for path in _engine_sources():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Raise) and node.exc is not None:
                call = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                if isinstance(call, ast.Name) and call.id == "ValueError":
                    found.append(f"{path.name}:{node.lineno}")
    assert found == []


def test_the_whole_ms_bound_is_written_once():
    """errors.MAX_MS is the one 2**53 in the engine's code (messages may name it)."""
    import ast
    spelled = [f"{p.name}:{n.lineno}" for p in _engine_sources() if p.name != "errors.py"
               for n in ast.walk(ast.parse(p.read_text()))
               if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Pow)
               and getattr(n.left, "value", None) == 2 and getattr(n.right, "value", None) == 53]
    assert spelled == []


@pytest.mark.parametrize("queue", ["", "a{b", "}", None, 7])
def test_a_store_and_the_key_layout_refuse_a_queue_name_alike(queue):
    from emqsim.engine.keys import Keys
    from emqsim.engine.store import Store

    with pytest.raises(InputError) as by_keys:
        Keys(queue)
    with pytest.raises(InputError) as by_store:
        Store(queue=queue)
    assert str(by_keys.value) == str(by_store.value) == f"queue {queue!r} must be non-empty text without braces, like 'demo'"
