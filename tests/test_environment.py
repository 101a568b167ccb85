"""The lock holds what pyproject.toml allows, every pin with its hashes, one version of each
distribution across its files; the venv `make` builds holds exactly the lock; `make test` runs
pytest and `.ci/run` runs `make test`."""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import lock

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("lab", "present", "site", "test", "classroom")


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def requirements(extra: str | None) -> list[Requirement]:
    """What installing emqsim[extra] asks for (the core with it), its self-references followed."""
    extras = project()["optional-dependencies"]
    out, todo, seen = [Requirement(r) for r in project()["dependencies"]], [extra] if extra else [], set()
    while todo:
        x = todo.pop()
        if x in seen:
            continue
        seen.add(x)
        for line in extras[x]:
            req = Requirement(line)
            if canonicalize_name(req.name) == "emqsim":
                todo.extend(req.extras)
            else:
                out.append(req)
    return out


def test_the_extras_are_the_lock_files():
    assert tuple(project()["optional-dependencies"]) == EXTRAS
    assert sorted(p.stem for p in lock.LOCKS.glob("*.txt")) == sorted(EXTRAS + ("build", "bullmq", "core"))


@pytest.mark.parametrize("extra", (None,) + EXTRAS)
def test_each_lock_file_pins_what_its_extra_asks_within_the_bounds(extra):
    pinned = lock.pins(lock.LOCKS / f"{extra or 'core'}.txt")
    for req in requirements(extra):
        name = canonicalize_name(req.name)
        assert name in pinned, f"{name} is not in the lock of {extra or 'core'}"
        assert req.specifier.contains(pinned[name], prereleases=True), (name, str(req.specifier), pinned[name])
    if extra is None:   # a plain `pip install emqsim`: the engine and the command line, small
        assert len(pinned) <= 25 and not {"jupyterlab", "matplotlib", "voila", "sphinx"} & pinned.keys()


def test_the_lock_files_agree_on_every_version():
    test = lock.pins(lock.LOCKS / "test.txt")
    for extra in (None, "lab", "present", "site"):
        pinned = lock.pins(lock.LOCKS / f"{extra or 'core'}.txt")
        assert pinned.keys() <= test.keys() and all(test[n] == v for n, v in pinned.items()), extra
    classroom = lock.pins(lock.LOCKS / "classroom.txt")
    assert all(classroom.get(n) == v for n, v in test.items())


def test_every_pin_carries_its_hashes_and_names_the_command_that_wrote_it():
    for path in lock.LOCKS.glob("*.txt"):
        text = path.read_text()
        assert "#    make lock\n" in text, path.name
        entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
        assert entries and all("==" in e and "--hash=sha256:" in e for e in entries if e.strip()), path.name


def test_pyproject_has_bounds_and_no_pins():
    for extra in (None,) + EXTRAS:
        for req in requirements(extra):
            assert not any(c.operator in ("==", "===", "~=") for c in req.specifier), req
            assert any(c.operator == ">=" for c in req.specifier), f"{req.name} has no lower bound"


def test_the_venv_make_builds_holds_exactly_the_lock():
    venv = ROOT / ".venv"
    if Path(sys.prefix).resolve() != venv.resolve():
        pytest.skip(f"not run in the venv `make` builds ({venv}), but in {sys.prefix}")
    files = lock.stamped(venv)
    assert files, "no .lock-NAME stamp in the venv"
    locked: dict[str, str] = {}
    for path in files:
        locked.update(lock.pins(path))
    assert lock.differences(locked, lock.installed()) == []


def test_the_lock_reader_sees_markers_and_differences(tmp_path):
    path = tmp_path / "x.txt"
    path.write_text("a==1 \\\n    --hash=sha256:00\nb==2 ; sys_platform == 'nonesuch' \\\n"
                    "    --hash=sha256:00\npip==25 \\\n    --hash=sha256:00\n")
    assert lock.pins(path) == {"a": "1"}
    assert lock.differences({"a": "1", "c": "3"}, {"a": "2", "d": "4"}) == [
        "a: lock 1, here 2", "c: lock 3, here (none)", "d: lock (none), here 4"]


def _make_rules() -> dict[str, tuple[list[str], list[str]]]:
    """target -> (prerequisites, recipe lines), continuation lines joined."""
    text = (ROOT / "Makefile").read_text().replace("\\\n", " ")
    rules: dict[str, tuple[list[str], list[str]]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith("\t"):
            for target in current:
                rules[target][1].append(line.strip())
            continue
        m = re.match(r"^([^:=#\s][^:=#]*?)\s*:(?!=)\s*(.*)$", line)
        if m:
            current = m[1].split()
            for target in current:
                rules.setdefault(target, ([], []))[0].extend(m[2].split("#")[0].split())
        elif line.strip() and not line.startswith("#"):
            current = []
    return rules


def _recipe_closure(rules, target: str) -> list[str]:
    seen, stack, lines = set(), [target], []
    while stack:
        t = stack.pop()
        if t in seen or t not in rules:
            continue
        seen.add(t)
        prereqs, recipe = rules[t]
        lines.extend(recipe)
        stack.extend(prereqs)
    return lines


def test_make_test_runs_pytest():
    rules = _make_rules()
    assert "test" in rules
    recipe = " \n".join(_recipe_closure(rules, "test"))
    assert re.search(r"-m pytest\b.*\btests\b", recipe), "unit tests"
    assert re.search(r"-m pytest\b.*--nbval\b.*notebooks/", recipe), "notebook tests"
    assert (ROOT / "notebooks" / "sanitize.cfg").is_file()


def test_make_test_runs_the_tests_the_unit_run_leaves_out():
    """`make test-unit` leaves out the tests that run Sphinx (marked sphinx); `make test`
    still runs them, in `make test-site`."""
    rules = _make_rules()
    unit = _recipe_closure(rules, "test-unit")
    assert all('-m "not sphinx"' in line for line in unit if "-m pytest" in line), unit
    recipe = " \n".join(_recipe_closure(rules, "test"))
    assert re.search(r"-m pytest\b.*\btests/test_site\*\.py\b.*-m sphinx\b", recipe), "the tests that run Sphinx"


def test_ci_run_calls_make_test():
    script = ROOT / ".ci" / "run"
    code = [l.split("#", 1)[0] for l in script.read_text().splitlines()]
    assert any(re.search(r"(^|[\s;&|(])make test\b", l) for l in code)
    assert "set -euo pipefail" in script.read_text()


def test_no_two_test_files_share_a_name():
    """`pytest` from the root collects every folder of tests/ as top-level modules (no
    __init__.py): two files of one name stop it at collection ("import file mismatch")."""
    files = [p for p in (ROOT / "tests").rglob("test_*.py") if "node_modules" not in p.parts]
    names = [p.name for p in files]
    assert len(files) > 50 and sorted({n for n in names if names.count(n) > 1}) == []
