"""The recorder (emqsim/engine/steps.py) on BullMQ's real scripts: each `redis.call` with the
script file's line, the command and its reply, as plain data, changing nothing the scripts do;
and the bench's per-fire measure of the real scripts."""

from __future__ import annotations

import itertools
import re

import oracle
import pytest
import redis

from bullmq_replay import replay, upsert
from emqsim.engine.bullmq_scripts import package
from emqsim.engine.bullmq_scripts.driver import BullMQScripts
from emqsim.engine.bullmq_scripts.speed import bench_line, per_fire
from emqsim.engine.errors import InputError
from emqsim.engine.steps import recording

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))

STEPS = oracle.recording("bullmq_steps")
T = 1_796_029_620_000


def watched(b):
    """A recording of the driver's client, its scripts named by their file names."""
    return recording(b.client, b.keys[""] + "*", {text: name for name, text in b.texts.items()})


def _keys(b) -> dict:
    """The queue's keys as data, a stream's entries without their ids (the server's clock)."""
    c = b.client
    out = {}
    for key in sorted(c.scan_iter(match=b.keys[""] + "*")):
        kind = c.type(key).decode()
        value = {"string": lambda: c.get(key), "hash": lambda: sorted(c.hgetall(key).items()),
                 "zset": lambda: c.zrange(key, 0, -1, withscores=True), "list": lambda: c.lrange(key, 0, -1),
                 "set": lambda: sorted(c.smembers(key)),
                 "stream": lambda: [f for _i, f in c.xrange(key)]}[kind]()
        out[key] = (kind, value)
    return out


@pytest.mark.parametrize("i", [0, 4, 6, 10], ids=lambda i: STEPS["questions"]["scenarios"][i]["id"])
def test_recording_changes_nothing_the_scripts_do(i):
    scenario = STEPS["questions"]["scenarios"][i]
    plain, recorded = BullMQScripts(), BullMQScripts()
    first = replay(scenario, plain)
    with watched(recorded) as log:
        second = replay(scenario, recorded)
    assert first == second
    assert _keys(plain) == _keys(recorded)
    pickups = sum(1 for s in scenario["steps"] if s["op"] == "pickup")
    assert len(log.scripts) >= 1 + 2 * pickups     # an upsert; a moveToActive and more per pickup


def test_each_call_is_on_its_line_of_the_scripts_text():
    b = BullMQScripts()
    with watched(b) as log:
        upsert(b, {"at": T, "every": 900_000})
        b.pickup(T)
    assert [name for name, _ in log.scripts] == ["addJobScheduler-11.lua", "moveToActive-11.lua",
                                                  "updateJobScheduler-12.lua", "moveToFinished-14.lua"]
    assert {c.script for c in log.calls} == {name for name, _ in log.scripts}
    for call in log.calls:
        text = b.texts[call.script].split("\n")[call.line - 1]
        assert "rcall(" in text or "redis.call(" in text, (call.script, call.line, text)
        named = re.findall(r'(?:rcall|redis\.call)\("(\w+)"', text)
        if named:                          # a command written out on the line is the one called
            assert call.command[0] in [n.upper() for n in named], (call, text)


def test_the_pickup_rewrites_the_one_member_s_score():
    """What the stepping figure shows: updateJobScheduler-12's ZADD of the scheduler's member,
    its reply 0 (no new member: the score rewritten), and the next job's id."""
    b = BullMQScripts()
    upsert(b, {"at": T, "every": 900_000})
    with watched(b) as log:
        b.pickup(T)
    update = [c for c in log.calls if c.script == "updateJobScheduler-12.lua"]
    zadds = [c for c in update if c.command[0] == "ZADD" and c.command[1] == b.keys["repeat"]]
    assert [(c.command[2:], c.reply) for c in zadds] == [((str(T + 900_000), "s"), 0)]
    assert zadds[0].keys[b.keys["repeat"]] == ("zset", (("s", str(T + 900_000)),))
    take = [c for c in log.calls if c.script == "moveToActive-11.lua"]
    moved = [c for c in take if c.command[0] == "RPOPLPUSH"]
    assert [c.reply for c in moved] == [f"repeat:s:{T}"]
    # a reply of nil bulks arrives as Redis hands it to Lua: false
    hmget = next(c for c in take if c.command[0] == "HMGET")
    assert False in hmget.reply


def test_a_script_error_is_recorded_and_raised():
    b = BullMQScripts()
    upsert(b, {"at": T, "every": 900_000})
    b.client.set(b.keys["meta"], "not a hash")     # moveToActive's HMGET then fails
    with watched(b) as log, pytest.raises(redis.exceptions.ResponseError):
        b.take(T)
    assert log.calls[-1].command[0] == "HMGET" and "WRONGTYPE" in log.calls[-1].error
    server = b.client.connection_pool.connection_kwargs["server"]
    assert type(server._lua_runtime).__name__ != "_Runtime"     # the runtime is itself again
    b.client.delete(b.keys["meta"])
    assert b.take(T).id == f"repeat:s:{T}"


def test_recording_needs_the_embedded_runtime():
    with pytest.raises(InputError, match="embedded fakeredis"):
        with recording(redis.Redis(host="127.0.0.1", port=1), "bull:*"):   # never contacted
            pass


def test_per_fire_reports_the_real_scripts_cost():
    ticks = itertools.count()
    r = per_fire(lambda: next(ticks) * 1e-3, fires=20)   # a timer that moves 1 ms a reading
    assert r["fires"] == 20 and 30 <= r["calls_per_fire"] <= 60
    assert r["ms_per_fire"] == pytest.approx(1 / 20) and r["evalsha_floor_ms"] == pytest.approx(1 / 20)
    assert r["driver_floor_ms"] == pytest.approx(1 / 20)
    line = bench_line(lambda: next(ticks) * 1e-3, fires=10)
    assert line.startswith("BullMQ 6.7.0's own scripts on fakeredis: ") and "redis.call's" in line
    assert " us the driver's way, " in line
    plain = per_fire(lambda: next(ticks) * 1e-3, fires=5, fast=False)
    assert plain["calls_per_fire"] == r["calls_per_fire"]     # the adapter changes costs, not calls
