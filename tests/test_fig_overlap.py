"""Runs longer than the period under each overlap policy: the engine's runs, the readout, the artists."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from emqsim.cadence import Every
from emqsim.figures import overlap as ov
from emqsim.figures.style import new_figure
from emqsim.reference import reference
from emqsim.schedule import Schedule
from emqsim.timefmt import at, hm
from emqsim.worker import Worker

matplotlib.use("Agg")

MIN = 60_000


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


def hmf(ms) -> str:
    """hm() of a plotted coordinate (artists hold floats)."""
    assert float(ms).is_integer()
    return hm(int(ms))


def spans(lane):
    return [(hm(j.slot), hm(j.started), hm(j.finished), j.cancelled) for j in lane.jobs]


@pytest.fixture(scope="module")
def view():
    """A view over four run lengths (16 engine runs instead of the slider's 160)."""
    fig, (ax, going_ax) = new_figure(10.5, 6.4, nrows=2, sharex=True)
    return ov.OverlapView(ax, going_ax, runs=(1, 15, 16, 20, 40))


# -- the engine's runs: every 15 min from 09:00, 20-min runs, 4 workers ---------------------------

def test_allow_runs_every_slot_side_by_side():
    ln = ov.lane("allow", "20m")
    assert spans(ln) == [(s, s, e, False) for s, e in [("09:00", "09:20"), ("09:15", "09:35"), ("09:30", "09:50"),
                                                        ("09:45", "10:05"), ("10:00", "10:20"), ("10:15", "10:35"),
                                                        ("10:30", "10:50"), ("10:45", "11:05")]]
    assert ln.skipped == ()
    times, counts = ln.going()
    assert [hm(x) for x in times[:5]] == ["09:00", "09:15", "09:20", "09:30", "09:35"]
    assert counts[:5].tolist() == [1, 2, 1, 2, 1]
    assert (ln.most, ln.completed, ln.cancelled, ln.longest_wait) == (2, 8, 0, 0)


def test_skip_drops_every_other_slot():
    ln = ov.lane("skip", "20m")
    assert spans(ln) == [("09:00", "09:00", "09:20", False), ("09:30", "09:30", "09:50", False),
                         ("10:00", "10:00", "10:20", False), ("10:30", "10:30", "10:50", False)]
    assert [hm(s) for s in ln.skipped] == ["09:15", "09:45", "10:15", "10:45"]
    assert ln.most == 1


def test_buffer_one_starts_late_and_skips_while_one_waits():
    ln = ov.lane("buffer-one", "20m")
    assert spans(ln) == [("09:00", "09:00", "09:20", False), ("09:15", "09:20", "09:40", False),
                         ("09:30", "09:40", "10:00", False), ("09:45", "10:00", "10:20", False),
                         ("10:00", "10:20", "10:40", False), ("10:30", "10:40", "11:00", False),
                         ("10:45", "11:00", "11:20", False)]
    assert [j.started - j.released for j in ln.jobs] == [0, 5 * MIN, 10 * MIN, 15 * MIN, 20 * MIN, 10 * MIN,
                                                        15 * MIN]
    assert [hm(s) for s in ln.skipped] == ["10:15"]
    assert (ln.most, ln.longest_wait) == (1, 20 * MIN)


def test_replace_cancels_each_run_at_the_next_release():
    ln = ov.lane("replace", "20m")
    starts = ["09:00", "09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45"]
    # the 10:45 run is cancelled by the 11:00 release, which the window does not show
    assert spans(ln) == [(s, s, e, True) for s, e in zip(starts, starts[1:] + ["11:00"])]
    assert (ln.completed, ln.cancelled, ln.most, ln.end) == (0, 8, 1, t("11:00"))


@pytest.mark.parametrize("policy", ov.POLICIES)
def test_the_lanes_agree_with_the_reference_model(policy):
    for run in (15 * MIN, 20 * MIN, 40 * MIN):
        ln = ov.lane(policy, run)
        ref = reference(Schedule("reports", Every("15m"), overlap=policy), start=t("09:00"), until=t("11:00"),
                        worker=Worker(run=run, concurrency=4), ids=None)
        want = [x for x in zip(ref.slot.tolist(), ref.released.tolist(), ref.started.tolist(),
                               ref.finished.tolist(), ref.cancelled.tolist()) if x[1] < t("11:00")]
        assert [tuple(j) for j in ln.jobs] == want
        assert list(ln.skipped) == [s for s, at_, _ in ref.skips if at_ < t("11:00")]


def test_rows_keep_overlapping_and_touching_runs_apart():
    assert ov.rows(ov.lane("allow", "40m").jobs) == [0, 1, 2, 0, 1, 2, 0, 1]
    assert ov.rows(ov.lane("replace", "20m").jobs) == [0, 1, 0, 1, 0, 1, 0, 1]
    assert ov.rows(ov.lane("allow", "10m").jobs) == [0] * 8


def test_bad_policy_or_run_length():
    with pytest.raises(ValueError, match="overlap policy 'cancel' is not one of allow, skip, buffer-one, replace"):
        ov.lane("cancel", "20m")
    with pytest.raises(ValueError, match="run"):
        ov.lane("skip", "twenty")


def test_slots_table():
    table = ov.slots_table([ov.lane(p, "20m") for p in ov.POLICIES]).splitlines()
    assert table[0] == "slot   allow        skip                   buffer-one                   replace"
    assert table[3] == "09:15  09:15-09:35  skipped (one running)  09:20-09:40 (waited 5 min)   09:15-09:30 cancelled"
    assert table[7] == "10:15  10:15-10:35  skipped (one running)  skipped (one waiting)        10:15-10:30 cancelled"
    assert len(table) == 10


# -- the figure --------------------------------------------------------------------------------

README_20 = """\
runs of 20 min, a release every 15 min from 09:00 to 10:45 (8 slots), 4 workers a lane
allow       8 runs, 8 completed, 0 cancelled, 0 skipped, at most 2 at once
skip        4 runs, 4 completed, 0 cancelled, 4 skipped, at most 1 at once
buffer-one  7 runs, 7 completed, 0 cancelled, 1 skipped, at most 1 at once, longest wait 20 min
replace     8 runs, 0 completed, 8 cancelled, 0 skipped, at most 1 at once
            nothing completes: each run is cancelled by the next release, 15 min in"""


def test_readout_at_20_min(view):
    assert view.update(run=20) == README_20


def test_readout_at_15_min_all_lanes_agree(view):
    lines = view.update(run=15).splitlines()
    assert lines[1:] == [f"{p:<10}  8 runs, 8 completed, 0 cancelled, 0 skipped, at most 1 at once"
                         for p in ov.POLICIES]


def test_readout_at_40_min(view):
    assert view.update(run=40).splitlines()[1:4] == [
        "allow       8 runs, 8 completed, 0 cancelled, 0 skipped, at most 3 at once",
        "skip        3 runs, 3 completed, 0 cancelled, 5 skipped, at most 1 at once",
        "buffer-one  4 runs, 4 completed, 0 cancelled, 4 skipped, at most 1 at once, longest wait 35 min"]


def _x_spans(collection):
    return [(hmf(p.vertices[0, 0]), hmf(p.vertices[2, 0])) for p in collection.get_paths()]


def test_artists_at_20_min(view):
    view.update(run=20)
    done = _x_spans(view.done)
    assert len(done) == 8 + 4 + 7
    assert done[:2] == [("09:00", "09:20"), ("09:15", "09:35")]
    assert done[-1] == ("11:00", "11:20")                       # buffer-one's last run
    assert _x_spans(view.cut) == [(s, e) for s, e in zip(
        ["09:00", "09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45"],
        ["09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45", "11:00"])]
    cancels = view.cancels.get_offsets()
    assert [hmf(x) for x in cancels[:, 0]] == ["09:15", "09:30", "09:45", "10:00", "10:15", "10:30", "10:45", "11:00"]
    assert set(cancels[:, 1]) == {view.y("replace", 0), view.y("replace", 1)}
    waits = [(hmf(s[0, 0]), hmf(s[1, 0])) for s in view.waits.get_segments()]
    assert waits == [("09:15", "09:20"), ("09:30", "09:40"), ("09:45", "10:00"), ("10:00", "10:20"),
                     ("10:30", "10:40"), ("10:45", "11:00")]
    skips = view.skips.get_offsets()
    assert [hmf(x) for x in skips[:, 0]] == ["09:15", "09:45", "10:15", "10:45", "10:15"]
    assert skips[:, 1].tolist() == [view.skip_y("skip")] * 4 + [view.skip_y("buffer-one")]
    assert view.labels["replace"].get_text() == "0 of 8 completed\n8 cancelled"
    assert view.labels["skip"].get_text() == "4 of 4 completed\n4 skipped"
    assert view._title.get_text() == "20 min"


def test_runs_at_once_lines(view):
    view.update(run=40)
    x, y = view.lines["allow"].get_data()
    assert [hmf(v) for v in x[:4]] == ["09:00", "09:15", "09:30", "09:40"]
    assert np.round(np.asarray(y) - ov.NUDGE["allow"], 9).tolist()[:5] == [1, 2, 3, 2, 3]
    assert x[-1] == view.hi
    _, y = view.lines["replace"].get_data()
    assert max(np.round(np.asarray(y) - ov.NUDGE["replace"], 9)) == 1


def test_update_refuses_a_run_length_off_the_slider(view):
    with pytest.raises(ValueError, match=r"run \(min\) 41 is not one of 1, 15, 16, 20, 40"):
        view.update(run=41)


def test_replace_never_completes_past_the_period(view):
    for run in (16, 20, 40):
        view.update(run=run)
        assert view.lane("replace").completed == 0
    view.update(run=15)
    assert view.lane("replace").completed == 8


def test_moves_and_refresh(view):
    moves = view.moves()
    assert moves == [{"run": r} for r in [1, 16, 40, 16] * 5]
    for kw in moves[:4]:
        view.update(**kw)
        assert view.live.refresh()[:8] == b"\x89PNG\r\n\x1a\n"


def test_default_view_and_its_slider():
    v = ov.overlap_view()
    assert (v.run, v.runs, len(v.lanes)) == (20, tuple(range(1, 41)), 160)
    assert v.rows == {"allow": 3, "skip": 2, "buffer-one": 3, "replace": 2}
    assert v.readout() == README_20
    moves = v.moves()
    assert len(moves) == 20 and {m["run"] for m in moves} == set(range(1, 41, 2))
    # replace completes nothing for every run longer than the period
    assert [m for m in v.runs if v.lanes[("replace", m)].completed == 0] == list(range(16, 41))
    # up to the period the four lanes are the same runs
    for m in range(1, 16):
        assert len({tuple(v.lanes[(p, m)].jobs) for p in ov.POLICIES}) == 1


# -- the panel ---------------------------------------------------------------------------------

def test_panel_callback(view):
    panel = ov.overlap_panel(view)
    text = panel.on_run({"new": 40})
    assert text == view.readout()
    assert 'id="overlap-readout"' in panel.readout.value
    assert "at most 3 at once" in panel.readout.value
    assert panel.view.live.image.value[:4] == b"\x89PNG"
    assert panel.player.play.max == 40
    assert panel.on_run({"new": 20}) == README_20
