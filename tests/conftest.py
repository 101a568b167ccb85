"""Shared fixtures: `store` runs a test once per backend (see backends.py); the header
says whether the oracles (tests/oracles) are asked live or read from their recordings."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from backends import BACKENDS, close_opened, make_store

from emqsim.engine.store import ENV

sys.path.insert(0, str(Path(__file__).resolve().parent / "oracles"))
#: `make bench`'s modules (not installed with the package): their pure parts are tested here
BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))
import oracle  # noqa: E402


#: the fixtures of test_site*.py whose tests run Sphinx: `built` (the course's whole site,
#: site_build.py) and `toy` (a one-page book of a toy figure). Their tests are marked `sphinx`,
#: which `make test-unit` leaves to `make test-site` (test_present.py's own `built` is not it)
SPHINX_FIXTURES = {"built", "toy"}
#: files with the suite's longest tests, run first (in this order, each file's own order kept):
#: pytest-xdist hands each worker a share from the front and a worker that runs dry takes
#: from the end of another's, so a long test started last would leave one worker running alone
#: (test_cli_cron.py beside test_oracle_cron.py: one worker then asks croniter and cronsim once)
LONG_FIRST = ("test_figure_text.py", "test_colour.py", "test_fast_forward.py", "test_classroom.py",
              "test_oracle_cron.py", "test_cli_cron.py", "test_questions_panel.py", "test_api_bad_input.py",
              "test_left_behind.py", "test_fig_bad_input.py", "test_oracle_bullmq.py", "test_lesson_faults.py",
              "test_present.py", "test_memory.py", "test_describe.py", "test_questions.py", "test_ids.py")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.name.startswith("test_site") and SPHINX_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.sphinx)
    rank = {name: n for n, name in enumerate(LONG_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


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
    """A real-server store a test made and handed to a PumpDesign (which leaves a given store
    open) is closed after the test, so no run's keys stay on the shared server."""
    yield
    close_opened()


#: the test files of the floors above the engine (lessons, questions, figures): they test what a
#: page teaches and draws, the same on any store, so they run on the embedded fakeredis even
#: where EMQSIM_REDIS_URL names a server (CI). The engine's own tests run on every server they
#: are given (the `store` fixture, backends.py), and the notebooks on the server the URL names.
#: On a server these files sent every frame's script calls over TCP, most of what a server
#: added to the unit run.
ABOVE_THE_ENGINE = ("test_fig_", "test_figure_", "test_colour", "test_lesson_", "test_challenge_positions",
                    "test_questions", "test_no_giveaway", "test_option_parallel", "test_describe")


@pytest.fixture(scope="module", autouse=True)
def _embedded_above_the_engine(request):
    """Module-scoped, so it holds before any module fixture builds a figure."""
    if not request.module.__name__.rpartition(".")[2].startswith(ABOVE_THE_ENGINE):
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(ENV, raising=False)
        yield


@pytest.fixture(scope="session")
def reports_walk():
    """Notebook 02's model (every 15 min from 09:00 UTC) walked to its top, rr.FIRES = 10,000
    fires, once per test process: the tests that need that walk share it, each with its own
    assertions. Nothing walks it further (it is at the top) or closes it before the end."""
    from emqsim.lessons.one_row_rewritten import FIRES, RegistryRowsModel

    model = RegistryRowsModel()
    model.walk(FIRES)
    yield model
    model.close()
