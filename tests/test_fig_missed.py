"""Missed slots after an outage: seven policies side by side, exact releases and readouts."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest

from emqsim.cadence import Every
from emqsim.figures import missed as mx
from emqsim.timefmt import at, hm, hms

matplotlib.use("Agg")

MIN = 60_000


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


def ts(*hhmm: str) -> list[float]:
    return [float(t(x)) for x in hhmm]


EXAMPLE = [
    "pump down 09:30 \u2192 10:10 (40 min): slots 09:37, 09:52, 10:07 missed",
    "snap:    10:10 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept",
    "snap-v5: 10:10 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept",
    "epoch:   10:10 (slot 09:37), then 10:15, 10:30 \u00b7 phase :07 \u2192 :00",
    "release: 10:10 (slot 09:37), then 10:25, 10:40 \u00b7 phase :07 \u2192 :10",
    "all:     10:10:00 (slot 09:37), 10:10:01 (slot 09:52), 10:10:02 (slot 10:07), then 10:22, 10:37 "
    "\u00b7 phase :07 kept",
    "once:    10:10 (slot 10:07), then 10:22, 10:37 \u00b7 phase :07 kept",
    "skip:    09:37 skipped at 10:10 (33 min late > 5 min), then 10:22, 10:37 \u00b7 phase :07 kept",
]


@pytest.fixture()
def view():
    return mx.missed_view()


def lane_of(ls, policy):
    return next(lane for lane in ls if lane.policy == policy)


# -- the data ----------------------------------------------------------------------------------

def test_the_example_releases_per_policy():
    ls = mx.lanes("09:30", "10:10", "5m")
    got = {lane.policy: [(hms(r), hm(s)) for s, r in lane.fires if r >= t("10:10")][:4] for lane in ls}
    assert got == {
        "snap": [("10:10:00", "09:37"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
        "snap-v5": [("10:10:00", "09:37"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
        "epoch": [("10:10:00", "09:37"), ("10:15:00", "10:15"), ("10:30:00", "10:30"), ("10:45:00", "10:45")],
        "release": [("10:10:00", "09:37"), ("10:25:00", "10:25"), ("10:40:00", "10:40"), ("10:55:00", "10:55")],
        "all": [("10:10:00", "09:37"), ("10:10:01", "09:52"), ("10:10:02", "10:07"), ("10:22:00", "10:22")],
        "once": [("10:10:00", "10:07"), ("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52")],
        "skip": [("10:22:00", "10:22"), ("10:37:00", "10:37"), ("10:52:00", "10:52"), ("11:07:00", "11:07")],
    }
    skip = lane_of(ls, "skip")
    assert skip.skips == ((t("09:37"), t("10:10")),)
    assert skip.collapsed == (t("09:52"), t("10:07"))
    assert lane_of(ls, "once").collapsed == (t("09:37"), t("09:52"))
    assert lane_of(ls, "all").collapsed == ()
    assert lane_of(ls, "snap").catch_up == ((t("09:37"), t("10:10")),)
    assert lane_of(ls, "snap").then[:2] == (t("10:22"), t("10:37"))
    # before the outage all seven agree: 09:07 and 09:22
    assert {tuple(f for f in lane.fires if f[1] < t("09:30")) for lane in ls} == \
        {((t("09:07"), t("09:07")), (t("09:22"), t("09:22")))}


def test_missed_slots():
    assert mx.missed_slots(t("09:30"), t("10:10")) == (t("09:37"), t("09:52"), t("10:07"))
    # a restart exactly on a slot: the row is behind, so that slot is caught up with the rest
    assert mx.missed_slots(t("09:30"), t("10:07")) == (t("09:37"), t("09:52"), t("10:07"))
    # ... but if nothing came due while the pump was down, nothing was missed
    assert mx.missed_slots(t("09:30"), t("09:37")) == ()
    assert mx.missed_slots(t("09:22"), t("09:23")) == (t("09:22"),)   # down at a slot: missed
    assert mx.missed_slots(t("09:30"), t("09:30")) == ()


def test_a_restart_just_before_a_slot_parts_the_three_snaps():
    ls = {lane.policy: lane for lane in mx.lanes("09:30", "10:05", "5m")}
    assert [hm(r) for r in ls["snap"].then[:2]] == ["10:07", "10:22"]      # bullmq 6.7.0: nearest :07 slot
    assert [hm(r) for r in ls["snap-v5"].then[:2]] == ["10:22", "10:37"]   # bullmq 5.59-5.80.0: steps over 10:07
    assert [hm(r) for r in ls["epoch"].then[:2]] == ["10:15", "10:30"]     # legacy repeatable: quarter hours
    assert mx.lanes("09:30", "10:05", "5m", engine=True) == list(ls.values())
    lines = mx.readout_text(t("09:30"), t("10:05"), list(ls.values())).splitlines()
    assert lines[1:4] == [
        "snap:    10:05 (slot 09:37), then 10:07, 10:22 \u00b7 phase :07 kept",
        "snap-v5: 10:05 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept",
        "epoch:   10:05 (slot 09:37), then 10:15, 10:30 \u00b7 phase :07 \u2192 :00",
    ]


def test_engine_agrees_with_the_reference_model():
    for down, up, deadline in [("09:30", "10:10", "5m"), ("09:30", "10:07", "35m"), ("09:12", "10:34", 0),
                               ("09:30", "09:35", "5m"), ("10:00", "11:00", "60m")]:
        assert mx.lanes(down, up, deadline, engine=True) == mx.lanes(down, up, deadline)
        lines = mx.engine_check(down, up, deadline).splitlines()
        assert len(lines) == 8
        assert all("engine = reference" in line and "lost 0" in line and "duplicates 0" in line
                   for line in lines[1:])


def test_engine_check_text():
    counts = [("snap", 9, 0), ("snap-v5", 9, 0), ("epoch", 10, 0), ("release", 9, 0), ("all", 11, 0), ("once", 9, 0), ("skip", 8, 1)]
    assert mx.engine_check().splitlines() == ["pump down 09:30 \u2192 10:10, skip deadline 5 min"] + [
        f"{p + ':':8} engine = reference \u00b7 {n} jobs \u00b7 skipped {k} \u00b7 lost 0 \u00b7 duplicates 0 "
        "\u00b7 registry rows 1" for p, n, k in counts]


def test_snap_arithmetic():
    e = Every("15m")
    phase = e.phase(t("09:07"))
    assert phase == 7 * MIN
    assert e.after(t("09:37"), t("10:10"), phase, "offset") == t("10:22")
    assert e.after(t("09:37"), t("10:10"), phase, "epoch") == t("10:15")
    assert mx.snap_arithmetic().splitlines() == [
        "every  = 900000 ms (15 min); offset = phase of the first run 09:07 = 420000 ms (7 min)",
        f"prev   = {t('09:37')} (09:37, the slot the row holds); now = {t('10:10')} (10:10, the release)",
        f"prev + every = {t('09:52')} (09:52) < now: missed, snap forward",
        f"floor(now/every)*every = {t('10:00')} (10:00)",
        f"offset snap: a = {t('10:00')} + 420000 = {t('10:07')} (10:07); a <= now, so a + every = {t('10:22')} (10:22)",
        f"v5 snap:     {t('10:00')} + 900000 + 420000 = {t('10:22')} (10:22)",
        f"epoch snap:  {t('10:00')} + 900000 = {t('10:15')} (10:15)",
        f'Every("15m").after(prev, now, 420000, "offset")    = {t("10:22")} (10:22)',
        f'Every("15m").after(prev, now, 420000, "offset-v5") = {t("10:22")} (10:22)',
        f'Every("15m").after(prev, now, 420000, "epoch")     = {t("10:15")} (10:15)',
    ]
    # restart at 10:05: a = 10:07 is still ahead, so the offset snap lands there
    assert mx.snap_arithmetic("09:37", "10:05").splitlines()[4] == \
        f"offset snap: a = {t('10:00')} + 420000 = {t('10:07')} (10:07); a > now, so a = {t('10:07')} (10:07)"
    # ... where the 5.59-5.80.0 formula steps over 10:07 to 10:22, and the legacy one goes to 10:15
    assert mx.snap_arithmetic("09:37", "10:05").splitlines()[5:] == [
        f"v5 snap:     {t('10:00')} + 900000 + 420000 = {t('10:22')} (10:22)",
        f"epoch snap:  {t('10:00')} + 900000 = {t('10:15')} (10:15)",
        f'Every("15m").after(prev, now, 420000, "offset")    = {t("10:07")} (10:07)',
        f'Every("15m").after(prev, now, 420000, "offset-v5") = {t("10:22")} (10:22)',
        f'Every("15m").after(prev, now, 420000, "epoch")     = {t("10:15")} (10:15)',
    ]
    assert mx.snap_arithmetic("09:37", "09:45") == (
        f"prev + every = {t('09:52')} (09:52) is not before now = {t('09:45')} (09:45): "
        "nothing to snap, the next run is 09:52 under all three formulas")


def test_schedule_and_inputs():
    assert mx.schedule("release").rule == "release"
    assert (mx.schedule("skip", "5m").missed, mx.schedule("skip", "5m").deadline) == ("skip", 300_000)
    assert mx.schedule("snap").missed == "snap"
    with pytest.raises(ValueError, match=r"^policy 'late' is not one of snap, snap-v5, epoch, release, all, once, skip$"):
        mx.schedule("late")
    assert mx.instant("9:30") == t("09:30")
    with pytest.raises(ValueError, match=r"^pump down '25:00' is not a time; give HH:MM"):
        mx.outage("25:00", "10:10")
    with pytest.raises(ValueError, match=r"^pump down 09:00 is before the schedule starts at 09:07"):
        mx.outage("09:00", "10:10")


# -- the view ----------------------------------------------------------------------------------

def test_default_readout_is_the_example(view):
    assert view.update().splitlines() == EXAMPLE
    assert view.readout().splitlines() == EXAMPLE


def test_artists_after_the_default(view):
    view.update()
    y = view.y
    assert y == {"snap": 6, "snap-v5": 5, "epoch": 4, "release": 3, "all": 2, "once": 1, "skip": 0}
    rel = view.released.get_offsets()
    skip_lane = sorted(x for x, yy in rel.tolist() if yy == 0)
    assert skip_lane == ts("09:07", "09:22", "10:22", "10:37", "10:52", "11:07", "11:22", "11:37")
    all_lane = sorted(x for x, yy in rel.tolist() if yy == 2)
    assert all_lane[2:5] == [t("10:10"), t("10:10") + 1000, t("10:10") + 2000]
    assert view.slots.get_offsets().tolist() == [
        [t("09:37"), 6], [t("09:37"), 5], [t("09:37"), 4], [t("09:37"), 3], [t("09:37"), 2], [t("09:52"), 2], [t("10:07"), 2],
        [t("10:07"), 1]]
    assert [s.tolist() for s in view.links.get_segments()][-1] == [[t("10:07"), 1], [t("10:10"), 1]]
    assert view.skipped.get_offsets().tolist() == [[t("09:37"), 0]]
    assert [s.tolist() for s in view.skip_links.get_segments()] == [[[t("09:37"), 0], [t("10:10"), 0]]]
    assert view.collapsed.get_offsets().tolist() == [
        [t("09:52"), 6], [t("10:07"), 6], [t("09:52"), 5], [t("10:07"), 5], [t("09:52"), 4], [t("10:07"), 4], [t("09:52"), 3], [t("10:07"), 3],
        [t("09:37"), 1], [t("09:52"), 1], [t("09:52"), 0], [t("10:07"), 0]]
    assert (view.band.get_x(), view.band.get_width()) == (t("09:30"), 40 * MIN)
    assert [c.get_text() for c in view.counts] == ["", "", "", "", "\u00d73", "", ""]
    assert view.counts[4].get_position()[0] == t("10:10")
    assert view._title.get_text() == "pump down 09:30 \u2192 10:10 \u00b7 skip deadline 5 min"


def test_moving_the_restart_and_the_deadline(view):
    text = view.update(up="10:07")
    assert text.splitlines()[1] == "snap:    10:07 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept"
    assert text.splitlines()[4] == "release: 10:07 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept"
    assert text.splitlines()[6] == "once:    10:07 (slot 10:07), then 10:22, 10:37 \u00b7 phase :07 kept"
    assert (view.band.get_x(), view.band.get_width()) == (t("09:30"), 37 * MIN)
    text = view.update(up=t("10:10"), deadline="35m")
    assert text.splitlines()[7] == \
        "skip:    10:10 (slot 09:37, 33 min late \u2264 35 min), then 10:22, 10:37 \u00b7 phase :07 kept"
    assert view.skipped.get_offsets().shape == (0, 2)
    assert view._title.get_text().endswith("skip deadline 35 min")
    text = view.update(down="09:30", up="09:35")
    assert text.splitlines() == ["pump down 09:30 \u2192 09:35 (5 min): no slot missed"] + [
        f"{p + ':':9}nothing missed; next 09:37, 09:52 \u00b7 phase :07 kept" for p in mx.POLICIES]


def test_an_outage_ending_before_it_starts_is_a_readout_not_an_exception(view):
    message = ("pump up 10:00 is before pump down 10:30: the outage must end after it starts; "
               "move pump up to 10:30 or later")
    assert view.update(down="10:30", up="10:00") == message
    assert view.readout() == message
    assert view.lanes is None
    assert view.released.get_offsets().shape == (0, 2)
    assert view.links.get_segments() == []
    assert view.band.get_width() == 0
    assert view._title.get_text() == "pump down 10:30, up 10:00: no outage to draw"
    # moving the restart past the start draws again
    assert view.update(up="10:40").splitlines()[0] == \
        "pump down 10:30 \u2192 10:40 (10 min): slot 10:37 missed"


def test_bad_values_raise(view):
    with pytest.raises(ValueError, match=r"^pump down '09:05' is not a slider position; give a whole minute "
                                         r"from 09:10 to 11:00$"):
        view.update(down="09:05")
    with pytest.raises(ValueError, match=r"^pump up 'soon' is not a time"):
        view.update(up="soon")
    with pytest.raises(ValueError, match=r"^deadline '-5m' is negative"):
        view.update(deadline="-5m")
    with pytest.raises(ValueError, match=r"^deadline '90s' is not a slider position"):
        view.update(deadline="90s")
    assert view.update().splitlines() == EXAMPLE   # a refused value changed nothing


def test_moves_are_valid_and_refresh(view):
    moves = view.moves()
    assert len(moves) == 20
    for kw in moves:
        assert view.update(**kw).startswith("pump down ")
        assert view.live.refresh()[:8] == b"\x89PNG\r\n\x1a\n"
    assert view.update(down="09:30", up="10:10", deadline="5m").splitlines() == EXAMPLE


def test_panel_callbacks():
    pytest.importorskip("ipywidgets")
    panel = mx.missed_panel()
    assert 'id="missed-readout"' in panel.readout.value
    assert panel.on_up({"new": t("10:07")}).splitlines()[1] == \
        "snap:    10:07 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept"
    assert "10:07 (slot 09:37)" in panel.readout.value
    assert panel.on_deadline({"new": 35 * MIN}).splitlines()[7].startswith("skip:    10:07 (slot 09:37, 30 min late")
    assert panel.on_down({"new": t("10:30")}).startswith("pump up 10:07 is before pump down 10:30")
    assert "is before pump down" in panel.readout.value
    assert panel.on_down({"new": t("09:30")}).splitlines()[0] == \
        "pump down 09:30 \u2192 10:07 (37 min): slots 09:37, 09:52, 10:07 missed"
    assert panel.view.live.image.value[:8] == b"\x89PNG\r\n\x1a\n"
    assert panel.player.play.max == len(mx.TIMES) - 1
    assert [o[1] for o in panel.up.options] == list(mx.TIMES)
    assert panel.deadline.options[5] == ("5 min", 5 * MIN)


def test_presenter_mode_builds():
    from emqsim.figures.style import present

    present(True)
    try:
        v = mx.missed_view()
        assert v.update().splitlines() == EXAMPLE
        assert np.asarray(v.released.get_sizes())[0] == 12.0 ** 2
    finally:
        present(False)


def test_every_outage_on_a_10_minute_lattice():
    # the lanes' promises, for every outage the sliders reach in 10-min steps
    grid = range(t("09:10"), t("11:00") + 1, 10 * MIN)
    for down in grid:
        for up in (u for u in grid if u >= down):
            ls = {lane.policy: lane for lane in mx.lanes(down, up, "5m")}
            text = mx.readout_text(down, up, list(ls.values()))
            assert len(text.splitlines()) == 8
            missed = ls["snap"].missed
            assert all((r - t("09:07")) % (15 * MIN) == 0 for r in ls["snap"].then)      # phase kept
            assert all((r - t("09:07")) % (15 * MIN) == 0 for r in ls["snap-v5"].then)   # phase kept
            # the two job-scheduler snaps differ only when the nearest :07 slot is still ahead
            # of the release: the 5.59-5.80.0 formula steps over it, one gap later
            if ls["snap"].then and ls["snap-v5"].then and ls["snap"].then[0] != ls["snap-v5"].then[0]:
                assert ls["snap-v5"].then[0] == ls["snap"].then[0] + 15 * MIN
            # the epoch snap moves to quarter hours only when prev + every is behind the release;
            # a row late by less than a gap just takes prev + every, still on :07
            if missed and up > missed[0] + 15 * MIN:
                assert all(r % (15 * MIN) == 0 for r in ls["epoch"].then)
            else:
                assert all((r - t("09:07")) % (15 * MIN) == 0 for r in ls["epoch"].then)
            assert [s for s, _ in ls["all"].catch_up] == list(missed)                    # one job per slot
            for p in ("snap", "snap-v5", "epoch", "release", "once"):
                assert len(ls[p].catch_up) == (1 if missed else 0)
            if missed:
                assert ls["release"].then[0] == up + 15 * MIN
                assert ls["once"].catch_up[0][0] == missed[-1]                           # the latest slot
                assert ls["snap"].catch_up[0][0] == missed[0]                            # the row's slot
                assert len(ls["skip"].skipped) + len(ls["skip"].catch_up) == 1
