"""Issue 32: every public callable checks its arguments as the command line does. Each is called
with a valid set of arguments, then with one of them replaced by a value of the wrong type or
range (text, a float, None, a bool, a negative, a huge number, numpy scalars); the only answers
accepted are a return or `InputError`. numpy integers are whole numbers and must be taken as such.

The valid calls are written here; the bad values are put into every parameter of every call."""

from __future__ import annotations

import numpy as np
import pytest

import emqsim
from emqsim import (Cron, Every, Faults, Fire, InputError, Minter, Pump, PumpDesign, Registry, Schedule, Store, Trace,
                    VirtualClock, Worker, at, cadence, format_duration, hm, hms, iso, minted_at, parse_duration,
                    present, simulate)

T0 = at("2026-11-30 09:00")
BAD = {"text": "abc", "float": 1.5, "none": None, "bool": True, "negative": -5, "huge": 2**62,
       "np_float": np.float64(2.5), "np_int_huge": np.int64(2**62), "list": [1], "nan": float("nan")}


def _registry():
    store = Store()
    reg = Registry(store)
    reg.register(Schedule("r", Every("15m")), T0)
    return store, reg


#: name -> (callable maker, valid kwargs); the maker gets a fresh object per call where it has state
CALLS = {
    "Cron": (lambda: Cron, {"expr": "0 9 * * *", "tz": "UTC"}),
    "Cron.after": (lambda: Cron("0 9 * * *").after, {"t": T0}),
    "Cron.before": (lambda: Cron("0 9 * * *").before, {"t": T0}),
    "Cron.at_or_after": (lambda: Cron("0 9 * * *").at_or_after, {"t": T0}),
    "Cron.first": (lambda: Cron("0 9 * * *").first, {"now": T0}),
    "Cron.between": (lambda: Cron("0 9 * * *").between, {"start": T0, "end": T0 + 3 * 86_400_000, "cap": 10}),
    "Every": (lambda: Every, {"ms": 900_000, "offset": 0}),
    "Every.first": (lambda: Every("15m").first, {"now": T0}),
    "Every.phase": (lambda: Every("15m").phase, {"first": T0}),
    "Every.after": (lambda: Every("15m").after, {"prev": T0, "now": T0 + 1, "phase": 0}),
    "Every.between": (lambda: Every("15m").between, {"start": T0, "end": T0 + 3_600_000, "phase": 0, "cap": 10}),
    "Every.missed": (lambda: Every("15m").missed, {"down": T0, "up": T0 + 3_600_000, "phase": 0}),
    "cadence": (lambda: cadence, {"every": "15m"}),
    "VirtualClock": (lambda: VirtualClock, {"start_ms": T0}),
    "VirtualClock.advance": (lambda: VirtualClock(T0).advance, {"ms": 1000}),
    "VirtualClock.jump_to": (lambda: VirtualClock(T0).jump_to, {"t": T0 + 1000}),
    "format_duration": (lambda: format_duration, {"ms": 90_000}),
    "parse_duration": (lambda: parse_duration, {"value": "15m"}),
    "Faults": (lambda: Faults, {"outage": (T0, T0 + 60_000), "restart_after": 0, "pumps": 1}),
    "Minter": (lambda: Minter, {"worker": 0}),
    "Minter.mint": (lambda: Minter().mint, {"ms": T0}),
    "minted_at": (lambda: minted_at, {"branded": Minter().mint(T0)}),
    "Pump": (lambda: Pump, {"tick": 1000, "batch": 100, "jitter": 0, "seed": 0, "latency": 0}),
    "Pump.beat_at": (lambda: Pump().beat_at, {"origin": T0, "k": 3}),
    "Pump.rearm": (lambda: Pump().rearm, {"origin": T0, "swept": T0 + 5}),
    "Pump.wake": (lambda: Pump().wake, {"origin": T0, "earliest": T0 + 10, "after": T0}),
    "Schedule": (lambda: Schedule, {"name": "r", "cadence": Every("15m"), "limit": 0}),
    "Schedule.first_run": (lambda: Schedule("r", Every("15m")).first_run, {"now": T0}),
    "Schedule.on_time_score": (lambda: Schedule("r", Every("15m")).on_time_score, {"registered": T0, "now": T0 + 1}),
    "Schedule.on_time_runs": (lambda: Schedule("r", Every("15m")).on_time_runs,
                              {"registered": T0, "start": T0, "end": T0 + 3_600_000}),
    "Schedule.next_run": (lambda: Schedule("r", Every("15m")).next_run,
                          {"slot": T0, "released": T0, "finished": None, "phase": 0}),
    "Schedule.label": (lambda: Schedule("r", Every("15m")).label, {"slot": T0, "released": T0, "phase": 0}),
    "Schedule.late": (lambda: Schedule("r", Every("15m")).late, {"slot": T0, "released": T0, "phase": 0}),
    "Schedule.bounded": (lambda: Schedule("r", Every("15m")).bounded, {"nxt": T0, "produced": 1}),
    "Schedule.to_record": (lambda: Schedule("r", Every("15m")).to_record, {"phase": 0}),
    "Worker": (lambda: Worker, {"run": 1000, "spread": 0, "concurrency": 1, "poll": 0, "seed": 0}),
    "Worker.duration": (lambda: Worker(run=1000).duration, {"n": 3}),
    "simulate": (lambda: simulate, {"schedules": Schedule("r", Every("15m")), "start": T0, "fires": 3}),
    "Store": (lambda: Store, {"queue": "demo"}),
    "at": (lambda: at, {"date_time_text": "2026-11-30 09:00", "tz": "UTC"}),
    "hm": (lambda: hm, {"ms": T0}),
    "hms": (lambda: hms, {"ms": T0}),
    "iso": (lambda: iso, {"ms": T0}),
    "Registry.register": (lambda: _registry, {"schedule": Schedule("s", Every("15m")), "now": T0}),
    "Registry.upsert": (lambda: _registry, {"schedule": Schedule("r", Every("5m")), "now": T0}),
    "Registry.cancel": (lambda: _registry, {"name": "r"}),
    "Registry.due": (lambda: _registry, {"now": T0, "limit": 10}),
    "Registry.advance": (lambda: _registry, {"name": "r", "nxt": T0 + 900_000}),
    "Registry.enqueue": (lambda: _registry, {"job_id": "JOB1", "name": "r", "slot": T0, "now": T0}),
    "Registry.take": (lambda: _registry, {"job_id": "JOB1", "now": T0, "parked": False}),
    "Registry.record": (lambda: _registry, {"name": "r"}),
    "Registry.score": (lambda: _registry, {"name": "r"}),
    "Registry.job": (lambda: _registry, {"job_id": "JOB1"}),
    "Registry": (lambda: Registry, {"store": "A STORE"}),
    "Registry.forget": (lambda: _registry, {"name": "r"}),
    "Registry.finish": (lambda: _registry, {"done": [("JOB1", T0, T0 + 1000, "done")], "evict": []}),
    "Schedule.with_": (lambda: Schedule("r", Every("15m")).with_, {"limit": 3}),
    "PumpDesign": (lambda: _design, {"schedules": Schedule("r", Every("15m")), "start": T0, "retain": 100}),
    "PumpDesign.run": (lambda: _design_run, {"fires": 3, "until": T0 + 3_600_000}),
    "Store.claim": (lambda: _claim, {"run": "a test"}),
    "Trace": (lambda: Trace, {"retain": 10}),
    "Trace.table": (lambda: simulate(Schedule("r", Every("15m")), start=T0, fires=2).table, {"tz": "UTC"}),
    "Trace.to_json": (lambda: simulate(Schedule("r", Every("15m")), start=T0, fires=2).to_json, {"indent": 2}),
    "Trace.column": (lambda: simulate(Schedule("r", Every("15m")), start=T0, fires=2).column, {"field": "slot"}),
    "Trace.skip": (lambda: Trace().skip, {"name": "r", "slot": T0, "at": T0, "why": "deadline"}),
    "Trace.rewritten": (lambda: Trace().rewritten, {"name": "r", "old": T0, "now": T0}),
    "Fire": (lambda: Fire, {"n": 1, "name": "r", "slot": T0, "released": T0, "started": T0, "finished": T0,
                            "job_id": "JOB1"}),
    "present": (lambda: _present, {"on": False}),
}


def _present(on):
    """present(on), then back to the normal sizes: the other tests of this process draw normally."""
    try:
        return present(on)
    finally:
        present(False)


def _design(**kw):
    with PumpDesign(**kw) as design:
        return design.trace.count


def _design_run(**kw):
    with PumpDesign(Schedule("r", Every("15m")), start=T0) as design:
        return design.run(**kw)


def _claim(**kw):
    with Store() as store:
        return store.claim(**kw)


#: public callables that take no argument (nothing to put a bad value in)
NO_ARGUMENTS = {"Cron.describe", "Every.describe", "Registry.peek", "Registry.rows", "Registry.size",
                "Registry.marker", "Registry.pending", "Store.queue_keys", "Store.cleanup_command", "Store.close",
                "Fire.record", "Trace.fire_records", "Trace.skip_records", "Trace.arrays", "Trace.to_dict",
                "Trace.records", "InputError", "ServerError"}
#: the engine's own bookkeeping, called by the designs with what they computed (not a reader's API)
INTERNAL = {"Registry.fire", "Registry.forward", "Trace.produced"}


def test_every_public_callable_is_called_here():
    import inspect

    names = set()
    for name in emqsim.__all__:
        obj = getattr(emqsim, name)
        if inspect.isclass(obj):
            names.add(name)
            names |= {f"{name}.{m}" for m, f in vars(obj).items() if not m.startswith("_") and callable(f)}
        elif callable(obj):
            names.add(name)
    assert names - set(CALLS) - NO_ARGUMENTS - INTERNAL == set()


def _call(name: str, kwargs: dict):
    maker, _ = CALLS[name]
    if name.startswith("Registry."):
        store, reg = _registry()
        try:
            return getattr(reg, name.split(".", 1)[1])(**kwargs)
        finally:
            store.close()
    if kwargs.get("store") == "A STORE":      # a fresh store, made when the call is
        with Store() as store:
            return maker()(**{**kwargs, "store": store})
    out = maker()(**kwargs)
    if isinstance(out, Store):
        out.close()
    return out


@pytest.mark.parametrize("name", list(CALLS))
def test_the_valid_call_works(name):
    _call(name, CALLS[name][1])


CASES = [(name, param, bad) for name, (_, kw) in CALLS.items() for param in kw for bad in BAD]


@pytest.mark.parametrize("name,param,bad", CASES, ids=[f"{n}-{p}-{b}" for n, p, b in CASES])
def test_a_bad_value_is_an_input_error_or_an_answer(name, param, bad):
    kwargs = {**CALLS[name][1], param: BAD[bad]}
    try:
        _call(name, kwargs)
    except InputError as exc:
        assert str(exc).count("\n") == 0 and str(exc)       # one line
    # anything else fails the test, with the type and message pytest shows


NUMPY = [(name, param) for name, (_, kw) in CALLS.items() for param, v in kw.items()
         if type(v) is int and not isinstance(v, bool)]


@pytest.mark.parametrize("name,param", NUMPY, ids=[f"{n}-{p}" for n, p in NUMPY])
def test_a_numpy_integer_is_taken_as_the_same_whole_number(name, param):
    kwargs = CALLS[name][1]
    plain = _call(name, kwargs)
    numpy = _call(name, {**kwargs, param: np.int64(kwargs[param])})
    if hasattr(plain, "to_dict"):                  # a Trace
        assert numpy.to_dict() == plain.to_dict()
    elif not isinstance(plain, (Store, Minter)) and not callable(plain):
        assert repr(numpy) == repr(plain)
