"""Lesson 03's cadence and slip models and text helpers: exact frames and the facts each readout
states (one test per readout that its words carry them), computed lazily, and bad control values
refused before anything is kept."""

from __future__ import annotations

import numpy as np
import pytest

from emqsim import InputError
from emqsim.lessons.course import MINUTE, START
from emqsim.lessons import start_to_start as cd
from emqsim.engine.durations import format_duration
from emqsim.engine.timefmt import at, hm

T0 = START
MIN = MINUTE


def hhmm(*times):
    return tuple(at(f"2026-11-30 {t}") for t in times)


@pytest.fixture(scope="module")
def cadence():
    return cd.CadenceModel()


@pytest.fixture(scope="module")
def slip():
    return cd.SlipModel()


def lane(frame, rule):
    return next(x for x in frame.lanes if x.rule == rule)


def verdicts(frame):
    """The facts each lit lane's verdict line states, in the readout's order."""
    return [cd.verdict_facts(x.rule, x.starts, 15 * MIN, frame.run * MIN) for x in frame.lanes if x.lit]


# -- the cadence model ----------------------------------------------------------------------

def test_run_4_both(cadence):
    f = cadence.frame(run=4, measure="both")
    sched, fin = lane(f, "schedule"), lane(f, "finish")
    assert verdicts(f) == [
        {"rule": "schedule", "starts": sched.starts, "slips": (0,), "holds": True, "zero_run": False},
        {"rule": "finish", "starts": fin.starts, "slips": (4 * MIN,), "holds": False, "zero_run": False}]
    assert sched.starts == hhmm("09:00", "09:15", "09:30", "09:45")
    assert fin.starts == hhmm("09:00", "09:19", "09:38", "09:57")
    assert fin.finishes == hhmm("09:04", "09:23", "09:42", "10:01")
    assert fin.labels == ("09:00", "09:19", "09:38", "09:57")
    # the gaps run from the anchor to the score the engine wrote: the next start
    assert fin.gaps == tuple(zip(hhmm("09:04", "09:23", "09:42"), hhmm("09:19", "09:38", "09:57")))
    assert sched.gaps == tuple(zip(hhmm("09:00", "09:15", "09:30"), hhmm("09:15", "09:30", "09:45")))
    assert (sched.gap_text, fin.gap_text) == ("15 min from the start", "15 min from the finish")
    assert fin.gap_at == (hhmm("09:04")[0] + hhmm("09:19")[0]) / 2
    assert sched.lit and fin.lit
    assert f.title == "every 15 min from 09:00, each run takes 4 min \u00b7 lit: both"
    assert f.lane_names == ("start-to-start\nnext = start + 15 min", "start-to-finish\nnext = finish + 15 min")


def test_the_axis_holds_the_longest_runs_and_is_the_same_in_every_frame(cadence):
    assert cadence.frame(run=4).span == (at("2026-11-30 08:55"), at("2026-11-30 10:45"))
    last = max(lane(cadence.frame(run=14), r).finishes[-1] for r in cd.LANES)
    assert last == at("2026-11-30 10:41")      # 09:00 + 3 x 29 min + 14 min
    assert {cadence.frame(run=r).span for r in (0, 7, 14)} == {cadence.frame(run=4).span}


def test_measure_lights_one_lane(cadence):
    f = cadence.frame(run=4, measure="start-to-start")
    assert [(v["rule"], v["slips"]) for v in verdicts(f)] == [("schedule", (0,))]
    assert (lane(f, "schedule").lit, lane(f, "finish").lit) == (True, False)
    assert f.title.endswith("lit: start-to-start, the other greyed")
    f = cadence.frame(run=4, measure="start-to-finish")
    assert [(v["rule"], v["starts"], v["slips"]) for v in verdicts(f)] == [
        ("finish", hhmm("09:00", "09:19", "09:38", "09:57"), (4 * MIN,))]
    assert (lane(f, "schedule").lit, lane(f, "finish").lit) == (False, True)


def test_run_0_both_hold(cadence):
    f = cadence.frame(run=0, measure="both")
    assert [(v["rule"], v["holds"], v["zero_run"]) for v in verdicts(f)] == [("schedule", True, False),
                                                                            ("finish", True, True)]
    assert lane(f, "finish").starts == hhmm("09:00", "09:15", "09:30", "09:45")
    assert lane(f, "finish").finishes == lane(f, "finish").starts


def test_run_14_finish_drifts_14(cadence):
    f = cadence.frame(run=14, measure="start-to-finish")
    assert [(v["holds"], v["slips"]) for v in verdicts(f)] == [(False, (14 * MIN,))]
    assert lane(f, "finish").starts == hhmm("09:00", "09:29", "09:58", "10:27")
    assert lane(f, "schedule").starts == hhmm("09:00", "09:15", "09:30", "09:45")
    assert [b - a for a, b in zip(lane(f, "finish").starts, lane(f, "finish").finishes)] == [14 * MIN] * 4


def test_every_run_value_drifts_by_the_run(cadence):
    for run in cd.RUNS:
        f = cadence.frame(run=run)
        assert lane(f, "finish").starts == tuple(T0 + k * (15 + run) * MIN for k in range(4))
        assert lane(f, "schedule").starts == tuple(T0 + k * 15 * MIN for k in range(4))


def test_lane_verdict_words():
    every = 15 * MIN
    uneven = [T0, T0 + 16 * MIN, T0 + 33 * MIN]
    assert cd.verdict_facts("finish", uneven, every, MIN)["slips"] == (MIN, 2 * MIN)


@pytest.mark.parametrize("run, measure", [(0, "both"), (4, "both"), (14, "start-to-finish")])
def test_the_cadence_readout_states_its_facts(cadence, run, measure):
    """The one test of the verdict's words: each lit lane's line names its starts, then that
    the gap holds (with the 0-min note) or each distinct drift."""
    f = cadence.frame(run=run, measure=measure)
    lines = f.readout.splitlines()
    assert len(lines) == len(verdicts(f))
    for line, v in zip(lines, verdicts(f)):
        assert line.startswith(cd.LABEL[v["rule"]] + ": " + ", ".join(hm(s) for s in v["starts"]))
        assert ("holds at :00" in line) == v["holds"]
        assert ("0-min run" in line) == v["zero_run"]
        assert v["holds"] or all(format_duration(d) in line for d in v["slips"])
    uneven = cd.lane_verdict("finish", [T0, T0 + 16 * MIN, T0 + 33 * MIN], 15 * MIN, MIN)
    assert "+1 min, +2 min" in uneven


def refused(model, accepted: str, **kw) -> str:
    """The one-line InputError a bad control value raises: it names the control, the value and
    what is accepted, and nothing was computed or kept for it."""
    (name, value), = kw.items()
    control = model.control(name)
    with pytest.raises(InputError) as info:
        model.frame(**kw)
    message = str(info.value)
    assert message.startswith((control.label, control.name)) and repr(value) in message, message
    assert accepted in message and "\n" not in message, message
    assert info.value.arg == name
    assert not model._frames
    return message


@pytest.mark.parametrize("kw, accepted", [({"run": 15}, "14"), ({"run": -1}, "14"), ({"run": 4.0}, "14"),
                                          ({"measure": "finish"}, "start-to-start")])
def test_bad_values_name_the_value(kw, accepted):
    model = cd.CadenceModel()
    refused(model, accepted, **kw)
    assert not model._marks                         # refused before anything was computed


def test_lazy_the_model_and_its_first_frame_run_only_their_own_lanes():
    model = cd.CadenceModel()
    assert not model._marks and model._span is None
    model.frame()
    assert set(model._marks) == {("schedule", 4), ("finish", 4)}
    assert model.frame() is model.frame(run=4, measure="both")       # cached
    model.frame(measure="start-to-start")
    assert set(model._marks) == {("schedule", 4), ("finish", 4)}     # a measure reuses the lanes


def test_reachable_is_every_run_and_measure():
    combos, held = cd.CadenceModel().reachable()
    assert held == [] and len(combos) == len(cd.RUNS) * len(cd.MEASURES)
    assert cd.CadenceModel().main().name == "run"


def test_lane_fires_are_the_engines():
    fires = cd.lane_fires("finish", "4m", fires=2)
    assert fires == ((T0, T0 + 4 * MIN, T0 + 19 * MIN), (T0 + 19 * MIN, T0 + 23 * MIN, T0 + 38 * MIN))
    with pytest.raises(InputError, match="rule 'slot'"):
        cd.lane_fires("slot", 0)


# -- the slip over a day ------------------------------------------------------------------

#: the finish rule's slip by run 96: 95 runs of 4 min, and 96 latencies of 20 ms
FINISH_96 = 95 * 4 * MIN + 96 * 20


def slip_facts(frame):
    """What the slip readout states per rule: the slip at the last run and how it grew."""
    return {x.rule: (x.slips[-1], cd.growth_facts(np.array(x.slips))) for x in frame.lines}


def test_slip_tick_1s_by_hand(slip):
    n = np.arange(1, 97)
    f = slip.frame(tick=1000)
    assert slip_facts(f) == {"schedule": (920, {"kind": "range", "lo": 20, "hi": 1000}),
                             "release": (1920, {"kind": "step", "lo": 20}),
                             "finish": (FINISH_96, {"kind": "step", "lo": 4 * MIN + 20})}
    # EchoMQ's pump re-arms a tick after each sweep, so its beats follow the release (20 ms after a
    # beat). now + every (a whole number of ticks later) is then on a beat: 20 ms lost a run. The slot
    # rule's score stays on the clock, so the beat's phase against it grows by 20 ms and wraps at 1 s.
    assert slip.slips("schedule", 1000).tolist() == (20 * ((n - 1) % 50 + 1)).tolist()
    assert slip.slips("release", 1000).tolist() == (20 * n).tolist()
    assert slip.slips("finish", 1000).tolist() == (20 * n + (n - 1) * 4 * MIN).tolist()
    release = next(x for x in f.lines if x.rule == "release")
    assert release.slips == release.drawn == tuple((20 * n).tolist())
    assert next(x for x in f.lines if x.rule == "finish").label == "finish: run's end + 15 min\nrun 96: 6 h 20 min 1.92 s late"
    assert f.runs == tuple(range(1, 97))
    assert f.title == ("EchoMQ's pump wakes every 1 s (its tick), adding a job to the queue takes 20 ms, "
                       "each run 4 min")
    assert slip.frame(tick=0).title == ("EchoMQ's pump wakes just when a run is due (tick 0), adding a job to "
                                        "the queue takes 20 ms, each run 4 min")
    assert f.xlabel == "run number (every 15 min, from 09:00)"


def test_slip_tick_0_loses_only_the_latency(slip):
    n = np.arange(1, 97)
    assert slip_facts(slip.frame(tick=0)) == {"schedule": (20, {"kind": "flat"}),
                                              "release": (1920, {"kind": "step", "lo": 20}),
                                              "finish": (FINISH_96, {"kind": "step", "lo": 4 * MIN + 20})}
    assert slip.slips("release", 0).tolist() == (20 * n).tolist()
    assert slip.slips("finish", 0).tolist() == (20 + (n - 1) * (4 * MIN + 20)).tolist()


def test_slip_tick_5s(slip):
    assert slip_facts(slip.frame(tick=5000)) == {"schedule": (1920, {"kind": "step", "lo": 20}),
                                                 "release": (1920, {"kind": "step", "lo": 20}),
                                                 "finish": (FINISH_96, {"kind": "step", "lo": 4 * MIN + 20})}


@pytest.mark.parametrize("tick", [0, 1000])
def test_the_slip_readout_states_its_facts(slip, tick):
    """The one test of the slip readout's words: the run, the tick and each rule's last slip."""
    f = slip.frame(tick=tick)
    assert f.readout.startswith(f"by run 96, pump tick {cd.tick_text(tick)}: ")
    for line in f.lines:
        last, _ = slip_facts(f)[line.rule]
        assert f"{line.rule} +{format_duration(last)} ({cd.growth(np.array(line.slips))})" in f.readout


def test_a_slip_of_0_is_drawn_on_the_floor():
    f = cd.SlipModel(latency=0).frame(tick=0)
    sched = next(x for x in f.lines if x.rule == "schedule")
    assert sched.slips == (0,) * 96 and sched.drawn == (cd.FLOOR,) * 96


def test_the_slip_axis_is_the_same_at_every_tick(slip):
    tops = {slip.frame(tick=t).top for t in cd.TICKS}
    assert tops == {3 * int(slip.slips("finish", 1000).max())}


def test_the_clock_is_the_schedule_rule_on_time():
    slots = cd.clock_slots(T0, 15 * MIN, 4)
    assert slots.tolist() == [T0 + k * 15 * MIN for k in range(4)]
    with pytest.raises(ValueError):
        slots[0] = 0                                     # shared: read-only


def test_on_a_fixed_grid_the_release_rule_loses_a_whole_tick_a_run():
    n = np.arange(1, 13)
    assert cd.slips("release", 1000, cycles=12, beat="grid").tolist() == (20 + (n - 1) * 1000).tolist()
    assert cd.slips("schedule", 1000, cycles=12, beat="grid").tolist() == [20] * 12


def test_the_release_rules_slip_is_a_range():
    """The readouts name their assumption: the simulated sweep costs only the enqueue latency,
    while EchoMQ's sweep (pump.ex sweep/1 at fiberfx echo_mq b9f34ed0) also runs Jobs.promote,
    Repeat.due and the flow outbox read before it re-arms."""
    assert cd.lost_per_cycle(ticks=(1000, 1500, 5000)) == {
        (1000, "grid"): (1000, 1000), (1000, "rearm"): (20, 20), (1500, "grid"): (1500, 1500),
        (1500, "rearm"): (20, 20), (5000, "grid"): (5000, 5000), (5000, "rearm"): (20, 20)}
    assert cd.period_gaps() == {(0, "grid"): (2000,), (0, "rearm"): (2000,), (20, "grid"): (2000,),
                                (20, "rearm"): (2020,)}
    # the texts name their assumption and each number
    ranges, periods = cd.slip_ranges(ticks=(1000, 5000)), cd.periods()
    assert cd.CHEAP_SWEEP in ranges and cd.CHEAP_SWEEP in periods
    assert "grid 1 s \u00b7 rearm 20 ms" in ranges and "grid 5 s \u00b7 rearm 20 ms" in ranges
    assert "grid 2000 ms \u00b7 rearm 2020 ms" in periods


def test_growth_words():
    assert cd.growth(np.array([5, 5, 5])) == "flat"
    assert cd.growth(np.array([5, 25, 45])) == "+20 ms a run"
    assert cd.growth(np.array([5, 25, 1025])) == "+20 ms to +1 s a run"
    assert cd.growth(np.array([980, 1000, 20, 40])) == "between 20 ms and 1 s"


@pytest.mark.parametrize("tick", [0, 1000, 2500])
@pytest.mark.parametrize("beat", ["grid", "rearm"])
def test_slip_engine_agrees_with_reference(tick, beat):
    for rule in cd.SLIP_RULES:
        assert (cd.slips(rule, tick, cycles=12, engine=True, beat=beat).tolist()
                == cd.slips(rule, tick, cycles=12, beat=beat).tolist())


def test_engine_agrees_text():
    assert cd.engine_agreement(tick=1000, cycles=6) == {"schedule": True, "release": True, "finish": True}
    assert cd.engine_agrees(tick=1000, cycles=6).count("for 6 runs: True") == 3


def test_without_latency_the_release_rule_stays_on_the_beat():
    assert cd.slips("release", 1000, cycles=12, latency=0, engine=True).tolist() == [0] * 12


def test_slip_bad_tick():
    model = cd.SlipModel()
    refused(model, "5000", tick=700)
    assert not model._slips


def test_slip_lazy_and_a_short_day():
    model = cd.SlipModel(cycles=8)
    assert not model._slips
    f = model.frame(tick=0)
    assert f.runs[-1] == 8 and f.readout.startswith("by run 8,")
    assert slip_facts(f) == {"schedule": (20, {"kind": "flat"}), "release": (160, {"kind": "step", "lo": 20}),
                             "finish": (7 * 4 * MIN + 8 * 20, {"kind": "step", "lo": 4 * MIN + 20})}
    assert set(model._slips) == {(rule, 0) for rule in cd.SLIP_RULES}
    combos, held = model.reachable()
    assert [c["tick"] for c in combos] == list(cd.TICKS) and held == []
    assert model.positions("tick", {})[3] == ("1 s", 1000)


# -- the two pages' rules ------------------------------------------------------------------

def test_rule_rows_every_1500_tick_1000():
    rows = cd.rule_rows(every=1500, tick=1000, fires=4)
    assert rows["release"] == [(T0, T0), (T0 + 1500, T0 + 2000), (T0 + 3500, T0 + 4000), (T0 + 5500, T0 + 6000)]
    assert rows["schedule"] == [(T0, T0), (T0 + 1500, T0 + 2000), (T0 + 3000, T0 + 3000), (T0 + 4500, T0 + 5000)]


def test_rule_table_text():
    """The table's rows are `rule_rows` (tested above); its two summary lines are `period_readout`'s."""
    rows = cd.rule_rows()
    table = cd.rule_table().splitlines()
    assert len(table) == 2 + len(rows["schedule"]) + 2
    assert table[0].startswith("every 1500 ms, pump tick 1000 ms (rearm)")
    assert table[-2:] == cd.period_readout(rows, 1500).splitlines()[1:]
    for n, ((s1, r1), (s2, r2)) in enumerate(zip(rows["schedule"], rows["release"]), 1):
        assert table[1 + n].split() == [str(n), cd.hmsms(s1), cd.hmsms(r1), cd.hmsms(s2), cd.hmsms(r2)]


def test_period_readout_effective_period():
    rows = cd.rule_rows(every=1500, tick=1000, fires=6)
    assert cd.period_facts(rows, 1500) == {
        "every": 1500, "slot_gaps": (1500,), "lags": (0, 500), "release_gaps": (2000,),
        "releases": tuple(T0 + 2000 * k for k in range(6))}
    text = cd.period_readout(rows, 1500)
    assert "every 1500 ms" in text and "slots 1500 ms apart" in text and "0/500 ms" in text
    assert "released 2000 ms apart" in text and text.endswith("09:00:10.000")


# -- EchoMQ's advance -----------------------------------------------------------------------

def advance_calls(store=None):
    """`advance_facts` compact: (call, answer, code or None, next or None, rows, ZCARD) per call."""
    return [(f["call"], f["answer"], f.get("code"), f.get("next"), f["rows"], f["size"])
            for f in cd.advance_facts(store)]


#: register at 09:00, released 20 ms late and advanced to now + every, cancelled, then the late
#: tick's advance finds no record: the answers and the registry after each call
ADVANCE = [("register", "registered", None, None, [("reports", T0)], 1),
           ("advance", "advanced", 1, T0 + 15 * MIN + 20, [("reports", T0 + 15 * MIN + 20)], 1),
           ("cancel", "cancelled", None, None, [], 0),
           ("advance", "absent", 0, T0 + 30 * MIN + 20, [], 0)]


def test_advance_demo_text():
    assert advance_calls() == ADVANCE
    text = cd.advance_demo().splitlines()
    assert len(text) == 7 and text[0].endswith(": registered") and "first run 09:00:00.000" in text[0]
    assert "now + every = 09:15:00.020): advanced (1)" in text[2] and text[3].endswith("09:15:00.020   ZCARD 1")
    assert text[4] == "cancel(reports): cancelled"
    assert text[5].endswith("advance(reports, 09:30:00.020): absent (0)") and text[6].endswith("(empty)   ZCARD 0")


def test_advance_demo_same_on_every_backend(store):
    assert advance_calls(store) == ADVANCE
    assert store.client.zcard(store.keys.repeat) == 0
    assert store.client.exists(store.keys.record("reports")) == 0


def test_advance_demo_follows_the_lag():
    assert "now + every = 09:15:00.100" in cd.advance_demo(lag=100)


def test_hmsms():
    assert cd.hmsms(T0 + 1500) == "09:00:01.500"
