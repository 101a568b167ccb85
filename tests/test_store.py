"""Each run's keys are its own: a random queue name on a real server, set-up that fails
removes what it wrote, SIGTERM cleans up like Ctrl-C, and URLs are checked and redacted."""

from __future__ import annotations

import os
import re
import signal
from pathlib import Path

import pytest

from emqsim import Cron, Every, InputError, Schedule
from emqsim.engine.sim import PumpDesign, simulate
from emqsim.engine.store import ENV, ServerError, Store, connect, embedded, redact
from servers import emqsim, needs_redis_server, redis_server, signalled

T9 = 1796029200000  # 2026-11-30T09:00:00Z


# -- URLs ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["", "  "])
def test_an_empty_url_is_refused_not_taken_for_fakeredis(monkeypatch, value):
    monkeypatch.setenv(ENV, value)
    for make in (Store, connect):
        with pytest.raises(ServerError) as err:
            make()
        assert (err.value.kind, err.value.status) == ("url", 3)
        assert str(err.value) == ("EMQSIM_REDIS_URL='': not a usable Redis URL (EMQSIM_REDIS_URL is set but "
                                  "empty; unset it to use the embedded fakeredis, or give a URL like "
                                  "redis://127.0.0.1:6379/0)")


def test_unset_url_means_fakeredis(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    with Store() as store:
        assert (store.backend, store.real, store.keys.queue) == ("fakeredis", False, "demo")


@pytest.mark.parametrize("url, detail", [
    ("http://127.0.0.1:6379", "'http://127.0.0.1:6379' does not start with one of redis://, rediss://, "
                              "unix://, redis+cluster://, rediss+cluster://"),
    ("127.0.0.1:6379", "'127.0.0.1:6379' does not start with one of"),
    ("redis://127.0.0.1:port/0", "Port could not be cast to integer value as 'port'"),
])
def test_a_url_that_is_not_a_redis_url(url, detail):
    with pytest.raises(ServerError) as err:
        Store(url=url)
    assert err.value.status == 3
    assert str(err.value).startswith(f"{url}: not a usable Redis URL ({detail}")


@pytest.mark.parametrize("url, shown", [
    ("redis://:s3cret@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
    ("redis://alice:s3cret@h:1/2?socket_timeout=1", "redis://alice:***@h:1/2?socket_timeout=1"),
    ("rediss+cluster://bob:p%40ss@h:7000", "rediss+cluster://bob:***@h:7000"),
    ("redis://alice@h:1/0", "redis://alice@h:1/0"),
    ("redis://127.0.0.1:6379/0", "redis://127.0.0.1:6379/0"),
    (None, "(no URL)"),
])
def test_redact_hides_the_password(url, shown):
    assert redact(url) == shown


def test_a_refused_connection_names_the_url_without_its_password():
    from servers import free_port

    port = free_port()  # nothing listens there now
    with pytest.raises(ServerError) as err:
        Store(url=f"redis://:hunter2@127.0.0.1:{port}/0")
    assert err.value.status == 4
    assert str(err.value).startswith(f"redis://:***@127.0.0.1:{port}/0: cannot connect (")
    assert "hunter2" not in str(err.value)


# -- a queue name of its own -------------------------------------------------------------------

@needs_redis_server
def test_queue_names_are_random_not_the_pid(tmp_path):
    with redis_server(tmp_path) as server:
        with Store(url=server.url) as a, Store(url=server.url) as b:
            for s in (a, b):
                assert re.fullmatch(r"demo-[0-9a-f]{16}", s.keys.queue), s.keys.queue
                assert str(os.getpid()) not in s.keys.queue
                assert (s.backend, s.real) == ("redis", True)
            assert a.keys.queue != b.keys.queue
            a.client.set(a.keys.pending, "x")
            b.client.set(b.keys.pending, "y")
            assert len(server.keys()) == 2
        assert server.keys() == []


@needs_redis_server
def test_two_runs_on_one_server_give_their_own_traces(tmp_path, monkeypatch):
    """Two simulations at once on one server (a classroom): each sees only its own rows."""
    with redis_server(tmp_path) as server:
        monkeypatch.setenv(ENV, server.url)
        a = PumpDesign(Schedule("reports", Every("15m")), start=T9)
        b = PumpDesign(Schedule("reports", Every("10m")), start=T9)
        try:
            ta, tb = a.run(fires=5), b.run(fires=5)
            assert [f.slot - T9 for f in ta] == [0, 900_000, 1_800_000, 2_700_000, 3_600_000]
            assert [f.slot - T9 for f in tb] == [0, 600_000, 1_200_000, 1_800_000, 2_400_000]
            assert (ta.duplicates, ta.lost, tb.duplicates, tb.lost) == (0, 0, 0, 0)
        finally:
            a.close()
            b.close()
        assert server.keys() == []


# -- failed set-up -------------------------------------------------------------------------------

@needs_redis_server
def test_failed_set_up_removes_what_it_wrote(tmp_path, monkeypatch):
    """Schedule 'a' registers, then 'b' (30 February) fails: 'a' used to stay on the server."""
    with redis_server(tmp_path) as server:
        monkeypatch.setenv(ENV, server.url)
        with pytest.raises(ValueError, match="never matches"):
            simulate([Schedule("a", Every("15m")), Schedule("b", Cron("0 0 30 2 *"))], start=T9, fires=3)
        assert server.keys() == []


def test_failed_set_up_leaves_a_given_store_open_and_untouched():
    """A store passed in is the caller's: set-up does not close it, and checks every first
    run before writing, so it finds the store as it was."""
    store = Store(client=embedded())
    with pytest.raises(ValueError, match="never matches"):
        PumpDesign([Schedule("a", Every("15m")), Schedule("b", Cron("0 0 30 2 *"))], start=T9, store=store)
    assert store.client.keys("*") == []
    assert store.client.ping()  # still open
    store.close()


# -- SIGTERM and Ctrl-C --------------------------------------------------------------------------

def _ignored(pid: int) -> int:
    """The child's mask of ignored signals, from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return int(line.split()[1], 16)
    raise AssertionError("no SigIgn line")


def test_a_signalled_child_starts_with_each_signal_at_its_default_wherever_the_tests_run():
    """`(make test &)` starts pytest with SIGINT and SIGQUIT ignored (`nohup`, SIGHUP too); the CLI
    child must not inherit that. Only SIGINT was reset, so a background `make test` without
    pytest-xdist failed the SIGQUIT test: the child ignored it and ran its million fires."""
    from servers import SENT

    before = {sig: signal.signal(sig, signal.SIG_IGN) for sig in SENT}
    try:
        proc = emqsim("trace", "--every", "1m", "--fires", "1000000", url=None)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    try:
        ignored = _ignored(proc.pid)
        assert [sig.name for sig in SENT if ignored & (1 << (sig - 1))] == []
    finally:
        proc.kill()
        proc.communicate()


@needs_redis_server
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_mid_run_removes_the_runs_keys(tmp_path, sig):
    """SIGTERM used to leave thousands of keys; Ctrl-C printed a KeyboardInterrupt traceback."""
    with redis_server(tmp_path) as server:
        status, out, err = signalled(server, ["trace", "--every", "1m", "--fires", "1000000"], sig)
        assert status == 128 + sig
        assert err == f"emqsim: stopped by {sig.name}\n"
        assert out == ""
        assert server.keys() == []


# -- a store is one run's ------------------------------------------------------------------------

@pytest.mark.parametrize("second", ["pump", "bullmq"])
def test_a_second_run_on_a_used_store_is_refused_before_it_writes(store, second):
    """Two `simulate` calls on one Store used to lose 3 of the second's 6 slots to job-id
    collisions and report "lost 3" without a word."""
    first = simulate(Schedule("a", Every("15m")), start=T9, fires=6, store=store, design="bullmq")
    keys = sorted(store.client.keys(f"emq:{{{store.keys.queue}}}:*"))
    with pytest.raises(InputError) as err:
        simulate(Schedule("b", Every("15m")), start=T9, fires=6, store=store, design=second)
    assert str(err.value) == (f"store of queue {store.keys.queue!r} already holds a bullmq-design run; a second "
                              "run on it would share its job ids and registry rows: pass a fresh Store(), or no store")
    assert err.value.arg == "store"
    assert sorted(store.client.keys(f"emq:{{{store.keys.queue}}}:*")) == keys   # nothing written
    assert (first.lost, len(first)) == (0, 6)


def test_re_running_the_same_schedule_on_a_used_store_is_refused_not_carried_on(store):
    sched = Schedule("a", Every("15m"))
    first = simulate(sched, start=T9, fires=3, store=store)
    with pytest.raises(InputError, match="already holds a pump-design run"):
        simulate(sched, start=T9, fires=3, store=store)
    assert [f.slot for f in first] == [T9, T9 + 900_000, T9 + 1_800_000]


def test_two_threads_on_one_store_one_runs_the_other_is_refused():
    """Two threads on one Store used to see each other's fires."""
    import threading

    with Store() as store:
        results, errors, go = {}, {}, threading.Barrier(2)

        def run(name):
            go.wait()
            try:
                results[name] = simulate(Schedule(name, Every("15m")), start=T9, fires=200, store=store)
            except InputError as exc:
                errors[name] = str(exc)

        threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(results) == 1 and len(errors) == 1, (results, errors)
        (name, trace), = results.items()
        alone = simulate(Schedule(name, Every("15m")), start=T9, fires=200)
        assert [(f.slot, f.job_id) for f in trace] == [(f.slot, f.job_id) for f in alone]
        assert (trace.lost, trace.duplicates) == (0, 0)
