"""The wake marker: "0" when a job is ready; a parked worker's measured wait."""

from __future__ import annotations

import matplotlib
import pytest

from emqsim.figures import marker as mk
from emqsim.timefmt import at

matplotlib.use("Agg")

T0 = at("2026-11-30 09:00")
MIN = 60_000


@pytest.fixture(scope="module")
def wake():
    return mk.wake_view()


def test_marker_steps():
    assert mk.marker_steps() == "\n".join([
        "register reports (every 15 min): registered  \u00b7 marker (empty)",
        "fire 09:00:00 (enqueue + advance): fired  \u00b7 marker {\"0\": 0}  \u00b7 registry next run 09:15:00",
        "parked worker takes JOB0SUaKlrtAo4: taken at 09:00:00  \u00b7 marker (empty)  \u00b7 job active",
        "the worker, done, parks again: parked  \u00b7 marker (empty)",
    ])


def test_marker_steps_same_on_every_backend(store):
    assert mk.marker_steps(store).splitlines()[1].endswith('marker {"0": 0}  \u00b7 registry next run 09:15:00')


def test_waits_are_measured_so_a_wrong_marker_shows():
    assert mk.waits() == [0, 0, 0, 0]
    assert mk.waits(old=True) == [15 * MIN] * 4     # "1" at the next run: the worker sleeps until then


def expected(poll: int) -> list[int]:
    """By hand: released at 09:00 + offset (a pump woken at the score), the polls at 09:00 + k*poll."""
    offsets = sorted(s.cadence.offset for s in mk.fleet(24))
    return [(-off) % poll for off in offsets]


def test_marker_wakes_every_job_at_once(wake):
    assert wake.marker.tolist() == [0] * 24
    assert wake.dots.get_ydata().tolist() == [0.0] * 24


@pytest.mark.parametrize("poll", mk.POLLS)
def test_polling_latency_by_hand(wake, poll):
    assert wake.latency[poll].tolist() == expected(poll)
    assert all(0 <= v < poll for v in wake.latency[poll])


def test_polling_30s_exact(wake):
    text = wake.update(poll=30_000)
    assert wake.latency[30_000].tolist()[:6] == [9310, 24551, 11792, 4967, 27968, 19896]
    assert text == "poll every 30 s: jobs wait 537 ms to 29.007 s, mean 13.869 s \u00b7 marker: 0 ms for every job"
    assert [b.get_height() for b in wake.bars][:3] == [9.31, 24.551, 11.792]
    assert list(wake.limit.get_ydata()) == [30.0, 30.0]


def test_wake_bad_poll(wake):
    with pytest.raises(ValueError, match="poll \\(ms\\) 15000"):
        wake.update(poll=15_000)


def test_wake_panel_callback(wake):
    p = mk.wake_panel(wake)
    assert p.on_poll({"new": 10_000}) == \
        "poll every 10 s: jobs wait 228 ms to 9.896 s, mean 5.119 s \u00b7 marker: 0 ms for every job"
    assert 'id="wake-readout"' in p.readout.value
    polls = [m["poll"] for m in wake.moves()]
    assert polls[:11] == [10_000, 20_000, 30_000, 40_000, 50_000, 60_000, 50_000, 40_000, 30_000, 20_000, 10_000]
    assert len(polls) == 20
