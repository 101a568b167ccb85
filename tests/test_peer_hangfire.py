"""Hangfire recurring jobs: `emqsim.peers.hangfire.schedule_next` is `RecurringJobEntity.ScheduleNext`
(HangfireIO/Hangfire src/Hangfire.Core/RecurringJobEntity.cs at c236dd0f930f of main; the default mode
Relaxed is set in src/Hangfire.Core/RecurringJobOptions.cs), checked on the cases its loop
decides, then the engine lanes of each mode against it on seeded outages."""

from __future__ import annotations

import random

import pytest

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.errors import InputError
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.lessons.course import on_day
from emqsim.peers import hangfire as hf

M = 60_000
CRON = Cron("7-59/15 * * * *", "UTC")   # the course's :07, :22, :37, :52


def t(hhmm: str) -> int:
    return on_day(hhmm)


@pytest.mark.parametrize("mode, precision, want", [
    # the check at 10:10 after 09:22 ran: 09:37, 09:52 and 10:07 went by
    ("Relaxed", 0, ([t("10:10")], t("10:22"))),                              # one run, stamped now
    ("Strict", 0, ([t("09:37"), t("09:52"), t("10:07")], t("10:22"))),       # one per occurrence
    ("Ignorable", 5 * M, ([t("10:07")], t("10:22"))),                        # only within precision
    ("Ignorable", 2 * M, ([], t("10:22"))),
])
def test_schedule_next_after_an_outage(mode, precision, want):
    assert hf.schedule_next(CRON.after, t("09:22"), t("10:10"), mode, precision) == want


def test_an_occurrence_exactly_at_now_keeps_its_own_time_in_every_mode():
    for mode in hf.MODES:
        assert hf.schedule_next(CRON.after, t("09:22"), t("09:37"), mode) == ([t("09:37")], t("09:52"))


def test_the_default_mode_and_the_engine_settings():
    assert hf.DEFAULTS == {"MisfireHandling": "Relaxed"}
    assert hf.missed() == {"missed": "now"} and hf.missed("Strict") == {"missed": "all"}
    assert hf.missed("Ignorable", 60_000, gap=15 * M) == {"missed": "once", "deadline": 60_000}
    with pytest.raises(InputError, match="shorter than the cadence"):
        hf.missed("Ignorable", 15 * M, gap=15 * M)


def test_relaxed_is_not_snap():
    """04's table said Relaxed is `snap`: snap labels the run 09:37 (the row's slot); Hangfire stamps 10:10."""
    out = (t("09:30"), t("10:10"))
    runs = {}
    for missed in ("snap", "now"):
        r = reference(Schedule("r", Every("15m"), missed=missed), start=t("09:07"), until=t("10:30"),
                      pump=Pump(tick=1000), outage=out, ids=None)
        runs[missed] = [s for s, rel in zip(r.slot.tolist(), r.released.tolist()) if rel == t("10:10")]
    assert runs == {"snap": [t("09:37")], "now": [t("10:10")]}


def hangfire_runs(every, first, until, outage, mode, precision=0):
    """Hangfire's scheduler checking at each next execution while up, and at the restart:
    (stamp, check instant) of each run ScheduleNext creates."""
    grid = lambda x: first + ((x - first) // every + 1) * every if x >= first else first  # noqa: E731
    down, up = outage
    runs, nxt, now = [], first, first
    while now <= until:
        stamps, new = hf.schedule_next(grid, nxt - 1, now, mode, precision)
        runs += [(s, now) for s in stamps]
        nxt = new
        now = nxt if not down <= nxt < up else up
    return runs


def _scenario(seed):
    rnd = random.Random(seed)
    every = rnd.choice((60, 300, 900, 3600)) * 1000
    first = t("09:00") + rnd.randrange(0, 3600) * 1000
    until = first + rnd.randint(6, 14) * every
    down = first + rnd.randrange(1, 4 * every // 1000) * 1000
    return every, first, until, (down, down + rnd.randrange(1, 6 * every // 1000) * 1000)


@pytest.mark.parametrize("seed", range(120))
@pytest.mark.parametrize("mode", ["Relaxed", "Strict"])
def test_engine_lane_matches_hangfire(seed, mode):
    every, first, until, outage = _scenario(seed)
    want = hangfire_runs(every, first, until, outage, mode)
    s = Schedule("r", Every(every), **hf.missed(mode))
    r = reference(s, start=first, until=until, pump=Pump(tick=1000), outage=outage, ids=None)
    got = list(zip(r.slot.tolist(), r.released.tolist()))
    if mode == "Relaxed":
        assert got == want
    else:  # the same stamps; the engine releases a backlog one pump beat (1 s) apart, Hangfire in one pass
        assert [s for s, _ in got] == [s for s, _ in want]
        assert all(0 <= rel - at < 1000 * len(want) for (_, rel), (_, at) in zip(got, want))
    if seed % 8 == 0:
        with PumpDesign(s, start=first, pump=Pump(tick=1000), faults=Faults(outage=outage)) as sim:
            assert [(f.slot, f.released) for f in sim.run(until=until)] == got


@pytest.mark.parametrize("seed", range(120))
def test_engine_lane_matches_hangfire_ignorable(seed):
    every, first, until, outage = _scenario(seed)
    precision = random.Random(seed).choice((0, 1000, 30_000, every // 2))
    want = hangfire_runs(every, first, until, outage, "Ignorable", precision)
    s = Schedule("r", Every(every), **hf.missed("Ignorable", precision, gap=every))
    r = reference(s, start=first, until=until, pump=Pump(tick=1000), outage=outage, ids=None)
    assert list(zip(r.slot.tolist(), r.released.tolist())) == want


def test_strict_enqueues_every_missed_run_in_one_pass():
    """Issue 28: Hangfire's own test (tests/Hangfire.Core.Tests/Server/RecurringJobSchedulerFacts.cs
    `Execute_TriggersRecurringJobMultipleTimes_WithMissedScheduleWhenStrictModeIsUsed`, c236dd0f930f):
    hourly, the last execution 3 h before a check at :30; Strict creates the three missed runs in
    one Execute and one commit, the next at +30 min. One check enqueues them all at its own
    instant: a day of 15-min slots is 96 jobs at once."""
    hourly = Cron("0 * * * *", "UTC").after
    now = t("10:30")
    assert hf.burst(hourly, now - 180 * M, now, "Strict") == {now: [t("08:00"), t("09:00"), t("10:00")]}
    assert hf.schedule_next(hourly, now - 180 * M, now, "Strict")[1] == t("11:00")
    quarter = Cron("*/15 * * * *", "UTC").after
    day = hf.burst(quarter, t("00:00") - 1, t("23:59"), "Strict")
    assert list(day) == [t("23:59")] and len(day[t("23:59")]) == 96
    assert hf.burst(quarter, t("00:00") - 1, t("23:59"), "Relaxed") == {t("23:59"): [t("23:59")]}
