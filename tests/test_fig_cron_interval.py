from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest

from emqsim.cadence import Cron, Every
from emqsim.figures.cron_interval import (
    MAX_SLOTS,
    CronIntervalView,
    cron_slots,
    interval_marks,
    next_run,
    one_timestamp,
    panel,
    readout,
    registry_text,
    view,
)
from emqsim.figures.style import new_figure
from emqsim.registry import Registry
from emqsim.store import Store
from emqsim.timefmt import at

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
    assert at("2026-11-30 08:48") == NOV30_0848
    assert at("2026-12-01 09:00") == DEC01_9


# -- the rule: pure functions --------------------------------------------------------------


def test_cron_before_nine_is_today():
    assert next_run(NOV30_0848, "cron") == NOV30_9
    assert readout(NOV30_0848, "cron") == "now 08:48 | cron 0 9 * * * -> next run 09:00:00"


def test_cron_at_nine_counts_the_slot_itself():
    assert next_run(NOV30_9, "cron") == NOV30_9
    assert readout(NOV30_9, "cron") == "now 09:00 | cron 0 9 * * * -> next run 09:00:00"
    assert Cron("0 9 * * *").after(NOV30_9) == DEC01_9  # croniter's strictly-after rule differs


def test_cron_after_nine_snaps_to_tomorrow():
    assert next_run(NOV30_0901, "cron") == DEC01_9
    assert readout(NOV30_0901, "cron") == "now 09:01 | cron 0 9 * * * -> next run 09:00:00 (tomorrow, 2026-12-01)"


def test_cron_days_away_shows_the_date():
    # 2026-11-30 is a Monday: past 09:00 the next Monday slot is a week later
    assert readout(NOV30_0901, "cron", expr="0 9 * * 1") == "now 09:01 | cron 0 9 * * 1 -> next run 09:00:00 (2026-12-07)"


@pytest.mark.parametrize("now, nxt, text", [
    (NOV30_0848, NOV30_9, "09:00:00"),
    (NOV30_9, NOV30_9, "09:00:00"),
    (NOV30_0901, NOV30_0915, "09:15:00"),
    (at("2026-11-30 07:50"), at("2026-11-30 08:00"), "08:00:00"),  # before the anchor: the anchor
])
def test_interval_next_is_first_mark_at_or_after_now(now, nxt, text):
    assert next_run(now, "interval") == nxt
    assert readout(now, "interval").endswith(f"| every 15 min -> next run {text}")


def test_interval_marks_and_anchor():
    every = Every("15m")
    start, end = at("2026-11-30 08:00"), at("2026-11-30 10:00")
    assert interval_marks(start, end, start, every) == list(range(start, end + 1, 15 * MIN))
    anchor = at("2026-11-30 07:07")
    assert interval_marks(start, at("2026-11-30 08:40"), anchor, every) == [
        at("2026-11-30 08:07"), at("2026-11-30 08:22"), at("2026-11-30 08:37")]
    assert next_run(at("2026-11-30 08:22"), "interval", anchor=anchor) == at("2026-11-30 08:22")
    assert next_run(at("2026-11-30 08:22") + 1, "interval", anchor=anchor) == at("2026-11-30 08:37")


def test_the_interval_rule_is_the_engines():
    # the figure's next run is the score the engine's row holds: registered at the anchor,
    # released on time since (Schedule.on_time_score, from Schedule.first_run / Every.first)
    from emqsim.schedule import Schedule

    anchor = at("2026-11-30 08:00")
    for m in range(0, 121, 1):
        now = anchor + m * MIN
        for offset in (None, "7m"):
            s = Schedule("interval", Every("15m", offset))
            assert next_run(now, "interval", anchor=anchor, offset=offset) == s.on_time_score(anchor, now)
    # BullMQ's first run with an explicit offset is the next slot on that phase strictly after the
    # registration: registered 08:00 with offset 7 min, the first run is 08:07, not 08:00
    assert next_run(anchor, "interval", anchor=anchor, offset="7m") == at("2026-11-30 08:07")
    assert readout(anchor, "interval", anchor=anchor, offset="7m") == "now 08:00 | every 15 min -> next run 08:07:00"
    # ... and registered exactly on a slot of that phase (08:07), it skips it: 08:22
    reg = at("2026-11-30 08:07")
    assert next_run(reg, "interval", anchor=reg, offset="7m") == at("2026-11-30 08:22")
    # without an offset the first run is the registration itself, and a later run due exactly now counts
    assert next_run(reg, "interval", anchor=reg) == reg
    assert next_run(at("2026-11-30 08:22"), "interval", anchor=reg) == at("2026-11-30 08:22")
    assert interval_marks(anchor, at("2026-11-30 08:40"), anchor, Every("15m", "7m")) == [
        at("2026-11-30 08:07"), at("2026-11-30 08:22"), at("2026-11-30 08:37")]


def test_the_view_draws_the_engines_first_run():
    import matplotlib

    matplotlib.use("Agg")
    from emqsim.figures.cron_interval import view

    v = view(offset="7m", mode="interval")
    assert v.first == at("2026-11-30 08:07")
    assert list(v._interval.get_xdata())[:2] == [at("2026-11-30 08:07"), at("2026-11-30 08:22")]
    assert v.update(now=at("2026-11-30 08:48")) == "now 08:48 | every 15 min -> next run 08:52:00"


def test_cron_slots_in_window_and_cap():
    start, end = at("2026-11-30 08:00"), at("2026-11-30 10:00")
    assert cron_slots(Cron("*/20 8-9 * * *"), start, end) == [start + k * 20 * MIN for k in range(6)]
    assert cron_slots(Cron("0 12 * * *"), start, end) == []
    assert len(cron_slots(Cron("* * * * * *"), start, end)) == MAX_SLOTS


def test_invalid_expression_is_a_readout_not_an_exception():
    assert readout(NOV30_0848, "cron", expr=BAD) == f"now 08:48 | {BAD_MSG}"
    assert readout(NOV30_0848, "cron", expr="0 0 30 2 *").endswith("it never matches")
    with pytest.raises(ValueError, match=r"^invalid cron '61 \* \* \* \*'"):
        next_run(NOV30_0848, "cron", expr=BAD)


def test_bad_mode_names_the_choices():
    with pytest.raises(ValueError, match=r"^mode 'hourly' is not one of cron, interval$"):
        readout(NOV30_0848, "hourly")


# -- the figure: artists updated in place -------------------------------------------------------


@pytest.fixture
def v():
    return view()


def _x(line):
    return [int(x) for x in line.get_xdata()]


def test_first_drawing(v):
    assert (v.now, v.mode, v.next) == (NOV30_0848, "cron", NOV30_9)
    assert _x(v._now) == [NOV30_0848, NOV30_0848]
    assert _x(v._ring) == [NOV30_9] and list(v._ring.get_ydata()) == [1]
    assert _x(v._cron) == [NOV30_9]
    assert _x(v._interval) == list(range(at("2026-11-30 08:00"), at("2026-11-30 10:00") + 1, 15 * MIN))
    assert v._title.get_text() == "now 08:48 | cron 0 9 * * * -> next run 09:00:00"
    assert v._next_text.get_text() == "next 09:00:00\nin 12 min"
    assert v._now_text.get_text() == "now 08:48 "
    assert [t.get_text() for t in v.ax.get_yticklabels()] == ["every 15 min\nfrom 08:00", "cron 0 9 * * *"]


def test_update_moves_now_and_ring(v):
    assert v.update(now=NOV30_9) == "now 09:00 | cron 0 9 * * * -> next run 09:00:00"
    assert _x(v._now) == [NOV30_9, NOV30_9] and _x(v._ring) == [NOV30_9]
    assert v._next_text.get_text() == "next 09:00:00\ndue now"

    text = v.update(now=NOV30_0901)
    assert text == "now 09:01 | cron 0 9 * * * -> next run 09:00:00 (tomorrow, 2026-12-01)"
    assert _x(v._ring) == [DEC01_9]  # off the axis: the edge label says where it went
    assert _x(v._wait) == [NOV30_0901, DEC01_9]
    assert v._next_text.get_text() == "next 09:00:00 (tomorrow, 2026-12-01) \u2192\nin 23 h 59 min"
    assert v._next_text.get_position() == (v.end, 1.3)
    assert v._next_text.get_horizontalalignment() == "right"


def test_update_switches_rule(v):
    assert v.update(now=NOV30_0901, mode="interval") == "now 09:01 | every 15 min -> next run 09:15:00"
    assert _x(v._ring) == [NOV30_0915] and list(v._ring.get_ydata()) == [0]
    assert (v._interval.get_alpha(), v._cron.get_alpha()) == (1.0, 0.3)
    assert v._next_text.get_text() == "next 09:15:00\nin 14 min"
    assert v.update(mode="cron") == "now 09:01 | cron 0 9 * * * -> next run 09:00:00 (tomorrow, 2026-12-01)"
    assert (v._interval.get_alpha(), v._cron.get_alpha()) == (0.3, 1.0)


def test_update_new_expression_redraws_slots(v):
    text = v.update(expr="*/20 8-9 * * *")
    assert text == "now 08:48 | cron */20 8-9 * * * -> next run 09:00:00"
    assert _x(v._cron) == [at("2026-11-30 08:00") + k * 20 * MIN for k in range(6)]
    assert v.ax.get_yticklabels()[1].get_text() == "cron */20 8-9 * * *"
    assert v._note.get_text() == ""


def test_update_invalid_expression(v):
    text = v.update(expr=BAD)
    assert text == f"now 08:48 | {BAD_MSG}"
    assert (v.cron, v.next, v.error) == (None, None, BAD_MSG)
    assert _x(v._cron) == [] and _x(v._ring) == [] and _x(v._wait) == []
    assert v._note.get_text() == "invalid cron: see the readout"
    assert v._title.get_text() == "now 08:48 | invalid cron '61 * * * *'"
    # the interval still answers, and a good expression brings the slots back
    assert v.update(mode="interval") == "now 08:48 | every 15 min -> next run 09:00:00"
    assert v.update(mode="cron", expr="0 9 * * *") == "now 08:48 | cron 0 9 * * * -> next run 09:00:00"
    assert _x(v._cron) == [NOV30_9] and v._note.get_text() == ""


def test_window_without_slots_says_so(v):
    v.update(expr="0 12 * * *")
    assert v._note.get_text() == "no cron slot in this window"
    assert _x(v._ring) == [at("2026-11-30 12:00")]


def test_view_on_given_axes_and_bad_window():
    fig, ax = new_figure()
    w = CronIntervalView(ax, now=NOV30_0901, mode="interval", anchor=at("2026-11-30 08:07"))
    assert w.live.fig is fig
    assert w.update() == "now 09:01 | every 15 min -> next run 09:07:00"
    fig2, ax2 = new_figure()
    with pytest.raises(ValueError, match=r"^end 1 ms is not after start 2 ms$"):
        CronIntervalView(ax2, start=2, end=1)


def test_moves_sweep_and_render(v):
    moves = v.moves()
    assert len(moves) == 20
    assert moves[0] == {"now": at("2026-11-30 08:30"), "mode": "cron"}
    assert moves[-1] == {"now": at("2026-11-30 09:27"), "mode": "interval"}
    assert {m["mode"] for m in moves} == {"cron", "interval"}
    for kw in moves:
        v.update(**kw)
        assert _x(v._now) == [kw["now"]] * 2
        assert _x(v._ring) == [next_run(kw["now"], kw["mode"])]
    assert v.live.refresh()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the panel: callbacks called directly -----------------------------------------------------


def test_panel_callbacks():
    p = panel()
    assert p.readout.value == '<code id="cron-interval-readout">now 08:48 | cron 0 9 * * * -&gt; next run 09:00:00</code>'
    assert p.now.value == NOV30_0848 and p.now.label == "08:48"
    assert p.now.continuous_update is True
    assert p.mode.label == "cron 0 9 * * *"

    assert p.on_now({"new": NOV30_0901}) == "now 09:01 | cron 0 9 * * * -> next run 09:00:00 (tomorrow, 2026-12-01)"
    assert _x(p.view._now) == [NOV30_0901] * 2
    assert p.on_mode({"new": "interval"}) == "now 09:01 | every 15 min -> next run 09:15:00"
    assert _x(p.view._ring) == [NOV30_0915]
    assert "next run 09:15:00</code>" in p.readout.value

    # trying an expression switches to the cron rule and relabels the switch
    assert p.on_expr({"new": " */20 8-9 * * * "}) == "now 09:01 | cron */20 8-9 * * * -> next run 09:20:00"
    assert (p.view.mode, p.mode.value, p.mode.label) == ("cron", "cron", "cron */20 8-9 * * *")
    assert _x(p.view._ring) == [at("2026-11-30 09:20")]

    assert p.on_expr({"new": BAD}) == f"now 09:01 | {BAD_MSG}"
    assert p.readout.value == f'<code id="cron-interval-readout">now 09:01 | {BAD_MSG.replace(chr(39), "&#x27;")}</code>'


def test_panel_widgets_drive_the_view():
    p = panel()
    p.now.value = NOV30_9
    assert p.view.now == NOV30_9 and "next run 09:00:00</code>" in p.readout.value
    p.mode.value = "interval"
    assert p.view.mode == "interval"
    p.expr.value = "0 9 * * *"  # unchanged text: no event
    p.expr.value = "30 8 * * *"
    assert p.view.mode == "cron" and p.mode.value == "cron"
    assert "next run 08:30:00 (tomorrow, 2026-12-01)</code>" in p.readout.value
    assert len(p.box.children) == 4


# -- one timestamp in Redis ---------------------------------------------------------------------


def test_one_timestamp_same_row_shape():
    with Store() as store:
        reg = Registry(store)
        assert one_timestamp(reg, NOV30_0848) == {"reports": "created", "heartbeat": "created"}
        assert reg.size() == 2
        assert store.client.zcard(store.keys.repeat) == 2
        assert reg.rows() == [("heartbeat", NOV30_0848), ("reports", NOV30_9)]
        assert reg.record("reports") == {"rule": "schedule", "template": "{}", "cadence": "cron:0 9 * * *:UTC",
                                         "pattern": "0 9 * * *", "tz": "UTC"}
        assert reg.record("heartbeat") == {"rule": "schedule", "template": "{}", "cadence": "every:900000:0",
                                           "every_ms": "900000", "offset": "180000"}
        # upserting again keeps both scores: one row per name
        assert one_timestamp(reg, NOV30_0848) == {"reports": "kept", "heartbeat": "kept"}
        assert reg.rows() == [("heartbeat", NOV30_0848), ("reports", NOV30_9)]
        assert registry_text(reg) == "\n".join([
            "ZRANGE emq:{demo}:repeat 0 -1 WITHSCORES   (ZCARD 2)",
            "  heartbeat  score 1796028480000  = 08:48:00",
            "  reports    score 1796029200000  = 09:00:00",
            "HGETALL emq:{demo}:repeat:heartbeat",
            "  cadence   every:900000:0",
            "  every_ms  900000",
            "  offset    180000",
            "  rule      schedule",
            "  template  {}",
            "HGETALL emq:{demo}:repeat:reports",
            "  cadence   cron:0 9 * * *:UTC",
            "  pattern   0 9 * * *",
            "  rule      schedule",
            "  template  {}",
            "  tz        UTC",
        ])


def test_registry_text_empty():
    with Store() as store:
        assert registry_text(Registry(store), queue="q") == "ZRANGE emq:{q}:repeat 0 -1 WITHSCORES   (ZCARD 0)"


def test_panel_around_a_given_view(v):
    v.update(now=NOV30_9, mode="interval")
    p = panel(v)
    assert p.view is v and p.mode.value == "interval" and p.now.label == "09:00"
    assert p.readout.value.endswith("every 15 min -&gt; next run 09:00:00</code>")
