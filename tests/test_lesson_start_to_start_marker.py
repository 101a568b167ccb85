"""Lesson 03's wake marker: "0", try to take a job now; a parked worker's measured wait against
a polling one's, computed lazily by the wake model."""

from __future__ import annotations

import pytest

from emqsim import InputError
from emqsim.lessons.course import MINUTE, START
from emqsim.lessons import start_to_start as mk


@pytest.fixture(scope="module")
def wake():
    return mk.WakeModel()


def test_marker_steps():
    reg, fire, take, park = mk.marker_facts()
    assert (reg["answer"], reg["marker"]) == ("registered", [])
    assert (fire["answer"], fire["at"], fire["marker"], fire["head"]) == ("fired", START, [("0", 0)], START + 15 * MINUTE)
    assert (take["answer"], take["job"], take["at"], take["marker"], take["state"]) == (
        "taken", "JOB0SUaKlrtAo4", START, [], "active")
    assert (park["answer"], park["marker"]) == ("parked", [])
    lines = mk.marker_steps().splitlines()
    assert [line.split()[0] for line in lines] == ["register", "fire", "parked", "the"]
    assert 'marker {"0": 0}' in lines[1] and lines[1].endswith("registry next run 09:15:00")
    assert "takes JOB0SUaKlrtAo4: taken at 09:00:00" in lines[2] and lines[2].endswith("job active")
    assert lines[0].count("marker (empty)") == lines[2].count("marker (empty)") == lines[3].count("(empty)") == 1


def test_bullmq_design_writes_the_delayed_marker():
    """bullmq 6.7.0 (dist/cjs/commands/includes/addDelayMarkerIfNeeded.lua, reached from
    updateJobScheduler-12.lua through addJobFromScheduler.lua): the next job is delayed and "1"
    goes to its run time. This pickup reads no marker, so the first job's "0" is still there."""
    f = mk.bullmq_marker_facts()
    assert (f["upsert"]["answer"], f["upsert"]["marker"]) == ("created", [("0", 0)])
    took = f["pickup"]
    assert (took["job"], took["at"], took["answer"]) == (f"repeat:reports:{START}", START, "chained")
    assert (took["marker"], took["next"], took["waiting"]) == ([("0", 0), ("1", START + 15 * MINUTE)],
                                                               START + 15 * MINUTE, [])
    lines = mk.bullmq_marker_steps().splitlines()
    assert lines[0].endswith('marker {"0": 0}')
    assert '{"0": 0, "1": 09:15:00}' in lines[1] and "next job delayed to 09:15:00" in lines[1]


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
    for cid in ("0ef2facd", "b693a171"):     # 03's; 00's learning goals name no marker value
        text = " ".join(cells[cid].split())
        assert "try to take a job now" in text, cid
        assert "while a job is ready" not in text and "when a job is ready" not in text, cid
    # the script and line are cited in 03's Sources (e3f4a5b6), not in the running text (issue 30)
    cited = f"`commands/{rule['file']}` line {rule['line']}"
    assert cited in " ".join(cells["e3f4a5b6"].split()) and cited not in " ".join(cells["0ef2facd"].split())
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
    assert (min(f.waits), max(f.waits), round(sum(f.waits) / len(f.waits))) == (537, 29_007, 13_869)
    assert not any(f.marker)
    assert f.bars[:3] == (9.31, 24.551, 11.792)
    assert (f.limit, f.limit_label) == (30.0, "poll interval 30 s")
    assert f.mean == pytest.approx(13.869, abs=0.001)
    assert f.mean_label == "mean wait, polling (13.869 s)"
    assert f.xlabel == "job, in release order (24 registrations, released 09:00-09:15)"
    assert (f.bottom, f.top) == pytest.approx((-2.4, 66.0))


def test_readouts_at_10s_and_1min(wake):
    def facts(f):
        return min(f.waits), max(f.waits), round(sum(f.waits) / len(f.waits)), any(f.marker)
    assert facts(wake.frame(poll=10_000)) == (228, 9_896, 5_119, False)
    assert facts(wake.frame(poll=60_000)) == (2_367, 59_007, 27_619, False)


@pytest.mark.parametrize("poll", [10_000, 30_000, 60_000])
def test_the_readout_states_its_facts(wake, poll):
    """The one test of the readout's words: the poll, the shortest and longest wait, the mean, and
    that the parked worker waited 0 ms for every job."""
    f = wake.frame(poll=poll)
    mean = round(sum(f.waits) / len(f.waits))
    fd = mk.format_duration
    assert f.readout.startswith(f"poll every {fd(poll)}: ")
    assert f"wait {fd(min(f.waits))} to {fd(max(f.waits))}" in f.readout and f"mean {fd(mean)}" in f.readout
    assert f.readout.endswith("marker: 0 ms for every job")


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
