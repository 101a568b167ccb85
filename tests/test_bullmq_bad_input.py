"""Bad input to BullMQ's own scripts' driver, each refused in one line that names what was
found and what is expected, before anything is written (the server's keys and script cache as
they were): a script missing from the package, one whose hash differs, a package version that
is not the pinned one, job data JSON cannot write, a value the packer cannot write as
MessagePack, a job whose stored fields the client cannot read (options or data corrupted in its
hash) when a worker takes it, and a stored parent the scripts' cjson cannot read when it
finishes. (The Lua modules' own refusals, in Redis's words, are tests/test_bullmq_lua_modules.py's.)"""

from __future__ import annotations

import hashlib

import pytest

from emqsim.engine.bullmq_scripts import package
from emqsim.engine.bullmq_scripts.driver import BullMQScripts
from emqsim.engine.bullmq_scripts.packing import pack
from emqsim.engine.bullmq_scripts.runtime import embedded
from emqsim.engine.errors import InputError
from test_bullmq_scripts_package import _fake_dist

NOT_INSTALLED = package.available()
T = 1_796_029_620_000


def _real_texts() -> dict[str, bytes]:
    if NOT_INSTALLED is not None:
        pytest.skip(NOT_INSTALLED)
    return {f"bullmq/commands/{n}": t.encode() for n, t in package.read().items()}


def _refused_and_untouched(dist) -> str:
    client = embedded()
    with pytest.raises(package.ScriptsUnavailable) as err:
        BullMQScripts(client, distribution=dist)
    text = str(err.value)
    assert "\n" not in text and text
    assert client.dbsize() == 0
    assert client.script_exists(*[hashlib.sha1(t.encode()).hexdigest() for t in package.read().values()]) == \
        [False] * len(package.SHA256)
    return text


def test_a_script_missing_from_the_package_writes_nothing(tmp_path):
    files = _real_texts()
    del files["bullmq/commands/moveToFinished-14.lua"]
    text = _refused_and_untouched(_fake_dist(tmp_path, package.VERSION, files))
    assert "has no bullmq/commands/moveToFinished-14.lua" in text
    assert package.SHA256["moveToFinished-14.lua"] in text and package.INSTALL in text


def test_a_script_whose_hash_differs_writes_nothing(tmp_path):
    files = _real_texts()
    changed = files["bullmq/commands/updateJobScheduler-12.lua"] + b"\n-- changed\n"
    files["bullmq/commands/updateJobScheduler-12.lua"] = changed
    text = _refused_and_untouched(_fake_dist(tmp_path, package.VERSION, files))
    assert f"has SHA-256 {hashlib.sha256(changed).hexdigest()}; expected " \
           f"{package.SHA256['updateJobScheduler-12.lua']}" in text


def test_another_package_version_writes_nothing(tmp_path):
    text = _refused_and_untouched(_fake_dist(tmp_path, "3.4.5", _real_texts()))
    assert f"bullmq 3.4.5 is installed; expected bullmq=={package.VERSION}" in text


@pytest.mark.parametrize("data,found", [({1, 2}, "set"), ({"a": [1, object()]}, "object"),
                                        ({"x": float("nan")}, "NaN or an infinity"),
                                        ([float("inf")], "NaN or an infinity"), ({(1, 2): 3}, "tuple")])
def test_job_data_json_cannot_write_is_one_line_and_writes_nothing(data, found):
    if NOT_INSTALLED is not None:
        pytest.skip(NOT_INSTALLED)
    b = BullMQScripts()
    before = sorted(b.client.keys("*"))
    with pytest.raises(InputError) as err:
        b.upsert("s", T, every=900_000, data=data)
    text = str(err.value)
    assert "\n" not in text and err.value.arg == "data"
    assert f"holds {found}, which JSON cannot write; expected dicts, lists" in text
    assert sorted(b.client.keys("*")) == before


def test_job_data_json_can_write_is_taken_as_it_is_stored():
    if NOT_INSTALLED is not None:
        pytest.skip(NOT_INSTALLED)
    b = BullMQScripts()
    b.upsert("s", T, every=900_000, data={"é": [1, 2.5, None, True], "n": "x"})
    assert b.take(T).data == '{"é":[1,2.5,null,true],"n":"x"}'


@pytest.mark.parametrize("value", [b"raw", {1, 2}, object(), {"a": [1, b"x"]}])
def test_a_value_the_packer_cannot_write_is_one_line(value):
    with pytest.raises(InputError) as err:
        pack(value)
    text = str(err.value)
    assert "\n" not in text and text.startswith("a value to pack for a BullMQ script ")
    assert text.endswith("must be None, a bool, a number, text, a list or a dict")


def _keyspace(client) -> dict:
    """Every key: its type, DUMP and whether it has a TTL (the lock's runs down with the wall clock)."""
    return {k: (client.type(k), client.dump(k), client.pttl(k) > 0) for k in client.keys("*")}


CORRUPT = [("opts", b"\xff{", "expected UTF-8 text"), ("data", b"\xff{", "expected UTF-8 text"),
           ("opts", b"[1]", "expected the JSON text of an object (the job's options)"),
           ("opts", b"{x", "expected the JSON text of an object (the job's options)"),
           ("data", b"{x", "expected JSON text (the job's data, as JSON.stringify wrote it)"),
           ("opts", b'{"repeat": 5}', "expected options whose repeat is an object of numbers"),
           ("opts", b'{"repeat": {"every": "15m"}}', "expected options whose repeat is an object of numbers"),
           ("opts", b'{"prevMillis": "x"}', "expected options whose prevMillis is a number"),
           ("name", b"\xff", "expected UTF-8 text"), ("timestamp", b"abc", "expected a number (ms since 1970)"),
           ("timestamp", b"NaN", "expected a number (ms since 1970)")]


@pytest.mark.parametrize("field,value,expected", CORRUPT, ids=[f"{f}={v!r}" for f, v, _ in CORRUPT])
@pytest.mark.parametrize("verb,fast", [("take", True), ("pickup", True), ("take", False)])
def test_a_job_whose_stored_fields_cannot_be_read_is_refused_before_it_is_taken(field, value, expected, verb, fast):
    """Corrupted in the job's hash (as another client or a bad write could leave it): the take is
    one line naming the job, the field, what was found and what is expected, and nothing is
    moved; with the field mended, the same take goes on. Read from the embedded server's values
    (`fast`) or, as on a real server, with commands."""
    if NOT_INSTALLED is not None:
        pytest.skip(NOT_INSTALLED)
    b = BullMQScripts(embedded(fast))
    assert (b._read is not None) is fast
    job_id = b.upsert("s", T, every=900_000)
    good = b.client.hget(b.key(job_id), field)
    b.client.hset(b.key(job_id), field, value)
    before = _keyspace(b.client)
    with pytest.raises(InputError) as err:
        getattr(b, verb)(T)
    text = str(err.value)
    assert "\n" not in text and err.value.arg == field
    assert text.startswith(f"BullMQ job {job_id!r}: its stored {field} is ") and expected in text
    assert _keyspace(b.client) == before
    b.client.hset(b.key(job_id), field, good)
    assert getattr(b, verb)(T).id == job_id


@pytest.mark.parametrize("field,value,expected", [
    ("parent", b"{x", "expected the JSON text of an object whose id and queueKey are text"),
    ("parent", b"\xff", "expected the JSON text of an object whose id and queueKey are text"),
    ("parent", b'{"id": 1, "queueKey": "bull:p"}', "expected the JSON text of an object whose id and queueKey"),
    ("parentKey", b"x", "expected a job's key (the queue's prefix, ':', the job's id)")])
def test_a_parent_the_scripts_cjson_cannot_read_is_refused_before_the_finish(field, value, expected):
    """moveToFinished-14 decodes a job's stored parent with cjson after it has released the job's
    lock: a value the module cannot read (or a parent key without an id) would fail the script
    half done, with the module's words and a Lua stack. It is one line before the script runs."""
    if NOT_INSTALLED is not None:
        pytest.skip(NOT_INSTALLED)
    b = BullMQScripts()
    b.upsert("s", T, every=900_000)
    job = b.take(T)
    b.client.hset(b.key(job.id), field, value)
    before = _keyspace(b.client)
    with pytest.raises(InputError) as err:
        b.finish(job, T)
    text = str(err.value)
    assert "\n" not in text and err.value.arg == field
    assert text.startswith(f"BullMQ job {job.id!r}: its stored {field} is ") and expected in text
    assert _keyspace(b.client) == before
    b.client.hdel(b.key(job.id), field)
    b.finish(job, T)
    assert b.client.zscore(b.keys["completed"], job.id) == T
