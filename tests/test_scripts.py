"""The Lua files keep BullMQ's conventions, and their error codes match the Python enum."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from emqsim.engine.scripts import Err, ScriptError, script_files

LUA = resources.files("emqsim.engine").joinpath("lua")
FILES = sorted(p.name for p in LUA.iterdir() if p.name.endswith(".lua"))


def test_every_verb_the_engine_needs_is_a_file():
    assert set(script_files()) >= {"register", "upsert", "cancel", "advance", "enqueue", "fire", "finish", "take",
                                     "scheduler", "activate", "chain"}


@pytest.mark.parametrize("name", FILES)
def test_file_is_named_verb_dash_fixed_key_count(name):
    src = LUA.joinpath(name).read_text()
    fixed = int(re.fullmatch(r"[a-z]+-(\d+)\.lua", name).group(1))
    listed = {int(k) for k in re.findall(r"^\s+KEYS\[(\d+)\]", src, re.M)}
    assert listed == set(range(1, fixed + 1)), f"{name} header lists KEYS {sorted(listed)}"


@pytest.mark.parametrize("name", FILES)
def test_header_codes_match_the_enum_and_the_returns(name):
    src = LUA.joinpath(name).read_text()
    header, body = src.split("]]", 1)
    declared = {int(c): n for c, n in re.findall(r"^\s+(-\d+)\s+(ERR_[A-Z]+)", header, re.M)}
    returned = {int(c) for c in re.findall(r"return (-\d+)", body)}
    assert returned == set(declared), f"{name}: returns {sorted(returned)}, header lists {sorted(declared)}"
    for code, label in declared.items():
        assert Err(code).name == label


@pytest.mark.parametrize("name", FILES)
def test_scripts_never_read_the_clock(name):
    src = LUA.joinpath(name).read_text().split("]]", 1)[1]
    assert "'TIME'" not in src and '"TIME"' not in src


def test_every_enum_code_is_used_by_some_script():
    used = set()
    for name in FILES:
        used |= {int(c) for c in re.findall(r"return (-\d+)", LUA.joinpath(name).read_text())}
    assert used == {e.value for e in Err}


def test_a_refused_call_raises_naming_the_code(store):
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        store.scripts.run("advance", [store.keys.repeat, store.keys.record("x")], ["x", "soon"])
    with pytest.raises(ScriptError, match="ERR_ARITY"):
        store.scripts.run("fire", [store.keys.repeat, store.keys.pending, store.keys.marker], [1, "0"])
    with pytest.raises(ScriptError, match="ERR_ARITY"):
        store.scripts.run("finish", [store.keys.pending, store.keys.job("J1")], [1, "J1", 5])
    assert store.client.exists(store.keys.repeat) == 0  # nothing half-written


# -- the shared marker rule, pulled in with `--- @include` ---------------------------------------

def test_includes_are_resolved_when_the_scripts_load():
    raw, resolved = script_files(resolved=False), script_files()
    for verb in ("enqueue", "fire", "take"):
        assert '--- @include "marker"' in raw[verb]
        assert "@include" not in resolved[verb]
        assert resolved[verb].count("local function markReady(") == 1
    assert "markReady" not in resolved["register"] and "markReady" not in resolved["upsert"]


def test_an_unknown_include_is_one_clear_error():
    from emqsim.engine.scripts import include

    with pytest.raises(FileNotFoundError, match="include 'nope' is not a file in emqsim/engine/lua/includes"):
        include('--- @include "nope"\nreturn 1')
    assert include('--- @include "marker"\n--- @include "marker"\nreturn 1').count("markReady(") == 1


def _marker(store):
    return [(m.decode(), int(s)) for m, s in store.client.zrange(store.keys.marker, 0, -1, withscores=True)]


def _register(store, name="r", first=1000):
    store.scripts.run("register", [store.keys.repeat, store.keys.record(name), store.keys.marker],
                      [name, first, "every_ms", "900000"])


def _take(store, job, now, parked):
    keys = [store.keys.marker, store.keys.pending, store.keys.job(job) if job else store.keys.pending]
    out = store.scripts.run("take", keys, [now, job, "1" if parked else "0"])
    return [x.decode() if isinstance(x, bytes) else x for x in out]


def test_registering_makes_no_job_ready_so_the_marker_stays_empty(store):
    _register(store)
    assert _marker(store) == []
    from emqsim.engine.registry import Registry
    from emqsim.engine.schedule import Schedule
    from emqsim.engine.cadence import Every

    Registry(store).upsert(Schedule("r", Every("10m")), 2000)
    assert _marker(store) == []


def test_enqueue_and_fire_mark_a_ready_job_the_way_bullmq_does(store):
    _register(store)
    keys = [store.keys.job("J1"), store.keys.pending, store.keys.marker]
    store.scripts.run("enqueue", keys, ["J1", "r", 1000, 1500, "{}"])
    assert _marker(store) == [("0", 0)]          # "0" at score 0, not the release instant
    store.client.delete(store.keys.marker)
    fire_keys = [store.keys.repeat, store.keys.pending, store.keys.marker, store.keys.record("r")]
    store.scripts.run("fire", fire_keys + [store.keys.record("r")], [2000, "0", "r", 1000, 901000, "", 1000, "{}"])
    assert _marker(store) == []                  # a skipped occurrence makes nothing ready
    store.scripts.run("fire", fire_keys + [store.keys.job("J2")], [2000, "0", "r", 901000, 1801000, "J2", 901000, "{}"])
    assert _marker(store) == [("0", 0)]          # not the registry's next run (1801000)


def test_take_a_parked_worker_pops_the_marker_then_the_job(store):
    assert _take(store, "", 500, parked=True) == [0]                 # nothing written: stays parked
    _register(store)
    for job in ("J1", "J2"):
        store.scripts.run("enqueue", [store.keys.job(job), store.keys.pending, store.keys.marker],
                          [job, "r", 1000, 1500, "{}"])
    assert _take(store, "J1", 1500, parked=True) == [2, "J1", 1]
    assert store.client.hget(store.keys.job("J1"), "state") == b"active"
    assert store.client.hget(store.keys.job("J1"), "started") == b"1500"
    assert [j.decode() for j in store.client.lrange(store.keys.pending, 0, -1)] == ["J2"]
    assert _marker(store) == [("0", 0)]          # J2 still waits: "0" back for the next worker
    assert _take(store, "J2", 1700, parked=False) == [2, "J2", 0]    # straight after a run: no marker read
    assert _marker(store) == [("0", 0)]
    assert _take(store, "", 1700, parked=True) == [3]                # a stale "0": awake, nothing to take
    assert _take(store, "", 1700, parked=True) == [0]
    assert _take(store, "J1", 1800, parked=False) == [3]             # taken already


def test_take_a_one_for_later_puts_the_worker_to_sleep_until_then(store):
    store.client.zadd(store.keys.marker, {"1": 5000})
    assert _take(store, "J9", 1000, parked=True) == [1, "5000"]
    assert _marker(store) == []                  # popped, as BZPOPMIN does
    store.client.zadd(store.keys.marker, {"1": 5000})
    assert _take(store, "", 1000, parked=True) == [1, "5000"]
    assert _marker(store) == [("1", 5000)]       # no job planned for it: left for the worker with one
    assert _take(store, "", 5000, parked=True) == [3]                # due now: awake


def test_take_refuses_a_bad_now(store):
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        _take(store, "J1", "soon", parked=True)
