"""Every version the pages name for a Python library they ask live is the version installed.

The pages cite croniter and cronsim by version ("cronsim 2.9, asked live"); the lock moved
cronsim from 2.8 to 2.9 and two reference pages kept saying 2.8. A claim about a real system
names the version that produced it, so the pages' numbers are read against the installed ones.
A major-only mention ("croniter 7.x", "cronsim 2.x") must match the installed major.
"""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LIVE = ("croniter", "cronsim")
NAMED = re.compile(r"\b(croniter|cronsim) (\d+\.x|\d+(?:\.\d+)*)\b")


def _named(text: str):
    for name, ver in NAMED.findall(text):
        yield name, ver


def _pages():
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        yield nb.name, text


def test_the_pattern_reads_a_version_and_a_major():
    assert list(_named("cronsim 2.8 (`CronSim`) and croniter 7.x, croniter.get_next")) == \
        [("cronsim", "2.8"), ("croniter", "7.x")]


@pytest.mark.parametrize("name", LIVE)
def test_each_page_names_the_installed_version(name):
    installed = version(name)
    wrong = []
    for page, text in _pages():
        for lib, ver in _named(text):
            if lib != name:
                continue
            if ver.endswith(".x"):
                ok = installed.split(".")[0] == ver.split(".")[0]
            else:
                ok = installed == ver or installed.startswith(ver + ".")
            if not ok:
                wrong.append((page, f"{lib} {ver}", installed))
    assert wrong == []
