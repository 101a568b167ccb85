"""Shared fixtures: `store` runs a test once per backend (see backends.py); the header
says whether the oracles (tests/oracles) are asked live or read from their recordings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backends import BACKENDS, close_opened, make_store

sys.path.insert(0, str(Path(__file__).resolve().parent / "oracles"))
import oracle  # noqa: E402


def pytest_report_header(config):
    return oracle.status()


def pytest_terminal_summary(terminalreporter):
    """The same line at the end, where `pytest -q` (make test) shows it."""
    terminalreporter.write_line(oracle.status())


@pytest.fixture(params=BACKENDS)
def store(request):
    s = make_store(request.param)
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _close_real_stores():
    """A real-server store a test made and handed to a Simulation (which leaves a given store
    open) is closed after the test, so no run's keys stay on the shared server."""
    yield
    close_opened()


@pytest.fixture(scope="session")
def reports_walk():
    """Notebook 02's model (every 15 min from 09:00 UTC) walked to its top, rr.FIRES = 10,000
    fires, once per test process: the tests that need that walk share it, each with its own
    assertions. Nothing walks it further (it is at the top) or closes it before the end."""
    from emqsim.lessons.registry_rows import FIRES, RegistryRowsModel

    model = RegistryRowsModel()
    model.walk(FIRES)
    yield model
    model.close()
