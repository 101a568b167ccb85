"""The Lua scripts each pinned bullmq release ships (`dist/cjs/commands/`, includes too), so a
sentence naming a real script file is checked against the package it names. `record` writes
recorded/bullmq_commands.json from node_modules (after `npm ci`); the test compares live too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recorded" / "bullmq_commands.json"


def listing() -> dict[str, list[str]] | None:
    """version -> sorted script paths under dist/cjs/commands, for every bullmq installed; None
    where node_modules is not there."""
    modules = HERE / "node_modules"
    if not (modules / "bullmq").is_dir():
        return None
    out = {}
    for pkg in sorted(modules.glob("bullmq*")):
        version = json.loads((pkg / "package.json").read_text())["version"]
        commands = pkg / "dist" / "cjs" / "commands"
        out[version] = sorted(str(p.relative_to(commands)) for p in commands.rglob("*.lua"))
    return dict(sorted(out.items(), key=lambda kv: [int(x) for x in kv[0].split(".")]))


if __name__ == "__main__" and sys.argv[1:] == ["record"]:
    found = listing()
    if found is None:
        sys.exit("no tests/oracles/node_modules/bullmq: run npm ci in tests/oracles first")
    RECORDING.write_text(json.dumps(found, indent=1) + "\n")
    print(f"recorded {len(found)} releases in {RECORDING}")
