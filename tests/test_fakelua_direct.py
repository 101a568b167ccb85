"""The direct command paths (emqsim/engine/fastcalls.py) answer and store as plain fakeredis does.

For each command that has a direct path: seeded random calls from inside a script (the shapes
BullMQ's scripts send, and junk: options, bad numbers, wrong argument counts, Lua numbers),
on keys of every type (a key with a TTL, an expired one, a hash with a field TTL among them),
run on a server with the adapter and on a plain fakeredis server, side by side. Each reply
(errors as their text) and, after each call, every stored key (its order, DUMP, PTTL, the
database's expiry schedule) must be equal. The clocks fakeredis reads are one fake clock, so
stream ids and expiries agree. The test also checks that both the direct path and the
fallback were taken for each command, so it cannot pass by never running them.
"""

from __future__ import annotations

import collections
import random
import time
import types

import fakeredis
import pytest
import redis

from emqsim.engine import fakelua, fastcalls

pytestmark = pytest.mark.skipif(fakelua._parts()[0] is None, reason="fakelua does not apply to this fakeredis")

COMMANDS = sorted(fastcalls.table())
KEYS = [b"k0", b"k1", b"k2", b"k3", b"k4"]
FIELDS = [b"f0", b"f1", b"f2", b"n"]
VALUES = [b"v", b"1", b"-3", b"9223372036854775807", b"x", b"", b"01", b"1.5", b"a\x00b"]
NUMBERS = [b"0", b"1", b"-1", b"2.5", b"-0", b"inf", b"-inf", b"+inf", b"nan", b"1e3", b" 1", b"1 ", b"(1",
           b"(2.5", b"abc", b"9223372036854775807", b"-9223372036854775808", b"9223372036854775808", b"10",
           b"#3", b"#2.5", b"#-1", b"#0", b"9" * 400, b"000"]
OPTIONS = [b"NX", b"xx", b"CH", b"INCR", b"GT", b"lt", b"LIMIT", b"limit", b"WITHSCORES", b"MAXLEN", b"maxlen",
           b"MINID", b"~", b"=", b"*", b"NOMKSTREAM", b"0-1", b"5-*", b"nx\x00"]
JUNK = KEYS + FIELDS + VALUES + NUMBERS + OPTIONS

#: the script every call goes through: `#n` arguments become Lua numbers (as BullMQ passes scores)
CALL = """
local a = {}
for i, v in ipairs(ARGV) do
    if string.sub(v, 1, 1) == '#' then a[i] = tonumber(string.sub(v, 2)) else a[i] = v end
end
return redis.call(unpack(a))
"""


@pytest.fixture
def clock(monkeypatch):
    """One fake clock (seconds) for every `time.time()` fakeredis reads: command time, stream ids,
    hash field expiry."""
    now = [1_796_029_620.0]
    fake = types.SimpleNamespace(**{k: getattr(time, k) for k in dir(time) if not k.startswith("_")})
    fake.time = lambda: now[0]
    from fakeredis import _helpers
    from fakeredis._socket import _base
    from fakeredis.model import _stream

    for module in (_helpers, _base, _stream):
        monkeypatch.setattr(module, "time", fake)
    return now


@pytest.fixture
def counted(monkeypatch):
    """{command: Counter of 'direct'/'miss'} for the servers made while it is active."""
    seen: dict = collections.defaultdict(collections.Counter)
    table = fastcalls.table

    def wrapped():
        def wrap(name, f):
            def g(sock, db, args):
                got = f(sock, db, args)
                seen[name]["miss" if got is fastcalls.MISS else "direct"] += 1
                return got
            return g
        return {name: wrap(name, f) for name, f in table().items()}

    monkeypatch.setattr(fastcalls, "table", wrapped)
    return seen


def pair(version=(7,)):
    """(a client whose server has the adapter, a client of a plain fakeredis server)."""
    made = []
    for fast in (True, False):
        client = fakeredis.FakeRedis(server=fakeredis.FakeServer(version=version), version=version)
        made.append(fakelua.speed(client) if fast else client)
    assert getattr(made[0].connection_pool.connection_kwargs["server"], fakelua.MARK, False)
    assert not getattr(made[1].connection_pool.connection_kwargs["server"], fakelua.MARK, False)
    return made


def state(client) -> list:
    """Every key in the server's own order, with its DUMP (the stored object, pickled) and PTTL,
    and the database's expiry schedule."""
    db = client.connection_pool.connection_kwargs["server"].dbs[0]
    keys = list(db._dict)
    return [(k, client.dump(k), client.pttl(k)) for k in keys] + [sorted(db._expiry_heap)]


def reply(client, args):
    try:
        return ("ok", client.eval(CALL, 0, *args))
    except redis.ResponseError as exc:
        return ("error", str(exc))


#: the type each command reads or writes, set up more often for it
PREFER = {"hget": "hash", "hmget": "hash", "hgetall": "hash", "hset": "hash", "hmset": "hash", "hincrby": "hash",
          "get": "string", "set": "string", "incr": "string", "zadd": "zset", "zscore": "zset", "zcard": "zset",
          "zrangebyscore": "zset", "zrevrangebyscore": "zset", "zrange": "zset", "zrem": "zset", "lindex": "list", "lpush": "list", "rpoplpush": "list", "lrem": "list", "llen": "list",
          "scard": "set", "srem": "set", "xadd": "stream", "xtrim": "stream"}


def setup_op(rnd: random.Random, prefer: str | None = None) -> list:
    """A command (outside scripts) that puts a value of some type (`prefer` half the time), or a
    TTL, at a key."""
    k = rnd.choice(KEYS)
    kind = prefer if prefer and rnd.random() < 0.5 else rnd.choice(
        ["hash", "hash", "zset", "zset", "list", "list", "string", "set", "stream", "ttl", "expired", "fieldttl", "del"])
    if kind == "hash":
        return ["HSET", k, *rnd.choice([[b"f0", b"1"], [b"f1", b"x", b"n", b"5"], [b"n", b"9223372036854775806"]])]
    if kind == "zset":
        return ["ZADD", k, *rnd.choice([[b"1", b"m"], [b"2", b"m2", b"3", b"m3"], [b"-inf", b"lo", b"inf", b"hi"]])]
    if kind == "list":
        return ["RPUSH", k, *rnd.choices([b"a", b"b", b"c"], k=rnd.randint(1, 4))]
    if kind == "string":
        return ["SET", k, rnd.choice([b"5", b"x", b"-2", b"9223372036854775807"])]
    if kind == "set":
        return ["SADD", k, b"m"]
    if kind == "stream":
        return ["XADD", k, "*", "event", rnd.choice([b"a", b"b"])]
    if kind == "ttl":
        return ["PEXPIRE", k, 300]        # lives some calls, then expires
    if kind == "expired":
        return ["PEXPIRE", k, 5]          # the clock then moves past it
    if kind == "fieldttl":
        return ["HPEXPIRE", k, 60_000, "FIELDS", 1, rnd.choice(FIELDS)]
    return ["DEL", k]


def shaped(rnd: random.Random, cmd: str) -> list:
    """A call of `cmd` as a script would send it, now and then with one argument replaced by junk."""
    k, f, v, n = rnd.choice(KEYS), rnd.choice(FIELDS), rnd.choice(VALUES), rnd.choice(NUMBERS)
    ks = rnd.sample(KEYS, rnd.randint(1, 3)) + ([k] if rnd.random() < 0.2 else [])
    forms = {
        "hget": [k, f], "hmget": [k, *rnd.sample(FIELDS, rnd.randint(1, 4))], "hgetall": [k],
        "hset": [k, *[x for _ in range(rnd.randint(1, 3)) for x in (rnd.choice(FIELDS), rnd.choice(VALUES))]],
        "hmset": [k, f, v, *([f, b"w"] if rnd.random() < 0.3 else [])],
        "hincrby": [k, f, rnd.choice([b"1", b"-1", b"#1", b"5", n])],
        "exists": ks, "del": ks, "get": [k], "incr": [k],
        "set": [k, v, *rnd.choice([[], [b"PX", b"30000"], [b"px", b"#300"], [b"PX", n], [b"PX", b"0"], [b"PX", b"-5"],
                                   [b"PX", b"9223372036854775807"], [b"EX", b"5"], [b"NX"], [b"PX", b"30000", b"GET"],
                                   [b"KEEPTTL"]])],
        "zadd": [k, *[x for _ in range(rnd.randint(1, 3)) for x in (rnd.choice(NUMBERS), rnd.choice([b"m", b"m2", b"lo"]))]],
        "zscore": [k, rnd.choice([b"m", b"m2", b"lo", b"zz"])], "zcard": [k],
        "zrangebyscore": [k, rnd.choice(NUMBERS), rnd.choice(NUMBERS),
                          *rnd.choice([[], [b"LIMIT", b"0", b"1000"], [b"limit", rnd.choice(NUMBERS), rnd.choice(NUMBERS)],
                                       [b"LIMIT", b"1", b"-1"], [b"LIMIT", b"-1", b"2"], [b"WITHSCORES"],
                                       [b"WITHSCORES", b"LIMIT", b"0", b"1"], [b"LIMIT", b"0", b"1", b"withscores"],
                                       [b"LIMIT", b"0"], [b"WITHSCORES", b"WITHSCORES"], [b"LIMIT", b"0", b"1", b"LIMIT", b"1", b"1"]])],
        "zrevrangebyscore": [k, rnd.choice(NUMBERS), rnd.choice(NUMBERS),
                             *rnd.choice([[], [b"WITHSCORES", b"LIMIT", b"0", b"1"], [b"LIMIT", b"0", b"1"],
                                          [b"limit", rnd.choice(NUMBERS), rnd.choice(NUMBERS)], [b"WITHSCORES"],
                                          [b"LIMIT", b"0", b"1", b"WITHSCORES"], [b"LIMIT", b"1"], [b"BYSCORE"]])],
        "zrem": [k, *rnd.sample([b"m", b"m2", b"m3", b"lo", b"hi", b"zz"], rnd.randint(1, 3))],
        "zrange": [k, *rnd.choice([[b"0", b"0"], [b"0", b"-1"], [b"1", b"2"], [b"-2", b"-1"], [b"5", b"1"],
                                   [rnd.choice(NUMBERS), rnd.choice(NUMBERS)], [b"0", b"-1", b"WITHSCORES"],
                                   [b"0", b"0", b"withscores"], [b"0", b"1", b"REV"], [b"0", b"1", b"WITHSCORES", b"REV"]])],
        "lindex": [k, rnd.choice([b"0", b"-1", b"1", b"-5", b"9", n])],
        "lpush": [k, *rnd.sample([b"a", b"b", b"c"], rnd.randint(1, 3))],
        "rpoplpush": [k, rnd.choice(KEYS)], "lrem": [k, rnd.choice([b"-1", b"0", b"1", b"2", n]), rnd.choice([b"a", b"b"])],
        "llen": [k], "scard": [k], "srem": [k, rnd.choice([b"m", b"x"])],
        "xadd": [k, *rnd.choice([[b"*"], [b"MAXLEN", b"~", b"3", b"*"], [b"MAXLEN", b"~", n, b"*"], [b"MAXLEN", b"2", b"*"],
                                 [b"NOMKSTREAM", b"*"], [b"9-1"], [b"MAXLEN", b"~", b"3"]]),
                 *[x for _ in range(rnd.choice([0, 1, 1, 2])) for x in (b"event", rnd.choice([b"a", b"b"]))]],
        "xtrim": [k, *rnd.choice([[b"MAXLEN", b"~", b"3"], [b"MAXLEN", b"1"], [b"MAXLEN", b"~", n],
                                  [b"MAXLEN", b"~", b"2", b"LIMIT", b"5"], [b"MINID", b"0-1"]])],
    }
    args = list(forms[cmd])
    if args and rnd.random() < 0.1:
        args[rnd.randrange(len(args))] = rnd.choice(JUNK)
    return [cmd.upper() if rnd.random() < 0.8 else cmd, *args]


def junk(rnd: random.Random, cmd: str) -> list:
    return [cmd, *[rnd.choice(JUNK) for _ in range(rnd.randint(0, 6))]]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_each_direct_path_answers_and_stores_as_plain_fakeredis(cmd, clock, counted):
    rnd = random.Random(f"direct-{cmd}")
    fast, slow = pair()
    for _ in range(12):
        op = setup_op(rnd, PREFER.get(cmd))
        assert reply(fast, op) == reply(slow, op)
    for i in range(400):
        clock[0] += rnd.choice([0, 0, 0.001, 0.01, 0.02])
        if rnd.random() < 0.25:
            op = setup_op(rnd, PREFER.get(cmd))
        else:
            op = shaped(rnd, cmd) if rnd.random() < 0.8 else junk(rnd, cmd)
        got = reply(fast, op)
        assert got == reply(slow, op), (i, op)
        assert state(fast) == state(slow), (i, op)
    taken = counted[cmd]
    assert taken["direct"] >= 40 and taken["miss"] >= 5, dict(taken)


def test_the_switch_turns_every_direct_path_off(clock, counted, monkeypatch):
    monkeypatch.setattr(fastcalls, "enabled", False)
    fast, slow = pair()
    for op in (["HSET", "h", "a", "1"], ["HGET", "h", "a"], ["ZADD", "z", "1", "m"], ["XADD", "s", "*", "f", "v"]):
        assert reply(fast, op) == reply(slow, op)
    assert not counted
    monkeypatch.setattr(fastcalls, "enabled", True)
    assert reply(fast, ["HGET", "h", "a"]) == ("ok", b"1")
    assert counted["hget"]["direct"] == 1


def test_a_watched_key_or_a_subscriber_takes_fakeredis_path(clock, counted):
    """WATCH must see a script's write, and keyspace notifications must be sent: with either
    present no direct path runs, and the answers are fakeredis's."""
    for setup in ("watch", "notify"):
        fast, slow = pair()
        outcome = []
        for client in (fast, slow):
            client.config_set("notify-keyspace-events", "KEA")
            pubsub = client.pubsub()
            pubsub.psubscribe("__keyspace@0__:*") if setup == "notify" else None
            pipe = client.pipeline()
            pipe.watch("h")
            reply(client, ["HSET", "h", "a", "1"])
            pipe.multi()
            pipe.get("x")
            try:
                pipe.execute()
                aborted = False
            except redis.WatchError:
                aborted = True
            messages = []
            while (m := pubsub.get_message(timeout=0)) is not None:
                messages.append((m["type"], m["channel"], m["data"]))
            outcome.append((aborted, messages, state(client)))
            pubsub.close()
        assert outcome[0] == outcome[1]
        assert outcome[0][0] is True
    assert counted["hset"]["direct"] == 0


def test_a_server_before_redis_7_adds_no_zero_to_a_score(clock):
    """fakeredis adds 0.0 to ZADD's scores from version 7 on (-0 stored as 0): the direct path
    does as the server's version does."""
    for version in ((6, 2), (7,)):
        fast, slow = pair(version)
        for op in (["ZADD", "z", "-0", "m"], ["ZSCORE", "z", "m"], ["ZADD", "z", "#-0", "n"]):
            assert reply(fast, op) == reply(slow, op)
        assert state(fast) == state(slow)


def test_a_preloaded_script_is_hashed_once_and_every_digest_is_hashlibs():
    """fakeredis's EVAL hashes the script on every call: for a text `preload` put in a cache the
    digest made then is answered (an equal copy too, and one entry however many servers preload
    it); any other bytes are hashed."""
    import hashlib

    client = fakelua.speed(fakeredis.FakeRedis(server=fakeredis.FakeServer(version=(7,)), version=(7,)))
    run = fakelua.runner(client, "return ARGV[1]")
    digests = fakelua._digests()
    raw = next(iter(client.connection_pool.connection_kwargs["server"].script_cache.values()))
    hashed = []
    real_sha1 = digests._real.sha1

    def counting(data=b"", **kw):
        hashed.append(data)
        return real_sha1(data, **kw)

    digests._real = types.SimpleNamespace(sha1=counting)
    try:
        assert run(args=["x"]) == b"x" and hashed == []
        assert digests.sha1(raw).hexdigest() == hashlib.sha1(raw).hexdigest()
        copy = bytes(bytearray(raw))
        assert digests.sha1(copy).hexdigest() == hashlib.sha1(raw).hexdigest() and hashed == []
        assert client.eval("return 2", 0) == 2 and hashed == [b"return 2"]
        entries = len(digests._known)
        for _ in range(5):   # each server preloads its own copy of the text: one entry kept
            other = fakelua.speed(fakeredis.FakeRedis(server=fakeredis.FakeServer(version=(7,)), version=(7,)))
            assert fakelua.runner(other, "return ARGV[1]")(args=["y"]) == b"y"
        assert len(digests._known) == entries and hashed == [b"return 2"]
    finally:
        digests._real = hashlib


REPLIES = ["return {1, 'a', {2.5, false, true, {}}, 'b'}", "return {}", "return {'x', nil, 'y'}",
           "return redis.status_reply('FINE')", "return redis.error_reply('ERR no')", "return {ok = 'fine'}",
           "return {err = 'bad'}", "return {'a', {err = 'inner'}, {ok = 'st'}}", "return {ok = false}",
           "return 3.7", "return true", "return false", "return nil", "return 'text'",
           "return {double = 1.5}", "return {map = {a = 1}}", "error('boom')", "return redis.call('GET', KEYS[1])",
           "return redis.call('SET', KEYS[1], ARGV[1])", "local t = {} for i = 1, 5000 do t[i] = 'v' end return t"]


@pytest.mark.parametrize("source", REPLIES)
def test_a_runner_reads_every_reply_as_fakeredis_does(source):
    """`fakelua.runner` runs EVALSHA without the socket's queue and reads an array reply in one Lua
    call: every reply shape (statuses, errors, nested tables, numbers, booleans, nil inside an
    array, a long array) and every error reads as `register_script` reads it on plain fakeredis."""
    fast, slow = pair()
    run, plain_script = fakelua.runner(fast, source), slow.register_script(source)
    def shown(v):   # an error inside a reply is an exception object: compared by type and text
        if isinstance(v, list):
            return [shown(x) for x in v]
        return (type(v).__name__, str(v)) if isinstance(v, Exception) else v

    got = []
    for call in (lambda: run(keys=["k"], args=["v"]), lambda: plain_script(keys=["k"], args=["v"])):
        try:
            got.append(("ok", shown(call())))
        except redis.ResponseError as exc:
            got.append((type(exc).__name__, str(exc)))
    assert got[0] == got[1]
    assert state(fast) == state(slow)


def test_a_reader_answers_as_the_commands_do_and_sends_none():
    """`fakelua.reader` (the BullMQ driver's check before a take) answers a read from the stored
    values as the command answers it, sends no command (a counter around `_run_command` sees
    none), and is None for a server the adapter does not apply to."""
    from fakeredis._socket._base import BaseFakeSocket

    fast, slow = pair()
    assert fakelua.reader(slow) is None
    read = fakelua.reader(fast)
    fast.zadd("z", {"a": 1, "b": 2, "c": 3})
    fast.rpush("l", "x", "y")
    fast.hset("h", mapping={"opts": "{}", "data": "[1]"})
    asks = [("zrangebyscore", b"z", b"0", b"2", b"LIMIT", b"0", b"1000"), ("zrangebyscore", b"missing", b"0", b"9"),
            ("lindex", b"l", b"-1"), ("lindex", b"missing", b"-1"), ("zrange", b"z", b"0", b"0"),
            ("zrange", b"missing", b"0", b"0"), ("hmget", b"h", b"opts", b"data", b"rjk"), ("hmget", b"nope", b"x")]
    sent = []
    orig = BaseFakeSocket._run_command

    def counting(self, *a, **kw):
        sent.append(a)
        return orig(self, *a, **kw)

    BaseFakeSocket._run_command = counting
    try:
        got = [read(*ask) for ask in asks]
    finally:
        BaseFakeSocket._run_command = orig
    assert sent == []
    assert got == [fast.execute_command(ask[0].upper(), *ask[1:]) for ask in asks]
    assert got[0] == [b"a", b"b"] and got[2] == b"y" and got[6] == [b"{}", b"[1]", None]
    fast.pexpire("l", 1)
    import time as clock

    clock.sleep(0.01)
    fast.get("other")   # the command time moves on past the expiry (the list still stored)
    assert read("lindex", b"l", b"-1") is fastcalls.MISS   # expired: fakeredis's own path drops it


def test_a_runner_refused_by_acl_answers_as_fakeredis_does():
    """The runner's lean EVALSHA runs only where fakeredis's own steps could refuse nothing: a user
    whose ACL rules deny every command, or a disabled one, gets fakeredis's refusal, and nothing
    runs."""
    for rule in ("-@all", "off"):
        fast, slow = pair()
        text = "redis.call('SET', 'ran', '1') return 1"
        run, plain_script = fakelua.runner(fast, text), slow.register_script(text)
        assert run() == plain_script() == 1
        got = []
        for client, call in ((fast, run), (slow, plain_script)):
            client.delete("ran")
            client.execute_command("ACL", "SETUSER", "default", rule)
            try:
                got.append(("ok", call()))
            except redis.RedisError as exc:
                got.append((type(exc).__name__, str(exc)))
            got.append(b"ran" in client.connection_pool.connection_kwargs["server"].dbs[0]._dict)
        assert got[0:2] == got[2:4], rule
        assert got[0][0] != "ok" and got[1] is False, rule


@pytest.mark.parametrize("entries, size", [(3, 0), (0, 90), (4, 200), (100, 4096), (2, 1)])
def test_xadd_packs_stream_nodes_as_fakeredis_does(entries, size, clock, counted):
    """XADD's direct path keeps fakeredis's node bookkeeping (where a node starts, its counts and
    listpack size: what approximate trimming drops, and part of DUMP), with node limits small
    enough that nodes fill, entries whose field names differ from their node's first, numbers
    and text of every listpack size, and trims that drop whole nodes."""
    rnd = random.Random(f"nodes-{entries}-{size}")
    fast, slow = pair((8, 6))   # approximate trimming drops nodes from Redis 8.6 on
    for client in (fast, slow):
        client.config_set("stream-node-max-entries", entries)
        client.config_set("stream-node-max-bytes", size)
    values = [b"0", b"127", b"128", b"-4096", b"4095", b"70000", b"-9000000", b"2147483648", b"01", b"x",
              b"a" * 70, b"b" * 5000, b"repeat:s:1796035020000", b"9223372036854775808"]
    most = 0
    for i in range(300):
        clock[0] += rnd.choice([0, 0.001, 1])
        names = rnd.choice([[b"event", b"jobId"], [b"event", b"jobId"], [b"event"], [b"other", b"jobId"]])
        trim = rnd.choice([[], [], [b"MAXLEN", b"~", rnd.choice([b"5", b"20"])]])
        op = ["XADD", "s", *trim, "*", *[x for n in names for x in (n, rnd.choice(values))]]
        if rnd.random() < 0.05:
            op = ["XTRIM", "s", "MAXLEN", "~", b"10"]
        assert reply(fast, op) == reply(slow, op), (i, op)
        assert state(fast) == state(slow), (i, op)
        assert nodes(fast) == nodes(slow), (i, op)
        most = max(most, len(nodes(fast)))
    assert counted["xadd"]["direct"] >= 200
    assert most > 3


def nodes(client) -> list:
    """The stream's nodes as fakeredis keeps them (DUMP does not show them)."""
    item = client.connection_pool.connection_kwargs["server"].dbs[0]._dict.get(b"s")
    return [(n.master_id, n.master_fields, n.last_id, n.live, n.deleted, n.lp_bytes) for n in item.value._nodes]
