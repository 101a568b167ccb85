"""Ask the real libraries, or read what they answered last time.

Each oracle is a small Node program in this folder (`<name>.mjs`) that reads one JSON
document of questions on stdin and writes one JSON document of answers on stdout. The
answers are recorded in `recorded/<name>.json` as ``{"questions": ..., "answers": ...}``,
so the test suite holds emqsim to the real libraries on a machine without Node. Where
`node` and this folder's `node_modules` exist, the tests ask again and fail if the real
library no longer agrees with the recording.

Re-record after changing a question set: ``python tests/oracles/oracle.py record NAME``
(needs Node, ``npm ci`` here, and, for BullMQ, ``EMQSIM_REDIS_URL``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"
NODE_TIMEOUT = 600  # seconds for one oracle run; the largest asks a few hundred questions


def node() -> str | None:
    """The `node` to run the oracles with, or None when Node or `npm ci` is missing here."""
    exe = shutil.which("node")
    if exe is None or not (HERE / "node_modules").is_dir():
        return None
    return exe


def status() -> str:
    """One line for the test run's header: live oracles or recorded answers."""
    if node() is None:
        why = "no node on PATH" if shutil.which("node") is None else "no tests/oracles/node_modules (npm ci)"
        return f"oracles: {why}: BullMQ and cron-parser held to their recorded answers only"
    redis = "" if os.environ.get("EMQSIM_REDIS_URL") else " (BullMQ recorded only: EMQSIM_REDIS_URL unset)"
    return f"oracles: node {_node_version()}: live answers re-asked and compared with the recordings{redis}"


def _node_version() -> str:
    try:
        return subprocess.run([node(), "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def ask(name: str, questions, env: dict[str, str] | None = None):
    """Run `<name>.mjs` on `questions` and return its answers (raises if Node is missing)."""
    exe = node()
    if exe is None:
        raise RuntimeError(status())
    proc = subprocess.run(
        [exe, str(HERE / f"{name}.mjs")], input=json.dumps(questions), capture_output=True, text=True,
        cwd=HERE, timeout=NODE_TIMEOUT, env={**os.environ, **(env or {})},
    )
    if proc.returncode != 0:
        raise RuntimeError(f"oracle {name} exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout)


def recording(name: str) -> dict:
    """The recorded ``{"questions": ..., "answers": ...}`` of oracle `name`."""
    return json.loads((RECORDED / f"{name}.json").read_text())


def record(name: str, questions) -> dict:
    """Ask the live oracle and write its answers next to the questions."""
    answers = ask(name, questions)
    doc = {"questions": questions, "answers": answers}
    RECORDED.mkdir(exist_ok=True)
    (RECORDED / f"{name}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return doc


if __name__ == "__main__":
    # python tests/oracles/oracle.py record NAME: NAME's questions come from questions.py
    if len(sys.argv) != 3 or sys.argv[1] != "record":
        sys.exit("usage: python tests/oracles/oracle.py record NAME")
    sys.path.insert(0, str(HERE))
    import questions  # noqa: E402  (the question sets live beside this file)

    doc = record(sys.argv[2], questions.QUESTIONS[sys.argv[2]]())
    print(f"recorded {len(doc['answers'])} answers in {RECORDED / (sys.argv[2] + '.json')}")
