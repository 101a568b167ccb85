"""The classroom check: a class of N students on one JupyterHub, on this machine.

    python benchmarks/classroom.py [--students N] [--timeout SECONDS]

Starts JupyterHub (PyPI) with configurable-http-proxy (npm, benchmarks/classroom-proxy) on
127.0.0.1 with the course's recipe (hub/jupyterhub_config.py) and test-only users, then has N
students at once each start a server through the hub's REST API, open notebook 02 from their
own copy of the course and run every code cell through the server's kernel API and the kernel's
websocket. Prints one block: failures, the time to the first figure, memory per student server
and in total. Why: an instructor sizes a machine for a class from these numbers, so they are
measured here, not guessed (docs/hosting.md quotes them).

A bench, not a test: where jupyterhub or the proxy is missing it says what to install in one line
and exits 0. Every process it starts and its temporary folder are gone when it exits (also on
Ctrl-C or its global timeout). Nothing it does leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECIPE = ROOT / "hub" / "jupyterhub_config.py"
PROXY_DIR = Path(__file__).resolve().parent / "classroom-proxy"
NOTEBOOK = "02_one_row_rewritten.ipynb"
FOLDER = "emqsim"  # the recipe's EMQSIM_COURSE_FOLDER default, set explicitly below
SERVICE = "classroom-check"
SCOPES = ["admin:users", "admin:servers", "access:servers"]
MB = 1024 * 1024


# ---- pure parts (tests/test_classroom_bench.py) -------------------------------------------

def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks (numpy's
    default, statistics.quantiles' 'inclusive'): the same number whoever recomputes it."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def code_cells(notebook: dict) -> list[str]:
    """The source of each code cell with any code in it, in order: what "run all" sends."""
    cells = []
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        if source.strip():
            cells.append(source)
    return cells


def rss_from_status(text: str) -> int:
    """Resident memory in bytes from the text of /proc/PID/status (its VmRSS line, in kB);
    0 for a process with none (a zombie has no VmRSS line)."""
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            number, unit = line.split()[1:3]
            if unit.lower() != "kb":
                raise ValueError(f"VmRSS in {unit!r}")
            return int(number) * 1024
    return 0


def children_from_proc(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """Every descendant of pid, read from /proc (the fallback where psutil is not installed)."""
    parents: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        parents.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def decode_ws_message(frame: str | bytes) -> dict:
    """A Jupyter message from the kernel websocket: JSON text, or the binary form (a count of
    buffers, their offsets, the JSON first) used when a message carries buffers (widgets)."""
    if isinstance(frame, str):
        return json.loads(frame)
    count = struct.unpack("!I", frame[:4])[0]
    offsets = list(struct.unpack("!" + "I" * count, frame[4:4 * (count + 1)])) + [len(frame)]
    return json.loads(frame[offsets[0]:offsets[1]].decode())


def first_image(msg: dict) -> bool:
    """Whether a message is a figure: a display_data or execute_result carrying image/png."""
    kind = msg.get("header", {}).get("msg_type") or msg.get("msg_type")
    return kind in ("display_data", "execute_result") and "image/png" in msg.get("content", {}).get("data", {})


# ---- processes and memory -----------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def descendants(pid: int) -> list[int]:
    try:
        import psutil
        return [p.pid for p in psutil.Process(pid).children(recursive=True)]
    except ImportError:
        return children_from_proc(pid)
    except Exception:  # the process is gone
        return []


def rss(pid: int) -> int:
    try:
        import psutil
        return psutil.Process(pid).memory_info().rss
    except ImportError:
        try:
            return rss_from_status(Path(f"/proc/{pid}/status").read_text())
        except OSError:
            return 0
    except Exception:
        return 0


def environ_of(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(item.split("=", 1) for item in raw.decode(errors="replace").split("\0") if "=" in item)


def kill_all(pids: list[int], grace: float = 5.0) -> None:
    """SIGTERM, then SIGKILL what is left after `grace` seconds."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for pid in pids:
            try:
                os.kill(pid, sig)
                alive.append(pid)
            except (ProcessLookupError, PermissionError):
                pass
        if not alive or sig == signal.SIGKILL:
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() and _running(p) for p in alive):
            time.sleep(0.1)


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


# ---- the hub ------------------------------------------------------------------------------

def find_proxy() -> str | None:
    local = PROXY_DIR / "node_modules" / ".bin" / "configurable-http-proxy"
    if local.exists():
        return str(local)
    return shutil.which("configurable-http-proxy")


def proxy_version(command: str) -> str:
    try:
        out = subprocess.run([command, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or "?"
    except (OSError, subprocess.SubprocessError):
        return "?"


def hub_config(tmp: Path, proxy: str, ports: dict, token: str, students: int) -> str:
    """The recipe, loaded as it is, with what a check needs on top: test-only logins and
    servers (SimpleLocalProcessSpawner: homes under tmp, no Unix accounts), 127.0.0.1 ports,
    a service allowed to start servers and use them."""
    extra_args = ["--allow-root"] if os.getuid() == 0 else []
    return f"""\
load_subconfig({str(RECIPE)!r})
c.JupyterHub.authenticator_class = "dummy"
c.Authenticator.allow_all = True
c.Authenticator.admin_users = set()
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {str(tmp / 'homes' / '{username}')!r}
c.Spawner.args = list(c.Spawner.args) + {extra_args!r}
c.Spawner.ip = "127.0.0.1"
c.JupyterHub.bind_url = "http://127.0.0.1:{ports['public']}"
c.JupyterHub.hub_bind_url = "http://127.0.0.1:{ports['hub']}"
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{ports['proxy_api']}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.JupyterHub.db_url = "sqlite:///{tmp / 'hub.sqlite'}"
c.JupyterHub.cookie_secret_file = {str(tmp / 'cookie_secret')!r}
c.JupyterHub.concurrent_spawn_limit = {max(students, 1)}
c.JupyterHub.services = [{{"name": {SERVICE!r}, "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": {SERVICE!r}, "scopes": {SCOPES!r}, "services": [{SERVICE!r}]}}]
"""


class Student:
    def __init__(self, name: str):
        self.name = name
        self.ready = self.figure = self.done = None  # seconds from the spawn request
        self.cells = 0
        self.error = ""
        self.settings_ok = False


class Class:
    def __init__(self, base: str, token: str, cell_timeout: float):
        from tornado.httpclient import AsyncHTTPClient
        AsyncHTTPClient.configure(None, max_clients=200)
        self.http = AsyncHTTPClient()
        self.base = base
        self.headers = {"Authorization": f"token {token}"}
        self.cell_timeout = cell_timeout

    async def call(self, method: str, path: str, body=None, ok=(200, 201, 202, 204)):
        from tornado.httpclient import HTTPClientError
        try:
            response = await self.http.fetch(
                self.base + path, method=method, headers={**self.headers, "Content-Type": "application/json"},
                body=None if body is None else json.dumps(body), request_timeout=600, allow_nonstandard_methods=True)
        except HTTPClientError as e:
            if e.code in ok:
                return e.code, {}
            raise RuntimeError(f"{method} {path}: HTTP {e.code}") from None
        text = response.body.decode() if response.body else ""
        return response.code, (json.loads(text) if text.strip().startswith(("{", "[")) else {})

    async def wait_until_up(self, deadline: float) -> None:
        while time.monotonic() < deadline:
            try:
                await self.call("GET", "/hub/api/")
                return
            except Exception:
                await asyncio.sleep(0.5)
        raise TimeoutError("the hub did not answer")

    async def run(self, student: Student, t0: float) -> None:
        name = student.name
        await self.call("POST", f"/hub/api/users/{name}/server")
        while True:
            _, user = await self.call("GET", f"/hub/api/users/{name}")
            server = (user.get("servers") or {}).get("", {})
            if server.get("ready"):
                break
            if not server and not user.get("pending"):
                raise RuntimeError("the server stopped while starting")
            await asyncio.sleep(0.5)
        student.ready = time.monotonic() - t0
        user_base = f"/user/{name}"
        path = f"{FOLDER}/notebooks/{NOTEBOOK}"
        # open the notebook as JupyterLab does: read it, then a session (and its kernel) for it
        _, model = await self.call("GET", f"{user_base}/api/contents/{path}?content=1&type=notebook")
        cells = code_cells(model["content"])
        _, settings = await self.call(
            "GET", f"{user_base}/lab/api/settings/@jupyterlab/apputils-extension:notification")
        student.settings_ok = settings.get("schema", {}).get("properties", {}).get(
            "fetchNews", {}).get("default") == "false"
        _, session = await self.call("POST", f"{user_base}/api/sessions",
                                     {"path": path, "name": NOTEBOOK, "type": "notebook",
                                      "kernel": {"name": "python3"}})
        kernel = session["kernel"]["id"]
        await self.run_cells(student, f"{user_base}/api/kernels/{kernel}/channels", cells, t0)
        student.done = time.monotonic() - t0

    async def run_cells(self, student: Student, path: str, cells: list[str], t0: float) -> None:
        from tornado.httpclient import HTTPRequest
        from tornado.websocket import websocket_connect
        session = uuid.uuid4().hex
        url = self.base.replace("http://", "ws://") + path + f"?session_id={session}"
        ws = await websocket_connect(HTTPRequest(url, headers=self.headers, request_timeout=120),
                                     max_message_size=256 * MB)
        try:
            for index, code in enumerate(cells):
                msg_id = uuid.uuid4().hex
                await ws.write_message(json.dumps({
                    "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session,
                               "username": student.name, "version": "5.3", "date": ""},
                    "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
                    "content": {"code": code, "silent": False, "store_history": True,
                                "user_expressions": {}, "allow_stdin": False, "stop_on_error": True}}))
                replied = idle = False
                while not (replied and idle):
                    frame = await asyncio.wait_for(ws.read_message(), self.cell_timeout)
                    if frame is None:
                        raise RuntimeError(f"cell {index + 1}: the kernel's websocket closed")
                    msg = decode_ws_message(frame)
                    if msg.get("parent_header", {}).get("msg_id") != msg_id:
                        continue
                    kind = msg["header"]["msg_type"]
                    if first_image(msg) and student.figure is None:
                        student.figure = time.monotonic() - t0
                    if kind == "execute_reply":
                        replied = True
                        if msg["content"].get("status") != "ok":
                            raise RuntimeError(f"cell {index + 1}: {msg['content'].get('ename', 'error')}")
                    elif kind == "status" and msg["content"].get("execution_state") == "idle":
                        idle = True
                student.cells = index + 1
        finally:
            ws.close()


async def class_of(students: list[Student], base: str, token: str, deadline: float, cell_timeout: float) -> float:
    room = Class(base, token, cell_timeout)
    await room.wait_until_up(deadline)
    await room.call("POST", "/hub/api/users", {"usernames": [s.name for s in students]})
    t0 = time.monotonic()

    async def one(student: Student):
        try:
            await room.run(student, t0)
        except Exception as e:  # one student's failure is counted, the class goes on
            student.error = f"{type(e).__name__}: {e}"
        except asyncio.CancelledError:  # the global timeout or Ctrl-C: counted, not re-raised
            student.error = "stopped before the end (global timeout or Ctrl-C)"

    await asyncio.wait_for(asyncio.gather(*(one(s) for s in students)), max(1.0, deadline - time.monotonic()))
    return time.monotonic() - t0


def memory(hub_pid: int, students: list[Student]) -> tuple[dict[str, int], int, int]:
    """RSS of each student's server with its kernel, of the hub and proxy, and the total."""
    by_student: dict[str, int] = {}
    tree = descendants(hub_pid)
    servers = {}
    for pid in tree:
        user = environ_of(pid).get("JUPYTERHUB_USER")
        if user and "JUPYTERHUB_API_TOKEN" in environ_of(pid) and user not in servers:
            servers[user] = pid
    counted = set()
    for user, pid in servers.items():
        pids = [pid, *descendants(pid)]
        counted.update(pids)
        by_student[user] = sum(rss(p) for p in pids)
    rest = rss(hub_pid) + sum(rss(p) for p in tree if p not in counted)
    return by_student, rest, rest + sum(by_student.values())


def mb(value: float) -> str:
    return f"{value / MB:.0f} MB"


def report(args, students, versions, wall, mem, timed_out) -> str:
    by_student, rest, total = mem
    failed = [s for s in students if s.error or s.done is None]
    lines = [f"[jupyterhub] classroom: {len(students)} students at once on one JupyterHub {versions['hub']} "
             f"(configurable-http-proxy {versions['proxy']}), {os.cpu_count()} CPUs, 127.0.0.1; "
             f"notebook {NOTEBOOK[:2]}, {versions['cells']} code cells each"]
    lines.append(f"  failures: {len(failed)} of {len(students)}"
                 + (" (global timeout reached)" if timed_out else ""))
    for s in failed[:5]:
        lines.append(f"    {s.name}: {s.error or 'not finished'} (after {s.cells} cells)")

    def spread(label, values):
        values = [v for v in values if v is not None]
        if values:
            lines.append(f"  {label}: median {percentile(values, 50):.1f} s, p95 {percentile(values, 95):.1f} s"
                         f" (n={len(values)})")
    spread("server ready (from the spawn request)", [s.ready for s in students])
    spread("time to the first figure (from the spawn request)", [s.figure for s in students])
    spread("every cell run (from the spawn request)", [s.done for s in students])
    if by_student:
        per = list(by_student.values())
        lines.append(f"  memory per student server (server + kernel, RSS): median {mb(percentile(per, 50))},"
                     f" max {mb(max(per))}")
        lines.append(f"  memory in total (hub, proxy, {len(per)} servers, RSS): {total / 1024**3:.2f} GB"
                     f" (hub and proxy {mb(rest)})")
        fits = int((24 * 1024**3 - rest) // max(per))
        lines.append(f"  24 GB holds {fits} such servers by RSS (largest server; RSS counts shared pages"
                     f" once per process, so this errs low)")
    lines.append(f"  lab settings applied (no news pop-up): {sum(s.settings_ok for s in students)} of {len(students)};"
                 f" wall time {wall:.0f} s")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=900, help="global limit in seconds (default 900)")
    parser.add_argument("--cell-timeout", type=float, default=300)
    args = parser.parse_args(argv)
    try:
        import jupyterhub
    except ImportError:
        print("[jupyterhub] classroom: skipped, jupyterhub is not installed (pip install 'emqsim[classroom]')")
        return 0
    proxy = find_proxy()
    if proxy is None:
        print("[jupyterhub] classroom: skipped, configurable-http-proxy is not installed "
              "(cd benchmarks/classroom-proxy && npm ci --no-audit --no-fund --ignore-scripts)")
        return 0
    hub_exe = shutil.which("jupyterhub", path=os.path.dirname(sys.executable)) or shutil.which("jupyterhub")
    if hub_exe is None or not shutil.which("jupyterhub-singleuser", path=os.path.dirname(sys.executable)):
        print("[jupyterhub] classroom: skipped, the jupyterhub commands are not next to this Python "
              "(pip install 'emqsim[classroom]' in this environment)")
        return 0
    with open(ROOT / "notebooks" / NOTEBOOK) as f:
        versions = {"hub": jupyterhub.__version__, "proxy": proxy_version(proxy),
                    "cells": len(code_cells(json.load(f)))}

    tmp = Path(tempfile.mkdtemp(prefix="emqsim-classroom-"))
    hub = None
    known: set[int] = set()
    start = time.monotonic()
    deadline = start + args.timeout
    students = [Student(f"student{i:02d}") for i in range(1, args.students + 1)]
    wall, mem, timed_out = 0.0, ({}, 0, 0), False

    def on_term(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        ports = {k: free_port() for k in ("public", "hub", "proxy_api")}
        token = secrets.token_hex(32)
        (tmp / "jupyterhub_config.py").write_text(hub_config(tmp, proxy, ports, token, args.students))
        env = {**os.environ, "EMQSIM_COURSE": str(ROOT), "EMQSIM_COURSE_FOLDER": FOLDER,
               "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "")}
        env.pop("EMQSIM_COURSE_REPO", None)
        env.pop("EMQSIM_PRESENT", None)
        with open(tmp / "hub.log", "wb") as log:
            hub = subprocess.Popen([hub_exe, "-f", str(tmp / "jupyterhub_config.py")], cwd=tmp, env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            wall = asyncio.run(class_of(students, f"http://127.0.0.1:{ports['public']}", token, deadline,
                                        args.cell_timeout))
        except (asyncio.TimeoutError, TimeoutError):
            timed_out = True
            wall = time.monotonic() - start
        known.update(descendants(hub.pid))
        mem = memory(hub.pid, students)
    except KeyboardInterrupt:
        print("[jupyterhub] classroom: interrupted, stopping the hub and every server", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        if hub is not None:
            known.update(descendants(hub.pid))
            hub.terminate()  # the hub stops every student's server and its proxy
            try:
                hub.wait(timeout=60)
            except subprocess.TimeoutExpired:
                hub.kill()
                hub.wait()
            kill_all([p for p in known if _running(p)])
            if any(s.error for s in students) or timed_out:
                tail = (tmp / "hub.log").read_text(errors="replace").splitlines()[-15:]
                print("[jupyterhub] classroom: the hub's last log lines:\n  " + "\n  ".join(tail), file=sys.stderr)
        shutil.rmtree(tmp, ignore_errors=True)
    print(report(args, students, versions, wall, mem, timed_out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
