"""The fakeredis adapter (emqsim/engine/fakelua.py) changes no answer: every script of
emqsim/engine/lua/, called as seeded simulations of both designs call it (and with bad
arguments), answers the same with and without it, and leaves the same keyspace (DUMP of
every key); whole simulations give the same traces; commands outside scripts, handed to the
socket as fields, answer and fail as when sent as RESP bytes. Checked on fakeredis 2.41.0."""

from __future__ import annotations

import random
import warnings

import fakeredis
import pytest

from emqsim import Every, Schedule, Store, Worker
from emqsim.engine import fakelua
import lock
from emqsim.engine.chain import Chain
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.registry import Registry
from emqsim.engine.scripts import Scripts, script_files
from emqsim.engine.sim import PumpDesign
from emqsim.engine.timefmt import at

T9 = at("2026-11-30 09:00")


def fresh(fast: bool):
    """A client on a server of its own (never the process-wide shared one), sped up or not."""
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer())
    return fakelua.speed(client) if fast else client


def keyspace(client) -> dict:
    return {k: (client.type(k), client.dump(k), client.pttl(k)) for k in sorted(client.keys("*"))}


def workloads(store: Store) -> None:
    """Seeded runs of both designs, with overlaps and every fault, plus the registry verbs
    a run does not reach (upsert, cancel): what the recorder below sees being called. A store is
    one run's, so each run gets its own, on the one client."""
    rnd = random.Random(18)
    for i in range(4):
        worker = Worker(run=rnd.choice(["0", "4m", "20m", "40m"]), concurrency=rnd.choice([1, 2]),
                        poll=rnd.choice([0, 60_000]))
        faults = [Faults(), Faults(outage=(T9 + 40 * 60_000, T9 + 95 * 60_000)),
                  Faults(crash_after_enqueue=3, restart_after=5000), Faults(pumps=2)][i]
        scheds = [Schedule(f"s{i}{j}", Every(rnd.choice(["1m", "15m", "7m"]))) for j in range(1 + i % 2)]
        for mode in ("two-step", "atomic"):
            with PumpDesign(scheds, start=T9, pump=Pump(mode=mode), worker=worker, faults=faults,
                            store=Store(client=store.client)) as sim:
                sim.run(fires=25)
            store.client.flushall()
    with PumpDesign(Schedule("c", Every("15m")), start=T9, faults=Faults(cancel_at=2), store=Store(client=store.client)) as sim:
        sim.run(fires=4)
    store.client.flushall()
    with PumpDesign(Schedule("q", Every("15m")), start=T9, store=Store(client=store.client)) as sim:   # quiet: fast-forwarded
        sim.run(fires=300)
    store.client.flushall()
    for outage in (None, (T9 + 40 * 60_000, T9 + 95 * 60_000)):
        with Chain([Schedule("b", Every("15m")), Schedule("c", Every("10m"))], start=T9,
                   worker=Worker(run="20m"), faults=Faults(outage=outage) if outage else None, store=Store(client=store.client)) as ch:
            ch.run(fires=25)
        store.client.flushall()
    with Chain(Schedule("q", Every("15m")), start=T9, store=store) as ch:   # quiet: fast-forwarded
        ch.run(fires=300)
    store.client.flushall()
    reg = Registry(store)
    s = Schedule("u", Every("5m"))
    reg.register(s, T9)
    reg.upsert(s, T9 + 1000)
    reg.upsert(Schedule("u", Every("6m")), T9 + 2000)
    reg.cancel("u")
    reg.cancel("u")


@pytest.fixture(scope="module")
def calls():
    """Every script call of `workloads`, in order: (verb, keys, args)."""
    seen = []
    orig = Scripts.run

    def record(self, verb, keys, args, client=None):
        seen.append((verb, list(keys), list(args)))
        return orig(self, verb, keys, args, client)

    Scripts.run = record
    try:
        with Store(client=fresh(False)) as store:
            workloads(store)
    finally:
        Scripts.run = orig
    return seen


def answer(scripts: Scripts, verb, keys, args):
    try:
        return ("ok", scripts.run(verb, keys, args))
    except Exception as exc:  # an error is an answer too: the same type and text
        return ("error", type(exc).__name__, str(exc))


def test_the_workloads_call_every_script(calls):
    assert {v for v, _, _ in calls} == set(script_files())


def test_every_script_answers_the_same_with_and_without_the_adapter(calls):
    plain, fast = fresh(False), fresh(True)
    sp, sf = Scripts(plain), Scripts(fast)
    assert getattr(fast.connection_pool.connection_kwargs["server"], fakelua.MARK, False)
    for n, (verb, keys, args) in enumerate(calls):
        assert answer(sf, verb, keys, args) == answer(sp, verb, keys, args), (n, verb, args)
        if n % 40 == 0:
            assert keyspace(fast) == keyspace(plain), n
    assert keyspace(fast) == keyspace(plain) != {}


def test_bad_arguments_and_lua_errors_answer_the_same(calls):
    """Per script: every argument replaced by 'x', every argument dropped, and no keys at
    all (a Lua runtime error inside the script): the same code or the same error text."""
    plain, fast = fresh(False), fresh(True)
    sp, sf = Scripts(plain), Scripts(fast)
    first = {}
    for verb, keys, args in calls:
        first.setdefault(verb, (keys, args))
    answers = set()
    for verb, (keys, args) in sorted(first.items()):
        for k, a in ((keys, ["x"] * len(args)), (keys, []), ([], args), (keys, args[:1])):
            got = answer(sf, verb, k, a)
            assert got == answer(sp, verb, k, a), (verb, k, a)
            answers.add(got[0])
    assert answers == {"ok", "error"}
    assert keyspace(fast) == keyspace(plain)


def test_a_script_that_sets_a_global_still_fails_and_leaves_no_global():
    src = "leaked = 1; redis.call('SET', KEYS[1], 'v'); return 1"
    out = {}
    for fast in (False, True):
        client = fresh(fast)
        with pytest.raises(Exception) as err:
            client.eval(src, 1, "k")
        # the next script runs clean in both
        out[fast] = (type(err.value).__name__, "leaked" in str(err.value), client.eval("return 7", 0))
    assert out[True] == out[False] == ("ResponseError", True, 7)


def test_a_syntax_error_reads_as_fakeredis_words_it():
    msgs = []
    for fast in (False, True):
        with pytest.raises(Exception) as err:
            fresh(fast).eval("return {1,", 0)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1] and "expected" in msgs[0]


def traces(fast: bool):
    """A whole seeded run of each design on a server of its own, as text."""
    out = []
    for make in ("pump", "bullmq"):
        store = Store(client=fresh(fast))
        scheds = [Schedule("reports", Every("15m")), Schedule("sync", Every("7m"))]
        if make == "pump":
            run = PumpDesign(scheds, start=T9 + 1234, pump=Pump(jitter=300, latency=700),
                             worker=Worker(run="20m", concurrency=2, poll="1m"),
                             faults=Faults(outage=(T9 + 40 * 60_000, T9 + 95 * 60_000)), store=store)
        else:
            run = Chain(scheds, start=T9 + 1234, worker=Worker(run="20m"), store=store)
        with store, run:
            tr = run.run(fires=300)
            out.append((repr(tr.fires), tr.count, tr.next, keyspace(store.client)))
    return out


def test_whole_simulations_of_both_designs_are_the_same():
    assert traces(True) == traces(False)


def test_outside_the_checked_versions_it_does_nothing_and_writes_nothing(monkeypatch, capfd):
    monkeypatch.setattr(fakelua, "CHECKED", ("0.0.0",))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        a, b = fresh(True), fresh(True)
    # nbval compares a notebook's stderr: a warning here failed every notebook on fakeredis 2.42
    assert seen == [] and capfd.readouterr() == ("", "")
    for c in (a, b):
        assert not getattr(c.connection_pool.connection_kwargs["server"], fakelua.MARK, False)
        assert c.eval("return 1", 0) == 1
    assert fakelua.state() == (f"fakeredis speed-up: off (fakeredis {fakeredis.__version__} is not one of the "
                               "versions it was checked on (0.0.0); scripts run at fakeredis's own speed)")


def test_the_locked_fakeredis_is_a_checked_version_and_the_adapter_is_on():
    locked = lock.pins(lock.LOCKS / "test.txt")["fakeredis"]
    assert locked in fakelua.CHECKED and fakeredis.__version__ == locked
    assert getattr(fresh(True).connection_pool.connection_kwargs["server"], fakelua.MARK, False)
    assert fakelua.state() == f"fakeredis speed-up: on (fakeredis {locked})"


def test_a_real_servers_client_is_left_as_it_is():
    class NotFake:
        connection_pool = None
    c = NotFake()
    assert fakelua.speed(c) is c


def test_applying_twice_is_once_and_the_default_store_is_sped_up():
    c = fresh(True)
    server = c.connection_pool.connection_kwargs["server"]
    runtime = server._lua_runtime
    assert fakelua.speed(c) is c and server._lua_runtime is runtime
    with Store() as store:  # no EMQSIM_REDIS_URL in the unit run: the embedded server
        if store.real:
            pytest.skip("EMQSIM_REDIS_URL is set: the default store is a real server")
        pool = store.client.connection_pool
        assert getattr(pool.make_connection()._server, fakelua.MARK, False)


# -- redis.call's own path: the command looked up once, its arguments read by _Planned -------------

def _state(db):
    """A few keys of each common type in `db` (a fakeredis Database)."""
    from fakeredis._core import Item
    from fakeredis.model import Hash, ZSet

    h, z = Hash(), ZSet()
    h[b"f"] = b"1"
    z[b"m"] = 1.0
    for key, value in ((b"s", b"1"), (b"h", h), (b"z", z), (b"l", [b"a"])):
        db[key] = Item(value)


def _shown(out):
    """An `apply` answer as plain values: an error's type and text, a short-cut's value, or the
    arguments with each key read shown as (key, value, expiry) and the items it will write back."""
    if isinstance(out, BaseException):
        return ("error", type(out).__name__, str(out))
    if len(out) == 1:
        return ("short", repr(out[0]))
    args, items = out

    def value(v):   # a fresh model object has no useful repr: its type and its contents
        if v is None or isinstance(v, (bytes, list)):
            return v
        return type(v).__name__, sorted(v.items()) if hasattr(v, "items") else None

    def one(a):
        if hasattr(a, "writeback"):
            return "item", a.key, value(a.value), a.expireat
        if hasattr(a, "__dict__"):   # a decoded argument (a score bound, ...): its fields
            return type(a).__name__, repr(sorted(vars(a).items()))
        return repr(a)
    return ("args", [one(a) for a in args], [one(i) for i in items])


def test_planned_signatures_read_every_commands_arguments_as_fakeredis_does():
    """Every command fakeredis knows, with seeded argument lists (keys of each type and none,
    numbers good and bad, too few and too many): `_Planned(sig).apply` answers, converts and
    reads exactly what `sig.apply` does, on the same keyspace."""
    from fakeredis._commands import SUPPORTED_COMMANDS
    from fakeredis._core import Database

    rnd = random.Random(18)
    pool = [b"s", b"h", b"z", b"l", b"none", b"1", b"-1", b"0", b"1.5", b"x", b"+inf", b"(1", b"", b"100"]
    compared, kinds = 0, set()
    for name, sig in sorted(SUPPORTED_COMMANDS.items()):
        planned = fakelua._Planned(sig)
        lo = max(0, len(sig.fixed) - 1)
        for _ in range(12):
            args = [rnd.choice(pool) for _ in range(lo + rnd.randrange(2 * len(sig.repeat) + 3))]
            got = []
            for s in (sig, planned):
                db = Database(None)
                _state(db)
                try:
                    got.append(_shown(s.apply(list(args), db, (7,))))
                except Exception as exc:
                    got.append(_shown(exc))
            assert got[0] == got[1], (name, args)
            kinds.add(got[0][0])
            compared += 1
    assert kinds == {"error", "short", "args"} and compared == 12 * len(SUPPORTED_COMMANDS)


CALLS = [  # scripts whose redis.call takes each way: known commands, and what goes to fakeredis's own
    ("return redis.call('HSET', KEYS[1], 'a', '1', 'b', ARGV[1])", ["h1"], ["2"]),
    ("return redis.call('hset', KEYS[1], 'a', 2)", ["h1"], []),
    ("return redis.call('HGETALL', KEYS[1])", ["h1"], []),
    ("return redis.call('ZADD', KEYS[1], 'x', 'm')", ["z1"], []),              # not a float
    ("return redis.call('ZADD', KEYS[1], ARGV[1], 'm')", ["z1"], ["1.5"]),
    ("return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", ["z1"], []),
    ("return redis.call('HSET', KEYS[1], 'a', '1')", ["z1"], []),            # WRONGTYPE
    ("return redis.call('HSET', KEYS[1], 'a')", ["h2"], []),                  # arity
    ("return redis.call('HSET', KEYS[1], 'a', {})", ["h2"], []),              # a table argument
    ("return redis.call('HSET', KEYS[1], 'a', nil)", ["h2"], []),
    ("return redis.call('NOSUCH', KEYS[1])", ["h2"], []),
    ("return redis.call(7, KEYS[1])", ["h2"], []),
    ("return redis.call('CLIENT', 'ID')", [], []),                            # a container command
    ("return redis.call('OBJECT', 'ENCODING', KEYS[1])", ["h1"], []),
    ("return redis.call('EVAL', 'return 1', 0)", [], []),                     # refused inside a script
    ("return redis.call('EXISTS', unpack(KEYS))", ["h1", "z1", "none"], []),
    ("return redis.call('DEL', KEYS[1])", ["h1"], []),
    ("return redis.call('INCRBY', KEYS[1], ARGV[1])", ["n"], ["1.5"]),       # not an integer
    ("return redis.pcall('HSET', KEYS[1], 'a', '1')", ["z1"], []),           # pcall: the error as a table
]


def test_every_kind_of_redis_call_answers_the_same():
    plain, fast = fresh(False), fresh(True)
    for src, keys, args in CALLS:
        got = []
        for client in (plain, fast):
            try:
                got.append(("ok", client.eval(src, len(keys), *keys, *args)))
            except Exception as exc:
                got.append(("error", type(exc).__name__, str(exc)))
        assert got[0] == got[1], src
    assert keyspace(fast) == keyspace(plain) != {}


def test_a_scripts_write_breaks_a_watch_and_is_notified_as_before():
    """The key writes still go through fakeredis's own command code: a WATCH on a key a script
    writes fails the transaction, and keyspace subscribers get the same messages."""
    seen = []
    for fast in (False, True):
        client = fresh(fast)
        sub = client.pubsub()
        sub.psubscribe("__key*__:*")
        sub.get_message(timeout=0)
        pipe = client.pipeline()
        pipe.watch("job")
        client.eval("redis.call('HSET', KEYS[1], 'state', 'done'); return redis.call('ZADD', KEYS[2], 1, 'm')",
                    2, "job", "z")
        pipe.multi()
        pipe.set("after", "1")
        with pytest.raises(Exception) as err:
            pipe.execute()
        messages = []
        while (m := sub.get_message(timeout=0)) is not None:
            messages.append((m["type"], m["channel"], m["data"]))
        seen.append((type(err.value).__name__, messages, client.exists("after")))
    assert seen[0] == seen[1]
    assert seen[0][0] == "WatchError" and len(seen[0][1]) == 4 and seen[0][2] == 0


# -- a command outside scripts: handed to the socket as fields, no RESP bytes in between -----------

COMMANDS = [  # (command and arguments): each kind of argument redis-py encodes, and errors
    ("SET", "s", "1"), ("SET", b"b", b"\x00\xff"), ("INCRBYFLOAT", "f", 1.5), ("INCRBY", "n", 7),
    ("HSET", "h", "a", 1, "b", 2.25), ("HGETALL", "h"), ("ZADD", "z", 1, "m", 2.5, "n"),
    ("ZRANGE", "z", 0, -1, "WITHSCORES"), ("ZRANGEBYSCORE", "z", "-inf", "(2.5"), ("RPUSH", "l", "x", "y"),
    ("LRANGE", "l", 0, -1), ("MGET", "s", "b", "none"), ("CONFIG GET", "maxmemory"), ("OBJECT ENCODING", "z"),
    ("SCRIPT LOAD", "return 1"), ("EVAL", "return {KEYS[1], ARGV[1]}", 1, "k", "v"),
    ("HSET", "z", "a", "1"),             # WRONGTYPE
    ("HSET", "h", "a"),                  # arity
    ("NOSUCH", "x"),                     # unknown command
    ("INCRBY", "s", "x"),                # not an integer
    ("EVALSHA", "0" * 40, 0),            # NOSCRIPT
    ("EXISTS", "s", "h", "none"), ("DEL", "s"), ("TYPE", "s"), ("DBSIZE",),
]


def _answers(client) -> list:
    out = []
    for cmd in COMMANDS:
        try:
            out.append(("ok", client.execute_command(*cmd)))
        except Exception as exc:
            out.append(("error", type(exc).__name__, str(exc)))
    return out


def test_plain_commands_answer_the_same_with_and_without_the_adapter():
    plain, fast = fresh(False), fresh(True)
    assert _answers(fast) == _answers(plain)
    assert keyspace(fast) == keyspace(plain) != {}


def _sent(client) -> list:
    """Every block of RESP bytes the client's socket is handed from now on."""
    client.ping()   # the connection made (its first command always goes as bytes)
    sock = client.connection_pool._available_connections[0]._sock
    sent = []
    real = sock.sendall

    def sendall(data):
        sent.append(data)
        return real(data)

    sock.sendall = sendall
    return sent


def test_a_single_command_reaches_the_socket_as_fields_and_a_pipeline_as_bytes():
    fast, plain = fresh(True), fresh(False)
    assert fast.connection_pool.connection_class is fakelua._direct_class()
    sent_fast, sent_plain = _sent(fast), _sent(plain)
    for client in (fast, plain):
        client.set("a", 1)
        client.zadd("z", {"m": 1.5})
        client.script_load("return 1")
    assert sent_fast == [] and len(sent_plain) >= 3
    for client in (fast, plain):
        pipe = client.pipeline()
        pipe.set("b", 2).incr("b")
        assert pipe.execute() == [True, 3]
    assert sent_fast != []   # a pipeline keeps fakeredis's own path
    assert keyspace(fast) == keyspace(plain)


def test_a_killed_connection_and_a_server_gone_fail_as_before():
    seen = []
    for fast in (False, True):
        client = fresh(fast)
        client.set("k", "v")
        other = fakeredis.FakeRedis(server=client.connection_pool.connection_kwargs["server"])
        other.client_kill_filter(_id=client.client_id())
        with pytest.raises(Exception) as killed:
            client.get("k")
        after = client.get("k")   # redis-py reconnects, as to a real server
        client.connection_pool.connection_kwargs["server"].connected = False
        with pytest.raises(Exception) as gone:
            client.get("k")
        seen.append((type(killed.value).__name__, str(killed.value), after, type(gone.value).__name__, str(gone.value)))
    assert seen[0] == seen[1]
    assert seen[0][0] == "ConnectionError" and seen[0][2] == b"v" and seen[0][3] == "ConnectionError"


def test_a_signal_inside_a_command_drops_the_connection_and_the_next_command_runs():
    """As redis-py does when its send is cut short: the connection is dropped, the next
    command gets a fresh one, and what was written before stays."""
    client = fresh(True)
    client.set("k", "v")
    conn = client.connection_pool._available_connections[0]
    sock = conn._sock

    def interrupted(fields):
        raise KeyboardInterrupt

    sock._process_command = interrupted
    with pytest.raises(KeyboardInterrupt):
        client.get("k")
    assert conn._sock is None
    assert client.get("k") == b"v"


def test_preload_fills_the_script_cache_as_script_load_does():
    sources = list(script_files().values())
    plain, fast = fresh(False), fresh(True)
    pipe = plain.pipeline(transaction=False)
    for source in sources:
        pipe.script_load(source)
    pipe.execute()
    assert fakelua.preload(fast, sources) is True
    cache = [c.connection_pool.connection_kwargs["server"].script_cache for c in (plain, fast)]
    assert cache[0] == cache[1] and len(cache[0]) == len(sources)
    assert fakelua.preload(plain, sources) is False   # not sped up: the caller loads them itself
    sha = Scripts(fast).sha("advance")
    assert fast.script_exists(sha) == [True]
    assert answer(Scripts(fast), "advance", ["x"], []) == answer(Scripts(plain), "advance", ["x"], [])


def test_the_upstream_patch_applies_to_the_locked_fakeredis(tmp_path):
    """docs/upstream/ holds the adapter's change as a patch to fakeredis itself, so the adapter
    can go once a release carries it: it must apply to the version the lock installs."""
    import shutil
    import subprocess
    from pathlib import Path

    patch = Path(__file__).resolve().parent.parent / "docs" / "upstream" / "fakeredis-2.41.0-script-costs.patch"
    target = tmp_path / "fakeredis" / "commands_mixins"
    target.mkdir(parents=True)
    shutil.copy(Path(fakeredis.__file__).parent / "commands_mixins" / "scripting_mixin.py", target)
    done = subprocess.run(["git", "apply", "--check", str(patch)], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert patch.name.startswith(f"fakeredis-{fakeredis.__version__}-")


@pytest.mark.parametrize("after", ["return 7", "return redis.call('SET', KEYS[1], 'w')"])
def test_a_global_left_by_a_failed_script_is_reported_by_the_next_as_before(after):
    """A script that sets a global and then fails never reaches fakeredis's end-of-script check:
    the next script reports the global (and writes nothing), as on plain fakeredis, and the one
    after runs clean."""
    out = {}
    for fast in (False, True):
        client = fresh(fast)
        got = []
        for src in ("leaked = 1; error('boom')", after, after):
            try:
                got.append(("ok", client.eval(src, 1, "k")))
            except Exception as exc:
                got.append((type(exc).__name__, "leaked" in str(exc), "boom" in str(exc)))
            got.append(keyspace(client))
        out[fast] = (got, keyspace(client))
    assert out[True] == out[False]
    assert out[True][0][2][:2] == ("ResponseError", True) and out[True][0][4][0] == "ok"
