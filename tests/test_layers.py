"""One way through: engine -> lessons -> figures -> panel, with no import back up.

Read from the source, not by importing: lesson modules import nothing that draws; engine
modules import neither lessons nor figures; figure modules never reach into the simulation
or replace an attribute of an engine object."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "emqsim"
#: the apps on top: they may use every layer
APPS = {"bench.py", "site.py", "site_player.py", "cli.py", "__main__.py", "__init__.py"}
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


def test_the_layers_exist():
    assert len(_modules("lessons")) >= 9 and len(_modules("figures")) >= 9


@pytest.mark.parametrize("path", _modules("lessons"), ids=lambda p: p.name)
def test_a_lesson_imports_nothing_that_draws_and_no_figure(path):
    bad = sorted(m for m in _imports(path)
                 if m.split(".")[0] in DRAWING or m.startswith("emqsim.figures"))
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", [p for p in _modules() if p.name not in APPS], ids=lambda p: p.name)
def test_the_engine_imports_no_lesson_and_no_figure(path):
    bad = sorted(m for m in _imports(path) if m.startswith(("emqsim.lessons", "emqsim.figures")))
    assert not bad, f"{path.name} imports {bad}"


@pytest.mark.parametrize("path", _modules("figures"), ids=lambda p: p.name)
def test_a_figure_reaches_into_no_simulation(path):
    imports = _imports(path)
    engine = sorted(m for m in imports if m.startswith(("emqsim.engine.sim", "emqsim.engine.registry", "emqsim.engine.store",
                                                       "emqsim.engine.pump", "emqsim.engine.worker", "emqsim.engine.chain",
                                                       "emqsim.engine.reference")))
    assert not engine, f"{path.name} imports {engine}: a view draws frames, it runs nothing"
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):  # `sim.registry = ...`: an engine object's attribute replaced
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id not in ("self", "widget"):
                    raise AssertionError(f"{path.name}:{node.lineno} sets {t.value.id}.{t.attr}")


def test_every_catalogue_entry_has_its_model_and_view():
    import importlib

    from emqsim.figures import catalogue

    for title, (module, model, view) in catalogue.SOURCES.items():
        assert hasattr(importlib.import_module(f"emqsim.lessons.{module}"), model), title
        assert hasattr(importlib.import_module(f"emqsim.figures.{module}"), view), title


def test_every_lesson_model_computes_its_frame_with_nothing_that_draws_loaded():
    """Stronger than reading the imports: every model of the catalogue, built and asked for its
    default frame in a fresh interpreter, has pulled in no drawing library, even indirectly."""
    import subprocess
    import sys

    from emqsim.figures import catalogue

    calls = "; ".join(f"import emqsim.lessons.{m}; emqsim.lessons.{m}.{model}().frame()"
                      for m, model, _ in catalogue.SOURCES.values())
    code = f"import sys; {calls}; print(sorted(k for k in {DRAWING!r} if k in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.strip() == "[]", out.stdout
