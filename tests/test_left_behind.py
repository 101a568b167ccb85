"""Nothing left behind, whatever happens: a second signal during clean-up, a hang-up, a user
without a permission, a URL whose options redis-py would misread, a server that stops
answering, a queue name with glob characters, an output that cannot be written. Each case
ends in one line (two where keys may remain: the second says how to remove them), a status
of its own, and no key of the run left unsaid. Every server is one of the test's own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from emqsim import cli
from emqsim.engine.store import ENV, Store, embedded
from servers import ROOT, emqsim, error_line, needs_redis_server, redis_server, signalled, wait_for

TRACE = ["trace", "--every", "15m", "--fires", "3"]
LONG = ["trace", "--every", "1m", "--fires", "1000000"]


def run_cli(monkeypatch, capsys, url: str, args=TRACE) -> tuple[int, str, str]:
    monkeypatch.setenv(ENV, url)
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


# -- signals ---------------------------------------------------------------------------------

@needs_redis_server
@pytest.mark.parametrize("first, second", [(signal.SIGTERM, signal.SIGTERM), (signal.SIGINT, signal.SIGINT),
                                           (signal.SIGTERM, signal.SIGINT)])
def test_a_second_signal_during_clean_up_does_not_cut_it_short(tmp_path, first, second):
    """An impatient Ctrl-C Ctrl-C used to leave every key of the run (12,825-20,238)."""
    with redis_server(tmp_path) as server:
        status, out, err = signalled(server, LONG, first, second, keys=8000)
        # two signals pending at once are handled in signal-number order (CPython), so on a busy
        # machine SIGINT can be the one a SIGTERM-then-SIGINT run reports: either is true
        assert (status, out, err) in {(128 + s, "", f"emqsim: stopped by {s.name}\n") for s in (first, second)}
        assert server.keys() == []


@needs_redis_server
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGQUIT])
def test_a_hang_up_or_quit_removes_the_runs_keys_and_says_so(tmp_path, sig):
    """A closed SSH session (SIGHUP) or Ctrl-\\ (SIGQUIT) used to leave 1,841-5,702 keys, silently."""
    with redis_server(tmp_path) as server:
        status, out, err = signalled(server, LONG, sig)
        assert (status, out, err) == (128 + sig, "", f"emqsim: stopped by {sig.name}\n")
        assert server.keys() == []


@needs_redis_server
def test_a_paused_server_names_what_may_remain_and_the_command_that_removes_it(tmp_path):
    """SIGSTOP to redis-server mid-run: status 5 as before, and now a second line with the
    queue's pattern and one shell command; run as given, it leaves the server empty."""
    with redis_server(tmp_path) as server:
        url = server.url + "?socket_timeout=1"
        proc = subprocess.Popen([sys.executable, "-m", "emqsim", *LONG], cwd=ROOT, text=True,
                                env={**_env(), ENV: url}, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            wait_for(lambda: server.client.dbsize() > 3 or proc.poll() is not None, 60, "the run writing its keys")
            server.proc.send_signal(signal.SIGSTOP)
            try:
                out, err = proc.communicate(timeout=60)
            finally:
                server.proc.send_signal(signal.SIGCONT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        lines = err.splitlines()
        assert (proc.returncode, out, len(lines)) == (5, "", 2)
        assert error_line(lines[0], url, "no answer in time", end="")
        queue = server.client.keys("emq:*")[0].decode().split("}")[0][5:]
        assert lines[1] == (f"emqsim: an unknown number of keys of queue {queue} may remain on the server; "
                            f"remove them with: redis-cli -u '{url}' --scan --pattern 'emq:{{{queue}}}:*' "
                            f"| xargs -r redis-cli -u '{url}' del")
        assert server.keys()  # they did remain
        subprocess.run(lines[1].split("remove them with: ", 1)[1], shell=True, check=True,
                       stdout=subprocess.DEVNULL, timeout=60)
        assert server.keys() == []


def _env() -> dict:
    import os

    return {k: v for k, v in os.environ.items() if k != ENV}


# -- the store's own key space -----------------------------------------------------------------

@needs_redis_server
def test_a_queue_name_with_glob_characters_still_cleans_up(tmp_path):
    """SCAN's pattern was not escaped: Store(queue="a[b") left all its keys after close()."""
    with redis_server(tmp_path) as server:
        for name in ("a[b", "x*y", "q?", "back\\slash"):
            store = Store(queue=name, url=server.url)
            store.client.set(store.keys.pending, "x")
            store.close()
        assert server.keys() == []


# -- permissions and URLs ----------------------------------------------------------------------

@needs_redis_server
@pytest.mark.parametrize("rules, missing", [(("+@read", "+@connection"), "del"),
                                            (("+@all", "-scan"), "scan")])
def test_a_user_without_a_permission_gets_one_line_and_status_12(tmp_path, monkeypatch, capsys, rules, missing):
    """A read-only user got a 55-60-line NoPermissionError traceback and exit 1; with SCAN
    denied 5 keys stayed. Both are now refused before the first write."""
    with redis_server(tmp_path) as server:
        server.client.execute_command("ACL", "SETUSER", "ro", "on", ">ropw", "~*", *rules)
        url = f"redis://ro:ropw@127.0.0.1:{server.port}/0"
        status, out, err = run_cli(monkeypatch, capsys, url)
        assert server.keys() == []
    assert (status, out) == (12, "")
    assert err == (f"emqsim: error: redis://ro:***@127.0.0.1:{server.port}/0: the user lacks a permission (ACL) "
                   f"(NOPERM this user has no permissions to run the '{missing}' command)\n")


@needs_redis_server
@pytest.mark.parametrize("tail, detail", [
    ("/0?bogus=1", "an option of the URL: AbstractConnection.__init__() got an unexpected keyword argument 'bogus'"),
    ("/0?socket_timeout=-1", "?socket_timeout='-1' is not usable; give seconds, more than 0 and finite, such as 2"),
    ("/abc", "database 'abc' is not a number; give one like /0"),
    ("/1x", "database '1x' is not a number; give one like /0"),
])
def test_a_url_whose_options_redis_py_misreads_is_status_3(tmp_path, monkeypatch, capsys, tail, detail):
    """`?bogus=1` was a TypeError traceback, `?socket_timeout=-1` exit 2 blaming --fires, `/abc`
    silently database 0."""
    with redis_server(tmp_path) as server:
        url = f"redis://127.0.0.1:{server.port}{tail}"
        status, out, err = run_cli(monkeypatch, capsys, url)
        assert server.keys() == []
    assert (status, out) == (3, "")
    assert err == f"emqsim: error: {url}: not a usable Redis URL ({detail})\n"


# -- output that cannot be written -------------------------------------------------------------

@pytest.mark.parametrize("shell, message", [
    ("> /dev/full", "emqsim: error: cannot write the output: No space left on device\n"),
    (">&-", "emqsim: error: cannot write the output: stdout is closed\n"),
])
def test_an_output_that_cannot_be_written_is_one_line_and_status_1(shell, message):
    """`> /dev/full` gave an OSError traceback; with stdout closed it said nothing and exited 0."""
    cmd = f"'{sys.executable}' -m emqsim trace --every 15m --fires 3 {shell}"
    done = subprocess.run(cmd, shell=True, cwd=ROOT, env=_env(), text=True, stderr=subprocess.PIPE, timeout=60)
    assert (done.returncode, done.stderr) == (1, message)


def test_a_web_server_that_hangs_up_is_status_7_like_one_that_answers(monkeypatch, capsys):
    """`python3 -m http.server` on the port was "cannot connect" (4); a listener that answers
    HTTP is 7: it took the connection, so something other than Redis is there."""
    from servers import free_port

    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import socket

        def up():
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        wait_for(up, 20, "http.server listening")
        url = f"redis://127.0.0.1:{port}/0"
        status, out, err = run_cli(monkeypatch, capsys, url)
    finally:
        web.terminate()
        web.wait(10)
    assert (status, out) == (7, "")
    assert error_line(err, url, "what answers there is not a Redis server")
    assert err.endswith("; it gave no Redis reply)\n")   # the project's own words after the client's


# -- horizons and names ------------------------------------------------------------------------

@pytest.mark.parametrize("rule, until", [("croniter", "2036-01-01T00:00:00Z"), ("debian", "2036-01-01T00:00:00Z"),
                                         ("cron-parser", "2036-01-01T00:00:00Z"), ("debian", "9998-01-01T00:00:00Z")])
def test_cron_listing_has_a_horizon_cap(capsys, rule, until):
    """'* * * * *' over ten years by Debian's rule took 91 s and 1.31 GB; to 9999 it ran until killed.
    Run 10,000 is at 2026-01-07T22:40Z, so a week is listed and ten years refused."""
    args = ["cron", "* * * * *", "--from", "2026-01-01T00:00:00Z", "--rule", rule]
    assert cli.main([*args, "--until", until]) == 2
    assert capsys.readouterr() == ("", f"emqsim: error: --until '{until}' is more than 10,000 runs of '* * * * *' "
                                       "after --from; give a nearer --until\n")
    assert cli.main([*args, "--until", "2026-01-07T22:40:01Z"]) == 0
    assert capsys.readouterr().out.splitlines()[-2].split()[0] == "10000"


def test_cron_listing_at_the_end_of_the_calendar(capsys):
    """Near 9999 Debian's rule was an OverflowError traceback and croniter said "it never matches";
    then croniter refused (status 2) where Debian's rule listed nothing (0). Every rule now lists
    what there is and ends with the calendar's one line."""
    args = ["cron", "0 0 29 2 *", "--from", "9999-11-01T00:00:00Z", "--until", "9999-12-31T23:00:00Z"]
    for rule in ("croniter", "debian", "cron-parser"):
        assert cli.main([*args, "--rule", rule]) == 0
        out, err = capsys.readouterr()
        assert (out.splitlines()[-2].split(" by ")[0], out.splitlines()[-1], err) == (
            "0 runs of '0 0 29 2 *' in UTC", "no slot before 9999-12-31 23:59:59 (in the zone): the calendar ends there",
            "")
    args = ["cron", "0 0 * * *", "--from", "9999-12-29T00:00:00Z", "--until", "9999-12-31T23:00:00Z"]
    for rule in ("croniter", "debian"):
        assert cli.main([*args, "--rule", rule]) == 0
        out = capsys.readouterr().out   # the 30th and 31st, local and UTC columns, then the end line
        assert out.count("9999-12-3") == 5 and out.endswith("the calendar ends there\n")


def test_an_unknown_figure_is_an_input_error_naming_the_titles():
    """catalogue.figure('nope') raised a bare KeyError."""
    from emqsim.engine.errors import InputError
    from emqsim.figures import catalogue

    for call in (catalogue.figure, catalogue.model):
        with pytest.raises(InputError, match=r"^figure 'nope' is not one of the course's: '01 cron vs interval', "
                                             r"'02 one row rewritten', .*'07 cron across daylight saving'$"):
            call("nope")


# -- a run past the ids' span: the flag that pushed it, before the first write -------------------

@pytest.mark.parametrize("argv, flag, ms", [
    (["--every", "20000d"], "--every", 1_728_000_000_000),
    (["--every", "1m", "--latency", "25000d"], "--latency", 2_160_000_000_000),
    (["--every", "1m", "--tick", "25000d"], "--tick", 2_160_000_000_000),
    (["--every", "1m", "--tick", "12000d"], "--tick", 1_036_800_000_000),
    (["--every", "1m", "--run", "25000d", "--rule", "finish"], "--run", 2_160_000_000_000),
    (["--every", "1m", "--crash-after-enqueue", "1", "--restart-after", "25000d"], "--restart-after",
     2_160_000_000_000),
    (["--every", "20000d", "--design", "bullmq"], "--every", 1_728_000_000_000),
])
def test_a_run_past_the_ids_span_blames_the_flag_that_pushed_it(capsys, argv, flag, ms):
    """`--every 40000d --fires 3` said "--fires: ms 8708029200000 is out of range", and so did
    --latency, --tick, --restart-after and --run with --rule finish; BullMQ's design made slots in 2245."""
    assert cli.main(["trace", *argv, "--fires", "3"]) == 2
    assert capsys.readouterr() == ("", f"emqsim: error: {flag} {ms} ms takes 3 fires of 'reports' past "
                                       "2093-09-06T15:47:35.551Z, the last time job ids can carry; give fewer "
                                       f"fires or a shorter {flag[2:].replace('-', ' ')}\n")


@pytest.mark.parametrize("design", ["pump", "bullmq"])
def test_the_api_refuses_a_run_past_the_ids_span_before_writing(design):
    """simulate() raised a plain ValueError after writing 3 keys; design="bullmq" accepted it."""
    from emqsim import Every, Schedule, simulate
    from emqsim.engine.errors import InputError

    store = Store(client=embedded())
    with pytest.raises(InputError, match=r"^every 1728000000000 ms takes 3 fires of 'a' past 2093-09-06") as err:
        simulate(Schedule("a", Every("20000d")), start=1_796_029_200_000, fires=3, design=design, store=store)
    assert err.value.arg == "every"
    assert store.client.keys("*") == []
    store.close()


def test_the_clean_up_command_on_a_cluster_reaches_the_node_of_the_queues_slot():
    """SCAN reads one node, so the command names the node that holds the queue's slot (and
    escapes the queue's glob characters); run as printed it removes the keys."""
    from backends import url_of

    url = url_of("cluster")
    for queue in ("a[b", "zz", "qq"):
        store = Store(queue=queue, url=url)
        try:
            store.client.set(store.keys.pending, "x")
            node = store.client.get_node_from_key(store.keys.pending)
            command = store.cleanup_command()
            assert command.startswith(f"redis-cli -c -u 'redis://{node.host}:{node.port}' --scan --pattern ")
            subprocess.run(command, shell=True, check=True, stdout=subprocess.DEVNULL, timeout=60)
            assert store.client.exists(store.keys.pending) == 0
        finally:
            store.close()


def test_the_documented_fault_table_lists_every_status():
    """The table of docs/servers.md ("Against a real Redis") has a row for each status `emqsim` exits with."""
    from emqsim.engine.store import FAULTS

    text = (ROOT / "docs" / "servers.md").read_text()
    table = text.split("| status | what went wrong |", 1)[1].split("\n\n", 1)[0]
    firsts = [line.split("|")[1].strip() for line in table.strip().splitlines()[1:]]
    from emqsim.engine.registry import RegistryChanged

    assert firsts == [str(status) for status, _ in FAULTS.values()] + [str(RegistryChanged.status),
                                                                        "129, 130, 131, 143"]
    for (status, what), line in zip(FAULTS.values(), table.strip().splitlines()[1:]):
        assert what.split(" (")[0] in line, (status, line)


def test_a_stop_that_lands_in_a_finalizer_is_not_lost():
    """Under load a first signal landed in redis-py's `Pipeline.__del__`: Python swallowed its
    KeyboardInterrupt there ("Exception ignored in ..."), the run went on to its end and exited
    0, and the second signal was ignored as if the clean-up were running. Here a finalizer that
    signals the process stands in for that moment, at fire 50 of a 3,000-fire run."""
    code = textwrap.dedent("""
        import os, signal, sys
        from emqsim import cli
        from emqsim.engine import pump_fast, sim

        class Late:
            def __del__(self):
                os.kill(os.getpid(), signal.SIGTERM)
                sum(range(1000))   # the handler runs here, inside the finalizer

        pump_fast.enabled = False   # every fire on the event path
        release, once = sim.PumpDesign._release, []
        def _release(self, *a):
            if self.trace.count >= 50 and not once:
                once.append(1)
                Late()
            return release(self, *a)
        sim.PumpDesign._release = _release
        sys.exit(cli.main())
    """)
    done = subprocess.run([sys.executable, "-c", code, "trace", "--every", "1m", "--fires", "3000"], cwd=ROOT,
                          env=_env(), capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (143, "", "emqsim: stopped by SIGTERM\n")


# -- a run nobody closed ---------------------------------------------------------------------

@needs_redis_server
def test_a_run_left_open_takes_its_keys_off_the_server_when_python_exits(tmp_path):
    """A reader's notebook makes a run without `with` and never closes it; its kernel shuts
    down. `make bench`'s memory readings left 2,004 such keys on the server before."""
    with redis_server(tmp_path) as server:
        code = textwrap.dedent("""
            from emqsim import Every, Schedule, at
            from emqsim.engine.sim import PumpDesign
            sim = PumpDesign(Schedule('b', Every('1m')), start=at('2026-11-30 09:00'))
            sim.run(fires=3)
            print(len(sim.store.queue_keys()))
        """)
        done = subprocess.run([sys.executable, "-c", code], env={**os.environ, ENV: server.url},
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert int(done.stdout) > 0 and server.keys() == []


@needs_redis_server
def test_a_store_dropped_unclosed_takes_its_keys_off_the_server(tmp_path):
    import gc

    with redis_server(tmp_path) as server:
        store = Store(url=server.url)
        store.client.set(f"{store.keys.base}:x", 1)
        assert len(server.keys()) == 1
        del store
        gc.collect()
        assert server.keys() == []
