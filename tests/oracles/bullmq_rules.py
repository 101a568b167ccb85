"""Two rules of bullmq 6.7.0 the course states in words, read from the package's own Lua so the
sentences are held to it: the stalled-job check (`moveStalledJobsToWait-9.lua`), the base
marker a take writes (`includes/prepareJobForProcessing.lua`) and which scripts add a scheduler's
next job (`includes/addJobFromScheduler.lua`'s callers; `includes/storeJobScheduler.lua` adds none). `record` writes the facts (line
numbers and yes/no answers, no script text) to recorded/bullmq_rules.json after `npm ci`; the
tests compare them live where node_modules is installed, and read the recording elsewhere."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDING = HERE / "recorded" / "bullmq_rules.json"
COMMANDS = HERE / "node_modules" / "bullmq" / "dist" / "cjs" / "commands"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _line(lines: list[str], pattern: str, after: int = 0) -> int:
    """1-based number of the first line at or after `after` matching `pattern`."""
    for i in range(after, len(lines)):
        if re.search(pattern, lines[i]):
            return i + 1
    raise LookupError(pattern)


def stall_rule(lines: list[str]) -> dict:
    """Which stalled jobs are failed and which go back to wait."""
    scheduler = _line(lines, r'HGET.*jobKey.*"rjk"')          # the job's scheduler id
    guard = _line(lines, r"if stalledCount > maxStalledJobCount", scheduler)
    fail = _line(lines, r'HSET.*jobKey.*"defa"', guard)        # a deferred failure, not a move to failed
    requeue = _line(lines, r"moveJobToWait\(", fail)
    return {
        "file": "moveStalledJobsToWait-9.lua",
        "lines": [scheduler - 1, requeue],
        "scheduler_jobs_exempt_from_the_limit": "not isRepeatableJob" in lines[guard - 1],
        "past_the_limit_is_a_deferred_failure": fail > guard,
        "every_stalled_job_goes_back_to_wait": _indent(lines[requeue - 1]) == _indent(lines[guard - 1]),
    }


def take_marker(lines: list[str]) -> dict:
    """Whether a take writes the base marker whatever waits."""
    at = _line(lines, r"^\s*addBaseMarkerIfNeeded\(markerKey, false\)")
    body = _line(lines, r"local jobKey = ", _line(lines, r"^local function prepareJobForProcessing"))
    return {
        "file": "includes/prepareJobForProcessing.lua",
        "line": at,
        # at the function's own level: no `if` around it, so every take writes "0"
        "after_every_take": _indent(lines[at - 1]) == _indent(lines[body - 1]),
    }


def job_from_scheduler() -> dict:
    """Which scripts add a scheduler's next job, and what the store include writes."""
    store = (COMMANDS / "includes" / "storeJobScheduler.lua").read_text()
    return {
        "callers": sorted(p.name for p in COMMANDS.glob("*.lua") if "addJobFromScheduler(" in p.read_text()),
        "store_writes": sorted(set(re.findall(r'rcall\("([A-Z]+)"', store)) - {"HGET"}),
        "store_adds_a_job": "addJobFromScheduler" in store or "addJob" in store,
    }


def blocking_read() -> dict:
    """Which class file issues the worker's BZPOPMIN on the marker (6.7.0 moved it out of worker.js)."""
    classes = COMMANDS.parent / "classes"
    where = sorted(str(p.relative_to(COMMANDS.parent)) for p in classes.glob("*.js")
                   if re.search(r"\.bzpopmin\(this\.queue\.keys\.marker", p.read_text()))
    return {"files": where}


def facts() -> dict | None:
    """The facts read from the installed bullmq; None where node_modules is not there."""
    if not (COMMANDS / "moveStalledJobsToWait-9.lua").exists():
        return None
    version = json.loads((COMMANDS.parents[2] / "package.json").read_text())["version"]
    read = lambda name: (COMMANDS / name).read_text().splitlines()
    return {"version": version,
            "stall": stall_rule(read("moveStalledJobsToWait-9.lua")),
            "take_marker": take_marker(read("includes/prepareJobForProcessing.lua")),
            "job_from_scheduler": job_from_scheduler(),
            "blocking_read": blocking_read()}


if __name__ == "__main__" and sys.argv[1:] == ["record"]:
    found = facts()
    if found is None:
        sys.exit("no tests/oracles/node_modules/bullmq: run npm ci in tests/oracles first")
    RECORDING.write_text(json.dumps(found, indent=1) + "\n")
    print(f"recorded {RECORDING}")
