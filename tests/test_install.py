"""What an install gives a reader: one version, written once and printed by `emqsim --version`;
the files people look for (licence, citation, changelog); a core without the notebooks' stack,
where a part that needs an extra says which in one line; the Voila templates in the package."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import emqsim
from emqsim import cli
from emqsim.engine import extras, fakelua
from emqsim.site import pages

ROOT = Path(__file__).resolve().parent.parent


def test_the_version_is_written_once_and_every_file_that_names_it_agrees():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "emqsim.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", emqsim.__version__)
    assert metadata.version("emqsim") == emqsim.__version__
    assert f'\nversion: "{emqsim.__version__}"\n' in (ROOT / "CITATION.cff").read_text()
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert re.search(rf"^## \[{re.escape(emqsim.__version__)}\] - \d{{4}}-\d\d-\d\d$", changelog, re.M)
    assert "## [Unreleased]" in changelog


def test_emqsim_version_names_the_libraries_and_the_speed_up(capsys):
    assert cli.main(["--version"]) == 0
    out, err = capsys.readouterr()
    first, second = out.splitlines()
    assert first.startswith(f"emqsim {emqsim.__version__} (Python {sys.version.split()[0]}; redis ")
    assert f"fakeredis {metadata.version('fakeredis')}, " in first and err == ""
    assert second == fakelua.state()


def test_the_licence_says_which_files_are_under_which_terms():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("emqsim is offered under two licences")
    assert "MIT License" in text and "notebooks/" in text and "emqsim/" in text
    assert (ROOT / "LICENSES" / "CC-BY-4.0.txt").read_text().startswith("Creative Commons Attribution 4.0 International")


def test_the_site_without_its_extra_says_which_to_install(monkeypatch, capsys, tmp_path):
    real = extras.find_spec
    monkeypatch.setattr(extras, "find_spec", lambda name: None if name == "sphinx" else real(name))
    assert pages.main([str(ROOT / "notebooks"), "--out", str(tmp_path / "site")]) == 2
    assert capsys.readouterr() == ("", "emqsim.site: error: the course's site needs emqsim's [site] extra "
                                       "(sphinx not installed): pip install 'emqsim[site]'\n")
    assert list(tmp_path.iterdir()) == []


def test_the_figures_without_the_lab_extra_say_which_to_install():
    code = "import sys; sys.modules['matplotlib'] = None; import emqsim.figures"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "emqsim.engine.extras.MissingExtra: emqsim.figures (the course's live figures) needs emqsim's [lab] "
        "extra (matplotlib not installed): pip install 'emqsim[lab]'")


def test_the_wheel_carries_the_voila_templates_where_jupyter_looks(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                    "-w", str(tmp_path), str(ROOT)], check=True, capture_output=True, timeout=300)
    wheel, = tmp_path.glob("emqsim-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    data = f"emqsim-{emqsim.__version__}.data/data/share/jupyter/voila/templates/"
    templates = ROOT / "share" / "voila" / "templates"
    shipped = {data + p.relative_to(templates).as_posix() for p in templates.rglob("*") if p.is_file()}
    assert len(shipped) >= 7 and shipped <= names
    assert {"emqsim/engine/lua/advance-2.lua", "emqsim/site/player.js"} <= names
    licences = {n.split(".dist-info/", 1)[1] for n in names if ".dist-info/licenses/" in n}
    assert licences == {"licenses/LICENSE", "licenses/LICENSES/CC-BY-4.0.txt"}
