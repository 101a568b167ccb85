"""Every notebook ends with its Sources: each peer fact it states, where it was read (file or
page, with a version or a commit) and the test that checks it, a test that exists."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: a test named in a Sources line: tests/test_x.py, optionally ::test_name
CITED = re.compile(r"tests/((?:\w+/)*test_\w+\.py)(?:::(\w+))?")
#: a version (6.7.0, 3.11, v1.31) or a commit (7 to 40 hex digits)
VERSIONED = re.compile(r"\b(?:v?\d+\.\d+(?:\.\d+)?|[0-9a-f]{7,40})\b")


def _sources(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    last = cells[-1]
    text = "".join(last["source"])
    assert last["cell_type"] == "markdown" and text.lstrip().startswith("## Sources"), \
        f"{path.name} does not end with a '## Sources' markdown cell"
    return text


def _entries(text: str) -> list[str]:
    """The Sources cell's facts: each innermost bullet, after the text of the bullets it sits
    under (a heading bullet such as "EchoMQ, ..., commit b9f34ed0:" gives its leaves the version),
    continuation lines joined to their bullet."""
    items: list[list] = []   # [indent, text]
    for line in text.splitlines():
        m = re.match(r"^(\s*)[-*] (.*)$", line)
        if m:
            items.append([len(m.group(1)), m.group(2).strip()])
        elif items and line.startswith("  ") and line.strip():
            items[-1][1] += " " + line.strip()
    out = []
    for i, (indent, body) in enumerate(items):
        if i + 1 < len(items) and items[i + 1][0] > indent:
            continue   # a heading: its leaves carry it
        context = [b for j, (ind, b) in enumerate(items[:i]) if ind < indent
                   and all(k[0] > ind for k in items[j + 1:i])]
        out.append((" / ".join(context + [body])))
    return out


def _tests_in(path: Path) -> set[str]:
    return {n.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_ends_with_its_sources(path):
    entries = _entries(_sources(path))
    assert entries, f"{path.name}: its Sources cell lists nothing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_source_names_a_version_and_a_test_that_exists(path):
    for entry in _entries(_sources(path)):
        if entry.lstrip("-* ").lower().startswith(("course page", "this course")):
            continue   # the course's own pages are the specification, not a peer
        assert VERSIONED.search(entry), f"{path.name}: no version or commit in {entry!r}"
        cited = CITED.findall(entry.rpartition(" / ")[2])
        assert cited, f"{path.name}: no test named in {entry!r}"
        for file, name in cited:
            test = ROOT / "tests" / file
            assert test.exists(), f"{path.name} cites {test.relative_to(ROOT)}, which does not exist"
            if name:
                assert name in _tests_in(test), f"{path.name} cites {file}::{name}, which {file} does not define"
