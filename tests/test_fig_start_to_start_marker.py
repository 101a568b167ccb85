"""The wake view: bars, dots and lines drawn from the wake model's frame; the panel moves it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from emqsim import InputError  # noqa: E402
from emqsim.figures import catalogue  # noqa: E402


@pytest.fixture(scope="module")
def wake():
    return catalogue.figure("03 wake latency")


def test_marker_dots_sit_at_0(wake):
    assert list(wake.view.dots.get_ydata()) == [0.0] * 24
    assert wake.view._marker_text.get_text() == "parked on the marker: 0 s"


def test_polling_30s_drawn(wake):
    text = wake.update(poll=30_000)
    assert text == "poll every 30 s: jobs wait 537 ms to 29.007 s, mean 13.869 s \u00b7 marker: 0 ms for every job"
    assert [b.get_height() for b in wake.view.bars][:3] == [9.31, 24.551, 11.792]
    assert list(wake.view.limit.get_ydata()) == [30.0, 30.0]
    assert wake.view._limit_text.get_text() == "poll interval 30 s"
    assert wake.view._mean_text.get_text() == "mean wait, polling (13.869 s)"
    assert wake.view._title.get_text().startswith("grey bars: a worker polling every 30 s")


def test_axes_laid_out_from_the_frame(wake):
    assert wake.view.ax.get_ylim() == pytest.approx((-2.4, 66.0))
    assert wake.view.ax.get_xlabel() == "job, in release order (24 registrations, released 09:00-09:15)"


def test_a_move_changes_the_picture_and_a_refused_one_does_not(wake):
    wake.update(poll=30_000)
    before = wake.png()
    wake.update(poll=50_000)
    moved = wake.png()
    assert moved != before
    assert list(wake.view.limit.get_ydata()) == [50.0, 50.0]
    with pytest.raises(InputError):
        wake.update(poll=15_000)
    assert wake.values == {"poll": 50_000} and wake.png() == moved


def test_wake_panel_moves_the_figure():
    fig = catalogue.figure("03 wake latency")
    p = fig.panel()
    assert p.widgets["poll"].description == "poll every"
    assert [label for label, _ in p.widgets["poll"].options] == ["10 s", "20 s", "30 s", "40 s", "50 s", "1 min"]
    p.widgets["poll"].value = 10_000
    assert fig.frame.readout == \
        "poll every 10 s: jobs wait 228 ms to 9.896 s, mean 5.119 s \u00b7 marker: 0 ms for every job"
    assert 'id="wake-readout"' in p.readout.value and "9.896 s" in p.readout.value
    assert fig.live.image.value[:4] == b"\x89PNG"
