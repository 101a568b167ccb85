"""The lock (requirements/*.txt) read as data: which version of each distribution it pins for
this interpreter and platform, and how an environment differs from it.

Used by the tests (the venv `make` builds holds exactly the lock) and by `make test-latest`
(`python tests/lock.py diff FILE...`: where the newest releases differ from the lock)."""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import Marker
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ROOT / "requirements"
#: what a venv holds besides the lock: the project itself and pip's own tools (build.txt)
NOT_LOCKED = {"emqsim", "pip", "setuptools", "wheel"}

_PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;\\]+)\s*(?:;(?P<marker>[^\\]+))?")


def pins(path: Path, environment: dict | None = None) -> dict[str, str]:
    """{distribution: version} of one lock file, for the entries whose markers hold here."""
    out = {}
    for line in Path(path).read_text().splitlines():
        m = _PIN.match(line)
        name = canonicalize_name(m["name"]) if m else None
        if m and name not in NOT_LOCKED and (not m["marker"] or Marker(m["marker"].strip()).evaluate(environment)):
            out[name] = m["version"]
    return out


def installed() -> dict[str, str]:
    """{distribution: version} of this environment, less `NOT_LOCKED`."""
    found = {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}
    return {name: v for name, v in found.items() if name not in NOT_LOCKED}


def stamped(venv: Path) -> list[Path]:
    """The lock files `make` installed into `venv` (its .lock-NAME stamps), BullMQ's with them."""
    names = sorted(p.name.removeprefix(".lock-") for p in venv.glob(".lock-*"))
    return [LOCKS / f"{n}.txt" for n in names] + ([LOCKS / "bullmq.txt"] if names else [])


def differences(locked: dict[str, str], have: dict[str, str]) -> list[str]:
    """One line per distribution whose version differs, is missing or is extra."""
    lines = []
    for name in sorted(set(locked) | set(have)):
        a, b = locked.get(name), have.get(name)
        if a != b:
            lines.append(f"{name}: lock {a or '(none)'}, here {b or '(none)'}")
    return lines


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "diff":
        print("usage: python tests/lock.py diff LOCKFILE...", file=sys.stderr)
        return 2
    locked: dict[str, str] = {}
    for path in argv[1:]:
        locked.update(pins(Path(path)))
    lines = differences(locked, installed())
    print(f"the newest releases against the lock: {len(lines)} differ" + ("" if lines else " (none)"))
    for line in lines:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
