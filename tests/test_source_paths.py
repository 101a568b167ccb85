"""Every source file path named in a notebook, a Sources line, a comment or docstring of the
package, or a Lua header is a file that exists in the package or commit it is cited from: the
path lists of each are recorded in tests/oracles/recorded/source_paths.json (paths only, by
tests/oracles/source_paths.py), so this needs no network and no Node. A path may be cited by
its tail (`includes/storeJobScheduler.lua`, `lib/echo_mq/pump.ex`) or by its file name."""

from __future__ import annotations

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = json.loads((ROOT / "tests" / "oracles" / "recorded" / "source_paths.json").read_text())
PATH = re.compile(r"(?<![\w/.:-])((?:[\w.@-]+/)*[\w.@-]+\.(?:lua|js|mjs|cjs|ts|ex|exs|go|cs|py|md|java))(?![\w/])")
#: tokens the pattern finds that cite no peer's file: the site's own build files and name patterns
EXEMPT = {"conf.py", "index.md", "_static/scripts/fontawesome.js", "fontawesome.js", "require.js",
          "emqsim-player.js", "lua/includes/NAME.lua", "verb-N.lua"}


def _source(path: str) -> tuple[str, ...]:
    """Which recorded sources a cited path can come from (by the project's own naming)."""
    if path.endswith((".ex", ".exs")) or path.startswith(("echo/", "echo_data/", "lib/echo_mq", "docs/echo_mq",
                                                           "features/", "registry/")):
        return ("github:jonny-novikov/fiberfx",)
    if path.endswith(".cs"):
        return ("github:HangfireIO/Hangfire",)
    if path.startswith("service/") or path == "workflow_test.go":
        return ("github:temporalio/temporal",)
    if path.endswith(".go"):
        return ("github:kubernetes/kubernetes",)
    if path.endswith(".java"):
        return ("github:openjdk/jdk",)
    if path.startswith("apscheduler/"):
        return ("pypi:apscheduler",)
    return ("npm:bullmq", "npm:cron-parser")


def _texts() -> list[tuple[str, str]]:
    out = []
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        out += [(f"{nb.name} {c['id']}", "".join(c["source"])) for c in json.loads(nb.read_text())["cells"]
                if c["cell_type"] == "markdown"]
    for py in sorted((ROOT / "emqsim").rglob("*.py")):
        text = py.read_text()
        words = [t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
        words += [ast.get_docstring(n) or "" for n in ast.walk(ast.parse(text))
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        out.append((str(py.relative_to(ROOT)), "\n".join(words)))
    for lua in sorted((ROOT / "emqsim" / "engine" / "lua").rglob("*.lua")):
        out.append((str(lua.relative_to(ROOT)), lua.read_text().split("]]", 1)[0]))
    return out


OWN = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
       if p.is_file() and not {"node_modules", ".git", "__pycache__"} & set(p.parts)]


def _own(path: str) -> bool:
    return any(o == path or o.endswith("/" + path) for o in OWN)


def cited() -> dict[str, list[str]]:
    """Each cited path (not the project's own files) -> where it is named."""
    found: dict[str, list[str]] = {}
    for where, text in _texts():
        for path in PATH.findall(text):
            if path not in EXEMPT and not path.startswith("../") and not _own(path):
                found.setdefault(path, []).append(where)
    return found


def _exists(path: str) -> bool:
    for key, files in MANIFEST.items():
        if key.startswith(_source(path)) and any(f == path or f.endswith("/" + path) for f in files):
            return True
    return False


CITED = cited()


def test_the_scan_finds_the_citations():
    assert len(CITED) > 40
    assert "echo/apps/echo_mq/lib/echo_mq/consumer.ex" in CITED and "src/Hangfire.Core/RecurringJobEntity.cs" in CITED


@pytest.mark.parametrize("path", sorted(CITED))
def test_a_cited_path_exists_in_its_source(path):
    assert _exists(path), f"{path} (named in {', '.join(CITED[path][:3])}) is in none of {_source(path)}"


def test_a_path_that_is_not_there_fails():
    assert not _exists("commands/includes/notAScript.lua") and not _exists("lib/echo_mq/nothing.ex")
    assert _exists("includes/storeJobScheduler.lua") and _exists("lib/echo_mq/pump.ex")


def test_a_project_path_named_in_a_comment_exists():
    """The project's own paths named as emqsim/... in a Lua header or a docstring are files."""
    for where, text in _texts():
        for path in re.findall(r"\bemqsim/[\w/]+\.py\b", text):
            assert (ROOT / path).exists(), (where, path)
