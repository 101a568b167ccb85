"""Lesson 07's model and texts, exact: the facts the readouts state (one test each that the words
carry them), the frame's hours, the days each zone offers, and the texts the notebook prints. The
cron-parser and BullMQ facts here are the ones cron-parser 5.10.3 gives (tests/test_oracle_cron.py)."""

from __future__ import annotations

import pytest

from emqsim import InputError
from emqsim.lessons import cron_time_zones as tz
from emqsim.lessons.cron_time_zones import RuleMarks, RunTag, TimeZonesModel
from emqsim.engine.timefmt import abbreviation, at, iso, label, utc, utc_offset

NY = "America/New_York"


def header(zone, day):
    """What `day_header` states of a day, compact: ("no change", abbreviation, UTC offset, hours),
    or (when UTC, which way, wall clock before, after, the hour skipped or repeated, hours)."""
    f = tz.day_facts(zone, day)
    c, hours = f["change"], f["length"] / 3_600_000
    if c is None:
        return ("no change", f["abbreviation"], utc_offset(f["offset"]), hours)
    return (utc(c["at"]), "forward" if c["forward"] else "back", " ".join(c["from"]), " ".join(c["to"]),
            "-".join(c["hour"]), hours)


def runs(expr, zone, day):
    """Each rule's runs of `expr` on the local day, labelled ('01:30 EDT (05:30Z)'): the facts an
    expression's line states (it names them, or summarises many)."""
    return {rule: [label(t, zone) for t in slots] for rule, slots in tz.day_rules(expr, zone, day)[0].items()}


def same(labels, *rules):
    return {r: labels for r in rules}


@pytest.fixture()
def model():
    return TimeZonesModel()


# -- the readouts ---------------------------------------------------------------------------------------

def test_default_is_new_york_falling_back(model):
    assert model.defaults() == {"zone": NY, "day": "back"}
    assert model.frame().readout == tz.readout(NY, "2026-11-01")
    assert header(NY, "2026-11-01") == ("06:00Z", "back", "02:00 EDT", "01:00 EST", "01:00-01:59", 25.0)
    assert tz.EXPRESSIONS == ("30 2 * * *", "30 1 * * *", "0 * * * *")
    assert runs("30 2 * * *", NY, "2026-11-01") == same(["02:30 EST (07:30Z)"], *tz.dst.ALL)
    # cron-parser runs the repeated 01:30 once, in its first pass, like Debian cron (the recording says so)
    assert runs("30 1 * * *", NY, "2026-11-01") == {"croniter": ["01:30 EDT (05:30Z)", "01:30 EST (06:30Z)"],
                                                    **same(["01:30 EDT (05:30Z)"], "debian", "cron-parser", "bullmq")}
    hourly = runs("0 * * * *", NY, "2026-11-01")
    assert {r: len(v) for r, v in hourly.items()} == same(25, *tz.dst.ALL)
    assert len(set(map(tuple, hourly.values()))) == 1 and hourly["croniter"][1:3] == ["01:00 EDT (05:00Z)",
                                                                                       "01:00 EST (06:00Z)"]


def test_spring_forward_readout(model):
    assert model.frame(day="forward").readout == tz.readout(NY, "2026-03-08")
    assert header(NY, "2026-03-08") == ("07:00Z", "forward", "02:00 EST", "03:00 EDT", "02:00-02:59", 23.0)
    assert runs("30 2 * * *", NY, "2026-03-08") == {**same(["03:00 EDT (07:00Z)"], "croniter", "debian"),
                                                    **same(["03:30 EDT (07:30Z)"], "cron-parser", "bullmq")}
    assert runs("30 1 * * *", NY, "2026-03-08") == same(["01:30 EST (06:30Z)"], *tz.dst.ALL)
    hourly = runs("0 * * * *", NY, "2026-03-08")
    assert {r: len(v) for r, v in hourly.items()} == same(23, *tz.dst.ALL)
    assert not any(x.startswith("02:00") for x in hourly["croniter"])


@pytest.mark.parametrize("zone, day", [(NY, "2026-11-01"), (NY, "2026-03-08"), ("Europe/London", "2026-03-29"),
                                       ("Australia/Sydney", "2026-04-05"), ("UTC", "2026-06-15")])
def test_the_readout_states_its_facts(zone, day):
    """The one test of the readout's words: the header names the zone, the day, the change (when,
    which way, the clocks either side, the hour) or the zone's time all day, and the length; each
    expression's line names its runs by croniter, and every other rule agrees or names its own."""
    lines = tz.readout(zone, day).splitlines()
    facts = header(zone, day)
    assert lines[0] == tz.day_header(zone, day)         # its words: test_the_header_states_its_facts
    assert all(x in lines[0] for x in facts[:-1]) and f"a {facts[-1]:g}-hour day" in lines[0]
    for expr, line in zip(tz.EXPRESSIONS, lines[1:]):
        got = runs(expr, zone, day)
        assert line.startswith(f"{expr} fires ")
        if len(got["croniter"]) <= 3:
            assert all(x in line for x in got["croniter"])
        for rule in tz.dst.ALL[1:]:
            name = tz.dst.RULE_NAMES[rule]
            assert name in line
            if got[rule] != got["croniter"] and len(got[rule]) <= 3:
                assert all(x in line for x in got[rule])


@pytest.mark.parametrize("zone, day, facts", [
    ("UTC", "2026-11-01", ("no change", "UTC", "UTC+00:00", 24.0)),
    (NY, "2026-06-15", ("no change", "EDT", "UTC-04:00", 24.0)),
    (NY, "2026-12-25", ("no change", "EST", "UTC-05:00", 24.0)),
    ("Europe/London", "2026-03-29", ("01:00Z", "forward", "01:00 GMT", "02:00 BST", "01:00-01:59", 23.0)),
    ("Australia/Sydney", "2026-04-05", ("16:00Z", "back", "03:00 AEDT", "02:00 AEST", "02:00-02:59", 25.0)),
    # half an hour back: the day is 24.5 hours long (it used to read "a 24-hour day")
    ("Australia/Lord_Howe", "2026-04-05", ("15:00Z", "back", "02:00 +11", "01:30 +1030", "01:30-01:59", 24.5)),
])
def test_day_headers(zone, day, facts):
    assert header(zone, day) == facts


@pytest.mark.parametrize("zone, day, facts", [
    # changes at the edge of the local day belong to it (these read "no change ... (a 23-hour day)")
    ("America/Havana", "2026-03-08", ("05:00Z", "forward", "00:00 CST", "01:00 CDT", "00:00-00:59", 23.0)),
    ("America/Santiago", "2026-09-06", ("04:00Z", "forward", "00:00 -04", "01:00 -03", "00:00-00:59", 23.0)),
    ("Africa/Cairo", "2026-04-24", ("22:00Z", "forward", "00:00 EET", "01:00 EEST", "00:00-00:59", 23.0)),
    ("America/Nuuk", "2026-03-28", ("01:00Z", "forward", "23:00 -02", "00:00 -01", "23:00-23:59", 23.0)),
    # Santiago falls back at midnight: the hour repeated is 23:00-23:59 of 4 April, not the one after it
    ("America/Santiago", "2026-04-04", ("03:00Z", "back", "00:00 -03", "23:00 -04", "23:00-23:59", 25.0)),
    ("America/Santiago", "2026-04-05", ("no change", "-04", "UTC-04:00", 24.0)),
    ("America/Nuuk", "2026-03-29", ("no change", "-01", "UTC-01:00", 24.0)),
])
def test_day_headers_at_the_edge_of_the_day(zone, day, facts):
    assert header(zone, day) == facts
    assert tz.title(zone, day).split(": ")[1].startswith("no change" if facts[0] == "no change" else "clocks go")


@pytest.mark.parametrize("zone, day", [("UTC", "2026-11-01"), ("Europe/London", "2026-03-29"),
                                       ("Australia/Sydney", "2026-04-05"), ("Australia/Lord_Howe", "2026-04-05")])
def test_the_header_states_its_facts(zone, day):
    """The one test of the header's words: each fact of `day_facts` is in it."""
    text, facts = tz.day_header(zone, day), header(zone, day)
    assert text.startswith(f"{zone} {day}: ") and text.endswith(f"(a {facts[-1]:g}-hour day)")
    if facts[0] == "no change":
        assert f"no change, {facts[1]} ({facts[2]}) all day" in text
    else:
        at_, way, before, after, hour, _ = facts
        assert f"at {at_} clocks go {way} from {before} to {after}, so {hour} " in text


def test_london_springs_forward_over_one_thirty():
    assert runs("30 1 * * *", "Europe/London", "2026-03-29") == {
        **same(["02:00 BST (01:00Z)"], "croniter", "debian"), **same(["02:30 BST (01:30Z)"], "cron-parser", "bullmq")}


def test_sydney_falls_back_over_two_thirty():
    assert runs("30 2 * * *", "Australia/Sydney", "2026-04-05") == {
        "croniter": ["02:30 AEDT (15:30Z)", "02:30 AEST (16:30Z)"],
        **same(["02:30 AEDT (15:30Z)"], "debian", "cron-parser", "bullmq")}


def test_every_half_hour_summarised():
    fall = runs("*/30 * * * *", NY, "2026-11-01")
    assert {r: len(v) for r, v in fall.items()} == same(50, *tz.dst.ALL) and len(set(map(tuple, fall.values()))) == 1
    twice = sorted({x[:5] for x in fall["croniter"] if sum(y[:5] == x[:5] for y in fall["croniter"]) == 2})
    assert twice == ["01:00", "01:30"]
    spring = runs("*/30 * * * *", NY, "2026-03-08")
    assert {r: len(v) for r, v in spring.items()} == same(46, *tz.dst.ALL)
    assert [w for w in tz.day_rules("*/30 * * * *", NY, "2026-03-08")[1] if not any(x.startswith(w) for x in
                                                                                     spring["croniter"])] == [
        "02:00", "02:30"]
    # the line summarises: the walls seen twice, the ones never shown
    line = tz.expression_line("*/30 * * * *", NY, "2026-11-01")
    assert "50 times" in line and "01:00 twice (05:00Z and 06:00Z)" in line and "01:30 twice" in line
    assert "no 02:00 or 02:30" in tz.expression_line("*/30 * * * *", NY, "2026-03-08")


def test_where_bullmq_and_the_cron_parser_iterator_part():
    # one iterator notes the skipped 02:00 hour and runs all three slots in the landing hour;
    # BullMQ parses afresh from each run, so after 03:00 it has no note and goes to the next day
    assert runs("*/20 2 * * *", NY, "2026-03-08") == {
        **same(["03:00 EDT (07:00Z)"], "croniter", "bullmq"), "debian": [],
        "cron-parser": ["03:00 EDT (07:00Z)", "03:20 EDT (07:20Z)", "03:40 EDT (07:40Z)"]}
    assert tz.day_rules("*/20 2 * * *", NY, "2026-03-08")[1] == ["02:00", "02:20", "02:40"]
    minutes = runs("* 1 * * *", NY, "2026-11-01")
    assert {r: len(v) for r, v in minutes.items()} == {**same(120, "croniter", "debian"),
                                                       **same(60, "cron-parser", "bullmq")}
    assert minutes["debian"] == minutes["croniter"] and minutes["bullmq"] == minutes["cron-parser"]
    line = tz.expression_line("*/20 2 * * *", NY, "2026-03-08")
    assert "never by Debian cron, no 02:00 or 02:20 or 02:40" in line and "BullMQ agrees with croniter" in line


def test_lane_text():
    assert tz.lane_text("debian", [1], [1, 2 * 3_600_000]) == "Debian cron skips 02:00Z"
    assert tz.lane_text("cron-parser", [1_800_000], [0]) == "cron-parser runs 00:30Z and skips 00:00Z"
    assert tz.lane_text("debian", [0], [0]) == ""
    assert tz.lane_text("cron-parser", [0], [0, 3_600_000], "cron-parser (and BullMQ)") == (
        "cron-parser (and BullMQ) skips 01:00Z")
    assert tz.lane_text("debian", [], [h * 3_600_000 for h in range(5)]) == (
        "Debian cron skips 00:00Z, 01:00Z, 02:00Z and 2 more")


def test_title():
    assert tz.title(NY, "2026-11-01") == "America/New_York 2026-11-01: clocks go back at 06:00Z, a 25-hour day"
    assert tz.title("UTC", "2026-03-08") == "UTC 2026-03-08: no change, a 24-hour day"


# -- the frame ---------------------------------------------------------------------------------------------

def test_fall_back_frame(model):
    f = model.frame()
    # croniter: 30 2 at 02:30 EST (3.5 h after midnight EDT), 30 1 at 1.5 h and 2.5 h, hourly 0..24
    assert f.runs == ((3.5,), (1.5, 2.5), tuple(float(h) for h in range(25)))
    assert f.tags == ((RunTag("07:30Z", 3.5),), (RunTag("05:30Z", 1.5, left=True), RunTag("06:30Z", 2.5)), ())
    assert f.counts == ("", "", "25 runs")
    # Debian cron and cron-parser both skip croniter's second 01:30 (06:30Z); nothing else differs
    assert [lane for lane in f.lanes if lane.text] == [
        RuleMarks("debian", 1, (), (2.5,), "Debian cron skips 06:30Z", 2.5),
        RuleMarks("cron-parser", 1, (), (2.5,), "cron-parser (and BullMQ) skips 06:30Z", 2.5)]
    assert [(lane.row, lane.rule) for lane in f.lanes] == [(r, rule) for r in range(3) for rule in tz.LANE_RULES]
    # the change at 06:00Z (2 h after midnight EDT), the 01:00 hour on both passes, a 25-hour day
    assert (f.change, f.passes, f.length) == (2.0, ((1.0, 1.0), (2.0, 1.0)), 25.0)
    # labelled hours: 00, 06, 12 and 18 on the local clock (an hour after every sixth real hour,
    # past the repeated hour), the hour before the change and the change's own; local over UTC,
    # 01 twice; not the hour after it (three labels in two hours' width crowded, h65r)
    assert f.ticks == ((0.0, "00\n04"), (1.0, "01\n05"), (2.0, "01\n06"), (7.0, "06\n11"),
                       (13.0, "12\n17"), (19.0, "18\n23"), (25.0, "00\n05"))
    assert f.title == "America/New_York 2026-11-01: clocks go back at 06:00Z, a 25-hour day"
    assert f.xlabel == "hour: local (America/New_York) over UTC"
    assert (f.zone, f.day, f.expressions) == (NY, "2026-11-01", tz.EXPRESSIONS)


def test_spring_forward_frame(model):
    f = model.frame(day="forward")
    assert f.runs[0] == (2.0,) and f.runs[1] == (1.5,) and len(f.runs[2]) == 23
    assert f.runs[2][:3] == (0.0, 1.0, 2.0)                              # 02:00 EST never shows: 03:00 EDT is 2 h
    # cron-parser runs 03:30 EDT (2.5 h after midnight) where croniter ran 03:00 EDT
    assert f.lanes[1] == RuleMarks("cron-parser", 0, (2.5,), (2.0,),
                                   "cron-parser (and BullMQ) runs 07:30Z and skips 07:00Z", 2.5)
    assert (f.change, f.passes, f.length) == (2.0, (), 23.0)
    assert [t for _, t in f.ticks][:3] == ["00\n05", "01\n06", "03\n07"]  # no 02 on the local clock


def test_utc_has_no_such_day(model):
    f = model.frame(zone="UTC", day="forward")
    assert header("UTC", "2026-03-08") == ("no change", "UTC", "UTC+00:00", 24.0)
    assert f.readout.splitlines()[0] == tz.day_header("UTC", "2026-03-08")
    assert (f.change, f.passes, f.length) == (None, (), 24.0)
    assert all(not lane.skipped and not lane.extra for lane in f.lanes)
    assert f.counts == ("", "", "24 runs")
    assert [t for _, t in f.ticks] == ["00\n00", "06\n06", "12\n12", "18\n18", "00\n00"]


def test_bullmq_apart_from_the_cron_parser_iterator_names_itself():
    m = TimeZonesModel()
    m.expressions = ("*/20 2 * * *",)
    lanes = {lane.rule: lane for lane in m.frame(day="forward").lanes}
    assert lanes["cron-parser"].text == "cron-parser (not BullMQ) runs 07:20Z, 07:40Z"
    assert lanes["debian"].text == "Debian cron skips 07:00Z"


# -- the days each zone offers, and moving between zones --------------------------------------------------

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
    with pytest.raises(InputError, match="unknown time zone 'Mars/Base'"):
        tz.choices("Mars/Base")


def test_day_positions_depend_on_the_zone(model):
    assert model.positions("day", {"zone": "Europe/London"})[0] == (
        "2026-03-28 \u00b7 the day before clocks go forward", "before forward")
    assert [d for _, d in model.positions("day", {"zone": "UTC"})] == ["forward", "ordinary", "back"]
    assert [tz.day_of_kind("UTC", k) for k in ("forward", "ordinary", "back")] == [
        "2026-03-08", "2026-06-15", "2026-11-01"]
    assert tz.day_of_kind("Europe/London", "after back") == "2026-10-26"
    with pytest.raises(InputError, match="UTC offers no day of kind 'before back'"):
        tz.day_of_kind("UTC", "before back")


def test_zone_change_keeps_the_kind_of_day(model):
    """The generic rule of a dependent control (keep the value if the new zone offers it) keeps
    the kind of day, because the kind is the value: New York's spring-forward day becomes
    Sydney's (2026-10-04) and London's (2026-03-29)."""
    spring = model.values(None, day="forward")                          # New York springs forward
    assert model.values(spring, zone="Australia/Sydney") == {"zone": "Australia/Sydney", "day": "forward"}
    assert model.frame(**model.values(spring, zone="Australia/Sydney")).day == "2026-10-04"
    assert model.frame(**model.values(spring, zone="Europe/London")).day == "2026-03-29"
    assert model.frame(**model.values(spring, zone="UTC")).day == "2026-03-08"   # the same date, in UTC
    # a kind UTC does not offer: the default kind, New York's fall-back day
    assert model.values(model.values(None, day="before forward"), zone="UTC")["day"] == "back"
    # a day given with the zone is taken as given
    assert model.values(spring, zone="Europe/London", day="back")["day"] == "back"


@pytest.mark.parametrize("kw, message", [
    # the value refused, then what is accepted
    ({"zone": "Mars/Base"}, r"zone 'Mars/Base' .*'America/New_York'.*'UTC'"),
    ({"zone": "Asia/Tokyo"}, r"zone 'Asia/Tokyo' .*'America/New_York'.*'UTC'"),
    ({"day": "2026-11-31"}, r"day '2026-11-31' .*'before forward' \(2026-03-07.*'after back' \(2026-11-02"),
    # any day can be read with `readout`, but the figure offers its zone's kinds of day only
    ({"day": "2026-12-25"}, r"day '2026-12-25' .*'before forward'"),
    ({"day": "2026-03-08"}, r"day '2026-03-08' .*'forward' \(2026-03-08"),
    ({"zone": "UTC", "day": "before back"}, r"day 'before back' .*'forward' \(2026-03-08.*'back'"),
    ({"expr": "30 1 * * *"}, "no control 'expr'"),
])
def test_bad_values_name_the_value(model, kw, message):
    with pytest.raises(InputError, match=message):
        model.frame(**kw)
    assert not model._frames                                   # nothing computed or kept


# -- what the static site renders, and what a frame costs ------------------------------------------------

def test_every_zone_and_day_is_reachable(model):
    combos, held = model.reachable()
    assert held == [] and len(combos) == 7 + 7 + 7 + 3
    assert {c["zone"] for c in combos} == set(tz.ZONES)
    assert combos[:2] == [{"zone": NY, "day": "before forward"}, {"zone": NY, "day": "forward"}]
    for values in combos:
        day = tz.day_of_kind(values["zone"], values["day"])
        assert model.frame(**values).readout.startswith(f"{values['zone']} {day}: ")


def test_lazy_one_day_per_frame(monkeypatch):
    asked = []
    real = tz.day_rules
    monkeypatch.setattr(tz, "day_rules", lambda e, zone, day: asked.append((e, zone, day)) or real(e, zone, day))
    m = TimeZonesModel()
    assert asked == []                                          # building the model asks the engine nothing
    first = m.frame()
    assert asked == [(e, NY, "2026-11-01") for e in tz.EXPRESSIONS]
    assert m.frame(zone=NY) is first and len(asked) == 3        # kept
    m.frame(zone="UTC")
    assert asked[3:] == [(e, "UTC", "2026-11-01") for e in tz.EXPRESSIONS]


# -- the notebook's texts --------------------------------------------------------------------------------

def test_rule_runs():
    """`rule_runs` prints `dst.compare`: each rule's runs as Unix ms, then labelled."""
    got = tz.dst.compare("30 1 * * *", NY, "2026-11-01")
    assert got == {"croniter": [at("2026-11-01 05:30"), at("2026-11-01 06:30")],
                   **same([at("2026-11-01 05:30")], "debian", "cron-parser", "bullmq")}
    for line, (rule, slots) in zip(tz.rule_runs("30 1 * * *", NY, "2026-11-01").splitlines(), got.items()):
        assert line.startswith(rule) and str(slots) in line and str([label(t, NY) for t in slots]) in line


def test_labelled_runs():
    assert tz.labelled_runs([at("2026-11-01 05:30"), at("2026-11-02 06:30")], NY) == (
        f"{at('2026-11-01 05:30')} 01:30 EDT (05:30Z)\n{at('2026-11-02 06:30')} 01:30 EST (06:30Z)")
    assert tz.labelled_runs([], NY) == ""


def test_rules_lines():
    """Each expression's runs by every rule are `dst.compare`'s: the count, and the UTC times when
    three or fewer; rules that agree share a line. No line is wider than a desktop's printout
    shows whole (a four-column table wrapped every row there, and lost its columns on a phone:
    issue 30, h67r); on a phone a line wraps as a sentence does. It opens with what the clocks
    do that day (`day_header`), which the page printed again just above it (h68r)."""
    havana = "America/Havana"
    quarter = tz.dst.compare("15 0 * * *", havana, "2026-11-01")
    assert quarter == {"croniter": [at("2026-11-01 04:15"), at("2026-11-01 05:15")],
                       **same([at("2026-11-01 04:15")], "debian", "cron-parser", "bullmq")}
    assert {r: len(v) for r, v in tz.dst.compare("0 * * * *", havana, "2026-11-01").items()} == same(25, *tz.dst.ALL)
    lines = tz.rules_lines(havana, "2026-11-01", ["15 0 * * *", "0 * * * *"]).splitlines()
    assert lines == [tz.day_header(havana, "2026-11-01"), "15 0 * * *", "  croniter: 2 runs at 04:15Z 05:15Z",
                     "  Debian cron, cron-parser and BullMQ: 1 run at 04:15Z", "0 * * * *", "  all four: 25 runs"]
    spring = tz.rules_lines(NY, "2026-03-08").splitlines()
    at_20 = spring.index("*/20 2 * * *")
    assert spring[at_20 + 1:at_20 + 4] == ["  croniter and BullMQ: 1 run at 07:00Z", "  Debian cron: no run",
                                           "  cron-parser: 3 runs at 07:00Z 07:20Z 07:40Z"]
    assert max(len(line) for d in ("2026-03-08", "2026-11-01") for line in tz.rules_lines(NY, d).splitlines()[1:]) <= 72


def test_recorded():
    one = [at("2026-11-01 05:30")]
    assert tz.recorded_facts("30 1 * * *", NY, "2026-11-01") == {"runs": one, "chain": one, "mine": one, "bull": one}
    text = tz.recorded("30 1 * * *", NY, "2026-11-01")
    assert text.count("['01:30 EDT (05:30Z)']") == 2 and "5.10.3" in text
    assert "'cron-parser' rule: the same; 'bullmq' rule: the same" in text
    with pytest.raises(ValueError, match="no recorded cron-parser case for '1 2 3 4 5'"):
        tz.recorded("1 2 3 4 5", NY, "2026-11-01")


def test_row_across_change():
    f = tz.row_facts(fires=3)
    assert (f["answer"], f["at"], f["record"]) == ("created", at("2026-10-31 12:00", NY), ("30 1 * * *", NY))
    nightly = [at("2026-11-01 05:30"), at("2026-11-01 06:30"), at("2026-11-02 06:30"), at("2026-11-03 06:30")]
    assert f["steps"] == [(released, [("nightly", score)], 1) for released, score in
                          zip([None, at("2026-11-01 05:30"), at("2026-11-01 06:30"), at("2026-11-02 06:30")], nightly)]
    text = tz.row_across_change(fires=3).splitlines()
    assert text[0].endswith(": created") and text[2] == "  record: pattern '30 1 * * *', tz 'America/New_York'"
    assert "2026-11-01T01:30:00-04:00 EDT (rows: 1)" in text[1]
    for line, (released, rows, size) in zip(text[3:], f["steps"][1:]):
        (_, score), = rows
        assert f"released {label(released, NY)}" in line and f"score {score} = {iso(score)} = " in line
        assert line.endswith(f"{abbreviation(score, NY)} (rows: {size})")


def test_syntax_lines_say_what_each_library_reads():
    # each rule's first runs of 2026 in New York, or its library's refusal (tests/test_cron_syntax.py
    # holds the rules to the libraries; their wording is theirs, so only the refusal is held here)
    exprs = ["0 9 * * 5L", "0 0 15W * *", "0 5-1 * * *"]
    facts = tz.syntax_facts(exprs)

    def ran(rule_runs):
        return None if isinstance(rule_runs, str) else [iso(t, NY)[:16] for t in rule_runs]

    assert {e: {r: ran(x) for r, x in by.items()} for e, by in facts.items()} == {
        "0 9 * * 5L": {"croniter": None, **same(["2026-01-30T09:00", "2026-02-27T09:00", "2026-03-27T09:00"],
                                               "debian", "cron-parser", "bullmq")},
        "0 0 15W * *": {"croniter": ["2026-01-15T00:00", "2026-02-16T00:00", "2026-03-16T00:00"],
                        **same(None, "debian", "cron-parser", "bullmq")},
        "0 5-1 * * *": {"croniter": ["2026-01-01T01:00", "2026-01-01T05:00", "2026-01-01T06:00"],
                        **same(None, "debian", "cron-parser", "bullmq")},
    }
    text = tz.syntax_lines(exprs).splitlines()
    # one line an expression, then one a distinct answer, naming who gave it; refusals say so
    assert text[0] == "0 9 * * 5L" and text[1].startswith("  croniter: refused: ")
    assert text[2] == "  cronsim, cron-parser and BullMQ: Fri 2026-01-30 09:00, Fri 2026-02-27 09:00, " \
                      "Fri 2026-03-27 09:00, ..."
    assert text[3] == "0 0 15W * *" and text[4].startswith("  croniter: Thu 2026-01-15 00:00, Mon 2026-02-16")
    assert text[5].startswith("  cronsim: refused: ") and text[6].startswith("  cron-parser and BullMQ: refused: ")
    assert all(facts["0 0 15W * *"][r] in line for r, line in (("debian", text[5]), ("cron-parser", text[6])))


def _cronsim_matrix() -> dict[str, dict[str, str]]:
    """cronsim's own feature matrix (its README, shipped as the package's long description):
    feature -> column -> Yes/No."""
    from importlib.metadata import metadata
    rows = [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in metadata("cronsim").get_payload().splitlines() if line.startswith("|")]
    head = rows[0]
    return {r[0]: dict(zip(head[1:], r[1:])) for r in rows[2:]}


def test_the_syntax_table_names_cronsim_for_what_debian_cron_refuses():
    """Issue 28: `L`, `5L`, `5#3` and six fields are cronsim's extensions, marked "No" for Debian
    cron by cronsim itself, so the table answering them names cronsim, never Debian cron."""
    matrix = _cronsim_matrix()
    extensions = [f for f, cols in matrix.items() if cols.get("Debian") == "No" and cols.get("cronsim") == "Yes"]
    assert len(extensions) >= 5                       # seconds, L, LW, L in day of week, nth weekday
    lines = tz.syntax_lines()
    assert "Debian" not in lines
    for expr in ("0 12 L * *", "0 9 * * 5L", "0 9 * * 5#3", "30 0 9 * * *"):
        answer = lines.split(expr + "\n", 1)[1].splitlines()
        assert any("cronsim" in a and "refused" not in a for a in answer[:3]), expr


def test_the_syntax_table_names_croniters_setting_and_its_default():
    """croniter reads `30 0 9 * * *` seconds first only with second_at_beginning=True (the engine's
    setting); its default reads the sixth field last: 00:30:00, :01, :02 on 9 January."""
    last = tz.syntax_lines().splitlines()[-1]
    assert "second_at_beginning=True" in last
    assert "Fri 2026-01-09 00:30, Fri 2026-01-09 00:30:01, Fri 2026-01-09 00:30:02" in last


def test_recording_summary_counts_the_refusals():
    assert tz.recording_summary().splitlines()[-1] == "  expressions cron-parser refused (its own message kept): 14"


@pytest.mark.parametrize("rule", ["croniter", "debian", "cron-parser", "bullmq"])
def test_first_runs_look_past_the_first_hundred_days_when_they_must(rule):
    """The syntax lines look for three runs in the first 100 days, then in the whole year: the
    same runs as a listing of the whole year gives."""
    start, end = at("2026-01-01 00:00", "UTC"), at("2027-01-01 00:00", "UTC")
    assert tz._first_runs("0 9 1 6,7,8,9 *", "UTC", start, end, rule) == [
        at("2026-06-01 09:00", "UTC"), at("2026-07-01 09:00", "UTC"), at("2026-08-01 09:00", "UTC")]
    assert tz._first_runs("0 9 1 3 *", "UTC", start, end, rule) == [at("2026-03-01 09:00", "UTC")]
    assert tz._first_runs("0 9 * * *", "UTC", start, end, rule) == [
        at("2026-01-01 09:00", "UTC"), at("2026-01-02 09:00", "UTC"), at("2026-01-03 09:00", "UTC")]
