"""Hosting the course for a class: Binder's files (binder/) install the lock, put the course's
lab settings and Voila templates where Jupyter reads them and open 00_start_here; the
JupyterHub recipe (hub/jupyterhub_config.py) lands each student in their own copy of the course.
Everything here runs offline against temporary folders; benchmarks/classroom.py starts a real
hub (`make bench`)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qs, unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDER = ROOT / "binder"
RECIPE = ROOT / "hub" / "jupyterhub_config.py"
DOC = ROOT / "docs" / "hosting.md"
START_NOTEBOOK = "notebooks/00_start_here.ipynb"


def clean_env(**extra: str) -> dict[str, str]:
    """The environment a fresh Binder launch has: none of Jupyter's path variables set."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("JUPYTER_PATH", "JUPYTER_CONFIG_PATH", "EMQSIM_PRESENT", "JUPYTERLAB_DIR")}
    env.update(extra)
    return env


# ---- binder/requirements.txt and runtime.txt --------------------------------------------

def pip_requirements(path: Path, cwd: Path) -> list[str]:
    """What pip itself reads from a requirements file (its -r includes followed), from `cwd`."""
    from pip._internal.network.session import PipSession
    from pip._internal.req.req_file import parse_requirements

    here = os.getcwd()
    os.chdir(cwd)
    try:
        return sorted(r.requirement for r in parse_requirements(str(path), session=PipSession()))
    finally:
        os.chdir(here)


@pytest.mark.parametrize("cwd", ["root", "elsewhere"])
def test_binder_requirements_are_the_present_lock(cwd, tmp_path):
    """pip reads a -r path relative to the file that names it, so repo2docker (which runs pip
    from the repository's root) and anyone else get requirements/present.txt, every pin hashed."""
    lines = [line.strip() for line in (BINDER / "requirements.txt").read_text().splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert lines == ["-r ../requirements/present.txt"]
    lock = ROOT / "requirements" / "present.txt"
    got = pip_requirements(BINDER / "requirements.txt", ROOT if cwd == "root" else tmp_path)
    assert got and got == pip_requirements(lock, ROOT)
    assert all("==" in r for r in got)
    pins = [line for line in lock.read_text().splitlines() if re.match(r"^[A-Za-z0-9]", line)]
    assert all(line.rstrip().endswith("\\") for line in pins), "every pin is followed by its hashes"


def test_binder_python_is_the_course_python():
    assert (BINDER / "runtime.txt").read_text().strip() == "python-3.11"
    import tomllib
    from packaging.specifiers import SpecifierSet
    requires = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert "3.11" in SpecifierSet(requires)


# ---- binder/postBuild ------------------------------------------------------------------

@pytest.mark.parametrize("name", ["postBuild", "start"])
def test_binder_scripts_are_executable_bash(name):
    path = BINDER / name
    assert os.access(path, os.X_OK)
    assert path.read_text().splitlines()[0] == "#!/usr/bin/env bash"


def fake_python(tmp_path: Path, pip_status: int = 0) -> tuple[Path, Path, dict]:
    """A Python whose sys.prefix is a fresh temporary venv and whose pip only writes down what it
    was asked (no network): what postBuild finds first on PATH."""
    prefix = tmp_path / "prefix"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "pip.log"
    (bin_dir / "python").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = -m ] && [ "$2" = pip ]; then shift 2; echo "$*" >> "{log}"; exit {pip_status}; fi\n'
        f'exec "{prefix}/bin/python" "$@"\n')
    (bin_dir / "python").chmod(0o755)
    env = clean_env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return prefix, log, env


def test_postbuild_installs_the_rest_of_the_lock_and_the_lab_settings(tmp_path):
    prefix, log, env = fake_python(tmp_path)
    done = subprocess.run([str(BINDER / "postBuild")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert len(calls) == 3
    build, bullmq, project = (call.split() for call in calls)
    assert build[:1] == ["install"] and "--require-hashes" in build and build[-2:] == ["-r", "requirements/build.txt"]
    assert {"--no-deps", "--require-hashes"} <= set(bullmq) and bullmq[-2:] == ["-r", "requirements/bullmq.txt"]
    assert {"--no-deps", "--no-build-isolation"} <= set(project) and project[-1] == "." and "-e" not in project
    for call in (build, bullmq):
        assert (ROOT / call[-1]).is_file()
    settings = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    assert json.loads(settings.read_text()) == json.loads((ROOT / "lab-settings" / "overrides.json").read_text())


def test_postbuild_stops_at_a_failed_install(tmp_path):
    """A Binder build with a failed pip step must fail, not start a half-installed course."""
    prefix, log, env = fake_python(tmp_path, pip_status=1)
    done = subprocess.run([str(BINDER / "postBuild")], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode != 0
    assert len(log.read_text().splitlines()) == 1
    assert not (prefix / "share" / "jupyter" / "lab" / "settings").exists()


def test_jupyterlab_reads_overrides_where_postbuild_writes_them(monkeypatch):
    """postBuild's target is JupyterLab's own rule for the environment, not a guess."""
    pytest.importorskip("jupyterlab")
    from jupyterlab.commands import get_app_dir
    monkeypatch.delenv("JUPYTERLAB_DIR", raising=False)
    assert Path(get_app_dir(), "settings") == Path(sys.prefix, "share", "jupyter", "lab", "settings")


# ---- binder/start ----------------------------------------------------------------------

def started(env: dict, *code: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BINDER / "start"), sys.executable, "-c", *code], env=env, capture_output=True,
                          text=True, timeout=60)


def paths_under_start(**extra: str) -> tuple[list[str], list[str]]:
    done = started(clean_env(**extra), "import json, os; print(json.dumps("
                   "[os.environ['JUPYTER_PATH'], os.environ['JUPYTER_CONFIG_PATH']]))")
    assert done.returncode == 0, done.stderr
    data, config = json.loads(done.stdout)
    return data.split(os.pathsep), config.split(os.pathsep)


@pytest.mark.parametrize("present, template", [(None, "emqsim"), ("0", "emqsim"), (" Off ", "emqsim"),
                                               ("1", "emqsim-present"), ("yes", "emqsim-present")])
def test_start_puts_the_course_templates_first(present, template):
    extra = {} if present is None else {"EMQSIM_PRESENT": present}
    data, config = paths_under_start(**extra)
    assert Path(data[0], "voila", "templates", "emqsim", "index.html.j2").is_file()
    assert Path(data[0], "voila", "templates", "emqsim-present", "conf.json").is_file()
    for name in ("voila.json", "jupyter_server_config.json"):
        assert json.loads(Path(config[0], name).read_text())["VoilaConfiguration"]["template"] == template


def test_start_keeps_what_was_set_and_becomes_the_command(tmp_path):
    data, config = paths_under_start(JUPYTER_PATH=str(tmp_path / "a"), JUPYTER_CONFIG_PATH=str(tmp_path / "b"))
    assert data[1:] == [str(tmp_path / "a")] and config[1:] == [str(tmp_path / "b")]
    done = started(clean_env(), "import os, sys; print(os.getppid()); sys.exit(7)")
    # exec: the command is this test's child, not the shell's, and its status is start's
    assert (done.returncode, done.stdout.strip()) == (7, str(os.getpid()))


@pytest.mark.skipif(importlib.util.find_spec("voila") is None, reason="voila is not installed ([present])")
def test_voila_under_start_uses_the_course_template(tmp_path):
    """Voila's own configuration, as a server extension and as its own app, read under start:
    the course's template, never Voila's default (a CDN request for Font Awesome)."""
    done = started(clean_env(), (
        "from jupyter_core.paths import jupyter_config_path\n"
        "from jupyter_server.serverapp import ServerApp\n"
        "from voila.app import Voila\n"
        "from voila.configuration import VoilaConfiguration\n"
        "server = ServerApp(); server.load_config_file()\n"
        "app = Voila(); app.load_config_file('voila', path=jupyter_config_path())\n"
        "print(VoilaConfiguration(parent=server).template, VoilaConfiguration(parent=app).template)\n"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["emqsim", "emqsim"]


# ---- the launch link -------------------------------------------------------------------

def binder_links(text: str) -> list[str]:
    return re.findall(r"https://mybinder\.org/v2/gh/[^\s)\]>\"'`]+", text)


def test_the_launch_link_opens_start_here_in_jupyterlab():
    """Every Binder link in docs/hosting.md and the README opens a notebook that exists."""
    assert binder_links(DOC.read_text()), "docs/hosting.md gives a Binder link"
    links = binder_links(DOC.read_text() + (ROOT / "README.md").read_text())
    opened = []
    for link in links:
        parts = urlsplit(link)
        owner, repo, ref = parts.path.split("/")[3:6]
        assert (owner, repo) == ("OWNER", "REPO"), "the public location is a marked placeholder until it is known"
        assert ref
        urlpath = unquote(parse_qs(parts.query)["urlpath"][0])
        app, _, target = urlpath.partition("/tree/") if urlpath.startswith("lab/") else urlpath.partition("/render/")
        assert app in ("lab", "voila"), urlpath
        assert (ROOT / target).is_file(), f"{link} opens {target}, which is not in the repository"
        opened.append((app, target))
    assert ("lab", START_NOTEBOOK) in opened


# ---- the JupyterHub recipe -------------------------------------------------------------

def recipe(monkeypatch, **env: str):
    """The recipe as JupyterHub loads it (traitlets' config file loader), under `env`."""
    from traitlets.config.loader import PyFileConfigLoader
    for name in ("EMQSIM_COURSE", "EMQSIM_COURSE_FOLDER", "EMQSIM_COURSE_REPO", "EMQSIM_HUB_URL", "EMQSIM_HUB_ADMINS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return PyFileConfigLoader(RECIPE.name, path=str(RECIPE.parent)).load_config()


def test_the_recipe_lands_students_in_the_start_notebook_with_the_lab_settings(monkeypatch):
    c = recipe(monkeypatch)
    url = c.Spawner.default_url
    assert url.startswith("/lab/tree/emqsim/")
    assert (ROOT / url[len("/lab/tree/emqsim/"):]).resolve() == (ROOT / START_NOTEBOOK).resolve()
    [arg] = c.Spawner.args
    name, _, folder = arg.partition("=")
    assert name == "--LabApp.app_settings_dir" and (Path(folder) / "overrides.json").is_file()
    start, singleuser = c.Spawner.cmd
    assert Path(start) == BINDER / "start" and singleuser == "jupyterhub-singleuser"
    assert c.Spawner.start_timeout > 60 and c.Spawner.http_timeout > 30  # more than JupyterHub's defaults
    assert urlsplit(c.JupyterHub.bind_url).hostname == "127.0.0.1"


def test_the_recipe_gives_nbgitpuller_links_when_a_repository_is_named(monkeypatch):
    """Parameter names as nbgitpuller's handler reads them (repo, branch, targetpath, urlpath)."""
    c = recipe(monkeypatch, EMQSIM_COURSE_REPO="https://example.org/course/emqsim.git", EMQSIM_COURSE_FOLDER="c27")
    parts = urlsplit(c.Spawner.default_url)
    assert parts.path == "/git-pull"
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert query == {"repo": "https://example.org/course/emqsim.git", "branch": "main", "targetpath": "c27",
                     "urlpath": "lab/tree/c27/" + START_NOTEBOOK}


def test_a_students_first_start_copies_the_course_and_later_ones_keep_their_work(monkeypatch, tmp_path):
    c = recipe(monkeypatch)
    hook = c.Spawner.pre_spawn_hook
    spawner = SimpleNamespace(home_dir=str(tmp_path / "ada"), user=SimpleNamespace(name="ada"))
    hook(spawner)
    copied = tmp_path / "ada" / "emqsim" / "notebooks"
    assert sorted(p.name for p in copied.glob("*.ipynb")) == sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    (copied / "00_start_here.ipynb").write_text("{}")  # the student's own work
    hook(spawner)
    assert (copied / "00_start_here.ipynb").read_text() == "{}"


def test_with_nbgitpuller_the_recipe_copies_nothing(monkeypatch, tmp_path):
    c = recipe(monkeypatch, EMQSIM_COURSE_REPO="https://example.org/course/emqsim.git")
    c.Spawner.pre_spawn_hook(SimpleNamespace(home_dir=str(tmp_path / "ada"), user=SimpleNamespace(name="ada")))
    assert not (tmp_path / "ada").exists()
