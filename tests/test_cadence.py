"""Next-run arithmetic: BullMQ's own cases, the course's at-or-after rule, DST pinned to one zone."""

from __future__ import annotations

import pytest

from emqsim.engine.cadence import Cron, Every, cadence
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.timefmt import at, hm

MIN = 60_000


# -- BullMQ's test cases (tests/job_scheduler.test.ts), re-expressed ----------------------

def test_every_15_min_with_offset_3_min():
    assert Every("15m", offset="3m").first(1486439640000) == 1486440180000


def test_every_2000_started_1900_after_a_slot_keeps_offset_1900():
    now = 1486439640000 // 2000 * 2000 + 1900
    e = Every(2000)
    first = e.first(now)
    assert first == now
    assert e.phase(first) == 1900


def test_six_field_cron_puts_seconds_first_as_cron_parser_does():
    assert Cron("*/2 * * * * *").after(at("2017-02-07 15:24:00")) == 1486481042000


# -- interval: start-to-start and the two snaps ----------------------------------------------

@pytest.mark.parametrize("prev, now, expected", [
    (at("2026-11-30 09:00"), at("2026-11-30 09:00"), at("2026-11-30 09:15")),   # on time
    (at("2026-11-30 09:00"), at("2026-11-30 09:14"), at("2026-11-30 09:15")),   # late, still ahead
    (at("2026-11-30 09:00"), at("2026-11-30 09:15"), at("2026-11-30 09:15")),   # due exactly now
])
def test_start_to_start_adds_the_gap_to_the_scheduled_time(prev, now, expected):
    assert Every("15m").after(prev, now, phase=0) == expected


@pytest.mark.parametrize("snap, now, expected", [
    # bullmq >= 5.80.1: the nearest slot on the :07 grid after now
    ("offset", "10:10", "10:22"), ("offset", "10:05", "10:07"), ("offset", "10:07", "10:22"),
    # bullmq 5.58.8-5.80.1: floor(now/every)*every + every + offset, so 10:07 is stepped over at 10:05
    ("offset-v5", "10:10", "10:22"), ("offset-v5", "10:05", "10:22"), ("offset-v5", "10:07", "10:22"),
    # legacy repeatable getNextMillis: the next quarter hour, the :07 phase is gone
    ("epoch", "10:10", "10:15"), ("epoch", "10:05", "10:15"), ("epoch", "10:07", "10:15"),
])
def test_snap_over_missed_slots(snap, now, expected):
    # started 09:07 (phase 7 min); the 09:37 slot is released late, after an outage
    e = Every("15m")
    phase = e.phase(at("2026-11-30 09:07"))
    assert phase == 7 * MIN
    nxt = e.after(at("2026-11-30 09:37"), at(f"2026-11-30 {now}"), phase, snap)
    assert nxt == at(f"2026-11-30 {expected}")


def test_snap_formulas_in_ms():
    # every 2000 ms, offset 1900: prev 10000 released at 15000 (prev + every = 12000 is behind)
    e = Every(2000)
    assert e.after(10_000, 15_000, 1900, "offset") == 15_900      # 14000 + 1900 is still ahead
    assert e.after(10_000, 15_000, 1900, "offset-v5") == 17_900   # 14000 + 2000 + 1900
    assert e.after(10_000, 15_000, 1900, "epoch") == 16_000       # 14000 + 2000
    assert e.after(10_000, 12_000, 1900, "offset-v5") == 12_000   # not behind: prev + every, no snap


def test_snap_name_must_be_known():
    with pytest.raises(ValueError, match=r"^snap 'v5' is not one of offset, offset-v5, epoch$"):
        Every("15m").after(0, 10 * 900_000, 0, "v5")


def test_offset_must_be_shorter_than_the_gap():
    with pytest.raises(ValueError, match="offset 900000 ms is not shorter than every 900000 ms"):
        Every("15m", offset="15m")


@pytest.mark.parametrize("bad", [0, "0", "0s"])
def test_every_must_be_positive(bad):
    with pytest.raises(ValueError, match="every .* must be positive"):
        Every(bad)


def test_negative_every_names_the_value():
    with pytest.raises(ValueError, match="every '-5m' is negative"):
        Every("-5m")


# -- cron: at or after now (the course), strictly after (croniter) ------------------------

@pytest.mark.parametrize("now, expected", [
    ("2026-11-30 08:48", "2026-11-30 09:00"),
    ("2026-11-30 09:00", "2026-11-30 09:00"),   # a slot equal to now counts
    ("2026-11-30 09:00:00.001", "2026-12-01 09:00"),
    ("2026-11-30 09:01", "2026-12-01 09:00"),
])
def test_cron_first_run_is_at_or_after_now(now, expected):
    assert Cron("0 9 * * *").first(at(now)) == at(expected)


def test_cron_after_excludes_an_exact_match():
    assert Cron("0 9 * * *").after(at("2026-11-30 09:00")) == at("2026-12-01 09:00")


# DST, pinned to America/New_York (croniter's rules; cronsim's differ on fall-back: notebook 07)
NY = "America/New_York"


@pytest.mark.parametrize("expr, start, expected_utc", [
    # spring forward 2026-03-08: 02:30 does not exist, croniter fires at 03:00 EDT
    ("30 2 * * *", "2026-03-08 00:00", ["2026-03-08 07:00", "2026-03-09 06:30"]),
    # fall back 2026-11-01: 01:30 happens twice and croniter fires both
    ("30 1 * * *", "2026-11-01 00:00", ["2026-11-01 05:30", "2026-11-01 06:30", "2026-11-02 06:30"]),
    # hourly fires in both 01:00 hours
    ("0 * * * *", "2026-11-01 00:30", ["2026-11-01 05:00", "2026-11-01 06:00", "2026-11-01 07:00"]),
])
def test_cron_across_daylight_saving(expr, start, expected_utc):
    c = Cron(expr, NY)
    t, got = at(start, NY), []
    for _ in expected_utc:
        t = c.after(t)
        got.append(t)
    assert got == [at(x) for x in expected_utc]


def test_a_reading_parsed_once_answers_as_a_fresh_croniter_whatever_came_before():
    """Cron parses an expression once per thread and hands croniter each start: so the answers,
    in any order of zones, of after and before, and after a refusal, are a fresh croniter's."""
    import random
    import threading
    from datetime import datetime

    from croniter import croniter

    from emqsim.engine.timefmt import zone

    def fresh(expr, tz, t, forward):
        start = datetime.fromtimestamp(t / 1000, zone(tz))
        it = croniter(expr, start, second_at_beginning=len(expr.split()) == 6)
        return round((it.get_next(float) if forward else it.get_prev(float)) * 1000)

    r = random.Random(7)
    exprs = ["30 1 * * *", "*/20 2 * * *", "0 9 * * 1-5", "30 0 9 * * *", "@hourly", "0 0 L * *"]
    zones = [NY, "UTC", "Australia/Lord_Howe", "America/Santiago"]
    asks = [(r.choice(exprs), r.choice(zones), at("2026-01-01 00:00") + r.randint(0, 365 * 86_400_000),
             r.random() < 0.7) for _ in range(300)]
    got = []
    for i, (expr, tz, t, forward) in enumerate(asks):
        if i % 50 == 0:    # a refusal in between leaves nothing behind
            with pytest.raises(ValueError, match="never matches"):
                Cron("0 0 30 2 *", tz).after(t)
        c = Cron(expr, tz)
        got.append(c.after(t) if forward else c.before(t))
    assert got == [fresh(*a) for a in asks]
    other: list = []           # another thread reads with its own parse
    thread = threading.Thread(target=lambda: other.extend(Cron(e, z).after(t) for e, z, t, _ in asks[:50]))
    thread.start()
    thread.join()
    assert other == [fresh(e, z, t, True) for e, z, t, _ in asks[:50]]


@pytest.mark.parametrize("expr", ["61 * * * *", "bad", "* * *", ""])
def test_invalid_cron_names_the_expression(expr):
    with pytest.raises(ValueError, match=r"invalid cron"):
        Cron(expr)


def test_invalid_cron_message_is_one_clear_line():
    with pytest.raises(ValueError) as e:
        Cron("61 * * * *")
    assert str(e.value).startswith("invalid cron '61 * * * *'; write five fields")
    assert "\n" not in str(e.value)


def test_cron_that_never_matches_is_a_value_error():
    with pytest.raises(ValueError, match="never matches"):
        Cron("0 0 30 2 *").after(at("2026-11-30 09:00"))


def test_unknown_zone_is_named():
    with pytest.raises(ValueError, match="unknown time zone 'Mars/Base'"):
        Cron("0 9 * * *", "Mars/Base")


def test_cadence_needs_exactly_one_rule():
    with pytest.raises(ValueError, match="exactly one cadence"):
        cadence()
    with pytest.raises(ValueError, match="exactly one cadence"):
        cadence(every="15m", cron="0 9 * * *")
    with pytest.raises(ValueError, match="offset applies to every"):
        cadence(cron="0 9 * * *", offset="1m")


# -- the three rules and the bounds -------------------------------------------------------------

T9 = at("2026-11-30 09:00")


@pytest.mark.parametrize("rule, expected", [
    ("schedule", T9 + 15 * MIN),                 # from the scheduled time
    ("release", T9 + 2 * MIN + 15 * MIN),        # from the release instant
    ("finish", T9 + 6 * MIN + 15 * MIN),         # from the finish
])
def test_rules_measure_from_different_anchors(rule, expected):
    s = Schedule("r", Every("15m"), rule=rule)
    assert s.next_run(T9, released=T9 + 2 * MIN, finished=T9 + 6 * MIN, phase=0) == expected


def test_cron_schedule_rule_snaps_past_missed_slots():
    s = Schedule("r", Cron("*/5 * * * *"))
    assert s.next_run(T9, released=T9 + 12 * MIN, finished=None, phase=0) == T9 + 15 * MIN


def test_limit_and_end_park_the_row():
    s = Schedule("r", Every(100), limit=5, end=T9 + 1000)
    assert s.bounded(T9 + 500, produced=4) == T9 + 500
    assert s.bounded(T9 + 500, produced=5) == INF
    assert s.bounded(T9 + 1000, produced=1) == INF


def test_first_run_honours_a_start_date():
    assert Schedule("r", Every("15m"), start=T9 + MIN).first_run(T9) == T9 + MIN
    assert Schedule("r", Cron("*/10 * * * *"), start=T9 + MIN).first_run(T9) == T9 + 10 * MIN


@pytest.mark.parametrize("kw, message", [
    ({"rule": "sometimes"}, "rule 'sometimes' is not one of schedule, release, finish"),
    ({"missed": "never"}, "missed 'never' is not one of snap, snap-v5, epoch, all, once, now, skip"),
    ({"missed": "skip"}, "missed 'skip' needs a deadline: how late a release may still run, like 5m"),
    ({"deadline": "5m"}, "deadline '5m' applies to missed 'skip' or 'once', not to 'snap'"),
    ({"missed": "skip", "deadline": "soon"}, "deadline 'soon' is not a duration"),
    ({"missed": "all", "rule": "release"}, "missed 'all' needs rule 'schedule', not 'release'"),
    ({"missed": "once", "rule": "finish"}, "missed 'once' needs rule 'schedule', not 'finish'"),
    ({"overlap": "queue"}, "overlap 'queue' is not one of allow, skip, buffer-one, replace"),
    ({"limit": -1}, "limit -1 must be a whole number"),
    ({"start": T9, "end": T9}, "is not after start"),
])
def test_schedule_rejects_bad_options(kw, message):
    with pytest.raises(ValueError, match=message):
        Schedule("r", Every("15m"), **kw)


# -- missed slots: what a late release does (the slot 09:37 released at 10:10) ------------------

LATE = dict(released=at("2026-11-30 10:10"), finished=None, phase=7 * MIN)
SLOT = at("2026-11-30 09:37")


@pytest.mark.parametrize("missed, label, nxt", [
    ("snap", "09:37", "10:22"),    # one run for the row's slot, then the phase grid
    ("snap-v5", "09:37", "10:22"),  # bullmq 5.58.8-5.80.1: here the same slot as snap
    ("epoch", "09:37", "10:15"),   # one run, then multiples of 15 min
    ("all", "09:37", "09:52"),     # no snap: the next missed slot is due at once
    ("once", "10:07", "10:22"),    # one run, labelled with the latest missed slot
])
def test_missed_policies_label_and_next(missed, label, nxt):
    s = Schedule("r", Every("15m"), missed=missed)
    assert hm(s.label(SLOT, LATE["released"])) == label
    assert hm(s.next_run(SLOT, **LATE)) == nxt


def test_missed_skip_is_late_past_the_deadline_and_advances_like_snap():
    s = Schedule("r", Every("15m"), missed="skip", deadline="5m")
    assert s.deadline == 5 * MIN
    assert s.late(SLOT, SLOT + 5 * MIN) is False and s.late(SLOT, SLOT + 5 * MIN + 1) is True
    assert hm(s.next_run(SLOT, **LATE)) == "10:22"
    assert Schedule("r", Every("15m")).late(SLOT, SLOT + 24 * 60 * MIN) is False


@pytest.mark.parametrize("missed, label, nxt", [
    ("snap", "09:35", "10:15"), ("all", "09:35", "09:40"), ("once", "10:10", "10:15"),
])
def test_missed_policies_on_a_cron(missed, label, nxt):
    s = Schedule("r", Cron("*/5 * * * *"), missed=missed)
    slot = at("2026-11-30 09:35")
    assert hm(s.label(slot, LATE["released"])) == label          # 10:10 is itself a slot
    assert hm(s.next_run(slot, **LATE)) == nxt
    assert hm(s.label(slot, at("2026-11-30 10:12:30"))) == ("10:10" if missed == "once" else "09:35")


def test_cron_before_is_the_last_slot_strictly_before():
    assert hm(Cron("*/5 * * * *").before(at("2026-11-30 10:10"))) == "10:05"
    assert hm(Cron("*/5 * * * *").before(at("2026-11-30 10:11"))) == "10:10"


def test_policies_survive_the_record_and_defaults_are_not_written():
    s = Schedule("r", Every("15m"), missed="skip", deadline="5m", overlap="buffer-one")
    rec = s.to_record(0)
    assert (rec["missed"], rec["deadline"], rec["overlap"]) == ("skip", "300000", "buffer-one")
    assert Schedule.from_record("r", rec)[0] == s
    plain = Schedule("r", Every("15m")).to_record(0)
    assert {"missed", "deadline", "overlap"} & set(plain) == set()
