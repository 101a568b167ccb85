"""Lesson 01 as a model: the two rules' next runs, the marks on the axis, the facts the readout
states, and the one registry row each rule becomes; every instant from the engine."""

from __future__ import annotations


import pytest

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.errors import InputError
from emqsim.lessons import cron_vs_interval as ci
from emqsim.lessons.cron_vs_interval import (
    MAX_SLOTS,
    CronIntervalModel,
    cron_slots,
    next_run,
    one_timestamp,
    readout,
    registry_text,
)
from emqsim.engine.registry import Registry
from emqsim.engine.schedule import Schedule
from emqsim.engine.store import Store
from emqsim.engine.timefmt import at

MIN = 60_000
NOV30_9 = 1796029200000  # 2026-11-30T09:00:00Z
NOV30_0848 = NOV30_9 - 12 * MIN
NOV30_0901 = NOV30_9 + MIN
NOV30_0915 = NOV30_9 + 15 * MIN
DEC01_9 = NOV30_9 + 86_400_000
BAD = "61 * * * *"
BAD_MSG = ("invalid cron '61 * * * *'; write five fields such as '0 9 * * *' "
           "(minute hour day-of-month month day-of-week) or a macro like @hourly")


def test_fixture_instants():
    assert at("2026-11-30 08:48") == NOV30_0848 == ci.NOW
    assert at("2026-12-01 09:00") == DEC01_9
    assert (ci.AXIS_START, ci.AXIS_END) == (at("2026-11-30 08:00"), at("2026-11-30 10:00"))


# -- the rule: pure functions --------------------------------------------------------------


def test_cron_before_nine_is_today():
    assert next_run(NOV30_0848, "cron") == NOV30_9
    assert ci.readout_facts(NOV30_0848, "cron") == {"now": NOV30_0848, "rule": "cron 0 9 * * *", "next": NOV30_9,
                                                    "error": None}


def test_cron_at_nine_counts_the_slot_itself():
    assert next_run(NOV30_9, "cron") == NOV30_9 == ci.readout_facts(NOV30_9, "cron")["next"]
    assert Cron("0 9 * * *").after(NOV30_9) == DEC01_9  # croniter's strictly-after rule differs


def test_cron_after_nine_snaps_to_tomorrow():
    assert next_run(NOV30_0901, "cron") == DEC01_9 == ci.readout_facts(NOV30_0901, "cron")["next"]


def test_cron_days_away_shows_the_date():
    # 2026-11-30 is a Monday: past 09:00 the next Monday slot is a week later
    assert ci.readout_facts(NOV30_0901, "cron", expr="0 9 * * 1")["next"] == at("2026-12-07 09:00")


@pytest.mark.parametrize("now, mode, expr, when", [
    (NOV30_0848, "cron", "0 9 * * *", "09:00:00"),
    (NOV30_0901, "cron", "0 9 * * *", "09:00:00 (tomorrow, 2026-12-01)"),
    (NOV30_0901, "cron", "0 9 * * 1", "09:00:00 (2026-12-07)"),
    (NOV30_0901, "interval", "0 9 * * *", "09:15:00"),
])
def test_the_readout_states_its_facts(now, mode, expr, when):
    """The one test of the readout's words: now, the rule, and the next run's time, with its day
    when it is not today; a refused expression's error instead."""
    f = ci.readout_facts(now, mode, expr=expr)
    assert readout(now, mode, expr=expr) == f"now {ci.hm(f['now'])} | {f['rule']} -> next run {when}"
    assert ci.clock_and_day(f["next"], now) == when
    bad = ci.readout_facts(now, "cron", expr=BAD)
    assert (bad["next"], bad["error"]) == (None, BAD_MSG)
    assert readout(now, "cron", expr=BAD) == f"now {ci.hm(now)} | {BAD_MSG}"


@pytest.mark.parametrize("now, nxt, text", [
    (NOV30_0848, NOV30_9, "09:00:00"),
    (NOV30_9, NOV30_9, "09:00:00"),
    (NOV30_0901, NOV30_0915, "09:15:00"),
    (at("2026-11-30 07:50"), at("2026-11-30 08:00"), "08:00:00"),  # before the anchor: the anchor
])
def test_interval_next_is_first_mark_at_or_after_now(now, nxt, text):
    assert next_run(now, "interval") == nxt
    assert ci.readout_facts(now, "interval") == {"now": now, "rule": "every 15 min", "next": nxt, "error": None}
    assert ci.clock_and_day(nxt, now) == text


def test_interval_anchor():
    anchor = at("2026-11-30 07:07")
    assert next_run(at("2026-11-30 08:22"), "interval", anchor=anchor) == at("2026-11-30 08:22")
    assert next_run(at("2026-11-30 08:22") + 1, "interval", anchor=anchor) == at("2026-11-30 08:37")
    assert ci.readout_facts(NOV30_0901, "interval", anchor=at("2026-11-30 08:07"))["next"] == at("2026-11-30 09:07")


def test_the_interval_rule_is_the_engines():
    # the figure's next run is the score the engine's row holds: registered at the anchor,
    # released on time since (Schedule.on_time_score, from Schedule.first_run / Every.first)
    anchor = at("2026-11-30 08:00")
    for m in range(0, 121, 1):
        now = anchor + m * MIN
        for offset in (None, "7m"):
            s = Schedule("interval", Every("15m", offset))
            assert next_run(now, "interval", anchor=anchor, offset=offset) == s.on_time_score(anchor, now)
    # BullMQ's first run with an explicit offset is the next slot on that phase strictly after the
    # registration: registered 08:00 with offset 7 min, the first run is 08:07, not 08:00
    assert next_run(anchor, "interval", anchor=anchor, offset="7m") == at("2026-11-30 08:07")
    assert ci.readout_facts(anchor, "interval", anchor=anchor, offset="7m")["next"] == at("2026-11-30 08:07")
    # ... and registered exactly on a slot of that phase (08:07), it skips it: 08:22
    reg = at("2026-11-30 08:07")
    assert next_run(reg, "interval", anchor=reg, offset="7m") == at("2026-11-30 08:22")
    # without an offset the first run is the registration itself, and a later run due exactly now counts
    assert next_run(reg, "interval", anchor=reg) == reg
    assert next_run(at("2026-11-30 08:22"), "interval", anchor=reg) == at("2026-11-30 08:22")


def test_cron_slots_in_window_and_cap():
    start = at("2026-11-30 08:00")
    assert cron_slots("*/20 8-9 * * *").slots == tuple(start + k * 20 * MIN for k in range(6))
    assert cron_slots("*/20 8-9 * * *").note == ""
    none = cron_slots("0 12 * * *")
    assert (none.slots, none.note) == ((), "no cron slot in this window")
    capped = cron_slots("* * * * * *")
    assert len(capped.slots) == MAX_SLOTS and capped.note == f"first {MAX_SLOTS} cron slots drawn"
    bad = cron_slots(BAD)
    assert (bad.slots, bad.error, bad.note, bad.label) == ((), BAD_MSG, "invalid cron: see the readout",
                                                           "cron 61 * * * *")


def test_invalid_expression_is_a_readout_not_an_exception():
    assert ci.readout_facts(NOV30_0848, "cron", expr=BAD)["error"] == BAD_MSG
    assert ci.readout_facts(NOV30_0848, "cron", expr="0 0 30 2 *")["error"].endswith("it never matches")
    with pytest.raises(ValueError, match=r"^invalid cron '61 \* \* \* \*'"):
        next_run(NOV30_0848, "cron", expr=BAD)


def test_bad_mode_names_the_choices():
    with pytest.raises(ValueError, match=r"^mode 'hourly' is not one of cron, interval$"):
        readout(NOV30_0848, "hourly")


# -- the model: frames ------------------------------------------------------------------------


def test_controls():
    m = CronIntervalModel()
    now, mode, expr = m.controls
    assert (now.name, now.kind, now.label, now.main, now.default) == ("now", "slider", "now", True, NOV30_0848)
    assert [v for _, v in now.positions] == list(range(ci.AXIS_START, ci.AXIS_END + 1, MIN))
    assert now.positions[48] == ("08:48", NOV30_0848) and len(now.positions) == 121
    assert (now.play.step, now.play.max_step, now.play.label) == (1, 15, "min per step")
    assert mode.positions == (("cron", "cron"), ("interval", "interval")) and mode.default == "cron"
    assert (expr.kind, expr.default, expr.label) == ("text", "0 9 * * *", "cron")
    assert [v for _, v in expr.positions] == ["0 9 * * *", "*/20 8-9 * * *", "30 8 * * *", "0 12 * * *", BAD]
    assert m.main() is now


def test_first_frame():
    f = CronIntervalModel().frame()
    assert (f.now, f.mode, f.expr, f.next, f.row) == (NOV30_0848, "cron", "0 9 * * *", NOV30_9, 1)
    assert f.readout == f.title == readout(NOV30_0848, "cron")
    assert f.cron_slots == (NOV30_9,)
    assert f.interval_runs == tuple(range(at("2026-11-30 08:00"), at("2026-11-30 10:00") + 1, 15 * MIN))
    assert (f.cron_label, f.interval_label) == ("cron 0 9 * * *", "every 15 min\nfrom 08:00")
    assert (f.next_label, f.next_x, f.next_align) == ("next 09:00:00\nin 12 min", NOV30_9, "center")
    assert f.now_label == "now 08:48 " and f.note == "" and f.error is None


def test_the_interval_runs_are_the_engines():
    m = CronIntervalModel(offset="7m")
    f = m.frame(mode="interval")
    runs = Schedule("interval", Every("15m", "7m")).on_time_runs(ci.AXIS_START, ci.AXIS_START, ci.AXIS_END)
    assert f.interval_runs == tuple(runs)
    assert f.interval_runs[:2] == (at("2026-11-30 08:07"), at("2026-11-30 08:22"))
    assert f.interval_label == "every 15 min\nfrom 08:07"
    assert m.frame(mode="interval", now=at("2026-11-30 08:48")).next == at("2026-11-30 08:52")


def test_frames_along_the_slider():
    m = CronIntervalModel()
    f = m.frame(now=NOV30_9)
    assert f.next == NOV30_9 and f.readout == readout(NOV30_9, "cron")
    assert f.next_label == "next 09:00:00\ndue now"
    f = m.frame(now=NOV30_0901)
    assert f.next == DEC01_9  # off the axis: the edge label says where it went
    assert f.next_label == "next 09:00:00 (tomorrow, 2026-12-01) \u2192\nin 23 h 59 min"
    assert (f.next_x, f.next_align) == (ci.AXIS_END, "right")
    f = m.frame(now=NOV30_0901, mode="interval")
    assert f.readout == readout(NOV30_0901, "interval")
    assert (f.next, f.row, f.next_label) == (NOV30_0915, 0, "next 09:15:00\nin 14 min")
    for k in range(20):  # a sweep of now from 08:30 to 09:27, switching the rule every 5 moves
        now, mode = at("2026-11-30 08:30") + 3 * k * MIN, ci.MODES[(k // 5) % 2]
        assert m.frame(now=now, mode=mode).next == next_run(now, mode)


def test_another_expression_and_a_broken_one():
    m = CronIntervalModel()
    f = m.frame(expr="*/20 8-9 * * *")
    assert (f.next, f.readout) == (NOV30_9, readout(NOV30_0848, "cron", expr="*/20 8-9 * * *"))
    assert f.cron_slots == tuple(at("2026-11-30 08:00") + k * 20 * MIN for k in range(6))
    assert f.cron_label == "cron */20 8-9 * * *"
    f = m.frame(expr=BAD)
    assert f.readout == readout(NOV30_0848, "cron", expr=BAD)
    assert (f.next, f.error, f.cron_slots, f.next_label) == (None, BAD_MSG, (), "")
    assert f.note == "invalid cron: see the readout"
    assert f.title == "now 08:48 | invalid cron '61 * * * *'"
    # the interval still answers
    assert m.frame(expr=BAD, mode="interval").next == NOV30_9
    f = m.frame(expr="0 12 * * *")
    assert (f.note, f.next) == ("no cron slot in this window", at("2026-11-30 12:00"))
    assert f.next_label == "next 12:00:00 \u2192\nin 3 h 12 min"


def test_lazy_one_expression_at_a_time():
    m = CronIntervalModel()
    assert m._slots == {} and m._runs is None and not m._frames  # building computes nothing
    m.frame()
    assert list(m._slots) == ["0 9 * * *"] and len(m._frames) == 1
    m.frame(now=NOV30_9)
    m.frame(now=NOV30_0901, mode="interval")
    assert list(m._slots) == ["0 9 * * *"]  # the slots are shared by every now and rule
    assert m.frame(now=NOV30_9) is m.frame(now=NOV30_9)


@pytest.mark.parametrize("changes, match", [
    ({"now": NOV30_0848 + 1}, r"^now 1796028480001 is refused; give one of the 121 positions "
                              r"from 1796025600000 \(08:00\) to 1796032800000 \(10:00\)$"),
    ({"now": at("2026-11-30 10:01")}, "now 1796032860000 is refused"),
    ({"now": 1.5}, "now 1.5 is refused"),
    ({"mode": "hourly"}, "^rule 'hourly' is refused; give one of 'cron', 'interval'$"),
    ({"expr": 9}, "expr 9 is not text"),
    ({"zone": "UTC"}, "no control 'zone'"),
])
def test_bad_values_raise_and_keep_the_figure(changes, match):
    import matplotlib

    matplotlib.use("Agg")
    from emqsim.figures import catalogue

    fig = catalogue.figure("01 cron vs interval")
    fig.update(now=NOV30_0901, mode="interval")
    before = (dict(fig.values), fig.frame)
    with pytest.raises(InputError, match=match):
        fig.update(**changes)
    with pytest.raises(InputError, match=match):
        fig.update(**{"expr": "30 8 * * *", "mode": "cron", **changes})  # nor a good value beside it
    assert (fig.values, fig.frame) == before


def test_bad_model_arguments():
    with pytest.raises(InputError, match="offset 900000 ms is not shorter than every"):
        CronIntervalModel(offset="15m")
    with pytest.raises(InputError, match="anchor 'now' is not whole Unix ms"):
        CronIntervalModel(anchor="now")


def test_reachable_frames():
    m = CronIntervalModel()
    combos, held = m.reachable()
    assert held == ["expr"] and len(combos) == 121 * 2
    assert {c["expr"] for c in combos} == {"0 9 * * *"}


# -- one timestamp in Redis ---------------------------------------------------------------------


def test_one_timestamp_same_row_shape():
    with Store() as store:
        reg = Registry(store)
        assert one_timestamp(reg, NOV30_0848) == {"backup": "created", "heartbeat": "created"}
        assert reg.size() == 2
        assert store.client.zcard(store.keys.repeat) == 2
        assert reg.rows() == [("heartbeat", NOV30_0848), ("backup", NOV30_9)]
        assert reg.record("backup") == {"rule": "schedule", "template": "{}", "cadence": "cron:0 9 * * *:UTC",
                                         "pattern": "0 9 * * *", "tz": "UTC"}
        assert reg.record("heartbeat") == {"rule": "schedule", "template": "{}", "cadence": "every:900000:0",
                                           "every_ms": "900000", "offset": "180000"}
        # upserting again keeps both scores: one row per name
        assert one_timestamp(reg, NOV30_0848) == {"backup": "kept", "heartbeat": "kept"}
        assert reg.rows() == [("heartbeat", NOV30_0848), ("backup", NOV30_9)]
        # the text prints the rows and the records asserted above, member names and fields sorted
        text = registry_text(reg).splitlines()
        assert text[0] == "ZRANGE emq:{demo}:repeat 0 -1 WITHSCORES   (ZCARD 2)"
        assert [line.split()[:3] for line in text[1:3]] == [[name, "score", str(score)] for name, score in reg.rows()]
        fields = [line for line in text[3:] if not line.startswith("HGETALL")]
        want = [(k, v) for name, _ in reg.rows() for k, v in sorted(reg.record(name).items())]
        assert len(fields) == len(want)
        assert all(line.split()[0] == k and f" {v}" in line for line, (k, v) in zip(fields, want))
        assert [line for line in text if line.startswith("HGETALL")] == [
            "HGETALL emq:{demo}:repeat:heartbeat", "HGETALL emq:{demo}:repeat:backup"]
        assert [row.name for row in reg.due(NOV30_9)] == ["heartbeat", "backup"]


def test_registry_text_says_why_an_offset_free_interval_stores_an_offset():
    """Issue 28: `offset 180000` beside `every:900000:0` on a schedule the text calls offset-free
    read as wrong. The stored offset is the phase of the first run (BullMQ stores next mod every
    when none is given); each field says which it is, and the note's minutes are the field's."""
    with Store() as store:
        reg = Registry(store)
        one_timestamp(reg, NOV30_0848 + 2 * 60_000)      # 08:50: five minutes into the gap
        lines = registry_text(reg).splitlines()
    assert "  offset    300000   (the first run's phase, 5 min into the gap, kept for catch-up)" in lines
    assert "  cadence   every:900000:0   (as registered: no offset given)" in lines
    assert not any("pattern" in line and "(" in line for line in lines)


def test_registry_text_empty():
    with Store() as store:
        assert registry_text(Registry(store), queue="q") == "ZRANGE emq:{q}:repeat 0 -1 WITHSCORES   (ZCARD 0)"
