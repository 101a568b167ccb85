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
