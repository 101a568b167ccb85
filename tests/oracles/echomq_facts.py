"""Facts of EchoMQ at fiberfx commit b9f34ed0 that the notebooks state in words, read from the
repository (a bare mirror) and recorded as numbers and names, never its text (fiberfx has no
licence): the version its mix.exs gives, whether any tag pins a release, where the consumer parks
(its BLPOP on the wake key), and the v3 home its spec records for the vendored v1 scripts.
`python echomq_facts.py record MIRROR` writes recorded/echomq_facts.json."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recorded" / "echomq_facts.json"
COMMIT = "b9f34ed0"
APP = "echo/apps/echo_mq"
SPECS = "docs/echo_mq/specs/emq.commands"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def facts(repo: Path) -> dict:
    show = lambda path: _git(repo, "show", f"{COMMIT}:{path}")
    consumer = show(f"{APP}/lib/echo_mq/consumer.ex").splitlines()
    park = next(i for i, line in enumerate(consumer, 1) if re.match(r"\s*defp park\(", line))
    blpop = next(i for i, line in enumerate(consumer, 1) if '"BLPOP"' in line)
    version = re.search(r'version:\s*"([^"]+)"', show(f"{APP}/mix.exs")).group(1)
    homes = {}
    for name in ("addRepeatableJob-2", "addJobScheduler-11"):
        spec = show(f"{SPECS}/features/repeat/{name}.md")
        homes[name] = {"v1": re.search(r"--@v1\s+(\S+)", spec).group(1),
                       "v3": re.search(r"--@v3\s+(\S+)", spec).group(1)}
    return {"commit": COMMIT, "mix_exs_version": version, "tags": _git(repo, "tag").split(),
            "consumer_park": {"file": f"{APP}/lib/echo_mq/consumer.ex", "defp_park": park, "blpop": blpop,
                              "wake_key": "wake" in consumer[blpop - 2]},
            "v1_scripts": homes}


if __name__ == "__main__" and sys.argv[1:2] == ["record"]:
    RECORDING.write_text(json.dumps(facts(Path(sys.argv[2])), indent=1) + "\n")
    print(f"recorded {RECORDING}")
