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
