"""One build of the course's site (`make html`) for every test that reads it: the unit tests
(test_site.py) and the browser tests (tests/browser) take the same folder, built once per
state of the sources and kept under build/test-site/ until they change.

A Sphinx build of the book is the costliest thing in the suite (about 30 s here); `make test`
asked for it twice (once per pytest invocation) and xdist workers could each build it again.
The key is a hash of everything the build reads from the repository (the notebooks and the
emqsim package, code and assets), the versions of the packages that draw and write the pages,
and the EMQSIM_ environment variables, so a change to any of them builds afresh. A lock makes
a second process wait for the first one's build instead of making its own."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import sys
from importlib import metadata
from pathlib import Path

from emqsim.engine.store import ENV  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
CACHE = ROOT / "build" / "test-site"
#: the distributions whose code writes or draws the pages
BUILDERS = ("sphinx", "sphinx-book-theme", "pydata-sphinx-theme", "myst-nb", "myst-parser", "sphinx-togglebutton",
            "docutils", "nbformat", "matplotlib", "numpy", "pillow", "fakeredis", "lupa", "croniter", "cronsim")
LISTING = "pages.json"


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "-"


def key() -> str:
    """A hash of what the build reads: notebooks/*.ipynb, every file of emqsim/ (not caches),
    the builders' versions, the Python version and the EMQSIM_ variables."""
    h = hashlib.sha256()
    files = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted(
        p for p in (ROOT / "emqsim").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        h.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    h.update(repr([(d, _version(d)) for d in BUILDERS]).encode())
    h.update(sys.version.encode())
    h.update(repr(sorted((k, v) for k, v in os.environ.items() if k.startswith("EMQSIM_"))).encode())
    return h.hexdigest()[:20]


@contextlib.contextmanager
def _embedded():
    """The build's models on the embedded fakeredis, whatever EMQSIM_REDIS_URL says: the site is
    pictures and text, the same on any store, and under CI, which sets the URL, the build sent
    every model's script calls over TCP. The storage tests run on every server
    (backends.py), and the notebooks run on the server the URL names."""
    saved = os.environ.pop(ENV, None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ[ENV] = saved


def site() -> tuple[Path, list[Path]]:
    """The built site's folder and its pages as `pages.build` returns them (index last),
    building it when no build of this state of the sources is kept. Read it, never write."""
    from emqsim.site import pages

    CACHE.mkdir(parents=True, exist_ok=True)
    out = CACHE / key()
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)     # another process building the same key: wait for it
        try:
            if not (out / LISTING).exists():
                for old in CACHE.iterdir():      # only the newest build is kept
                    if old.is_dir():
                        shutil.rmtree(old)
                tmp = CACHE / f"{out.name}.tmp"
                with _embedded():
                    written = pages.build(NOTEBOOKS, tmp)
                (tmp / LISTING).write_text(json.dumps([str(p.relative_to(tmp)) for p in written]))
                tmp.rename(out)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return out, [out / name for name in json.loads((out / LISTING).read_text())]
