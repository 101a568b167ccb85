"""Local servers for the tests that need a server of their own: a redis-server on a free port
of 127.0.0.1 (skipped when redis-server is not installed), a socket that accepts and never
answers, and one that answers like a web server. Every wait is bounded."""

from __future__ import annotations

import os
import re
import signal
import shutil
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
import redis

from emqsim.engine.store import ENV

REDIS_SERVER = shutil.which("redis-server")
needs_redis_server = pytest.mark.skipif(REDIS_SERVER is None, reason="redis-server is not installed")
ROOT = Path(__file__).resolve().parents[1]


def error_line(text: str, url: str, words: str, end: str = "\n") -> bool:
    """Whether `text` is the CLI's one error line for `url`: the project's own `words`, then the
    detail in brackets. The detail is the client's or the server's wording (redis-py words one
    timeout two ways in 8.2): a test holds the project's words and the status, not theirs."""
    return re.fullmatch(re.escape(f"emqsim: error: {url}: {words} (") + r"[^\n]+\)" + re.escape(end), text) is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(predicate, seconds: float, what: str):
    """Poll `predicate` until it is truthy; fail the test naming `what` after `seconds`. The
    pause between polls starts at 2 ms and doubles to 50 ms: most waits (a child writing its
    first keys, a server answering) end within a few ms, and a fixed 50 ms made each one last it."""
    deadline = time.monotonic() + seconds
    pause = 0.002
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what} did not happen within {seconds} s")
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


class RedisServer:
    """A throwaway redis-server; `client` talks to it, `stop` ends it."""

    def __init__(self, workdir: Path, *args: str):
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.log = workdir / f"redis-{self.port}.log"
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
             "--dir", str(workdir), "--logfile", str(self.log), *args],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        password = args[args.index("--requirepass") + 1] if "--requirepass" in args else None
        self.client = redis.Redis(host="127.0.0.1", port=self.port, password=password, socket_timeout=5,
                                  socket_connect_timeout=5)

        def up():
            if self.proc.poll() is not None:
                pytest.fail(f"redis-server exited: {self.log.read_text() if self.log.exists() else ''}")
            try:
                return self.client.ping()
            except redis.ConnectionError:
                return False

        wait_for(up, 10, f"redis-server on port {self.port} answering PING")

    def keys(self) -> list[bytes]:
        return sorted(self.client.keys("*"))

    def stop(self) -> None:
        self.client.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@contextmanager
def redis_server(workdir: Path, *args: str):
    server = RedisServer(workdir, *args)
    try:
        yield server
    finally:
        server.stop()


@contextmanager
def listener(reply: bytes | None):
    """A socket on 127.0.0.1 that accepts and then says nothing (reply None), or sends
    `reply` to whatever it reads and hangs up. Yields its port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.settimeout(0.2)
    held: list[socket.socket] = []
    done = threading.Event()

    def serve():
        while not done.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            if reply is None:
                held.append(conn)
                continue
            conn.settimeout(2)
            try:
                conn.recv(4096)
                conn.sendall(reply)
            except OSError:
                pass
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        for conn in held:
            conn.close()
        sock.close()


def emqsim(*args: str, url: str | None) -> subprocess.Popen:
    """`python -m emqsim ...` in a process of its own, against `url` (None: fakeredis)."""
    env = {k: v for k, v in os.environ.items() if k != ENV}
    if url is not None:
        env[ENV] = url
    return subprocess.Popen([sys.executable, "-m", "emqsim", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_default_signals)


#: the signals the tests send a child, each at its default there, as in a terminal
SENT = (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM)


def _default_signals() -> None:
    """In the child, before it runs: every signal of SENT at its default, as in a terminal.
    Started in the background of a shell script (`(make test &)`) the tests inherit SIGINT and
    SIGQUIT ignored (under `nohup`, SIGHUP too), and a program keeps an inherited ignored signal
    (emqsim does, on purpose), so a test sending one would wait for a run that never stops."""
    for sig in SENT:
        signal.signal(sig, signal.SIG_DFL)


def signalled(server, args, *signals: signal.Signals, gap: float = 0.005, keys: int = 3) -> tuple[int, str, str]:
    """`emqsim *args` on `server`, sent `signals` `gap` s apart once it has written more than
    `keys` keys; its exit status, stdout and stderr."""
    proc = emqsim(*args, url=server.url)
    try:
        wait_for(lambda: server.client.dbsize() > keys or proc.poll() is not None, 60, "the run writing its keys")
        assert proc.poll() is None
        for i, sig in enumerate(signals):
            if i:
                time.sleep(gap)
            proc.send_signal(sig)
    except BaseException:
        finished(proc)
        raise
    return finished(proc)


def finished(proc) -> tuple[int, str, str]:
    """`proc`'s exit status, stdout and stderr once it ends (killed after 60 s)."""
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, out, err


def _read_command(reader) -> list[bytes] | None:
    """One command a client sent (an array of bulk strings), or None when it hung up."""
    head = reader.readline()
    if not head.startswith(b"*"):
        return None
    args = []
    for _ in range(int(head[1:])):
        size = int(reader.readline()[1:])
        args.append(reader.read(size + 2)[:-2])
    return args


@contextmanager
def resp_server(answer):
    """A server on 127.0.0.1 that reads RESP commands and sends `answer(args)` (bytes) to each;
    None hangs up. Yields its port. What a real Redis would say is the test's to give."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.settimeout(0.2)
    done = threading.Event()

    def talk(conn):
        conn.settimeout(5)
        try:
            with conn, conn.makefile("rb") as reader:
                while not done.is_set():
                    args = _read_command(reader)
                    reply = None if args is None else answer(args)
                    if reply is None:
                        return
                    conn.sendall(reply)
        except (OSError, ValueError):
            pass

    def serve():
        while not done.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            threading.Thread(target=talk, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        sock.close()


def redis_like(error: bytes):
    """An answer for `resp_server`: HELLO, PING, INFO, CLIENT, SCAN, DEL and SCRIPT as a Redis 7 with an
    empty database answers them, and every other command (the run's first write) the error
    reply `error` (a line such as b"NOREPLICAS Not enough good replicas to write.")."""
    import hashlib

    def answer(args: list[bytes]) -> bytes:
        verb = args[0].upper()
        if verb == b"HELLO":   # redis-py 8 asks for RESP3
            return (b"%7\r\n+server\r\n+redis\r\n+version\r\n+7.0.15\r\n+proto\r\n:3\r\n+id\r\n:5\r\n"
                    b"+mode\r\n+standalone\r\n+role\r\n+master\r\n+modules\r\n*0\r\n")
        if verb == b"PING":
            return b"+PONG\r\n"
        if verb == b"INFO":
            text = b"# Server\r\nredis_version:7.0.15\r\n"
            return b"$%d\r\n%s\r\n" % (len(text), text)
        if verb == b"CLIENT":
            return b"+OK\r\n"
        if verb == b"SCAN":
            return b"*2\r\n$1\r\n0\r\n*0\r\n"
        if verb == b"DEL":
            return b":0\r\n"
        if verb == b"SCRIPT" and args[1].upper() == b"LOAD":
            sha = hashlib.sha1(args[2]).hexdigest().encode()
            return b"$40\r\n%s\r\n" % sha
        if verb == b"SCRIPT" and args[1].upper() == b"EXISTS":
            return b"*%d\r\n" % (len(args) - 2) + b":1\r\n" * (len(args) - 2)
        return b"-" + error + b"\r\n"

    return answer
