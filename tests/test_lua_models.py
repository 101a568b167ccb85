"""Every Lua script says which real script it models, and the scripts' page (ref_scripts) says the same.

The scripts are this project's models of the two systems, not their code: each header has a
`Models:` paragraph naming the real counterpart (EchoMQ at fiberfx, branch echo_mq, commit
b9f34ed0; BullMQ 6.7.0's dist/cjs/commands/), or saying there is none. Only `advance` follows
its real script line for line.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LUA = ROOT / "emqsim" / "engine" / "lua"
BULLMQ = ROOT / "tests" / "oracles" / "node_modules" / "bullmq"
NOTEBOOK = ROOT / "notebooks" / "00_start_here.ipynb"
#: the reference page beside the course that 00 links for the scripts and the two systems (issue 30)
SCRIPTS_PAGE = ROOT / "notebooks" / "ref_scripts.ipynb"

#: script -> the real names its header must give ("none" for a script with no counterpart)
REAL = {
    "advance-2.lua": ["EchoMQ's @advance", "echo/apps/echo_mq/lib/echo_mq/repeat.ex", "b9f34ed0", "line for line"],
    "register-3.lua": ["EchoMQ's @register", "echo/apps/echo_mq/lib/echo_mq/repeat.ex", "b9f34ed0"],
    "cancel-2.lua": ["EchoMQ's @cancel", "echo/apps/echo_mq/lib/echo_mq/repeat.ex", "b9f34ed0"],
    "enqueue-3.lua": ["EchoMQ's @enqueue", "echo/apps/echo_mq/lib/echo_mq/jobs.ex", "b9f34ed0"],
    "fire-3.lua": ["no real script"],
    "finish-1.lua": ["no real script"],
    "activate-3.lua": ["moveToActive-11.lua", "includes/promoteDelayedJobs.lua", "bullmq 6.7.0"],
    "chain-6.lua": ["updateJobScheduler-12.lua", "bullmq 6.7.0"],
    "scheduler-7.lua": ["addJobScheduler-11.lua", "includes/storeJobScheduler.lua", "bullmq 6.7.0"],
    "upsert-3.lua": ["addJobScheduler-11.lua", "includes/storeJobScheduler.lua", "bullmq 6.7.0"],
    "take-3.lua": ["no real script", "Worker.waitForJob", "bullmq 6.7.0"],
    "includes/marker.lua": ["includes/addBaseMarkerIfNeeded.lua", "includes/addDelayMarkerIfNeeded.lua"],
    "includes/scheduled_job.lua": ["includes/addJobFromScheduler.lua"],
    "includes/args.lua": ["no real script"],
    "includes/job.lua": ["no real script"],
    "includes/row.lua": ["no real script"],
    "forward-4.lua": ["no real script"],
    "pickups-5.lua": ["no real script", "moveToActive-11.lua", "updateJobScheduler-12.lua", "bullmq 6.7.0"],
}


def models(path: Path) -> str:
    """The header's `Models:` paragraph, on one line."""
    header = path.read_text().split("]]", 1)[0]
    found = re.findall(r"Models: (.*?)(?:\n\s*\n|\Z)", header, re.S)
    assert len(found) == 1, f"{path.name}: expected one Models: paragraph, found {len(found)}"
    return " ".join(found[0].split())


def scripts() -> list[str]:
    return sorted(str(p.relative_to(LUA)) for p in LUA.rglob("*.lua"))


def test_every_script_is_listed():
    assert scripts() == sorted(REAL)


@pytest.mark.parametrize("name", sorted(REAL))
def test_header_names_the_real_script(name):
    text = models(LUA / name)
    for part in REAL[name]:
        assert part in text, (name, part, text)


def test_only_advance_is_line_for_line():
    assert [n for n in scripts() if "line for line" in models(LUA / n)] == ["advance-2.lua"]


def test_bullmq_files_named_exist_in_the_pinned_package():
    if not BULLMQ.exists():
        pytest.skip("tests/oracles/node_modules not installed (npm ci in tests/oracles)")
    assert json.loads((BULLMQ / "package.json").read_text())["version"] == "6.7.0"
    commands = BULLMQ / "dist" / "cjs" / "commands"
    for name in sorted(REAL):
        for real in re.findall(r"(?:includes/)?[A-Za-z]+(?:-\d+)?\.lua", models(LUA / name)):
            assert (commands / real).exists(), (name, real)
    assert "waitForJob" in (BULLMQ / "dist" / "cjs" / "classes" / "worker.js").read_text()


def test_notebook_00_says_what_the_headers_say():
    """The scripts' page (linked from notebook 00) lists each script with the real one it models,
    as in its header."""
    cells = json.loads(SCRIPTS_PAGE.read_text())["cells"]
    text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `([\w/-]+\.lua)` \| (.*) \|$", text, re.M)}
    assert sorted(rows) == sorted(n for n in REAL if not n.startswith("includes/"))
    for name, row in rows.items():
        for part in REAL[name]:
            if part != "b9f34ed0":  # the notebook names the commit once, above the table
                assert part.replace("EchoMQ's ", "") in row, (name, part, row)
    assert "b9f34ed0" in text and "line for line" in text


def test_the_scheduled_job_header_names_the_scripts_that_add_the_job():
    """Issue 28: storeJobScheduler only writes the row; addJobScheduler-11 and updateJobScheduler-12
    add the next job (bullmq 6.7.0, read from the package: tests/oracles/recorded/bullmq_rules.json)."""
    rules = json.loads((ROOT / "tests" / "oracles" / "recorded" / "bullmq_rules.json").read_text())
    made = rules["job_from_scheduler"]
    assert not made["store_adds_a_job"] and made["store_writes"] == ["DEL", "HMSET", "ZADD"]
    header = " ".join((LUA / "includes" / "scheduled_job.lua").read_text().split("]]", 1)[0].split())
    for script in made["callers"]:
        assert script in header, script
    assert "storeJobScheduler include only ZADDs, DELs and HMSETs" in header
    assert "both end by adding" not in header


def _cells(path: Path) -> dict[str, str]:
    return {c["id"]: " ".join("".join(c["source"]).split()) for c in json.loads(path.read_text())["cells"]}


def test_page_00_says_how_each_system_waits():
    """Issue 28: EchoMQ's consumer parks with `BLPOP emq:{q}:wake`, its beat the timeout
    (consumer.ex lines 167-170 at b9f34ed0); the repeat path writes no wake. Notebook 00 says so,
    as 03 and the README do, instead of "no marker: its pump wakes on its own tick"."""
    cells = _cells(NOTEBOOK)
    # 00 says it in its Sources; its learning goals stay in plain words (issue 30), and no cell
    # of it keeps the old claim
    sources, table = cells["c0a1e5f3"], _cells(SCRIPTS_PAGE)["rs0002"]
    assert "BLPOP emq:{q}:wake" in sources and "writes no wake" in sources
    assert all("its own tick" not in text for text in cells.values())
    assert "| wake marker | yes (below) | none |" not in table and "blocks on `emq:{q}:wake`" in table
    recap = _cells(ROOT / "notebooks" / "03_start_to_start.ipynb")["b693a171"]
    recap = re.sub(r"\[([^\]]*)\]\(glossary[\w.]*#[\w-]+\)", r"\1", recap)   # as read: a glossary link's text
    assert "its consumer parks on a wake list with its beat as the timeout" in recap


def test_advance_says_what_it_adds_everywhere():
    """Issue 28: `advance-2.lua` follows `@advance` line for line and adds four things; the scripts' page
    names each of them, as the header does."""
    header = models(LUA / "advance-2.lua")
    text = _cells(SCRIPTS_PAGE)["rs0003"]
    for added, header_says in (("argument check", "argument check"), ("`fired` count", "`fired` count"),
                               ("size and head", "ZCARD"), ("`+inf`", '"+inf"')):
        assert added in text and header_says in header, added


def test_one_statement_about_the_scripts_everywhere():
    """Issue 28: the scripts are models written for this course: the scripts' page, the README's
    opening and `emqsim trace --help` say so, and none calls them the scheduler's real scripts."""
    readme = " ".join((ROOT / "README.md").read_text().split("## ", 1)[0].split())
    cli = " ".join((ROOT / "emqsim" / "cli.py").read_text().split())
    assert "written for this course" in _cells(SCRIPTS_PAGE)["rs0003"]
    assert "written for this course, not their code" in readme
    assert "(written for this course, not their code)" in cli
    for text in (readme, cli):
        assert "real Lua scripts" not in text and "the real Lua" not in text
