"""The module paths of emqsim 0.1 still load, for one release, with a warning that names the new one."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from emqsim import _moved


@pytest.fixture(scope="module")
def imported() -> dict[str, tuple[str, str]]:
    """old path -> (what importing it warned, whether it is the new module), every old path asked
    in one fresh process (one start-up, not one per path): each path is imported for the first
    time there, with warnings made errors, so its warning is its own."""
    code = ("import json, warnings\n"
            f"moved = {sorted(_moved.MOVED.items())!r}\n"
            "out = {}\n"
            "for old, new in moved:\n"
            "    warnings.simplefilter('error')\n"
            "    mod = __import__(new, fromlist=['_'])\n"
            "    try:\n        __import__(old)\n        said = ''\n"
            "    except DeprecationWarning as w:\n        said = str(w)\n"
            "    warnings.simplefilter('ignore')\n"
            "    out[old] = (said, str(__import__(old, fromlist=['_']) is mod))\n"
            "print(json.dumps(out))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return {old: tuple(v) for old, v in json.loads(out.stdout).items()}


@pytest.mark.parametrize("old,new", sorted(_moved.MOVED.items()))
def test_an_old_path_gives_the_moved_module_and_says_where_it_went(imported, old, new):
    said, same = imported[old]
    assert said == f"{old} moved to {new}; import it from there (the old path goes in emqsim 0.3)"
    assert same == "True"


def test_every_new_path_exists_and_no_old_path_is_a_file():
    for old, new in _moved.MOVED.items():
        assert importlib.util.find_spec(new) is not None, new
        assert not (_moved.__file__.rsplit("/", 1)[0] + "/" + old.split(".", 1)[1] + ".py") in map(
            str, __import__("pathlib").Path(_moved.__file__).parent.glob("*.py")), old


def test_from_the_old_path_a_name_imports_with_the_warning_at_the_importing_line():
    code = ("import warnings\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as caught:\n"
            "    from emqsim.cadence import Every\n"
            "print(Every.__module__, caught[0].filename, caught[0].lineno)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["emqsim.engine.cadence", "<string>", "4"]
