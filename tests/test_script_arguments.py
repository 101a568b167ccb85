"""A refused call writes nothing: every script checks all its arguments before its first write.

For every script and every argument, a bad value (nan, inf, 1.5, 10**400, 2**53, '', an
unknown state...) leaves every key byte-identical: the keyspace is DUMPed before and after
(on a cluster, every primary is scanned). Each argument is tried twice: by calling the raw
script (its negative code, scripts.Err) and through the Python verbs (one InputError, a ValueError, naming
the argument, before any script runs). The same call with good values does write, so each
test can fail. Runs on every backend of the `store` fixture.
"""

from __future__ import annotations

import pytest
import redis

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.chain import BullMQ, job_id
from emqsim.engine.errors import InputError
from emqsim.engine.registry import Registry
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.scripts import MAX_MS, Err, ScriptError
from emqsim.engine.timefmt import at

T = at("2026-11-30 09:00")
H = 3_600_000
MIN = 60_000

# What a script might be handed where a time or score belongs, as redis-py sends it.
BAD_MS = [float("nan"), float("inf"), float("-inf"), 1.5, 10**400, 2**53, MAX_MS + 7, -1, "", "abc",
          "1e3", "0x10", " 5", "+5", "inf", "nan", "-inf"]
BAD_NAME = [""]
BAD_FLAG = ["", "2", "yes", "true", 1.5, "nan"]


def keyspace(store) -> dict[bytes, bytes]:
    """Every key the store can see, with its DUMP: the whole server on fakeredis (each store has
    its own), this queue's keys on a shared real server, every primary's on a cluster."""
    client = store.client
    pattern = None if store.backend == "fakeredis" else f"*{{{store.keys.queue}}}*"
    if isinstance(client, redis.RedisCluster):
        nodes = [n.redis_connection for n in client.get_primaries()]
    else:
        nodes = [client]
    out = {}
    for node in nodes:
        for key in node.scan_iter(match=pattern, count=1000):
            out[key] = node.dump(key)
    return out


def populate(store):
    """A registry with an interval row `r` and its pending job J1, and a BullMQ scheduler `b`
    whose next job waits delayed until 10:00: every kind of key a script writes exists."""
    reg, bull = Registry(store), BullMQ(store)
    assert reg.register(Schedule("r", Every("15m")), T) == "registered"
    assert reg.enqueue("J1", "r", T, T) == "enqueued"
    assert bull.upsert(Schedule("b", Cron("0 * * * *")), T) == "created"
    assert store.client.zscore(store.keys.delayed, job_id("b", T + H)) == T + H
    return reg, bull


# -- the raw scripts --------------------------------------------------------------------------

def calls(k):
    """verb -> (keys, good args, the kind of each argument). A kind names the bad values tried
    and the code expected; None is an argument any text is good for (a template, a payload)."""
    fields = ["rule", "schedule", "template", "{}", "cadence", "every:900000", "every_ms", "900000", "offset", "0"]
    kinds = field_kinds(fields)
    nb = T + 2 * H
    return {
        "register": ([k.repeat, k.record("n"), k.marker], ["n", T, *fields], ["name", "ms", *kinds]),
        "upsert": ([k.repeat, k.record("r"), k.marker], ["r", T + 5 * MIN, "0", *fields],
                   ["name", "ms", "flag", *kinds]),
        "cancel": ([k.repeat, k.record("r")], ["r"], ["name"]),
        "advance": ([k.repeat, k.record("r")], ["r", T + 15 * MIN, "1"], ["name", "score", "flag"]),
        "enqueue": ([k.job("J2"), k.pending, k.marker], ["J2", "r", T, T, "{}"],
                    ["name", "name", "ms", "ms", None]),
        "fire": ([k.repeat, k.pending, k.marker, k.record("r"), k.job("J3")],
                 [T, "0", "r", T, T + 15 * MIN, "J3", T, "{}"],
                 ["ms", "flag", "name", "ms", "score", None, "ms", None]),
        "finish": ([k.pending, k.job("J1")], [1, "J1", T, T + 1000, "done"], ["count", "name", "ms", "ms", "state"]),
        "take": ([k.marker, k.pending, k.job("J1")], [T, "J1", "1"], ["ms", None, "flag"]),
        "activate": ([k.delayed, k.pending, k.marker], [T + H, k.job("")], ["ms", "prefix"]),
        "chain": ([k.repeat, k.record("b"), k.delayed, k.pending, k.marker, k.job(job_id("b", nb))],
                  ["b", T + H, nb, job_id("b", nb), T + H, 2], ["name", "ms", "ms", "name", "ms", "runs"]),
        "scheduler": ([k.repeat, k.record("c"), k.delayed, k.pending, k.marker, k.record("c"), k.job(job_id("c", T))],
                      ["c", T, T, "", job_id("c", T), 0, "rule", "schedule", "template", "{}", "cadence",
                       "every:3600000", "every_ms", "3600000"],
                      ["name", "ms", "ms", None, "name", "offset",
                       *field_kinds(["rule", "schedule", "template", "{}", "cadence", "every:3600000",
                                     "every_ms", "3600000"])]),
    }


def field_kinds(fields):
    """A record's field names must be non-empty; the values of its number fields whole ms;
    other values (a rule, a template) are stored as they are."""
    out = []
    for i in range(0, len(fields), 2):
        out += ["field", "number" if fields[i] in ("every_ms", "offset") else None]
    return out


VERBS = ["register", "upsert", "cancel", "advance", "enqueue", "fire", "finish", "take", "activate", "chain",
         "scheduler"]


def bad_values(kind, args, i, k):
    """(bad args, expected code) for argument i of kind `kind`."""
    def at_(value):
        return [*args[:i], value, *args[i + 1:]]

    if kind == "ms":
        return [(at_(v), Err.ERR_SCORE) for v in BAD_MS]
    if kind == "score":
        return [(at_(v), Err.ERR_SCORE) for v in BAD_MS]
    if kind == "offset":
        return [(at_(v), Err.ERR_SCORE) for v in BAD_MS if v != ""]
    if kind == "runs":
        return [(at_(v), Err.ERR_SCORE) for v in [*BAD_MS, 0]]
    if kind == "count":
        return [(at_(v), Err.ERR_ARITY) for v in [*BAD_MS, 0, 2]]
    if kind == "name":
        return [(at_(v), Err.ERR_NAME) for v in BAD_NAME]
    if kind == "prefix":
        return [(at_(v), Err.ERR_NAME) for v in ["", "abc", "emq:{other}:job:", k.job("")[:-1]]]
    if kind == "flag":
        return [(at_(v), Err.ERR_FLAG) for v in BAD_FLAG]
    if kind == "state":
        return [(at_(v), Err.ERR_FLAG) for v in ["", "gone", "active", "Done"]]
    if kind == "field":
        return [(at_(""), Err.ERR_FIELDS), (args[:i + 1], Err.ERR_FIELDS)]   # empty, or no value
    if kind == "number":
        return [(at_(v), Err.ERR_FIELDS) for v in BAD_MS]
    raise AssertionError(kind)


def cases():
    out = []
    for verb in VERBS:
        for i, kind in enumerate(calls(_K)[verb][2]):
            if kind is not None:
                out.append(pytest.param(verb, i, id=f"{verb}-ARGV{i + 1}-{kind}"))
    return out


class _Keys:  # the shape of Keys, to list the cases before a store exists
    def __getattr__(self, name):
        return "k" if name in ("repeat", "pending", "marker", "delayed") else (lambda *a: "k")


_K = _Keys()


def refuse_all(store, verb, tries):
    before = keyspace(store)
    assert before
    for args, code in tries:
        keys = calls(store.keys)[verb][0]
        with pytest.raises(ScriptError) as err:
            store.scripts.run(verb, keys, args)
        assert (verb, err.value.code) == (verb, code), f"{verb} {args!r}"
        assert keyspace(store) == before, f"{verb} {args!r} wrote before refusing"


def good_call_writes(store, verb):
    keys, args, _ = calls(store.keys)[verb]
    before = keyspace(store)
    result = store.scripts.run(verb, keys, args)
    assert keyspace(store) != before, f"{verb}: the good call wrote nothing ({result!r}), so the test proves nothing"


@pytest.mark.parametrize("verb, i", cases())
def test_a_bad_argument_is_refused_before_any_write(store, verb, i):
    populate(store)
    keys, args, kinds = calls(store.keys)[verb]
    tries = bad_values(kinds[i], args, i, store.keys)
    assert tries
    refuse_all(store, verb, tries)
    good_call_writes(store, verb)


@pytest.mark.parametrize("verb", VERBS)
def test_a_missing_key_or_argument_is_refused_before_any_write(store, verb):
    populate(store)
    keys, args, _ = calls(store.keys)[verb]
    before = keyspace(store)
    tries = [(keys[:-1], args), (keys, [*args, "extra"])]
    if verb not in ("enqueue", "advance"):  # their last arguments (the template, made) may be left out
        tries.append((keys, args[:-1]))
    for ks, a in tries:
        out = store.scripts._scripts[verb](keys=ks, args=a)
        assert isinstance(out, int) and out < 0, f"{verb} keys={len(ks)} args={a!r}: {out!r}"
        assert keyspace(store) == before, f"{verb} keys={len(ks)} args={a!r} wrote before refusing"


def test_every_script_checks_numbers_with_the_shared_include():
    """Lua's tonumber alone takes nan and inf: each number argument goes through isMs first."""
    import re

    from emqsim.engine.scripts import script_files

    raw = script_files(resolved=False)
    for verb in VERBS:
        body = raw[verb].split("]]", 1)[1]
        assert '--- @include "args"' in body, verb
        for m in re.finditer(r"tonumber\((ARGV\[[^\]]+\])\)", body):
            assert f"isMs({m.group(1)})" in body[:m.start()], f"{verb}: tonumber({m.group(1)}) before isMs"


# -- through the Python verbs: one InputError naming the argument, nothing written ------------

PY_BAD_MS = [float("nan"), float("inf"), float("-inf"), 1.5, 10**400, 2**53, -1, True, "5", None]


def refused(store, call, what):
    before = keyspace(store)
    with pytest.raises(InputError, match=f"^{what} .* is refused"):
        call()
    assert keyspace(store) == before


@pytest.mark.parametrize("value", PY_BAD_MS, ids=repr)
def test_registry_refuses_a_bad_time_naming_it(store, value):
    reg, bull = populate(store)
    row = ("r", T, T + 15 * MIN, "J3", T, "{}")
    checks = [
        (lambda: reg.register(Schedule("n", Every("15m")), value), "now"),
        (lambda: reg.upsert(Schedule("r", Every("5m")), value), "now"),
        (lambda: reg.advance("r", value), "next score"),
        (lambda: reg.enqueue("J2", "r", value, T), "slot"),
        (lambda: reg.enqueue("J2", "r", T, value), "now"),
        (lambda: reg.fire(value, [row]), "now"),
        (lambda: reg.fire(T, [("r", value, *row[2:])]), "slot"),
        (lambda: reg.fire(T, [(*row[:2], value, *row[3:])]), "next score"),
        (lambda: reg.fire(T, [(*row[:4], value, "{}")]), "label"),
        (lambda: reg.take("J1", value, parked=True), "now"),
        (lambda: reg.finish([("J1", value, T, "done")]), "started"),
        (lambda: reg.finish([("J1", T, value, "done")]), "finished"),
        (lambda: bull.upsert(Schedule("b", Every("1h")), value), "now"),
        (lambda: bull.pickup(value), "now"),
    ]
    for call, what in checks:
        if what == "next score" and value == float("inf"):
            continue  # INF parks a row: a good next score
        refused(store, call, what)
    assert reg.advance("r", T + 15 * MIN) == "advanced"   # the same call, good, writes


def test_registry_refuses_bad_names_flags_and_states(store):
    reg, _ = populate(store)
    row = ("r", T, T + 15 * MIN, "J3", T, "{}")
    for call, what in [
        (lambda: reg.cancel(""), "name"),
        (lambda: reg.cancel(None), "name"),
        (lambda: reg.advance("", T), "name"),
        (lambda: reg.enqueue("", "r", T, T), "job id"),
        (lambda: reg.enqueue("J2", "", T, T), "name"),
        (lambda: reg.enqueue("J2", "r", T, T, None), "template"),
        (lambda: reg.fire(T, [("", *row[1:])]), "name"),
        (lambda: reg.fire(T, [(*row[:3], None, *row[4:])]), "job id"),
        (lambda: reg.fire(T, [(*row[:5], 7)]), "template"),
        (lambda: reg.fire(T, [row], dedupe="yes"), "dedupe"),
        (lambda: reg.fire(T, []), "rows"),
        (lambda: reg.fire(T, [row[:5]]), "row"),
        (lambda: reg.take(None, T, parked=True), "job id"),
        (lambda: reg.take("J1", T, parked=1), "parked"),
        (lambda: reg.finish([("J1", T, T + 1, "gone")]), "state"),
        (lambda: reg.finish([("", T, T + 1, "done")]), "job id"),
        (lambda: reg.finish([("J1", T, T + 1)]), "finished job"),
        (lambda: reg.finish([], [""]), "evicted job id"),
        (lambda: reg.register("r", T), "schedule"),
    ]:
        refused(store, call, what)


# -- the cases of the issue -----------------------------------------------------------------------

@pytest.mark.parametrize("now", [float("nan"), 10**400, float("-inf"), 1.5])
def test_register_with_a_bad_now_leaves_no_record_without_a_row(store, now):
    reg = Registry(store)
    with pytest.raises(InputError, match="now .* is refused: use a whole number of ms, 0 <= now < 2\\*\\*53"):
        reg.register(Schedule("s", Every("15m")), now)
    assert (reg.rows(), reg.record("s"), reg.peek()) == ([], {}, (0, INF))


def test_register_minus_inf_is_refused_so_peek_and_rows_still_read(store):
    reg = Registry(store)
    with pytest.raises(InputError, match="now -inf is refused"):
        reg.register(Schedule("s", Every("15m")), float("-inf"))
    keys = [store.keys.repeat, store.keys.record("s"), store.keys.marker]
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        store.scripts.run("register", keys, ["s", "-inf", "every_ms", "900000"])
    assert reg.peek() == (0, INF) and reg.rows() == []


def test_upsert_nan_keeps_the_record_as_it_was(store):
    reg = Registry(store)
    reg.upsert(Schedule("s", Every("15m")), T)
    record = reg.record("s")
    with pytest.raises(InputError, match="now nan is refused"):
        reg.upsert(Schedule("s", Every("15m")), float("nan"))
    keys = [store.keys.repeat, store.keys.record("s"), store.keys.marker]
    with pytest.raises(ScriptError, match="ERR_FIELDS"):
        store.scripts.run("upsert", keys, ["s", T, "0", "cadence", "every:900000", "offset", "nan"])
    assert reg.record("s") == record and record["offset"] == "0" and reg.rows() == [("s", T)]


def test_fire_with_an_overflowing_next_score_enqueues_nothing(store):
    reg = Registry(store)
    reg.register(Schedule("s", Every("15m")), T)
    keys = [store.keys.repeat, store.keys.pending, store.keys.marker, store.keys.record("s"), store.keys.job("J")]
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        store.scripts.run("fire", keys, [T, "0", "s", T, 10**400, "J", T, "{}"])
    with pytest.raises(InputError, match="next score 1000000000.* is refused"):
        reg.fire(T, [("s", T, 10**400, "J", T, "{}")])
    assert (reg.pending(), reg.job("J"), reg.record("s")["ic"] if "ic" in reg.record("s") else None,
            reg.rows()) == ([], {}, None, [("s", T)])


def test_no_nan_reaches_a_job_hash_through_fire_or_finish(store):
    reg = Registry(store)
    reg.register(Schedule("s", Every("15m")), T)
    reg.fire(T, [("s", T, T + 15 * MIN, "J", T, "{}")])
    job = reg.job("J")
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        store.scripts.run("finish", [store.keys.pending, store.keys.job("J")], [1, "J", "nan", T, "done"])
    keys = [store.keys.repeat, store.keys.pending, store.keys.marker, store.keys.record("s"), store.keys.job("K")]
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        store.scripts.run("fire", keys, ["nan", "0", "s", T + 15 * MIN, T + 30 * MIN, "K", T + 15 * MIN, "{}"])
    assert reg.job("J") == job and reg.job("K") == {} and reg.pending() == ["J"]


def test_the_last_ms_before_2_53_is_accepted(store):
    reg = Registry(store)
    last = MAX_MS - 1
    assert reg.register(Schedule("s", Every("15m")), T) == "registered"
    assert reg.advance("s", last) == "advanced"
    assert reg.rows() == [("s", last)]
    assert reg.advance("s", INF) == "advanced" and reg.rows() == [("s", INF)]
