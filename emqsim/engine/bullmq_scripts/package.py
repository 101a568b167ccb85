"""The text of BullMQ's scripts, read from the installed PyPI `bullmq` package and checked.

Why the PyPI wheel: it ships BullMQ's scripts with their includes already resolved (one Lua
file per script in the wheel's own commands folder), and the job-scheduler path's six are byte-for-byte npm
bullmq 6.7.0's (the SHA-256s below are of that text; tests/test_bullmq_scripts_package.py
compares them with npm's own where tests/oracles/node_modules is installed). Nothing is
imported from the package (it pins croniter 2.0.7, so it is installed `--no-deps`): its
files are found through `importlib.metadata`. Anything else found (no package, another
version, a file missing or changed) is one `ScriptsUnavailable` line naming what was found
and what is expected; nothing has been run or written by then.
"""

from __future__ import annotations

import hashlib
import importlib.metadata as metadata

from ..errors import InputError

DIST = "bullmq"
VERSION = "3.4.4"             # the PyPI release whose scripts equal npm bullmq 6.7.0's
NPM_RELEASE = "6.7.0"
FOLDER = "bullmq/commands/"
INSTALL = f"pip install --no-deps {DIST}=={VERSION}"

#: file name -> SHA-256 of its text (npm bullmq 6.7.0's `dist/cjs/scripts/*.js` content)
SHA256 = {
    "addJobScheduler-11.lua": "2c3c3856f30da873e804529f403fdfb47ac5be830212d66dbea598947dfb46fd",
    "updateJobScheduler-12.lua": "8c71d358aa62ffb75111d46e5b7b45e44d5f00e3deede372609679930f4fdf13",
    "moveToActive-11.lua": "7d35069db0b831af1bd1b2d5eb8d524e86fc7d3280b8c684a96b6614bad7d79a",
    "moveToFinished-14.lua": "8e744ec5d65dbe9e7ffb6e39a96c0268bba65e4f0b1d04e2d2a42ccb71b45a6d",
    "getJobScheduler-1.lua": "9ebb0987d5d328771c5b324c5aa59f9fd808676783e46d17055eb31346cdd062",
    "removeJobScheduler-3.lua": "98c40c2f329d9bad5499d23856fa3e8189df77cda8e92a8e97c66555497920b3",
}


class ScriptsUnavailable(InputError):
    """BullMQ's scripts cannot be read as pinned: the one line says what was found and what
    is expected (and the command that installs it)."""


def read(names=None, distribution=None) -> dict[str, str]:
    """{file name: text} for `names` (default: every pinned script), each checked against its
    SHA-256. `distribution` stands in for the installed package (tests hand in others)."""
    names = list(SHA256) if names is None else list(names)
    unknown = [n for n in names if n not in SHA256]
    if unknown:
        raise ScriptsUnavailable(f"BullMQ script {unknown[0]!r} is not one this project pins; "
                                 f"expected one of {', '.join(SHA256)}", "names")
    dist = distribution if distribution is not None else _installed()
    found = dist.version
    if found != VERSION:
        raise ScriptsUnavailable(f"BullMQ's scripts: {DIST} {found} is installed; expected {DIST}=={VERSION} "
                                 f"(npm bullmq {NPM_RELEASE}'s scripts): {INSTALL}", DIST)
    files = {str(f): f for f in (dist.files or ()) if str(f).startswith(FOLDER)}
    out = {}
    for name in names:
        f = files.get(FOLDER + name)
        data = None
        if f is not None:
            try:
                data = f.read_binary() if hasattr(f, "read_binary") else dist.read_text(str(f)).encode()
            except OSError:
                data = None
        if data is None:
            raise ScriptsUnavailable(f"BullMQ's scripts: {DIST} {found} has no {FOLDER}{name}; expected the file "
                                     f"with SHA-256 {SHA256[name]}: {INSTALL} --force-reinstall", DIST)
        digest = hashlib.sha256(data).hexdigest()
        if digest != SHA256[name]:
            raise ScriptsUnavailable(f"BullMQ's scripts: {FOLDER}{name} has SHA-256 {digest}; expected "
                                     f"{SHA256[name]} (npm bullmq {NPM_RELEASE}'s text): "
                                     f"{INSTALL} --force-reinstall", DIST)
        out[name] = data.decode("utf-8")
    return out


def available() -> str | None:
    """None when the pinned scripts can be read; else the one line saying why not (so a page
    or a test can say it and carry on with the models)."""
    try:
        read()
    except ScriptsUnavailable as exc:
        return str(exc)
    return None


def _installed():
    try:
        return metadata.distribution(DIST)
    except metadata.PackageNotFoundError:
        raise ScriptsUnavailable(f"BullMQ's scripts: the PyPI package {DIST} is not installed; expected "
                                 f"{DIST}=={VERSION} (npm bullmq {NPM_RELEASE}'s scripts): {INSTALL}", DIST) from None
