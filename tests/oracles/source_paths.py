"""The file paths of each package or commit the course cites, so a test can hold every source
path named in a comment or a Sources line to a file that exists there (tests/test_source_paths.py).
Only the paths are recorded (recorded/source_paths.json), never a file's text.

`python source_paths.py record [MIRROR ...]` rebuilds the npm and PyPI lists from
tests/oracles/node_modules (after `npm ci`) and the installed packages, and the git ones from
bare mirrors given as arguments (a directory holding `HangfireIO+Hangfire/repo` and so on):
`git ls-tree -r --name-only <commit>`, kept to the folders the course reads. Sources with no
mirror here keep their recorded list.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recorded" / "source_paths.json"
MODULES = HERE / "node_modules"

#: git sources: key -> (mirror folder name, commit, folders kept)
GIT = {
    "github:jonny-novikov/fiberfx@b9f34ed0": ("jonny-novikov+fiberfx", "b9f34ed0",
                                             ("echo/apps/echo_mq/", "echo/apps/echo_data/",
                                              "docs/echo_mq/specs/emq.commands/")),
    "github:HangfireIO/Hangfire@c236dd0f930f": ("HangfireIO+Hangfire", "c236dd0f930f",
                                               ("src/Hangfire.Core/", "tests/Hangfire.Core.Tests/")),
    "github:temporalio/temporal@c01fd64845cf": ("temporalio+temporal", "c01fd64845cf", ("service/worker/scheduler/",)),
}


def npm() -> dict[str, list[str]]:
    """npm package@version -> its files (bullmq: dist/cjs only), from node_modules."""
    out = {}
    for pkg in sorted(MODULES.glob("bullmq*")) + [MODULES / "cron-parser"]:
        meta = json.loads((pkg / "package.json").read_text())
        root = pkg / "dist" / "cjs" if meta["name"] == "bullmq" else pkg
        files = sorted(str(p.relative_to(pkg)) for p in root.rglob("*")
                       if p.is_file() and not p.name.endswith((".map", ".d.ts")))
        out[f"npm:{meta['name']}@{meta['version']}"] = files
    return out


def pypi(name: str) -> dict[str, list[str]]:
    dist = metadata.distribution(name)
    return {f"pypi:{name}@{dist.version}": sorted(str(f) for f in dist.files if str(f).endswith(".py"))}


def git(mirrors: Path) -> dict[str, list[str]]:
    out = {}
    for key, (folder, commit, keep) in GIT.items():
        repo = mirrors / folder / "repo"
        if not repo.is_dir():
            continue
        names = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit],
                               capture_output=True, text=True, check=True).stdout.splitlines()
        out[key] = sorted(n for n in names if n.startswith(keep))
    return out


if __name__ == "__main__" and sys.argv[1:2] == ["record"]:
    found = json.loads(RECORDING.read_text()) if RECORDING.exists() else {}
    if MODULES.is_dir():
        found.update(npm())
    found.update(pypi("apscheduler"))
    for mirrors in sys.argv[2:]:
        found.update(git(Path(mirrors)))
    RECORDING.write_text(json.dumps(dict(sorted(found.items())), indent=0) + "\n")
    print(f"recorded {len(found)} sources, {sum(map(len, found.values()))} paths in {RECORDING}")
