"""Every file path a comment or docstring of the project names exists, so a reader who follows
one lands on the file (issue 31: three Lua headers named `emqsim/chain.py` after it moved).

A path counts when it starts at one of the repository's folders (`emqsim/`, `tests/`, ...) or
at `lua/`; it is looked up from the repository's root, then from the naming file's folder, then
from `emqsim/engine/`. Paths in other projects, which a comment cites with its project, are
listed here with that project."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"(?<![\w/.-])((?:emqsim|tests|notebooks|benchmarks|docs|requirements|share|binder|hub|\.ci|lua)"
                  r"/[\w./*-]*[\w*])")
#: paths of other projects the comments cite (not files of this repository)
ELSEWHERE = {
    "docs/echo_mq": "fiberfx (EchoMQ's specs)",
    "docs/echo_mq/specs/emq.commands": "fiberfx (EchoMQ's specs)",
    "tests/Hangfire.Core.Tests": "Hangfire",
    "tests/Hangfire.Core.Tests/Server/RecurringJobSchedulerFacts.cs": "Hangfire",
    "tests/job_scheduler.test.ts": "BullMQ",
    "share/jupyter/lab/schemas": "JupyterLab, in the venv",
}
#: made by an install (npm ci), not kept in the repository
INSTALLED = "node_modules"


def _sources() -> list[Path]:
    globs = ("emqsim/**/*.py", "emqsim/**/*.lua", "emqsim/**/*.js", "emqsim/**/*.css", "benchmarks/*.py",
             "tests/*.py", "tests/oracles/*.py", "tests/browser/*.py", "Makefile", ".ci/*")
    return sorted({p for g in globs for p in ROOT.glob(g)
                   if p.is_file() and "node_modules" not in p.parts and p.name != Path(__file__).name})


def _exists(path: str, named_in: Path) -> bool:
    if path in ELSEWHERE or INSTALLED in path or "NAME" in path or "test_x" in path:
        return True
    bases = (ROOT, named_in.parent, ROOT / "emqsim" / "engine")
    return any(next(b.glob(p), None) is not None for b in bases for p in (path, path + ".lua"))


def test_every_path_a_comment_names_exists():
    missing = [f"{p.relative_to(ROOT)}: {m.group(1)}" for p in _sources()
               for m in PATH.finditer(p.read_text()) if not _exists(m.group(1).rstrip("."), p)]
    assert missing == []


def test_the_check_finds_a_moved_file():
    """The rule above, on a comment naming the old place of chain.py."""
    fake = ROOT / "emqsim" / "engine" / "lua" / "chain-6.lua"
    assert not _exists("emqsim/chain.py", fake) and _exists("emqsim/engine/chain.py", fake)
