"""JupyterHub recipe: the emqsim course for a class on one machine.

Run it from a checkout of the course with the project installed in the hub's environment
(`pip install '.[lab,classroom]'` from the lock), as root so that each student's server runs
as that student's Unix account:

    jupyterhub -f hub/jupyterhub_config.py

Why these settings: every student lands in their own copy of the course at the start notebook,
with the course's JupyterLab settings (no "news" pop-up asking the internet), and a class that
arrives at once is not turned away because 20 servers start slower than one.
docs/hosting.md maps each setting to The Littlest JupyterHub and to Zero to JupyterHub, and
benchmarks/classroom.py loads this file to measure a class of 20 on one machine.

Environment variables read here (all optional):
  EMQSIM_COURSE         the course checkout whose notebooks and lab settings are served
                        (default: the folder above this file)
  EMQSIM_COURSE_FOLDER  the folder in each student's home that holds their copy (default emqsim)
  EMQSIM_COURSE_REPO    a git URL: when set, every login goes through nbgitpuller
                        (`pip install nbgitpuller`), which clones or updates the student's copy
                        from it; when unset, a student's first start copies the checkout's
                        notebooks instead
  EMQSIM_HUB_URL        where the hub listens (default http://127.0.0.1:8000: put a TLS proxy
                        in front, or set https://... with c.JupyterHub.ssl_cert/ssl_key)
"""

import os
import pwd
import shutil
from pathlib import Path
from urllib.parse import quote

c = get_config()  # noqa: F821 (JupyterHub gives a config file this name)

COURSE = Path(os.environ.get("EMQSIM_COURSE") or Path(__file__).resolve().parent.parent)
FOLDER = os.environ.get("EMQSIM_COURSE_FOLDER") or "emqsim"
REPO = os.environ.get("EMQSIM_COURSE_REPO", "")
START = f"{FOLDER}/notebooks/00_start_here.ipynb"


def git_pull_path(repo: str, branch: str = "main", folder: str = FOLDER, start: str = START) -> str:
    """nbgitpuller's link, relative to a hub's address: clones `repo` into ~/`folder` on the
    first visit, merges new commits without overwriting a student's edits afterwards, then
    opens `start` in JupyterLab."""
    return ("/hub/user-redirect/git-pull?repo=" + quote(repo, safe="") + "&branch=" + quote(branch, safe="")
            + "&targetpath=" + quote(folder, safe="") + "&urlpath=" + quote("lab/tree/" + start, safe="/"))


# Students' servers. LocalProcessSpawner runs each one as the student's Unix account (the hub
# runs as root): one machine, no containers, as The Littlest JupyterHub does with systemd.
c.JupyterHub.spawner_class = "jupyterhub.spawner.LocalProcessSpawner"
c.Spawner.notebook_dir = "~"
# nbgitpuller's link (after `git_pull_path` strips the hub prefix) or the start notebook
c.Spawner.default_url = git_pull_path(REPO)[len("/hub/user-redirect"):] if REPO else "/lab/tree/" + START
# The course's JupyterLab defaults (lab-settings/overrides.json), as `make lab` gives them
c.Spawner.args = [f"--LabApp.app_settings_dir={COURSE / 'lab-settings'}"]
# Each server started through binder/start, as on Binder: the course's Voila templates from the
# checkout (an editable install does not put them in the environment), Voila pages in the course's
# template, presenter mode where EMQSIM_PRESENT=1 is set (c.Spawner.environment)
c.Spawner.cmd = [str(COURSE / "binder" / "start"), "jupyterhub-singleuser"]
# 20 servers asked for at once on 2 cores answered after 44-45 s (benchmarks/classroom.py,
# 2026-12-04); with JupyterHub's defaults (60 s to start, 30 s to answer) 6 of 20 failed to start
# in one run (the machine busy with other work, load average 8).
c.Spawner.start_timeout = 300
c.Spawner.http_timeout = 240
# A server with its kernel held 274 MB RSS after notebook 02 (docs/hosting.md). Enforced only by
# spawners that can (systemd in TLJH, Kubernetes in z2jh); informative here.
c.Spawner.mem_limit = "1G"
c.Spawner.cpu_limit = 1


def give_course_copy(spawner) -> None:
    """A student's first start without nbgitpuller: copy the checkout's notebooks into their
    home, owned by them; an existing copy (their edits) is never touched."""
    if REPO:
        return
    home = Path(getattr(spawner, "home_dir", "") or pwd.getpwnam(spawner.user.name).pw_dir)
    target = home / FOLDER / "notebooks"
    if target.exists():
        return
    shutil.copytree(COURSE / "notebooks", target, ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    if os.getuid() == 0 and not getattr(spawner, "home_dir", ""):
        account = pwd.getpwnam(spawner.user.name)
        for path in [home / FOLDER, *(home / FOLDER).rglob("*")]:
            os.chown(path, account.pw_uid, account.pw_gid)


c.Spawner.pre_spawn_hook = give_course_copy

# The hub. Behind a TLS-terminating proxy in a real class; the proxy (configurable-http-proxy,
# from npm) is started by the hub.
c.JupyterHub.bind_url = os.environ.get("EMQSIM_HUB_URL", "http://127.0.0.1:8000")
c.JupyterHub.cleanup_servers = True
# A class starting at once: let every spawn proceed (JupyterHub's default is 100 pending)
c.JupyterHub.concurrent_spawn_limit = 200

# Who may log in: the machine's accounts (PAM), students added by an instructor on the admin page
# (`create_system_users` makes the Unix account); list instructors as admins.
c.JupyterHub.authenticator_class = "pam"
c.Authenticator.allow_existing_users = True
c.LocalAuthenticator.create_system_users = True
c.Authenticator.admin_users = {name for name in os.environ.get("EMQSIM_HUB_ADMINS", "").split(",") if name}
