"""Lesson 03's wake marker: "0", try to take a job now; a parked worker's measured wait against
a polling one's, computed lazily by the wake model."""

from __future__ import annotations

import pytest

from emqsim import InputError
from emqsim.lessons.course import MINUTE
from emqsim.lessons import start_to_start as mk


@pytest.fixture(scope="module")
def wake():
    return mk.WakeModel()


def test_marker_steps():
    assert mk.marker_steps() == "\n".join([
        "register reports (every 15 min): registered  \u00b7 marker (empty)",
        "fire 09:00:00 (enqueue + advance): fired  \u00b7 marker {\"0\": 0}  \u00b7 registry next run 09:15:00",
        "parked worker takes JOB0SUaKlrtAo4: taken at 09:00:00  \u00b7 marker (empty)  \u00b7 job active",
        "the worker, done, parks again: parked  \u00b7 marker (empty)",
    ])


def test_bullmq_design_writes_the_delayed_marker():
    """bullmq 6.7.0 (dist/cjs/commands/includes/addDelayMarkerIfNeeded.lua, reached from
    updateJobScheduler-12.lua through addJobFromScheduler.lua): the next job is delayed and "1"
    goes to its run time. This pickup reads no marker, so the first job's "0" is still there."""
    assert mk.bullmq_marker_steps() == "\n".join([
        "upsert reports (every 15 min): created  \u00b7 marker {\"0\": 0}",
        "worker takes repeat:reports:1796029200000 at 09:00:00: chained  \u00b7 marker "
        "{\"0\": 0, \"1\": 09:15:00}  \u00b7 next job delayed to 09:15:00  \u00b7 waiting: none",
    ])


def test_the_marker_means_try_now_not_a_job_waits():
    """Issue 28: bullmq 6.7.0 writes the base marker "0" after every take, whether anything waits
    or not (includes/prepareJobForProcessing.lua, read from the package and recorded), so "0"
    means "try to take a job now". The printed step shows "0" beside an empty wait list, and the
    pages say so instead of "while a job is ready"."""
    import json
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    rule = json.loads((root / "tests" / "oracles" / "recorded" / "bullmq_rules.json").read_text())["take_marker"]
    assert rule["after_every_take"] and rule["file"] == "includes/prepareJobForProcessing.lua"
    taken = mk.bullmq_marker_steps().splitlines()[1]
    assert '"0": 0' in taken and taken.endswith("waiting: none")
    cells = {c["id"]: "".join(c["source"]) for n in ("00_start_here", "03_start_to_start")
             for c in json.loads((root / "notebooks" / f"{n}.ipynb").read_text())["cells"]}
    for cid in ("5e20cb31", "0ef2facd", "b693a171"):
        text = " ".join(cells[cid].split())
        assert "try to take a job now" in text, cid
        assert "while a job is ready" not in text and "when a job is ready" not in text, cid
    assert f"`commands/{rule['file']}` line {rule['line']}" in " ".join(cells["0ef2facd"].split())
    readme = " ".join((root / "README.md").read_text().split("## ", 1)[0].split())
    assert "try to take a job now" in readme and "until a job is ready" not in readme


def test_marker_steps_same_on_every_backend(store):
    assert mk.marker_steps(store).splitlines()[1].endswith('marker {"0": 0}  \u00b7 registry next run 09:15:00')


def test_marker_steps_next_run_follows_the_cadence():
    assert mk.marker_steps(every="5m").splitlines()[1].endswith("registry next run 09:05:00")


def test_waits_are_measured_so_a_wrong_marker_shows():
    assert mk.waits() == [0, 0, 0, 0]
    # "1" at the next run, as course page 002 scores the marker: the worker sleeps until then
    assert mk.waits(next_run=True) == [15 * MINUTE] * 4


def expected(poll: int) -> list[int]:
    """By hand: released at 09:00 + offset (a pump woken at the score), the polls at 09:00 + k*poll."""
    offsets = sorted(s.cadence.offset for s in mk.fleet(24))
    return [(-off) % poll for off in offsets]


def test_marker_wakes_every_job_at_once(wake):
    assert wake.latency(0).tolist() == [0] * 24
    f = wake.frame()
    assert f.marker == (0.0,) * 24
    assert (f.marker_top, f.marker_label) == (0.0, "parked on the marker: 0 s")


@pytest.mark.parametrize("poll", mk.POLLS)
def test_polling_latency_by_hand(wake, poll):
    assert wake.latency(poll).tolist() == expected(poll)
    assert all(0 <= v < poll for v in wake.latency(poll))
    assert wake.frame(poll=poll).waits == tuple(expected(poll))


def test_polling_30s_exact(wake):
    f = wake.frame(poll=30_000)
    assert f.waits[:6] == (9310, 24551, 11792, 4967, 27968, 19896)
    assert f.readout == "poll every 30 s: jobs wait 537 ms to 29.007 s, mean 13.869 s \u00b7 marker: 0 ms for every job"
    assert f.bars[:3] == (9.31, 24.551, 11.792)
    assert (f.limit, f.limit_label) == (30.0, "poll interval 30 s")
    assert f.mean == pytest.approx(13.869, abs=0.001)
    assert f.mean_label == "mean wait, polling (13.869 s)"
    assert f.xlabel == "job, in release order (24 registrations, released 09:00-09:15)"
    assert (f.bottom, f.top) == pytest.approx((-2.4, 66.0))


def test_readouts_at_10s_and_1min(wake):
    assert wake.frame(poll=10_000).readout == \
        "poll every 10 s: jobs wait 228 ms to 9.896 s, mean 5.119 s \u00b7 marker: 0 ms for every job"
    assert wake.frame(poll=60_000).readout == \
        "poll every 1 min: jobs wait 2.367 s to 59.007 s, mean 27.619 s \u00b7 marker: 0 ms for every job"


def test_bad_poll_is_refused_before_anything_runs():
    model = mk.WakeModel()
    with pytest.raises(InputError) as info:
        model.frame(poll=15_000)
    message = str(info.value)
    assert message.startswith(("poll every", "poll")) and "15000" in message and "60000" in message, message
    assert not model._latency and not model._frames


def test_lazy_the_first_frame_runs_the_marker_and_one_poll():
    model = mk.WakeModel()
    assert not model._latency
    model.frame()
    assert set(model._latency) == {0, 30_000}
    model.frame(poll=10_000)
    assert set(model._latency) == {0, 10_000, 30_000}


def test_reachable_is_every_poll():
    combos, held = mk.WakeModel().reachable()
    assert [c["poll"] for c in combos] == list(mk.POLLS) and held == []
    assert mk.WakeModel().positions("poll", {})[-1] == ("1 min", 60_000)
