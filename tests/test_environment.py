"""pyproject.toml and environment.yml (Binder) must name the same distributions with the
same bounds; `make test` must run pytest and `.ci/run` must run `make test`."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# conda-forge names that differ from the PyPI distribution name.
CONDA_TO_PYPI = {"redis-py": "redis"}
# An extra that pulls in a distribution conda lists on its own.
EXTRA_IMPLIES = {("fakeredis", "lua"): "lupa"}
# Conda entries that are the environment itself, not project dependencies.
CONDA_ONLY = {"python", "pip"}

_REQ = re.compile(
    r"^\s*(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[(?P<extras>[^\]]*)\])?\s*(?P<spec>[^;#]*)"
)
_CLAUSE = re.compile(r"^(?P<op>~=|===|==|!=|<=|>=|<|>|=)\s*(?P<ver>[A-Za-z0-9.*+!_-]+)$")


def normalise(name: str) -> str:
    name = re.sub(r"[-_.]+", "-", name.strip().lower())
    return CONDA_TO_PYPI.get(name, name)


def parse_spec(spec: str) -> frozenset[str]:
    """'>=6.29, <7' -> {'>=6.29', '<7'}; raises on anything unexpected."""
    clauses = set()
    for part in spec.replace(" ", "").split(","):
        if not part:
            continue
        m = _CLAUSE.match(part)
        assert m, f"cannot parse version clause {part!r}"
        clauses.add(m["op"] + m["ver"])
    return frozenset(clauses)


def parse_requirement(line: str) -> dict[str, frozenset[str]]:
    """One requirement -> {normalised name: bounds}, plus what its extras imply."""
    m = _REQ.match(line)
    assert m, f"cannot parse requirement {line!r}"
    name = normalise(m["name"])
    out = {name: parse_spec(m["spec"])}
    for extra in (m["extras"] or "").split(","):
        implied = EXTRA_IMPLIES.get((name, extra.strip().lower()))
        if implied:
            out.setdefault(implied, frozenset())
    return out


def pyproject_requirements() -> dict[str, frozenset[str]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project["dependencies"]) + list(project["optional-dependencies"]["test"])
    reqs: dict[str, frozenset[str]] = {}
    for line in lines:
        for name, spec in parse_requirement(line).items():
            assert name not in reqs or not spec, f"{name} listed twice in pyproject.toml"
            if name not in reqs or spec:
                reqs[name] = spec
    return reqs


def environment_entries() -> list[str]:
    """The items of `dependencies:` in environment.yml, the `- pip:` sub-list flattened.

    A tiny parser for the simple YAML this file uses: block lists of plain scalars.
    """
    entries: list[str] = []
    in_deps = False
    for raw in (ROOT / "environment.yml").read_text().splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if not line[0].isspace():  # a top-level key
            in_deps = line.startswith("dependencies:")
            continue
        if not in_deps:
            continue
        item = line.strip()
        assert item.startswith("- "), f"unexpected line in dependencies: {raw!r}"
        item = item[2:].strip()
        if item == "pip:":
            continue
        entries.append(item)
    return entries


def environment_requirements() -> dict[str, frozenset[str]]:
    reqs: dict[str, frozenset[str]] = {}
    for item in environment_entries():
        if item.startswith("-"):  # pip options such as `-e .`
            continue
        m = _REQ.match(item)
        if normalise(m["name"]) in CONDA_ONLY:
            continue
        for name, spec in parse_requirement(item).items():
            assert name not in reqs, f"{name} listed twice in environment.yml"
            reqs[name] = spec
    return reqs


def test_parsers_see_the_expected_shape():
    py = pyproject_requirements()
    env = environment_requirements()
    assert py["ipykernel"] == frozenset({">=6.29", "<7"})
    assert py["lupa"] == frozenset()  # implied by fakeredis[lua]
    assert "redis" in env and "redis-py" not in env
    assert {"pytest", "nbval", "cronsim"} <= env.keys()


def test_environment_yml_matches_pyproject():
    py = pyproject_requirements()
    env = environment_requirements()
    assert sorted(py.keys() - env.keys()) == [], "in pyproject.toml only"
    assert sorted(env.keys() - py.keys()) == [], "in environment.yml only"
    differing = {n: (sorted(py[n]), sorted(env[n])) for n in py if py[n] != env[n]}
    assert differing == {}, "bounds differ (pyproject, environment.yml)"


def test_pyproject_has_lower_bounds_and_no_pins():
    for name, spec in pyproject_requirements().items():
        assert not any(c.startswith(("==", "===", "~=")) for c in spec), (name, spec)
        if name != "lupa":  # comes through fakeredis[lua]
            assert any(c.startswith(">=") for c in spec), f"{name} has no lower bound"


def test_environment_yml_python_and_channel():
    text = (ROOT / "environment.yml").read_text()
    assert re.search(r"^channels:\s*\n\s*- conda-forge\s*$", text, re.M)
    assert "defaults" not in text
    assert "python=3.11" in environment_entries()
    assert "-e ." in environment_entries(), "Binder must install the project itself"


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
