"""Every error reply a Redis 7 server can send, and one nobody has seen yet, gives one line and
the README's status: the reply is read by its code (its first word), in one table
(`store.CODES`), never by a traceback.

Each reply is injected: a small RESP server on 127.0.0.1 answers PING, INFO, SCAN and DEL as an
empty Redis 7 does and the run's first write with the reply under test, and `emqsim trace`
runs against it in this process. The codes are Redis 7.0's own (its `createSharedObjects`,
cluster, ACL, script and stream replies), written out here so that a code the table forgets
fails."""

from __future__ import annotations

import pytest
import redis
from redis._parsers.base import BaseParser

from emqsim import cli
from emqsim.engine.registry import RegistryChanged
from emqsim.engine.store import CHANGED, CODES, ENV, FAULTS, _fault
from servers import redis_like, resp_server

TRACE = ["trace", "--every", "15m", "--fires", "3"]

#: reply -> (status, the project's words for it); the replies are Redis 7's own lines
REPLIES = {
    b"ERR unknown command 'HSET', with args beginning with: ": (11, "the server refused a command"),
    b"ERR Unknown Redis command called from script script: 0123, on @user_script:1.":
        (11, "the server refused a command"),
    b"ERR The user executing the script can't run this command or subcommand script: 0123, on @user_script:1.":
        (12, "the user lacks a permission (ACL)"),
    b"ERR Error running script (call to f_0123): @user_script:1: bad": (11, "the server refused a command"),
    b"NOPERM this user has no permissions to run the 'hset' command": (12, "the user lacks a permission (ACL)"),
    b"NOREPLICAS Not enough good replicas to write.": (11, "the server refused a command"),
    b"READONLY You can't write against a read only replica.": (11, "the server refused a command"),
    b"WRONGTYPE Operation against a key holding the wrong kind of value":
        (13, "a key of the run changed under it (another client rewrote it)"),
    b"OOM command not allowed when used memory > 'maxmemory'.":
        (10, "the server is out of memory (maxmemory reached)"),
    b"LOADING Redis is loading the dataset in memory": (11, "the server refused a command"),
    b"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.":
        (11, "the server refused a command"),
    b"MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.":
        (11, "the server refused a command"),
    b"MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.":
        (11, "the server refused a command"),
    b"CLUSTERDOWN The cluster is down": (11, "the server refused a command"),
    b"TRYAGAIN Multiple keys request during rehashing of slot": (11, "the server refused a command"),
    b"CROSSSLOT Keys in request don't hash to the same slot": (11, "the server refused a command"),
    b"MOVED 3999 127.0.0.1:6381": (11, "the server refused a command"),
    b"ASK 3999 127.0.0.1:6381": (11, "the server refused a command"),
    b"EXECABORT Transaction discarded because of previous errors.": (11, "the server refused a command"),
    b"NOAUTH Authentication required.": (8, "the server refused the session"),
    b"WRONGPASS invalid username-password pair or user is disabled.": (8, "the server refused the session"),
    b"BUSYKEY Target key name already exists.": (11, "the server refused a command"),
    b"BUSYGROUP Consumer Group name already exists": (11, "the server refused a command"),
    b"NOGROUP No such key or consumer group": (11, "the server refused a command"),
    b"NOTBUSY No scripts in execution right now.": (11, "the server refused a command"),
    b"UNKILLABLE Sorry the script already executed write commands against the dataset.":
        (11, "the server refused a command"),
    b"UNBLOCKED client unblocked via CLIENT UNBLOCK": (11, "the server refused a command"),
    b"NOPROTO unsupported protocol version": (7, "what answers there is not a Redis server"),
    b"FROBNICATE the flux capacitor is not charged": (11, "the server refused a command"),  # made up
}


def test_every_code_of_the_table_is_a_reply_tested_here():
    """The table and this file's replies name the same codes (a made-up one besides)."""
    tested = {line.split(b" ", 1)[0].decode() for line in REPLIES}
    assert set(CODES) - tested == {"NOSCRIPT"}   # redis-py loads the script again: see below
    assert tested - set(CODES) == {"FROBNICATE"}


def test_status_13_is_the_registry_check_s():
    assert CHANGED[0] == RegistryChanged.status == 13
    assert 13 not in [status for status, _ in FAULTS.values()]


@pytest.mark.parametrize("reply", list(REPLIES), ids=lambda r: r.split(b" ", 1)[0].decode())
def test_a_reply_gives_one_line_and_its_status(monkeypatch, capsys, reply):
    status, words = REPLIES[reply]
    with resp_server(redis_like(reply)) as port:
        url = f"redis://127.0.0.1:{port}/0?socket_timeout=2"
        monkeypatch.setenv(ENV, url)
        got = cli.main(TRACE)
    out, err = capsys.readouterr()
    assert (got, out) == (status, ""), err
    first = reply.decode().split(" ", 1)[0]
    assert err.startswith(f"emqsim: error: {url}: {words} (")
    assert err.count("\n") == 1 and "Traceback" not in err
    if status != 7:   # the server's first line is quoted, its code first
        assert f"({first} " in err or f"({first})" in err


@pytest.mark.parametrize("reply", list(REPLIES), ids=lambda r: r.split(b" ", 1)[0].decode())
def test_a_reply_inside_a_pipeline_keeps_its_code(reply):
    """redis-py puts 'Command # 1 (...) of pipeline caused error: ' before the server's line."""
    status, _ = REPLIES[reply]
    exc = BaseParser.parse_error(reply.decode())
    wrapped = type(exc)(f"Command # 1 (EVALSHA x 0) of pipeline caused error: {exc}",
                        status_code=exc.status_code) if not isinstance(exc, redis.exceptions.AskError) else exc
    err = _fault(wrapped, "redis://h:1/0", used=True)
    expected = 7 if status == 7 else status
    assert err is not None and err.status == expected, str(err)


def test_noscript_is_left_to_redis_py_which_loads_the_script_again(monkeypatch, capsys):
    """A server that forgot the run's scripts (SCRIPT FLUSH) answers NOSCRIPT; redis-py's Script
    loads it again and retries, so the reply must reach it as its own NoScriptError."""
    calls = {"EVALSHA": 0}
    inner = redis_like(b"NOREPLICAS Not enough good replicas to write.")

    def answer(args):
        if args[0].upper() == b"EVALSHA":
            calls["EVALSHA"] += 1
            if calls["EVALSHA"] == 1:
                return b"-NOSCRIPT No matching script. Please use EVAL.\r\n"
        return inner(args)

    with resp_server(answer) as port:
        url = f"redis://127.0.0.1:{port}/0?socket_timeout=2"
        monkeypatch.setenv(ENV, url)
        got = cli.main(TRACE)
    out, err = capsys.readouterr()
    assert calls["EVALSHA"] >= 2                 # loaded again and re-sent
    assert got == 11 and "(NOREPLICAS Not enough good replicas to write." in err, err
