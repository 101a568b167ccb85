"""A real server that misbehaves gets one line naming the URL and what went wrong, an exit
status of its own (store.FAULTS; 2 stays bad input), and no key left that could be removed.

Every case runs against servers and sockets of its own on 127.0.0.1, with short timeouts."""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from emqsim import cli
from emqsim.engine.store import ENV, FAULTS
from servers import (emqsim, error_line, finished, free_port, listener, needs_redis_server, redis_like,
                     redis_server, resp_server, wait_for)

TRACE = ["trace", "--every", "15m", "--fires", "3"]
QUICK = "socket_timeout=0.5&socket_connect_timeout=0.5"


def run_cli(monkeypatch, capsys, url: str, args=TRACE) -> tuple[int, str, str]:
    monkeypatch.setenv(ENV, url)
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def test_statuses_are_distinct_and_not_bad_input():
    statuses = [status for status, _ in FAULTS.values()]
    assert statuses == list(range(3, 13))
    assert list(FAULTS) == ["url", "unreachable", "timeout", "tls", "protocol", "rejected", "lost", "full",
                            "server", "denied"]


def test_server_down_at_start(monkeypatch, capsys):
    url = f"redis://127.0.0.1:{free_port()}/0"
    status, out, err = run_cli(monkeypatch, capsys, url)
    assert (status, out) == (4, "")
    assert error_line(err, url, "cannot connect")


def test_empty_url(monkeypatch, capsys):
    status, out, err = run_cli(monkeypatch, capsys, "")
    assert (status, out) == (3, "")
    assert err == ("emqsim: error: EMQSIM_REDIS_URL='': not a usable Redis URL (EMQSIM_REDIS_URL is set but "
                   "empty; unset it to use the embedded fakeredis, or give a URL like redis://127.0.0.1:6379/0)\n")


def test_a_server_that_never_answers(monkeypatch, capsys):
    with listener(None) as port:
        url = f"redis://127.0.0.1:{port}/0?{QUICK}"
        status, out, err = run_cli(monkeypatch, capsys, url)
    assert (status, out) == (5, "")
    assert error_line(err, url, "no answer in time")


def test_wrong_port_where_a_web_server_answers(monkeypatch, capsys):
    with listener(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n") as port:
        url = f"redis://127.0.0.1:{port}/0?{QUICK}"
        status, out, err = run_cli(monkeypatch, capsys, url)
    assert (status, out) == (7, "")
    assert error_line(err, url, "what answers there is not a Redis server")


@needs_redis_server
def test_a_database_that_does_not_exist(tmp_path, monkeypatch, capsys):
    with redis_server(tmp_path) as server:
        url = f"redis://:pw@127.0.0.1:{server.port}/99"
        status, out, err = run_cli(monkeypatch, capsys, url)
        assert server.keys() == []
    assert (status, out) == (8, "")
    assert error_line(err, f"redis://:***@127.0.0.1:{server.port}/99", "the server refused the session")


@needs_redis_server
def test_a_wrong_password(tmp_path, monkeypatch, capsys):
    with redis_server(tmp_path, "--requirepass", "right") as server:
        url = f"redis://:wrong@127.0.0.1:{server.port}/0"
        status, out, err = run_cli(monkeypatch, capsys, url)
    assert (status, out) == (8, "")
    assert err.startswith(f"emqsim: error: redis://:***@127.0.0.1:{server.port}/0: the server refused the session (")
    assert "wrong" not in err and err.count("\n") == 1


@needs_redis_server
def test_tls_to_a_plain_server(tmp_path, monkeypatch, capsys):
    with redis_server(tmp_path) as server:
        url = f"rediss://127.0.0.1:{server.port}/0?{QUICK}"
        status, out, err = run_cli(monkeypatch, capsys, url)
        assert server.keys() == []
    assert (status, out) == (6, "")
    assert err.startswith(f"emqsim: error: {url}: TLS handshake failed (")
    assert err.count("\n") == 1


@needs_redis_server
def test_maxmemory_reached(tmp_path, monkeypatch, capsys):
    """The server refuses writes mid-run; the run's keys are still removed (DEL is allowed)."""
    with redis_server(tmp_path, "--maxmemory", "2mb", "--maxmemory-policy", "noeviction") as server:
        status, out, err = run_cli(monkeypatch, capsys, server.url,
                                   ["trace", "--every", "1m", "--run", "1h", "--fires", "50000"])
        assert server.keys() == []
    assert (status, out) == (10, "")
    assert err.startswith(f"emqsim: error: {server.url}: the server is out of memory (maxmemory reached) "
                          "(OOM command not allowed when used memory > 'maxmemory'.")
    assert err.count("\n") == 1


@needs_redis_server
def test_server_stopped_mid_run(tmp_path):
    with redis_server(tmp_path) as server:
        proc = emqsim("trace", "--every", "1m", "--fires", "1000000", url=server.url)
        try:
            wait_for(lambda: server.client.dbsize() > 3 or proc.poll() is not None, 60, "the run writing its keys")
            assert proc.poll() is None
            server.proc.kill()
            server.proc.wait(10)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert (proc.returncode, out) == (9, "")
    assert err.startswith(f"emqsim: error: {server.url}: connection lost mid-run (")
    lines = err.splitlines()  # restarted from an AOF it would hold the run's keys: the second line says so
    assert len(lines) == 2 and err.endswith("\n")
    assert re.fullmatch(r"emqsim: an unknown number of keys of queue (demo-[0-9a-f]{16}) may remain on the server; "
                        r"remove them with: redis-cli -u '(.+)' --scan --pattern 'emq:\{\1\}:\*' "
                        r"\| xargs -r redis-cli -u '\2' del", lines[1]), lines[1]


def test_bad_input_still_exits_2(monkeypatch, capsys):
    """The server is never reached when the input is bad: 2, as before."""
    status, out, err = run_cli(monkeypatch, capsys, f"redis://127.0.0.1:{free_port()}/0",
                               ["trace", "--every", "0", "--fires", "3"])
    assert (status, out) == (2, "")
    assert err.startswith("emqsim: error: --every '0' must be positive")


def test_help_lists_every_status(capsys):
    assert cli.main(["trace", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert ("a server that cannot be used exits with 3 not a usable Redis URL, 4 cannot connect, 5 no answer "
            "in time, 6 TLS handshake failed, 7 what answers there is not a Redis server, 8 the server refused "
            "the session, 9 connection lost mid-run, 10 the server is out of memory (maxmemory reached), 11 the "
            "server refused a command, 12 the user lacks a permission (ACL); a registry another client deleted or "
            "rewrote mid-run exits with 13; SIGINT exits 130, SIGTERM 143, SIGHUP 129 "
            "and SIGQUIT 131, after removing the run's keys; where they cannot all be removed, a second line gives "
            "the command that removes them.") in text


@needs_redis_server
@pytest.mark.parametrize("design", ["pump", "bullmq"])
def test_another_client_deleting_the_registry_mid_run(tmp_path, design):
    """A second client deletes the run's registry key mid-run: one line naming the key, status
    13, and nothing of the run left on the server (it used to print 1,318 of 1,000,000 fires and
    exit 0). The key is deleted again every 20 ms until the run ends, so no write of the run can
    put it back unseen."""
    with redis_server(tmp_path) as server:
        proc = emqsim("trace", "--every", "1m", "--fires", "1000000", "--design", design, url=server.url)
        try:
            registry = wait_for(lambda: server.client.keys("emq:*:repeat") or proc.poll() is not None, 60,
                                "the run writing its registry")
            assert proc.poll() is None
            while proc.poll() is None:
                server.client.delete(*registry)
                time.sleep(0.02)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        assert server.keys() == []
    assert (proc.returncode, out) == (13, ""), err
    key = registry[0].decode()
    assert re.fullmatch(r"emq:\{demo-[0-9a-f]{16}\}:repeat", key)
    assert err.startswith(f"emqsim: error: the registry {key} changed under the run (another client deleted "
                          "or rewrote it): ")
    assert err.count("\n") == 1 and err.endswith("\n")


# -- the server's error replies, driven on real servers (store.CODES) -------------------------

def _run_until_keys(server, *extra):
    """`emqsim trace` on `server` with a long horizon, once it has written more than 3 keys."""
    proc = emqsim("trace", "--every", "1m", "--fires", "1000000", *extra, url=server.url)
    wait_for(lambda: server.client.dbsize() > 3 or proc.poll() is not None, 60, "the run writing its keys")
    assert proc.poll() is None
    return proc


@needs_redis_server
def test_min_replicas_set_mid_run(tmp_path):
    """`CONFIG SET min-replicas-to-write 1` mid-run: the next write is refused (NOREPLICAS), and
    so is every DEL of the clean-up; the second line counts the keys left and gives the command
    that removes them, which does once the setting is back (it was a traceback, 502 keys left
    unmentioned)."""
    with redis_server(tmp_path) as server:
        proc = _run_until_keys(server)
        server.client.config_set("min-replicas-to-write", 1)
        status, out, err = finished(proc)
        left = server.client.dbsize()
        server.client.config_set("min-replicas-to-write", 0)
        lines = err.splitlines()
        assert (status, out) == (11, ""), err
        assert len(lines) == 2 and err.endswith("\n") and "Traceback" not in err
        assert lines[0].startswith(f"emqsim: error: {server.url}: the server refused a command (NOREPLICAS ")
        m = re.fullmatch(r"emqsim: ([0-9,]+) keys of queue (demo-[0-9a-f]{16}) may remain on the server; "
                         r"remove them with: (redis-cli .+ del)", lines[1])
        assert m and int(m[1].replace(",", "")) == left > 0, lines[1]
        subprocess.run(m[3], shell=True, check=True, stdout=subprocess.DEVNULL, timeout=60)
        assert server.keys() == []


@needs_redis_server
@pytest.mark.parametrize("command", ["hset", "zadd"])
def test_a_user_denied_one_write_command(tmp_path, monkeypatch, capsys, command):
    """An ACL user that may do all but HSET (or ZADD): the scripts' call is refused inside the
    script, an ERR reply, not NOPERM; README status 12 (it was a traceback)."""
    with redis_server(tmp_path) as server:
        server.client.execute_command("ACL", "SETUSER", "u", "on", ">pw", "~*", "&*", "+@all", f"-{command}")
        url = f"redis://u:pw@127.0.0.1:{server.port}/0"
        status, out, err = run_cli(monkeypatch, capsys, url)
        assert server.keys() == []
    assert (status, out) == (12, "")
    assert err.startswith(f"emqsim: error: redis://u:***@127.0.0.1:{server.port}/0: the user lacks a permission "
                          "(ACL) (ERR ")
    assert err.count("\n") == 1 and "pw" not in err.replace("pattern", "")


@needs_redis_server
def test_a_renamed_command(tmp_path, monkeypatch, capsys):
    """A server whose config renames HSET (`rename-command`): status 11, one line saying so."""
    conf = tmp_path / "renamed.conf"
    conf.write_text("rename-command hset hset_renamed_by_the_admin\n")
    try:
        cm = redis_server(tmp_path, "--include", str(conf))
        server = cm.__enter__()
    except BaseException as exc:   # an old redis-server without --include: say so, do not fail
        pytest.skip(f"a redis-server with a config file did not start: {exc}")
    try:
        status, out, err = run_cli(monkeypatch, capsys, server.url)
        assert server.keys() == []
    finally:
        cm.__exit__(None, None, None)
    assert (status, out) == (11, "")
    assert err.startswith(f"emqsim: error: {server.url}: the server refused a command (ERR ")
    assert "renamed or disabled a command" in err and err.count("\n") == 1


@needs_redis_server
@pytest.mark.parametrize("design", ["pump", "bullmq"])
def test_another_client_turning_a_key_into_another_type(tmp_path, design):
    """Another client makes the run's pending list, delayed set and marker sets: the run's next
    script gets WRONGTYPE; status 13, one line, and nothing of the run left."""
    with redis_server(tmp_path) as server:
        proc = _run_until_keys(server, "--design", design)
        base = server.client.keys("emq:*:repeat")[0].decode().removesuffix(":repeat")
        # in one transaction: written one by one, the run could meet the first, fail and clean
        # up between two writes, and the later write would be this client's key, not the run's
        rewrite = server.client.pipeline(transaction=True)
        for what in ("pending", "delayed", "marker"):
            rewrite.delete(f"{base}:{what}")
            rewrite.sadd(f"{base}:{what}", "x")
        rewrite.execute()
        status, out, err = finished(proc)
        assert server.keys() == []
    assert (status, out) == (13, ""), err
    assert err.startswith(f"emqsim: error: {server.url}: a key of the run changed under it (another client "
                          "rewrote it) (WRONGTYPE ")
    assert err.count("\n") == 1


# -- listeners that are not Redis -------------------------------------------------------------

def _answers_like_redis_but(verb: bytes, reply: bytes | None):
    """A RESP server that answers as Redis 7 does, except `reply` to `verb`."""
    like = redis_like(b"ERR not reached")
    return lambda args: reply if args[0].upper() == verb else like(args)


NOT_REDIS = {
    "+OK to everything": lambda args: b"+OK\r\n",
    "an error to everything": lambda args: b"-ERR unknown command\r\n",
    "a number to everything": lambda args: b":1\r\n",
    "text to everything": lambda args: b"$5\r\nhello\r\n",
    "a line that is not RESP": lambda args: b"hello world\r\n",
    "hangs up after the first command": lambda args: None,
    "+OK to PING": _answers_like_redis_but(b"PING", b"+OK\r\n"),
    "an error to PING": _answers_like_redis_but(b"PING", b"-ERR what\r\n"),
    "an unknown code to PING": _answers_like_redis_but(b"PING", b"-NOTHERE sorry\r\n"),
    "INFO without redis_version": _answers_like_redis_but(b"INFO", b"$12\r\nversion:1.0\r\n\r\n"),
    "a number to INFO": _answers_like_redis_but(b"INFO", b":7\r\n"),
    "hangs up at INFO": _answers_like_redis_but(b"INFO", None),
}


@pytest.mark.parametrize("answer", list(NOT_REDIS))
def test_a_resp_listener_that_is_not_redis(monkeypatch, capsys, answer):
    """Whatever a listener that is not Redis answers to HELLO, PING or INFO: status 7, one line
    (a RESP server answering +OK was an AttributeError traceback)."""
    with resp_server(NOT_REDIS[answer]) as port:
        url = f"redis://127.0.0.1:{port}/0?{QUICK}"
        status, out, err = run_cli(monkeypatch, capsys, url)
    assert (status, out) == (7, ""), err
    assert error_line(err, url, "what answers there is not a Redis server")


@pytest.mark.parametrize("reply", [b"", b"SSH-2.0-OpenSSH_9.2\r\n"], ids=["hangs up", "an ssh banner"])
def test_a_listener_that_hangs_up_or_speaks_another_protocol(monkeypatch, capsys, reply):
    with listener(reply) as port:
        url = f"redis://127.0.0.1:{port}/0?{QUICK}"
        status, out, err = run_cli(monkeypatch, capsys, url)
    assert (status, out) == (7, ""), err
    assert error_line(err, url, "what answers there is not a Redis server")
