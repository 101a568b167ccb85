"""The house shows its floors: engine -> cron rules -> peers -> lessons -> figures -> site -> apps.

Read from the source, not by importing: a module imports only its own floor and the floors
below it (imports inside functions count too); no two modules import each other, even through
others; `engine/errors.py`, the floor's ground, imports nothing of the package. Lesson modules
import nothing that draws; figure modules never reach into the simulation or replace an
attribute of an engine object. docs/design.md's layout names every module where it sits."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "emqsim"
#: the floors, bottom up: a module may import its own floor and the ones below
FLOORS = ("engine", "cron", "peers", "lessons", "figures", "site")
#: the apps on the top floor: they may use every floor
APPS = {"cli.py", "progress.py", "__main__.py", "__init__.py"}
DRAWING = ("matplotlib", "ipywidgets", "IPython", "PIL")


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, as absolute names (relative imports resolved)."""
    tree = ast.parse(path.read_text())
    parts = ["emqsim", *path.relative_to(PACKAGE).parent.parts]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = parts[: len(parts) - node.level + 1] if node.level else []
            mod = ".".join([*base, node.module] if node.module else base)
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def _modules(folder: str = "") -> list[Path]:
    where = PACKAGE / folder if folder else PACKAGE
    return sorted(where.glob("*.py"))


def _name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["emqsim", *parts])


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _package_imports(path: Path) -> set[str]:
    """The package's own modules that `path` imports (a name imported from a module counts as
    that module)."""
    out = set()
    for m in _imports(path):
        while m and m not in MODULES:
            m = m.rpartition(".")[0]
        if m and m != "emqsim" and m != _name(path):
            out.add(m)
    return out


def _floor(module: str) -> int:
    """0.. for the floors, len(FLOORS) for the apps on top."""
    parts = module.split(".")
    return FLOORS.index(parts[1]) if len(parts) >= 2 and parts[1] in FLOORS else len(FLOORS)


def test_every_module_sits_on_a_floor():
    stray = sorted(p.name for p in _modules() if p.name not in APPS)
    assert not stray, f"{stray} sit at the top of the package: move each to the floor it belongs on"
    folders = sorted(d.name for d in PACKAGE.iterdir() if d.is_dir() and d.name != "__pycache__")
    assert folders == sorted(FLOORS), folders


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _floor(m) < len(FLOORS)))
def test_a_module_imports_no_floor_above_its_own(module):
    up = sorted(m for m in _package_imports(MODULES[module]) if _floor(m) > _floor(module))
    assert not up, f"{module} (floor {FLOORS[_floor(module)]}) imports {up} from above"


def test_errors_imports_nothing_of_the_package():
    assert _package_imports(PACKAGE / "engine" / "errors.py") == set()


def test_no_circle_of_imports():
    """Tarjan's strongly connected components over every import, module-level or not."""
    graph = {m: _package_imports(p) for m, p in MODULES.items()}
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert not circles, f"modules that import each other: {circles}"


def test_the_documented_layout_names_every_module_where_it_sits():
    """Each floor's row of docs/design.md's layout lists exactly the modules in that folder."""
    text = (ROOT / "docs" / "design.md").read_text()
    block = text[text.index("## Layout"):]
    block = block[block.index("```") + 3:]
    block = block[: block.index("```")]
    rows: dict[str, set[str]] = {}
    current = None
    for line in block.splitlines():
        m = re.match(r"^  (\w+)/ ", line)
        if m:
            current = m.group(1)
            rows[current] = set()
        elif not re.match(r"^   ", line):
            current = None
        if current:
            rows[current] |= set(re.findall(r"\b(\w+)\.py\b", line))
    for floor in FLOORS:
        have = {p.stem for p in _modules(floor) if p.name != "__init__.py" and p.name != "__main__.py"}
        assert rows.get(floor) == have, f"docs/design.md's {floor}/ row lists {sorted(rows.get(floor, ()))}, the folder holds {sorted(have)}"


def test_the_layers_exist():
    assert len(_modules("lessons")) >= 9 and len(_modules("figures")) >= 9


@pytest.mark.parametrize("path", _modules("lessons"), ids=lambda p: p.name)
def test_a_lesson_imports_nothing_that_draws_and_no_figure(path):
    bad = sorted(m for m in _imports(path)
                 if m.split(".")[0] in DRAWING or m.startswith("emqsim.figures"))
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", _modules("figures"), ids=lambda p: p.name)
def test_a_figure_reaches_into_no_simulation(path):
    imports = _imports(path)
    engine = sorted(m for m in imports if m.startswith(tuple(f"emqsim.engine.{m}" for m in (
        "sim", "registry", "store", "pump", "worker", "chain", "reference"))))
    assert not engine, f"{path.name} imports {engine}: a view draws frames, it runs nothing"
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):  # `sim.registry = ...`: an engine object's attribute replaced
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id not in ("self", "widget"):
                    raise AssertionError(f"{path.name}:{node.lineno} sets {t.value.id}.{t.attr}")


def test_every_catalogue_entry_has_its_model_and_view_in_modules_named_after_its_notebook():
    """A figure of notebook NN_NAME has its model in emqsim.lessons.NAME and its view in
    emqsim.figures.NAME; the step-by-step figures of 02 and 03 share `script_steps`, the
    "watch it move" strips of 02 and 05 share `motion`."""
    from emqsim.figures import catalogue

    notebooks = {p.stem[:2]: p.stem[3:] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    for title, (model, view) in catalogue.SOURCES.items():
        module = model.__module__.rsplit(".", 1)[1]
        assert module in (notebooks[title[:2]], "script_steps", "motion"), title
        assert (model.__module__, view.__module__) == (f"emqsim.lessons.{module}", f"emqsim.figures.{module}"), title


def test_every_lesson_module_but_the_shared_ones_is_named_after_a_notebook():
    shared = {"__init__", "bullmq_lane", "course", "designs", "model", "motion", "questions", "script_steps"}
    names = {p.stem[3:] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    lessons = {p.stem for p in (PACKAGE / "lessons").glob("*.py")} - shared
    assert lessons <= names, sorted(lessons - names)


def test_every_lesson_model_computes_its_frame_with_nothing_that_draws_loaded():
    """Stronger than reading the imports: every model of the catalogue, built and asked for its
    default frame in a fresh interpreter, has pulled in no drawing library, even indirectly."""
    import subprocess
    import sys

    from emqsim.figures import catalogue

    calls = "; ".join(f"import {model.__module__}; {model.__module__}.{model.__name__}().frame()"
                      for model, _ in catalogue.SOURCES.values())
    code = f"import sys; {calls}; print(sorted(k for k in {DRAWING!r} if k in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip() == "[]", out.stdout
