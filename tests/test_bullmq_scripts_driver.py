"""BullMQ 6.7.0's own scripts, driven in-process (emqsim/engine/bullmq_scripts/driver.py), held
to the real BullMQ 6.7.0 under Node step by step: the recorded answers of tests/oracles/bullmq.mjs
(recorded/bullmq_steps.json: every 15m and cron `0 9 * * *`, on time, early, late, skipped,
25 h late; and all of recorded/bullmq.json's scenarios). The same steps on a real Redis leave
the same keys, byte for byte, as on the embedded fakeredis with the project's Lua modules."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path

import oracle
import pytest
import redis

from backends import url_of
from bullmq_replay import expected, replay, upsert
from emqsim.engine.bullmq_scripts import package
from emqsim.engine.bullmq_scripts.driver import BullMQScripts
from servers import REDIS_SERVER, redis_server

sys.path.insert(0, str(Path(__file__).resolve().parent / "oracles"))
import bullmq_step_questions  # noqa: E402

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))

STEPS = oracle.recording("bullmq_steps")
KEYS = oracle.recording("bullmq_steps_keys")
ALL = oracle.recording("bullmq")


def test_the_step_recording_is_the_pinned_bullmq_and_the_generators():
    assert STEPS["answers"]["bullmq"] == ALL["answers"]["bullmq"] == "6.7.0"
    assert bullmq_step_questions.questions() == STEPS["questions"]
    ids = [s["id"] for s in STEPS["questions"]["scenarios"]]
    for cadence in ("every-15m", "cron-0-9"):
        for case in ("on-time", "early", "late", "skipped", "25h-late"):
            assert f"steps-{cadence}-{case}" in ids


@pytest.mark.parametrize("i", range(len(STEPS["questions"]["scenarios"])),
                         ids=[s["id"] for s in STEPS["questions"]["scenarios"]])
def test_the_real_scripts_answer_as_bullmq_step_by_step(i):
    scenario = STEPS["questions"]["scenarios"][i]
    assert replay(scenario, BullMQScripts()) == expected(STEPS["answers"]["answers"][i])


@pytest.mark.parametrize("i", range(len(ALL["questions"]["scenarios"])),
                         ids=[s["id"] for s in ALL["questions"]["scenarios"]])
def test_the_real_scripts_answer_as_bullmq_on_every_recorded_scenario(i):
    scenario = ALL["questions"]["scenarios"][i]
    assert replay(scenario, BullMQScripts()) == expected(ALL["answers"]["answers"][i])


def test_the_live_bullmq_still_answers_the_step_questions_as_recorded():
    if oracle.node() is None:
        pytest.skip(oracle.status())
    import os

    if not os.environ.get("EMQSIM_REDIS_URL"):
        pytest.skip("EMQSIM_REDIS_URL unset: the BullMQ oracle needs a Redis to run on; recording used")
    assert oracle.ask("bullmq", STEPS["questions"]) == STEPS["answers"]


# -- every key, as the real BullMQ leaves it ------------------------------------------------------

def oracle_dump(b) -> dict:
    """Every key of the driver's queue in bullmq_keys.mjs's shape (scores as Redis writes them)."""
    c, p = b.client, b.keys[""]
    out = {}
    for key in sorted(c.scan_iter(match=p + "*")):
        kind, name = c.type(key).decode(), key.decode()[len(p):]
        if kind == "string":
            v = c.get(key).decode()
        elif kind == "hash":
            v = sorted([f.decode(), x.decode()] for f, x in c.hgetall(key).items())
        elif kind == "zset":
            v = [[m.decode(), sc.decode()] for m, sc in c.zrange(key, 0, -1, withscores=True,
                                                                 score_cast_func=lambda x: x)]
        elif kind == "list":
            v = [x.decode() for x in c.lrange(key, 0, -1)]
        elif kind == "set":
            v = sorted(x.decode() for x in c.smembers(key))
        else:
            v = [[x.decode() for kv in f.items() for x in kv] for _i, f in c.xrange(key)]
        out[name] = [kind, v]
    return out


def test_the_keys_recording_is_the_step_questions():
    assert KEYS["answers"]["bullmq"] == "6.7.0"
    assert KEYS["questions"] == {"token": bullmq_step_questions.TOKEN, **STEPS["questions"]}


@pytest.mark.parametrize("i", range(len(KEYS["questions"]["scenarios"])),
                         ids=[s["id"] for s in KEYS["questions"]["scenarios"]])
def test_every_key_is_the_real_bullmqs_after_every_step(i):
    """The job hashes (their opts as cjson text, timestamps), the scheduler hash, the delayed,
    wait, completed and marker sets, the id counter, the meta hash, the events stream's entries:
    each step leaves exactly what BullMQ 6.7.0 under Node left on redis-server."""
    scenario = KEYS["questions"]["scenarios"][i]
    b = BullMQScripts()
    for step, theirs in zip(scenario["steps"], KEYS["answers"]["dumps"][i], strict=True):
        upsert(b, step) if step["op"] == "upsert" else b.pickup(step["at"])
        assert oracle_dump(b) == theirs, step


def test_the_live_bullmq_still_leaves_the_recorded_keys():
    if oracle.node() is None:
        pytest.skip(oracle.status())
    import os

    if not os.environ.get("EMQSIM_REDIS_URL"):
        pytest.skip("EMQSIM_REDIS_URL unset: the BullMQ oracle needs a Redis to run on; recording used")
    assert oracle.ask("bullmq_keys", KEYS["questions"]) == KEYS["answers"]


# -- on every backend ---------------------------------------------------------------------------

@pytest.fixture(params=["fakeredis", "redis", "cluster"])
def driver(request):
    url = url_of(request.param)
    if url is None:
        yield BullMQScripts()
        return
    if request.param == "cluster":
        client = redis.RedisCluster.from_url(url.replace("+cluster", ""))
        prefix = "{emqsim-bullmq}"       # BullMQ on a cluster: one hash tag for the queue's keys
    else:
        client, prefix = redis.Redis.from_url(url), "bull"
    b = BullMQScripts(client, queue=f"emqsim-{secrets.token_hex(6)}", prefix=prefix)
    try:
        yield b
    finally:
        left = list(client.scan_iter(match=b.keys[""] + "*"))
        if left:
            client.delete(*left) if request.param != "cluster" else [client.delete(k) for k in left]
        client.close()


NAMED = [s for s in STEPS["questions"]["scenarios"] if s["id"].endswith(("on-time", "25h-late", "between"))]


@pytest.mark.parametrize("scenario", NAMED, ids=[s["id"] for s in NAMED])
def test_the_real_scripts_on_every_backend(driver, scenario):
    i = STEPS["questions"]["scenarios"].index(scenario)
    assert replay(scenario, driver) == expected(STEPS["answers"]["answers"][i])


def test_get_and_remove_a_scheduler(driver):
    t = 1_796_029_620_000
    assert driver.scheduler("s") is None and driver.remove("s") is False
    job_id = upsert(driver, {"at": t, "every": 900_000})
    got = driver.scheduler("s")
    assert job_id == f"repeat:s:{t}" and got["next"] == t
    assert {k: got["fields"][k] for k in ("name", "every", "ic", "offset")} == {
        "name": "job", "every": "900000", "ic": "1", "offset": str(t % 900_000)}
    assert driver.remove("s") is True
    assert driver.scheduler("s") is None and driver.remove("s") is False
    # removeJobScheduler-3 removes a delayed job only: the first run, due at once, waits on
    st = driver.state("s")
    assert st["delayed"] == [] and st["waiting"] == [job_id] and st["score"] is None
    # and a worker that takes it makes no next job (updateJobScheduler-12 finds no scheduler)
    assert driver.pickup(t + 1).id == job_id and driver.state("s")["delayed"] == []
    # a scheduler whose next job is delayed loses it with the scheduler
    upsert(driver, {"at": t, "every": 900_000, "offset": 60_000})
    assert [d[0] for d in driver.state("s")["delayed"]] == [f"repeat:s:{t // 900_000 * 900_000 + 960_000}"]
    assert driver.remove("s") is True and driver.state("s")["delayed"] == []


def test_the_pickups_upsert_again_makes_nothing_on_every_backend(driver):
    """`update`: the worker's retried upsert at a pickup (updateJobScheduler-12, the taken job as
    producer) finds the row moved past the job and writes nothing; the take's own made the next."""
    t = 1_796_029_620_000
    upsert(driver, {"at": t, "every": 900_000})
    job = driver.take(t)
    assert job.made == f"repeat:s:{t + 900_000}"
    before = driver.state("s")
    assert driver.update(job, t + 1000) is None
    assert driver.state("s") == before and before["score"] == t + 900_000 and before["ic"] == 2
    driver.finish(job, t + 2000)
    assert driver.take(t + 900_000).made == f"repeat:s:{t + 1_800_000}"


@pytest.mark.parametrize("job,now", [("repeat:s:1", 1), (None, 1), ("plain", 1), ("taken", -1)])
def test_a_bad_update_is_one_line_and_writes_nothing(job, now):
    from emqsim.engine.bullmq_scripts.driver import Job
    from emqsim.engine.errors import InputError

    b = BullMQScripts()
    upsert(b, {"at": 1_796_029_620_000, "every": 900_000})
    taken = b.take(1_796_029_620_000)
    job = {"taken": taken, "plain": Job("j1", "job", "{}", 1, {}, None)}.get(job, job)
    before = oracle_dump(b)
    with pytest.raises(InputError) as err:
        b.update(job, now)
    assert "\n" not in str(err.value) and err.value.arg in ("job", "now")
    assert oracle_dump(b) == before


def test_a_cron_scheduler_s_next_run_is_cron_parsers():
    b = BullMQScripts()
    nine = 1_795_996_800_000 + 9 * 3_600_000
    upsert(b, {"at": nine - 3_600_000, "pattern": "0 9 * * *", "tz": "Europe/London"})
    assert b.scheduler("s")["next"] == nine
    job = b.take(nine + 5)
    assert job.id == f"repeat:s:{nine}" and b.scheduler("s")["next"] == nine + 86_400_000
    b.finish(job, nine + 6)
    assert b.client.zscore(b.keys["completed"], job.id) == nine + 6


# -- the same keys on a real Redis as on the embedded one -----------------------------------------

def _dump(client, prefix: str) -> dict:
    """Every key of the queue as data (a stream's entries without their ids, which are the
    server's clock), key names relative to the queue."""
    out = {}
    for key in sorted(client.scan_iter(match=prefix + "*")):
        name = key.decode()[len(prefix):]
        kind = client.type(key).decode()
        if kind == "string":
            value = client.get(key)
        elif kind == "hash":
            value = sorted(client.hgetall(key).items())
        elif kind == "zset":
            value = client.zrange(key, 0, -1, withscores=True)
        elif kind == "list":
            value = client.lrange(key, 0, -1)
        elif kind == "set":
            value = sorted(client.smembers(key))
        else:
            value = [fields for _id, fields in client.xrange(key)]
        out[name] = (kind, value)
    return out


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed")
    with redis_server(tmp_path_factory.mktemp("redis")) as server:
        yield server.client


@pytest.mark.parametrize("scenario", STEPS["questions"]["scenarios"], ids=lambda s: s["id"])
def test_the_keys_are_byte_for_byte_redis_s(real, scenario):
    """The job hashes hold `cjson.encode` text (the job's opts): the project's cjson must write it
    as Redis does, or the stored state differs."""
    fake = BullMQScripts()
    here = BullMQScripts(real, queue=f"q{secrets.token_hex(4)}")
    dumps = []
    for b in (fake, here):
        for step in scenario["steps"]:
            upsert(b, step) if step["op"] == "upsert" else b.pickup(step["at"])
        dumps.append(_dump(b.client, b.keys[""]))
    assert dumps[0] == dumps[1]
    assert any(name.startswith("repeat:s:") and kind == "hash" and any(f == b"opts" for f, _ in v)
               for name, (kind, v) in dumps[0].items())


def test_a_refused_package_writes_nothing(tmp_path):
    from importlib.metadata import PathDistribution

    info = tmp_path / "bullmq-9.9.9.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bullmq\nVersion: 9.9.9\n")
    from emqsim.engine.bullmq_scripts.runtime import embedded

    client = embedded()
    with pytest.raises(package.ScriptsUnavailable, match="bullmq 9.9.9 is installed"):
        BullMQScripts(client, distribution=PathDistribution(info))
    assert client.dbsize() == 0 and client.script_exists("0" * 40) == [False]


# -- bad input: one line, nothing written -----------------------------------------------------------

BAD = [
    ({"scheduler_id": "", "now": 1, "every": 1000}, "scheduler_id"),
    ({"scheduler_id": "s", "now": -1, "every": 1000}, "now"),
    ({"scheduler_id": "s", "now": 1.5, "every": 1000}, "now"),
    ({"scheduler_id": "s", "now": 1}, "every"),
    ({"scheduler_id": "s", "now": 1, "every": 1000, "pattern": "* * * * *"}, "every"),
    ({"scheduler_id": "s", "now": 1, "every": 0}, "every"),
    ({"scheduler_id": "s", "now": 1, "every": "15m"}, "every"),
    ({"scheduler_id": "s", "now": 1, "pattern": "61 * * * *"}, None),
    ({"scheduler_id": "s", "now": 1, "pattern": "0 9 * * *", "tz": "Mars/Olympus"}, None),
    ({"scheduler_id": "s", "now": 1, "every": 1000, "offset": -5}, "offset"),
    ({"scheduler_id": "s", "now": 10, "every": 1000, "end": 5}, "end"),
    ({"scheduler_id": "s", "now": 1, "every": 1000, "limit": True}, "limit"),
]


@pytest.mark.parametrize("kwargs,arg", BAD, ids=[str(b[0]) for b in BAD])
def test_bad_upserts_are_one_line_and_write_nothing(kwargs, arg):
    from emqsim.engine.errors import InputError

    b = BullMQScripts()
    before = oracle_dump(b)
    kwargs = dict(kwargs)
    with pytest.raises(InputError) as err:
        b.upsert(kwargs.pop("scheduler_id"), kwargs.pop("now"), **kwargs)
    assert "\n" not in str(err.value) and str(err.value)
    if arg is not None:
        assert err.value.arg == arg
    assert oracle_dump(b) == before


@pytest.mark.parametrize("now,token", [(-1, "w"), ("1", "w"), (1, "")])
def test_a_bad_take_is_one_line_and_takes_nothing(now, token):
    from emqsim.engine.errors import InputError

    b = BullMQScripts()
    upsert(b, {"at": 1_796_029_620_000, "every": 900_000})
    before = oracle_dump(b)
    with pytest.raises(InputError):
        b.take(now, token)
    assert oracle_dump(b) == before


def test_a_runtime_without_the_modules_is_refused_in_one_line(monkeypatch, tmp_path):
    """fakeredis logs a Lua module it cannot load and runs on without it: refused at once."""
    from emqsim.engine.bullmq_scripts import runtime
    from emqsim.engine.errors import InputError

    monkeypatch.setenv("LUA_PATH", "")
    monkeypatch.setattr(runtime, "LUA", tmp_path)           # a folder without the modules
    with pytest.raises(InputError) as err:
        runtime.embedded()
    text = str(err.value)
    assert "\n" not in text and "did not load emqsim's cmsgpack and cjson" in text and "cmsgpack missing" in text


def test_what_the_check_read_is_reused_only_for_the_same_texts():
    """`take` reads each candidate job before moveToActive-11 and again after it; the second reading
    reuses the first only when the job's opts, data and timestamp are the same text."""
    from emqsim.engine.bullmq_scripts.driver import _job_fields
    from emqsim.engine.errors import InputError

    raw = [b"opts", b'{"repeat":{"every":5}}', b"data", b"{}", b"timestamp", b"1"]
    fields, stored = _job_fields(b"j", raw)
    known = (fields["opts"], fields["data"], fields["timestamp"], stored)
    assert _job_fields(b"j", raw, known)[1] is stored
    changed = [b"opts", b'{"repeat":{"every":"x"}}', b"data", b"{}", b"timestamp", b"1"]
    with pytest.raises(InputError, match="repeat"):
        _job_fields(b"j", changed, known)
    other = [b"opts", b'{"repeat":{"every":6}}', b"data", b"{}", b"timestamp", b"1"]
    assert _job_fields(b"j", other, known)[1] == {"repeat": {"every": 6}}
