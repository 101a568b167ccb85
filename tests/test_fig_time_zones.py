"""Cron in a time zone: the readout, the plotted runs and the pickers' callbacks, exact. The
cron-parser and BullMQ facts here are the ones cron-parser 5.10.3 gives (tests/test_oracle_cron.py)."""

from __future__ import annotations

import matplotlib
import pytest

from emqsim.figures import time_zones as tz
from emqsim.timefmt import at

matplotlib.use("Agg")

NY = "America/New_York"
FALL_NY = "\n".join([
    "America/New_York 2026-11-01: at 06:00Z clocks go back from 02:00 EDT to 01:00 EST, "
    "so 01:00-01:59 happens twice (a 25-hour day)",
    "30 2 * * * fires once by croniter, 02:30 EST (07:30Z); Debian cron, cron-parser and BullMQ agree with croniter",
    # cron-parser runs the repeated 01:30 once, in its first pass, like Debian cron (the recording says so)
    "30 1 * * * fires twice by croniter, 01:30 EDT (05:30Z) and 01:30 EST (06:30Z); "
    "once by Debian cron, cron-parser and BullMQ, 01:30 EDT (05:30Z)",
    "0 * * * * fires 25 times by croniter, 01:00 twice (05:00Z and 06:00Z); "
    "Debian cron, cron-parser and BullMQ agree with croniter",
])
SPRING_NY = "\n".join([
    "America/New_York 2026-03-08: at 07:00Z clocks go forward from 02:00 EST to 03:00 EDT, "
    "so 02:00-02:59 never happens (a 23-hour day)",
    "30 2 * * * fires once by croniter, 03:00 EDT (07:00Z); Debian cron agrees with croniter; "
    "once by cron-parser and BullMQ, 03:30 EDT (07:30Z)",
    "30 1 * * * fires once by croniter, 01:30 EST (06:30Z); Debian cron, cron-parser and BullMQ agree with croniter",
    "0 * * * * fires 23 times by croniter, no 02:00; Debian cron, cron-parser and BullMQ agree with croniter",
])


@pytest.fixture()
def view():
    return tz.time_zones_view()


def visible(texts) -> list[tuple[str, float, str]]:
    return [(t.get_text(), round(t.get_position()[0], 6), t.get_ha()) for t in texts if t.get_visible()]


# -- the words ------------------------------------------------------------------------------------------

def test_default_is_new_york_falling_back(view):
    assert (view.zone, view.day) == (NY, "2026-11-01")
    assert view.readout() == FALL_NY
    assert tz.readout(NY, "2026-11-01") == FALL_NY


def test_spring_forward_readout(view):
    assert view.update(day="2026-03-08") == SPRING_NY


@pytest.mark.parametrize("zone, day, header", [
    ("UTC", "2026-11-01", "UTC 2026-11-01: no change, UTC (UTC+00:00) all day (a 24-hour day)"),
    (NY, "2026-06-15", "America/New_York 2026-06-15: no change, EDT (UTC-04:00) all day (a 24-hour day)"),
    ("Europe/London", "2026-03-29", "Europe/London 2026-03-29: at 01:00Z clocks go forward from 01:00 GMT "
                                    "to 02:00 BST, so 01:00-01:59 never happens (a 23-hour day)"),
    ("Australia/Sydney", "2026-04-05", "Australia/Sydney 2026-04-05: at 16:00Z clocks go back from 03:00 AEDT "
                                       "to 02:00 AEST, so 02:00-02:59 happens twice (a 25-hour day)"),
    # half an hour back: the day is 24.5 hours long (it used to read "a 24-hour day")
    ("Australia/Lord_Howe", "2026-04-05", "Australia/Lord_Howe 2026-04-05: at 15:00Z clocks go back from 02:00 +11 "
                                          "to 01:30 +1030, so 01:30-01:59 happens twice (a 24.5-hour day)"),
])
def test_day_headers(zone, day, header):
    assert tz.day_header(zone, day) == header


def test_london_springs_forward_over_one_thirty():
    assert tz.expression_line("30 1 * * *", "Europe/London", "2026-03-29") == (
        "30 1 * * * fires once by croniter, 02:00 BST (01:00Z); Debian cron agrees with croniter; "
        "once by cron-parser and BullMQ, 02:30 BST (01:30Z)")


def test_sydney_falls_back_over_two_thirty():
    assert tz.expression_line("30 2 * * *", "Australia/Sydney", "2026-04-05") == (
        "30 2 * * * fires twice by croniter, 02:30 AEDT (15:30Z) and 02:30 AEST (16:30Z); "
        "once by Debian cron, cron-parser and BullMQ, 02:30 AEDT (15:30Z)")


def test_every_half_hour_summarised():
    assert tz.expression_line("*/30 * * * *", NY, "2026-11-01") == (
        "*/30 * * * * fires 50 times by croniter, 01:00 twice (05:00Z and 06:00Z), "
        "01:30 twice (05:30Z and 06:30Z); Debian cron, cron-parser and BullMQ agree with croniter")
    assert tz.expression_line("*/30 * * * *", NY, "2026-03-08") == (
        "*/30 * * * * fires 46 times by croniter, no 02:00 or 02:30; "
        "Debian cron, cron-parser and BullMQ agree with croniter")


def test_where_bullmq_and_the_cron_parser_iterator_part():
    # one iterator notes the skipped 02:00 hour and runs all three slots in the landing hour;
    # BullMQ parses afresh from each run, so after 03:00 it has no note and goes to the next day
    assert tz.expression_line("*/20 2 * * *", NY, "2026-03-08") == (
        "*/20 2 * * * fires once by croniter, 03:00 EDT (07:00Z); never by Debian cron, no 02:00 or 02:20 or 02:40; "
        "3 times by cron-parser, 03:00 EDT (07:00Z), 03:20 EDT (07:20Z) and 03:40 EDT (07:40Z); "
        "BullMQ agrees with croniter")
    assert tz.expression_line("* 1 * * *", NY, "2026-11-01") == (
        "* 1 * * * fires 120 times by croniter, 01:00 twice (05:00Z and 06:00Z), 01:01 twice (05:01Z and 06:01Z), "
        + ", ".join(f"01:{m:02d} twice (05:{m:02d}Z and 06:{m:02d}Z)" for m in range(2, 60))
        + "; Debian cron agrees with croniter; 60 times by cron-parser and BullMQ")


def test_lane_text():
    assert tz.lane_text("debian", [1], [1, 2 * 3_600_000]) == "Debian cron skips 02:00Z"
    assert tz.lane_text("cron-parser", [1_800_000], [0]) == "cron-parser runs 00:30Z and skips 00:00Z"
    assert tz.lane_text("debian", [0], [0]) == ""
    assert tz.lane_text("cron-parser", [0], [0, 3_600_000], "cron-parser (and BullMQ)") == (
        "cron-parser (and BullMQ) skips 01:00Z")


# -- the plotted artists ------------------------------------------------------------------------------------

def test_fall_back_artists(view):
    # croniter: 30 2 at 02:30 EST (3.5 h after midnight EDT), 30 1 at 1.5 h and 2.5 h, hourly 0..24
    cron = view.marks["croniter"]
    assert list(cron.get_xdata()) == [3.5, 1.5, 2.5] + [float(h) for h in range(25)]
    assert list(cron.get_ydata()) == [0.0, -1.0, -1.0] + [-2.0] * 25
    assert list(view.marks["debian"].get_xdata()) == [] and list(view.marks["cron-parser"].get_xdata()) == []
    # Debian cron and cron-parser both skip croniter's second 01:30 (06:30Z)
    assert list(view.skipped.get_xdata()) == [2.5, 2.5] and list(view.skipped.get_ydata()) == [-1.3, -1.56]
    assert [visible(r) for r in view.labels] == [
        [("07:30Z", 3.9, "left")], [("05:30Z", 1.1, "right"), ("06:30Z", 2.9, "left")], []]
    assert [t.get_text() for t in view.counts] == ["", "", "25 runs"]
    assert visible(view.lanes["debian"]) == [("", 0, "left"), ("Debian cron skips 06:30Z", 2.9, "left"),
                                             ("", 0, "left")]
    assert [t.get_text() for t in view.lanes["cron-parser"]] == ["", "cron-parser (and BullMQ) skips 06:30Z", ""]
    # the change at 06:00Z (2 h after midnight EDT), the 01:00 hour shaded on both passes
    assert view.change.get_visible() and list(view.change.get_xdata()) == [2.0, 2.0]
    assert [(p.get_visible(), p.get_x(), p.get_width()) for p in view.passes] == [(True, 1.0, 1.0), (True, 2.0, 1.0)]
    assert view.after.get_x() == 25.0
    # labelled hours: every sixth and either side of the change; local over UTC, 01 twice
    assert view.tick_labels() == ["00\n04", "01\n05", "01\n06", "02\n07", "05\n10", "11\n16", "17\n22", "23\n04"]
    assert [t.get_position()[0] for t in view.hours if t.get_visible()] == [0, 1, 2, 3, 6, 12, 18, 24]
    assert view._title.get_text() == "America/New_York 2026-11-01: clocks go back at 06:00Z, a 25-hour day"
    assert view._xlabel.get_text() == "hour: local (America/New_York) over UTC"


def test_spring_forward_artists(view):
    view.update(day="2026-03-08")
    assert list(view.marks["croniter"].get_xdata())[:4] == [2.0, 1.5, 0.0, 1.0]
    assert len(view.marks["croniter"].get_xdata()) == 2 + 23
    assert list(view.marks["cron-parser"].get_xdata()) == [2.5]          # 03:30 EDT, 2.5 h after midnight
    assert list(view.marks["cron-parser"].get_ydata()) == [-0.56]
    assert list(view.skipped.get_xdata()) == [2.0] and list(view.skipped.get_ydata()) == [-0.56]
    assert view.lanes["cron-parser"][0].get_text() == "cron-parser (and BullMQ) runs 07:30Z and skips 07:00Z"
    assert [p.get_visible() for p in view.passes] == [False, False]
    assert view.after.get_x() == 23.0 and view._after_text.get_visible()
    assert view.tick_labels()[:3] == ["00\n05", "01\n06", "03\n07"]       # no 02 on the local clock


def test_utc_has_no_such_day(view):
    view.update(day="2026-03-08")
    text = view.update(zone="UTC")                 # the same date, now in UTC
    assert view.day == "2026-03-08"
    assert text.splitlines()[0] == "UTC 2026-03-08: no change, UTC (UTC+00:00) all day (a 24-hour day)"
    assert not view.change.get_visible()
    assert list(view.skipped.get_xdata()) == []
    assert [t.get_text() for t in view.counts] == ["", "", "24 runs"]
    assert view.tick_labels() == ["00\n00", "06\n06", "12\n12", "18\n18", "00\n00"]


def test_zone_change_keeps_the_kind_of_day(view):
    view.update(day="2026-03-08")                  # New York springs forward
    view.update(zone="Australia/Sydney")
    assert view.day == "2026-10-04"                # Sydney's spring-forward day
    view.update(zone="Europe/London")
    assert view.day == "2026-03-29"


def test_a_day_the_picker_does_not_offer(view):
    text = view.update(zone=NY, day="2026-12-25")
    assert text.splitlines()[0] == "America/New_York 2026-12-25: no change, EST (UTC-05:00) all day (a 24-hour day)"


def test_choices():
    assert [(c.day, c.kind) for c in tz.choices(NY)] == [
        ("2026-03-07", "before forward"), ("2026-03-08", "forward"), ("2026-03-09", "after forward"),
        ("2026-06-15", "ordinary"), ("2026-10-31", "before back"), ("2026-11-01", "back"),
        ("2026-11-02", "after back")]
    assert [c.label for c in tz.choices("UTC")] == [
        "2026-03-08 \u00b7 no change in UTC (New York goes forward)", "2026-06-15 \u00b7 no change",
        "2026-11-01 \u00b7 no change in UTC (New York goes back)"]
    assert [c.day for c in tz.choices("Australia/Sydney") if c.kind in ("back", "forward")] == [
        "2026-04-05", "2026-10-04"]


@pytest.mark.parametrize("kw, message", [
    ({"zone": "Mars/Base"}, "unknown time zone 'Mars/Base'"),
    ({"zone": "Asia/Tokyo"}, "zone 'Asia/Tokyo' is not one of America/New_York, Europe/London"),
    ({"day": "2026-11-31"}, "day '2026-11-31' is not a date"),
])
def test_bad_moves_name_the_value(view, kw, message):
    with pytest.raises(ValueError, match=message):
        view.update(**kw)
    assert (view.zone, view.day) == (NY, "2026-11-01")        # nothing moved


def test_moves_are_a_realistic_sweep(view):
    moves = view.moves()
    assert len(moves) == 20
    assert moves[:2] == [{"zone": NY, "day": "2026-03-07"}, {"zone": NY, "day": "2026-03-08"}]
    assert {"zone": "UTC"} in moves
    for kw in moves:
        assert view.update(**kw).startswith(view.zone + " ")


def test_key_is_laid_out_once(view):
    assert [t.get_text() for _, t in view.key] == ["croniter (emqsim)", "Debian cron (cronsim)", "cron-parser (BullMQ)",
                                                   "skipped", "change"]
    assert [m.get_marker() for m, _ in view.key] == ["o", "D", "s", "x", "None"]
    assert [m.get_color() for m, _ in view.key[:3]] == [tz.ROLE["cron"], tz.VERMILLION, tz.PURPLE]
    xs = [t.get_position()[0] for _, t in view.key]
    assert xs == sorted(xs) and 0 < xs[0] and xs[-1] < 1


def test_panel_offers_a_day_outside_the_picker(view):
    view.update(day="2026-12-25")
    p = tz.time_zones_panel(view)
    assert p.day.value == "2026-12-25"
    assert p.day.options[-1] == ("2026-12-25", "2026-12-25")


def test_refresh_renders_png(view):
    assert view.live.refresh()[:8] == b"\x89PNG\r\n\x1a\n"


# -- the panel's callbacks --------------------------------------------------------------------------------

def test_panel_callbacks(view):
    p = tz.time_zones_panel(view)
    assert p.zone.value == NY and p.day.value == "2026-11-01"
    assert f'id="{tz.READOUT_ID}"' in p.readout.value
    assert p.on_day({"new": "2026-03-08"}) == SPRING_NY
    text = p.on_zone({"new": "Europe/London"})
    assert text.splitlines()[0].startswith("Europe/London 2026-03-29: at 01:00Z clocks go forward")
    assert p.day.value == "2026-03-29"
    assert p.day.options[0] == ("2026-03-28 \u00b7 the day before clocks go forward", "2026-03-28")
    assert "Europe/London 2026-03-29" in p.readout.value
    # the zone callback's own swap of the day picker's options does not move the view again
    p.zone.value = "UTC"
    assert (view.zone, view.day) == ("UTC", "2026-03-08")
    assert p.day.value == "2026-03-08"
    p.day.value = "2026-06-15"
    assert view.day == "2026-06-15" and "UTC 2026-06-15" in p.readout.value


# -- the registry keeps one row, scored in UTC ---------------------------------------------------------------

def test_row_across_change():
    assert tz.row_across_change(fires=3) == "\n".join([
        "upsert 'nightly' cron '30 1 * * *' tz America/New_York at 2026-10-31 12:00 EDT: created",
        f"  nightly score {at('2026-11-01 05:30')} = 2026-11-01T05:30:00Z = 2026-11-01T01:30:00-04:00 EDT (rows: 1)",
        "  record: pattern '30 1 * * *', tz 'America/New_York'",
        f"fire 1: released 01:30 EDT (05:30Z) -> nightly score {at('2026-11-01 06:30')} = 2026-11-01T06:30:00Z"
        " = 2026-11-01T01:30:00-05:00 EST (rows: 1)",
        f"fire 2: released 01:30 EST (06:30Z) -> nightly score {at('2026-11-02 06:30')} = 2026-11-02T06:30:00Z"
        " = 2026-11-02T01:30:00-05:00 EST (rows: 1)",
        f"fire 3: released 01:30 EST (06:30Z) -> nightly score {at('2026-11-03 06:30')} = 2026-11-03T06:30:00Z"
        " = 2026-11-03T01:30:00-05:00 EST (rows: 1)",
    ])
