"""What the course says about which scripts a bullmq release ships, held to the releases the
oracles pin (recorded from their packages; asked again where `npm ci` has been run)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "oracles"))
import bullmq_commands  # noqa: E402

RECORDED = json.loads(bullmq_commands.RECORDING.read_text())


def test_the_recording_is_the_installed_packages():
    live = bullmq_commands.listing()
    if live is None:
        pytest.skip("tests/oracles/node_modules is not installed: recorded listing only")
    assert live == RECORDED


def test_the_pinned_releases_are_listed():
    assert list(RECORDED) == ["5.15.0", "5.58.7", "5.58.8", "5.80.1", "5.80.2", "6.7.0"]


def test_the_legacy_repeatable_script_is_in_every_5x_release_and_gone_from_6_7_0():
    """Notebook 01: `addRepeatableJob-2.lua` (whose local `storeRepeatableJob` writes the row) is
    the legacy repeatable-job path of 5.x; 6.7.0 stores a job scheduler with
    `addJobScheduler-11.lua` and its include `storeJobScheduler.lua`."""
    for version, scripts in RECORDED.items():
        assert ("addRepeatableJob-2.lua" in scripts) == version.startswith("5."), version
    assert "addJobScheduler-11.lua" in RECORDED["6.7.0"]
    assert "includes/storeJobScheduler.lua" in RECORDED["6.7.0"]


def test_job_schedulers_arrive_after_5_15_0():
    assert "addJobScheduler-11.lua" not in RECORDED["5.15.0"]
    assert all("addJobScheduler-11.lua" in RECORDED[v] for v in ("5.58.7", "5.58.8", "5.80.1", "5.80.2", "6.7.0"))


def test_the_scripts_notebook_06_names_are_in_6_7_0():
    """Notebook 06: the stalled-job check and the chain step are scripts of 6.7.0."""
    for script in ("moveStalledJobsToWait-9.lua", "moveToActive-11.lua", "updateJobScheduler-12.lua"):
        assert script in RECORDED["6.7.0"], script


# -- the rules the notebooks state in words, read from the package (recorded: tests/oracles/bullmq_rules.py) --

import bullmq_rules  # noqa: E402

RULES = json.loads(bullmq_rules.RECORDING.read_text())


def _cell(notebook: str, cell_id: str) -> str:
    cells = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / notebook).read_text())["cells"]
    return "".join(next(c for c in cells if c["id"] == cell_id)["source"])


def _page(notebook: str) -> str:
    """All the Markdown of a reference page, whose prose is cut into cells of at most 200 words."""
    cells = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / notebook).read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def test_the_rules_recording_is_the_installed_package():
    live = bullmq_rules.facts()
    if live is None:
        pytest.skip("tests/oracles/node_modules is not installed: recorded rules only")
    assert live == RULES


def test_notebook_06_states_bullmqs_stall_rule():
    """(06's depth, now on the reference page "BullMQ's own design", issue 30.) Issue 28: a stalled job scheduler's job is never failed by stalling, it always goes back to
    wait; others past the limit get a deferred failure (6.7.0, the recorded lines)."""
    stall = RULES["stall"]
    assert RULES["version"] == "6.7.0"
    assert stall["scheduler_jobs_exempt_from_the_limit"] and stall["every_stalled_job_goes_back_to_wait"]
    assert stall["past_the_limit_is_a_deferred_failure"]
    text = " ".join(_page("ref_bullmq_design.ipynb").split())
    first, last = stall["lines"]
    assert f"`{stall['file']}`, lines {first}-{last} in 6.7.0" in text
    assert "exempt from the stall limit and always goes back" in text
    assert "deferred failure, applied at its next pickup" in text
    assert "fails it after too many stalls" not in text


def test_the_bzpopmin_is_cited_where_6_7_0_has_it():
    """Issue 28: in 6.7.0 the worker's BZPOPMIN on the marker is in classes/redis-queue-backend.js
    (worker.js only calls the backend's waitForJob); notebook 00's Sources and take-3.lua's header
    cite that file."""
    assert RULES["blocking_read"]["files"] == ["classes/redis-queue-backend.js"]
    sources = " ".join(_cell("00_start_here.ipynb", "c0a1e5f3").split())
    assert "`classes/redis-queue-backend.js` (`BZPOPMIN` on the marker" in sources
    assert "`classes/worker.js` (`BZPOPMIN`" not in sources
    take = (Path(__file__).resolve().parents[1] / "emqsim" / "engine" / "lua" / "take-3.lua").read_text()
    assert "BZPOPMIN on the marker in dist/cjs/classes/redis-queue-backend.js" in " ".join(take.split())
