"""A real browser on the course: JupyterLab and Voila on 127.0.0.1, and the static site from
disk, in Debian's Chromium driven by Playwright (never a browser Playwright downloads).

The servers start once per session on free ports, serve a temporary copy of the
notebooks (JupyterLab may save what it runs: the committed notebooks stay untouched),
and stop at the end; the static site is built once per session into a temporary folder.
Without /usr/bin/chromium or the playwright package every test here is skipped, with the
reason in one line.
"""

from __future__ import annotations

from contextlib import contextmanager

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ARTIFACTS = ROOT / "test-artifacts"
#: Debian's Chromium; EMQSIM_CHROMIUM names another build (or a missing path, to see the skip)
CHROMIUM = Path(os.environ.get("EMQSIM_CHROMIUM", "/usr/bin/chromium"))
BIN = Path(sys.executable).parent
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
VIEWPORT = {"width": 1280, "height": 900}
SERVER_START_S = 90       # a cold JupyterLab takes about 5 s here
ACTION_MS = 30_000        # default timeout of every Playwright action and wait

# JupyterLab user settings for the test session: every cell in the DOM (no virtual
# scrolling), no autosave. The news pop-up is off by the project's own defaults
# (lab-settings/overrides.json, what `make lab` reads), which a test checks.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/docmanager-extension/plugin.jupyterlab-settings": {"autosave": False},
}
#: the project's JupyterLab defaults, as `make lab` passes them
PROJECT_LAB_SETTINGS = ROOT / "lab-settings"


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"browser tests skipped: no {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "browser tests skipped: the playwright package is not installed (pip install -e '.[test]')"
    return None


def pytest_collection_modifyitems(config, items):
    reason = _missing()
    if reason:
        here = Path(__file__).parent
        for item in items:
            if here in item.path.parents:
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_report_header(config):
    return _missing()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, proc: subprocess.Popen, log: Path, timeout: float = SERVER_START_S) -> None:
    """Until `url` answers; fails with the server's log if it exits or never answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:  # it answers: up (Voila's API asks for a login)
            return
        except OSError:
            time.sleep(0.25)
    pytest.fail(f"server did not answer {url} within {timeout} s:\n{log.read_text()[-3000:]}")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


class Server:
    def __init__(self, base: str, token: str, root: Path, log: Path):
        self.base, self.token, self.root, self.log = base, token, root, log

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}{path}{sep}token={self.token}" if self.token else f"{self.base}{path}"

    def shutdown_kernels(self) -> None:
        """Stop every kernel the server runs (a closed tab leaves its kernel running)."""
        headers = {"Authorization": f"token {self.token}"}
        with urllib.request.urlopen(urllib.request.Request(self.url("/api/sessions"), headers=headers),
                                    timeout=10) as r:
            sessions = json.load(r)
        for s in sessions:
            req = urllib.request.Request(f"{self.base}/api/sessions/{s['id']}", method="DELETE", headers=headers)
            urllib.request.urlopen(req, timeout=30).close()


def _copy_notebooks(dest: Path) -> Path:
    dest.mkdir(parents=True)
    for nb in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy(nb, dest / nb.name)
    return dest


@contextmanager
def running_lab(tmp: Path, root: Path, settings: dict):
    """JupyterLab on 127.0.0.1 with a token, serving `root`, with `settings` (file -> values) as
    the user's settings; stopped on the way out."""
    folder = tmp / "settings"
    for name, values in settings.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(json.dumps(values))
    port, token = free_port(), secrets.token_hex(16)
    cmd = [str(BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
           f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
           f"--LabApp.user_settings_dir={folder}", f"--LabApp.workspaces_dir={tmp / 'workspaces'}",
           f"--LabApp.app_settings_dir={PROJECT_LAB_SETTINGS}",
           "--ServerApp.port_retries=0"]
    if os.geteuid() == 0:
        cmd.append("--allow-root")
    log = tmp / "lab.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=root, stdin=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status?token={token}", proc, log)
        yield Server(f"http://127.0.0.1:{port}", token, root, log)
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    """JupyterLab on 127.0.0.1 with a token, serving a copy of notebooks/."""
    tmp = tmp_path_factory.mktemp("lab")
    with running_lab(tmp, _copy_notebooks(tmp / "notebooks"), LAB_SETTINGS) as server:
        yield server


@pytest.fixture(scope="session")
def voila(tmp_path_factory):
    """Voila on 127.0.0.1 serving one notebook as an app (01, whose figure the test moves)."""
    tmp = tmp_path_factory.mktemp("voila")
    root = _copy_notebooks(tmp / "notebooks")
    nb = root / "01_cron_vs_interval.ipynb"
    if not nb.exists():
        pytest.skip("no notebooks/01_cron_vs_interval.ipynb to serve with Voila")
    with voila_serving(root, nb, tmp / "voila.log") as server:
        yield server


@contextmanager
def voila_serving(root: Path, target: Path, log: Path):
    """Voila on 127.0.0.1 serving `target` (a notebook, or a folder of them) from `root`,
    stopped when the block ends."""
    port = free_port()
    cmd = [str(BIN / "voila"), "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1", str(target)]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=root, stdin=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/api/status", proc, log)
        yield Server(f"http://127.0.0.1:{port}", "", root, log)
    finally:
        stop(proc)


@pytest.fixture(scope="session")
def static_site() -> Path:
    """The static site (`make html`) of the committed notebooks: the build `make test-site`
    made of these sources if there is one (site_build.py), else built now."""
    import site_build

    if not any(NOTEBOOKS.glob("*.ipynb")):
        pytest.skip("no notebooks/*.ipynb to build a site from")
    return site_build.site()[0]


@pytest.fixture(scope="session")
def browser_context(tmp_path_factory):
    """Debian's Chromium, headless, with a fresh profile in a temporary folder."""
    from playwright.sync_api import sync_playwright

    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS,
            viewport=VIEWPORT, timeout=60_000)
        context.set_default_timeout(ACTION_MS)
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def page(browser_context):
    p = browser_context.new_page()
    yield p
    if not p.is_closed():
        p.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
