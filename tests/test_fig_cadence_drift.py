"""The cadence, slip and advance figures: marks, verdicts and readouts, exact."""

from __future__ import annotations

import re

import matplotlib
import numpy as np
import pytest
from matplotlib.colors import to_rgba

from emqsim.figures import cadence_drift as cd
from emqsim.figures.style import GREY, ROLE
from emqsim.timefmt import at

matplotlib.use("Agg")

T0 = at("2026-11-30 09:00")
MIN = 60_000


@pytest.fixture(scope="module")
def cadence():
    return cd.cadence_view()


@pytest.fixture(scope="module")
def slip():
    return cd.slip_view()


def hhmm(*times):
    return [at(f"2026-11-30 {t}") for t in times]


# -- the cadence view ----------------------------------------------------------------------

def test_run_4_marks_and_verdicts(cadence):
    text = cadence.update(run=4, measure="both")
    assert text == ("start-to-start: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45\n"
                    "start-to-finish: 09:00, 09:19, 09:38, 09:57 \u2014 drifts 4 min later each cycle")
    assert [b.get_x() for b in cadence.bars["schedule"]] == hhmm("09:00", "09:15", "09:30", "09:45")
    assert [b.get_x() for b in cadence.bars["finish"]] == hhmm("09:00", "09:19", "09:38", "09:57")
    assert [b.get_width() for b in cadence.bars["schedule"] + cadence.bars["finish"]] == [4 * MIN] * 8
    assert [t.get_text() for t in cadence.labels["finish"]] == ["09:00", "09:19", "09:38", "09:57"]
    assert list(cadence.starts["finish"].get_xdata()) == hhmm("09:00", "09:19", "09:38", "09:57")
    # the finish lane's gaps run from each finish to the next start
    segs = [[tuple(p) for p in s] for s in cadence.gaps["finish"].get_segments()]
    assert [(a[0], b[0]) for a, b in segs] == list(zip(hhmm("09:04", "09:23", "09:42"), hhmm("09:19", "09:38", "09:57")))
    segs = [[tuple(p) for p in s] for s in cadence.gaps["schedule"].get_segments()]
    assert [(a[0], b[0]) for a, b in segs] == list(zip(hhmm("09:00", "09:15", "09:30"), hhmm("09:15", "09:30", "09:45")))


def test_measure_selector_lights_one_lane(cadence):
    assert cadence.update(run=4, measure="start-to-start") == \
        "start-to-start: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45"
    assert cadence.bars["schedule"][0].get_facecolor() == to_rgba(ROLE["schedule"])
    assert cadence.bars["finish"][0].get_facecolor() == to_rgba(GREY, 0.35)
    assert cadence.update(measure="start-to-finish") == \
        "start-to-finish: 09:00, 09:19, 09:38, 09:57 \u2014 drifts 4 min later each cycle"
    assert cadence.bars["finish"][2].get_facecolor() == to_rgba(ROLE["finish"])
    assert cadence.bars["schedule"][2].get_facecolor() == to_rgba(GREY, 0.35)


def test_run_0_both_hold(cadence):
    assert cadence.update(run=0, measure="both") == (
        "start-to-start: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45\n"
        "start-to-finish: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45"
        " (a 0-min run adds nothing to the gap)")
    assert [b.get_width() for b in cadence.bars["finish"]] == [0] * 4


def test_run_14_finish_drifts_14(cadence):
    assert cadence.update(run=14, measure="start-to-finish") == \
        "start-to-finish: 09:00, 09:29, 09:58, 10:27 \u2014 drifts 14 min later each cycle"
    assert [b.get_x() for b in cadence.bars["finish"]] == hhmm("09:00", "09:29", "09:58", "10:27")
    assert [b.get_x() for b in cadence.bars["schedule"]] == hhmm("09:00", "09:15", "09:30", "09:45")
    assert [b.get_width() for b in cadence.bars["finish"]] == [14 * MIN] * 4


def test_every_run_value_drifts_by_the_run(cadence):
    for run in cd.RUNS:
        starts = [st for st, _ in cadence.marks[("finish", run)]]
        assert starts == [T0 + k * (15 + run) * MIN for k in range(4)]
        assert [st for st, _ in cadence.marks[("schedule", run)]] == [T0 + k * 15 * MIN for k in range(4)]


@pytest.mark.parametrize("kw, msg", [({"run": 15}, "run (min) 15 is not one of 0, 1,"),
                                     ({"run": -1}, "run (min) -1 is not"),
                                     ({"measure": "finish"}, "measure 'finish' is not one of start-to-start,")])
def test_bad_input_names_the_value(cadence, kw, msg):
    with pytest.raises(ValueError, match=re.escape(msg)):
        cadence.update(**kw)


def test_cadence_panel_callbacks():
    p = cd.cadence_panel(cd.cadence_view())
    assert p.on_run({"new": 14}) == ("start-to-start: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45\n"
                                     "start-to-finish: 09:00, 09:29, 09:58, 10:27 \u2014 drifts 14 min later each cycle")
    assert "10:27" in p.readout.value and 'id="cadence-verdict"' in p.readout.value
    assert p.on_measure({"new": "start-to-start"}) == \
        "start-to-start: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45"
    assert p.view.live.image.value[:4] == b"\x89PNG"


def test_cadence_moves_run(cadence):
    moves = cadence.moves()
    assert len(moves) == 20
    for kw in moves:
        assert isinstance(cadence.update(**kw), str)


# -- the slip over a day ------------------------------------------------------------------

def test_slip_by_hand_tick_1s(slip):
    n = np.arange(1, 97)
    assert slip.update(tick=1000) == (
        "by run 96, pump tick 1 s: schedule +920 ms (between 20 ms and 1 s) \u00b7 release +1.92 s (+20 ms a run)"
        " \u00b7 finish +6 h 20 min 1.92 s (+4 min 0.02 s a run)")
    # EchoMQ's pump re-arms a tick after each sweep, so its beats follow the release (20 ms after a
    # beat). now + every (a whole number of ticks later) is then on a beat: 20 ms lost a run. The slot
    # rule's score stays on the clock, so the beat's phase against it grows by 20 ms and wraps at 1 s.
    assert slip.slip[("schedule", 1000)].tolist() == (20 * ((n - 1) % 50 + 1)).tolist()
    assert slip.slip[("release", 1000)].tolist() == (20 * n).tolist()
    assert slip.slip[("finish", 1000)].tolist() == (20 * n + (n - 1) * 4 * MIN).tolist()
    assert slip.lines["release"].get_ydata().tolist() == (20 * n).tolist()
    assert slip.ends["finish"].get_text() == "finish: finish + every\n+6 h 20 min 1.92 s"
    assert slip.ends["release"].get_position()[1] == 1920


def test_on_a_fixed_grid_the_release_rule_loses_a_whole_tick_a_run():
    n = np.arange(1, 13)
    assert cd.slips("release", 1000, cycles=12, beat="grid").tolist() == (20 + (n - 1) * 1000).tolist()
    assert cd.slips("schedule", 1000, cycles=12, beat="grid").tolist() == [20] * 12


def test_the_release_rules_slip_is_a_range():
    assert cd.slip_ranges(ticks=(1000, 1500, 5000)) == "\n".join([
        "release rule, every 15 min, enqueue latency 20 ms: lost per cycle over 96 runs",
        "  tick   1 s: grid 1 s \u00b7 rearm 20 ms",
        "  tick 1.5 s: grid 1.5 s \u00b7 rearm 20 ms",
        "  tick   5 s: grid 5 s \u00b7 rearm 20 ms"])
    assert cd.periods() == "\n".join([
        "release rule, every 1500 ms, pump tick 1000 ms: gap between releases over 8 runs",
        "  latency   0 ms: grid 2000 ms \u00b7 rearm 2000 ms",
        "  latency  20 ms: grid 2000 ms \u00b7 rearm 2020 ms"])


def test_growth_words():
    assert cd.growth(np.array([5, 5, 5])) == "flat"
    assert cd.growth(np.array([5, 25, 45])) == "+20 ms a run"
    assert cd.growth(np.array([5, 25, 1025])) == "+20 ms to +1 s a run"
    assert cd.growth(np.array([980, 1000, 20, 40])) == "between 20 ms and 1 s"


def test_slip_tick_0_loses_only_the_latency(slip):
    n = np.arange(1, 97)
    assert slip.update(tick=0) == (
        "by run 96, pump tick 0 (woken at the score): schedule +20 ms (flat) \u00b7 release +1.92 s (+20 ms a run)"
        " \u00b7 finish +6 h 20 min 1.92 s (+4 min 0.02 s a run)")
    assert slip.slip[("release", 0)].tolist() == (20 * n).tolist()
    assert slip.slip[("finish", 0)].tolist() == (20 + (n - 1) * (4 * MIN + 20)).tolist()


@pytest.mark.parametrize("tick", [0, 1000, 2500])
@pytest.mark.parametrize("beat", ["grid", "rearm"])
def test_slip_engine_agrees_with_reference(tick, beat):
    for rule in cd.SLIP_RULES:
        assert (cd.slips(rule, tick, cycles=12, engine=True, beat=beat).tolist()
                == cd.slips(rule, tick, cycles=12, beat=beat).tolist())


def test_without_latency_the_release_rule_stays_on_the_beat():
    assert cd.slips("release", 1000, cycles=12, latency=0, engine=True).tolist() == [0] * 12


def test_slip_bad_tick(slip):
    with pytest.raises(ValueError, match="tick \\(ms\\) 700"):
        slip.update(tick=700)


def test_slip_panel_callback():
    p = cd.slip_panel(cd.slip_view(cycles=8, ticks=(0, 1000)))
    assert p.on_tick({"new": 0}) == (
        "by run 8, pump tick 0 (woken at the score): schedule +20 ms (flat) \u00b7 release +160 ms (+20 ms a run)"
        " \u00b7 finish +28 min 0.16 s (+4 min 0.02 s a run)")
    assert 'id="slip-readout"' in p.readout.value
    assert [m["tick"] for m in p.view.moves()] == [0, 1000] * 10


def test_slip_moves_sweep_the_slider(slip):
    ticks = [m["tick"] for m in slip.moves()]
    assert ticks[:12] == [0, 250, 500, 1000, 1500, 2000, 2500, 3000, 4000, 5000, 4000, 3000]
    assert len(ticks) == 20
    for kw in slip.moves():
        assert slip.update(**kw).startswith("by run 96, pump tick ")


# -- the two pages' rules ------------------------------------------------------------------

def test_rule_rows_every_1500_tick_1000():
    rows = cd.rule_rows(every=1500, tick=1000, fires=4)
    assert rows["release"] == [(T0, T0), (T0 + 1500, T0 + 2000), (T0 + 3500, T0 + 4000), (T0 + 5500, T0 + 6000)]
    assert rows["schedule"] == [(T0, T0), (T0 + 1500, T0 + 2000), (T0 + 3000, T0 + 3000), (T0 + 4500, T0 + 5000)]


def test_rule_table_text():
    assert cd.rule_table() == "\n".join([
        "every 1500 ms, pump tick 1000 ms (rearm), sweep latency 0 ms",
        "run  schedule: slot      released   release: slot      released",
        "  1    09:00:00.000  09:00:00.000    09:00:00.000  09:00:00.000",
        "  2    09:00:01.500  09:00:02.000    09:00:01.500  09:00:02.000",
        "  3    09:00:03.000  09:00:03.000    09:00:03.500  09:00:04.000",
        "  4    09:00:04.500  09:00:05.000    09:00:05.500  09:00:06.000",
        "  schedule rule: slots 1500 ms apart, each released 0/500 ms after its slot",
        "  release rule:  released 2000 ms apart: 09:00:00.000, 09:00:02.000, 09:00:04.000, 09:00:06.000",
    ])


def test_period_readout_effective_period():
    text = cd.period_readout(cd.rule_rows(every=1500, tick=1000, fires=6), 1500)
    assert text.splitlines()[0] == "asked for every 1500 ms"
    assert text.splitlines()[2] == ("  release rule:  released 2000 ms apart: 09:00:00.000, 09:00:02.000, "
                                    "09:00:04.000, 09:00:06.000, 09:00:08.000, 09:00:10.000")


# -- EchoMQ's advance -----------------------------------------------------------------------

ADVANCE_TEXT = "\n".join([
    "register reports, every 15 min, first run 09:00:00.000: registered",
    "  registry: reports -> 09:00:00.000   ZCARD 1",
    "released at 09:00:00.020; advance(reports, now + every = 09:15:00.020): advanced (1)",
    "  registry: reports -> 09:15:00.020   ZCARD 1",
    "cancel(reports): cancelled",
    "a tick that read the row before the cancel: advance(reports, 09:30:00.020): absent (0)",
    "  registry: (empty)   ZCARD 0",
])


def test_advance_demo_text():
    assert cd.advance_demo() == ADVANCE_TEXT


def test_advance_demo_same_on_every_backend(store):
    assert cd.advance_demo(store) == ADVANCE_TEXT
    assert store.client.zcard(store.keys.repeat) == 0
    assert store.client.exists(store.keys.record("reports")) == 0


def test_hmsms():
    assert cd.hmsms(T0 + 1500) == "09:00:01.500"
