"""`make lab`: JupyterLab on the notebooks with the project's settings (no "Jupyter news?"
pop-up), and `--allow-root` only where Jupyter would otherwise refuse to start (as root).
Read from `make -n`, which prints the command without running it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = ROOT / "lab-settings" / "overrides.json"
NOTIFICATION = "@jupyterlab/apputils-extension:notification"

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="no make")


def lab_command(uid: int, tmp_path: Path) -> str:
    """The `jupyter lab` line `make -n lab` prints when `id -u` answers `uid`."""
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (fake / "id").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    out = subprocess.run(["make", "-n", "-s", "lab"], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True).stdout
    [line] = [ln for ln in out.splitlines() if "jupyter lab" in ln]
    return line


def test_make_lab_allows_root_only_as_root(tmp_path):
    assert "--allow-root" in lab_command(0, tmp_path).split()
    assert "--allow-root" not in lab_command(1000, tmp_path).split()


def test_make_lab_reads_the_project_settings(tmp_path):
    line = lab_command(1000, tmp_path)
    assert f"--LabApp.app_settings_dir={ROOT}/lab-settings" in line.split()
    assert "--ServerApp.root_dir=notebooks" in line.split()


def test_the_project_settings_switch_the_news_off():
    overrides = json.loads(SETTINGS.read_text())
    assert overrides == {NOTIFICATION: {"fetchNews": "false", "checkForUpdates": False}}
    # the values are ones the installed JupyterLab's schema accepts
    schema_file = (Path(sys.prefix) / "share/jupyter/lab/schemas/@jupyterlab/apputils-extension/notification.json")
    if not schema_file.exists():
        pytest.skip(f"no JupyterLab schema at {schema_file}")
    props = json.loads(schema_file.read_text())["properties"]
    assert "false" in [o["const"] for o in props["fetchNews"]["oneOf"]]
    assert props["checkForUpdates"]["type"] == "boolean"
