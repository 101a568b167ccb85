"""The fast path BullMQ's own scripts take on the embedded fakeredis (emqsim/engine/fakelua.py:
`runner`, and `_Calls._run` for each `redis.call`) changes no answer: the same seeded scenarios
as the models' test, driven with the adapter on and with it switched off, give the same replies
and leave the same keys (DUMP of every key, a stream's entries without their clock ids); a
flushed script cache, a counter wrapped around fakeredis's `_run_command` and a script's own
error all meet fakeredis's own path."""

from __future__ import annotations

import fakeredis
import pytest
import redis

from emqsim.engine import fakelua
from emqsim.engine.bullmq_scripts import package, runtime
from emqsim.engine.bullmq_scripts.driver import BullMQScripts
from test_bullmq_models_vs_real import SCENARIOS, SEED, scenario
from bullmq_replay import upsert

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))


def plain() -> BullMQScripts:
    """The driver on a server fakelua never touched (its switch off while the client is made)."""
    fakelua.enabled = False
    try:
        return BullMQScripts(runtime.embedded(fast=True))
    finally:
        fakelua.enabled = True


def keys(b: BullMQScripts) -> dict:
    c = b.client
    out = {}
    for k in sorted(c.keys("*")):
        if c.type(k) == b"stream":
            out[k] = ("stream", [f for _id, f in c.xrange(k)])
        else:
            out[k] = (c.type(k), c.dump(k), c.pttl(k))
    return out


def steps(b: BullMQScripts, sc: dict) -> list:
    out = []
    for step in sc["steps"]:
        try:
            if step["op"] == "upsert":
                out.append(("upsert", upsert(b, step)))
            else:
                job = b.take(step["at"])
                out.append(("take", job))
                if job is not None:
                    out.append(("finish", b.finish(job, step["at"] + 1)))
            out.append(("scheduler", b.scheduler("s")))
        except Exception as exc:   # an error is an answer too
            out.append(("error", type(exc).__name__, str(exc)))
    out.append(("remove", b.remove("s"), b.remove("s")))
    return out


def test_the_fast_path_is_taken():
    b = BullMQScripts()
    assert getattr(b.client.connection_pool.connection_kwargs["server"], fakelua.MARK)
    assert all(callable(s) and not isinstance(s, redis.commands.core.Script) for s in b._scripts.values())
    assert all(isinstance(s, redis.commands.core.Script) for s in plain()._scripts.values())


@pytest.mark.parametrize("seed", range(SEED, SEED + SCENARIOS, 3))
def test_the_real_scripts_answer_the_same_with_and_without_the_fast_path(seed):
    sc = scenario(seed)
    fast, slow = BullMQScripts(), plain()
    assert steps(fast, sc) == steps(slow, sc)
    assert keys(fast) == keys(slow) != {}


def test_a_flushed_script_cache_is_loaded_again():
    fast, slow = BullMQScripts(), plain()
    for b in (fast, slow):
        b.upsert("s", 1_796_029_620_000, every=900_000)
        b.client.script_flush()
    assert fast.pickup(1_796_029_620_000) == slow.pickup(1_796_029_620_000)
    assert keys(fast) == keys(slow)


def test_a_counter_around_run_command_sees_every_call():
    """The bench counts the calls inside scripts by wrapping fakeredis's `_run_command`: with
    it wrapped, the fast path goes through it, so the count is the plain path's."""
    from fakeredis._socket._base import BaseFakeSocket

    counts = []
    for b in (BullMQScripts(), plain()):
        b.upsert("s", 1_796_029_620_000, every=900_000)
        seen = [0]
        orig = BaseFakeSocket._run_command

        def wrapped(self, func, sig, args, from_script, _orig=orig, _seen=seen):
            _seen[0] += from_script
            return _orig(self, func, sig, args, from_script)

        BaseFakeSocket._run_command = wrapped
        try:
            b.pickup(1_796_029_620_000)
        finally:
            BaseFakeSocket._run_command = orig
        counts.append(seen[0])
    assert counts[0] == counts[1] > 30


def test_a_scripts_error_and_a_type_error_read_as_before():
    """Inside `_run`: a WRONGTYPE from a command, and a script calling a command scripts may not."""
    answers = []
    for fast in (True, False):
        client = fakeredis.FakeRedis(server=fakeredis.FakeServer(version=(7,)), version=(7,))
        if fast:
            fakelua.speed(client)
        client.set("k", "v")
        got = []
        for src in ("return redis.call('HSET', KEYS[1], 'a', 1)", "return redis.call('SUBSCRIBE', 'x')",
                    "return redis.pcall('ZADD', KEYS[1], 1, 'm')", "return redis.call('HSET', KEYS[2], 'a', 1)"):
            try:
                got.append(client.eval(src, 2, "k", "h"))
            except redis.ResponseError as exc:
                got.append(("error", str(exc)))
        answers.append((got, client.hgetall("h")))
    assert answers[0] == answers[1]
    assert answers[0][0][3] == 1 and answers[0][0][0][0] == "error"


def test_clear_starts_the_queue_again_from_scratch():
    """`clear` (lesson 04's lane reuses one driver): what is left is a new Queue's, and the same
    run then answers and leaves what a new driver does."""
    used, fresh = BullMQScripts(queue="q"), BullMQScripts(queue="q")
    sc = scenario(SEED)
    steps(used, sc)
    used.client.set("other", "1")                      # another queue's key: left alone
    used.clear()
    assert sorted(used.client.keys("*")) == [b"bull:q:meta", b"other"]
    assert steps(used, sc) == steps(fresh, sc)
    used.client.delete("other")
    assert keys(used) == keys(fresh)


def test_the_direct_paths_carry_a_pickup_and_can_be_switched_off(monkeypatch):
    """A pickup's calls go through fastcalls' direct paths (all but the lock's SET with its PX,
    which has none); with `fastcalls.enabled` off the same pickups answer and store the same,
    through none of them, and as on a plain fakeredis."""
    from emqsim.engine import fastcalls

    taken = []
    table = fastcalls.table

    def counted():
        def wrap(name, f):
            def g(sock, db, args):
                got = f(sock, db, args)
                taken.append((name, got is not fastcalls.MISS))
                return got
            return g
        return {name: wrap(name, f) for name, f in table().items()}

    monkeypatch.setattr(fastcalls, "table", counted)
    results = []
    for on in (True, False):
        monkeypatch.setattr(fastcalls, "enabled", on)
        taken.clear()
        b = BullMQScripts()
        b.upsert("s", 1_796_029_620_000, every=900_000)
        results.append((b.pickup(1_796_029_620_000), b.pickup(1_796_030_520_000), keys(b)))
        direct = sum(ok for _, ok in taken)
        assert (direct > 60) if on else (taken == [])
    assert results[0] == results[1]
    slow = plain()
    slow.upsert("s", 1_796_029_620_000, every=900_000)
    assert results[0] == (slow.pickup(1_796_029_620_000), slow.pickup(1_796_030_520_000), keys(slow))
