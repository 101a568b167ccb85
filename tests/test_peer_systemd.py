"""systemd timers: `emqsim.peers.systemd.catch_up` is systemd.timer(5)'s `Persistent=` (man7.org,
systemd 257.4: false by default; when true, a unit that would have been triggered while the timer
was inactive is triggered at once on activation), and the engine lanes for both settings
against it on seeded power-offs."""

from __future__ import annotations

import random

import pytest

from emqsim.engine.cadence import Every
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.worker import Worker
from emqsim.lessons.course import on_day
from emqsim.peers import systemd

M = 60_000
GRID = Every("15m")


def t(hhmm):
    return on_day(hhmm)


def _after(first, every):
    return lambda x: first + ((x - first) // every + 1) * every if x >= first else first


def test_persistent_is_off_by_default_so_a_power_off_runs_nothing():
    """The course's outage (09:22 ran, off 09:30 to 10:10): nothing at boot, next 10:22."""
    nxt = _after(t("09:07"), 15 * M)
    assert systemd.DEFAULTS == {"Persistent": False}
    assert systemd.catch_up(nxt, t("09:22"), t("10:10")) == ([], t("10:22"))
    assert systemd.catch_up(nxt, t("09:22"), t("10:10"), persistent=True) == ([t("10:10")], t("10:22"))
    # booting exactly on a calendar time: it elapses then, Persistent or not
    assert systemd.catch_up(nxt, t("09:22"), t("10:07")) == ([t("10:07")], t("10:22"))
    # nothing missed: nothing to catch up
    assert systemd.catch_up(nxt, t("09:22"), t("09:30"), persistent=True) == ([], t("09:37"))


def systemd_runs(every, first, until, outage, persistent):
    nxt = _after(first, every)
    down, up = outage
    runs = [(s, s) for s in range(first, until + 1, every) if s < down]
    last = runs[-1][0] if runs else first - 1
    if up <= until:
        boot, elapse = systemd.catch_up(nxt, last, up, persistent)
        runs += [(b, b) for b in boot]
        runs += [(s, s) for s in range(elapse, until + 1, every)]
    return runs


@pytest.mark.parametrize("seed", range(120))
@pytest.mark.parametrize("persistent", [False, True])
def test_engine_lane_matches_systemd(seed, persistent):
    rnd = random.Random(seed)
    every = rnd.choice((60, 300, 900, 3600)) * 1000
    first = t("09:00") + rnd.randrange(0, 3600) * 1000
    until = first + rnd.randint(6, 14) * every
    down = first + rnd.randrange(1, 4 * every // 1000) * 1000
    outage = (down, down + rnd.randrange(1, 6 * every // 1000) * 1000)
    want = systemd_runs(every, first, until, outage, persistent)
    s = Schedule("unit", Every(every), **systemd.missed(persistent))
    r = reference(s, start=first, until=until, pump=Pump(tick=1000), outage=outage, ids=None)
    got = list(zip(r.slot.tolist(), r.released.tolist()))
    assert got == want, (every, first, until, outage)
    if seed % 8 == 0:
        with PumpDesign(s, start=first, pump=Pump(tick=1000), faults=Faults(outage=outage)) as sim:
            assert [(f.slot, f.released) for f in sim.run(until=until)] == want


def test_an_elapse_while_the_unit_is_active_starts_nothing():
    """systemd.timer(5): a unit still active when the timer elapses is not started again (and the
    timer waits for its next elapse): the engine's overlap 'skip'. Every 15 min, 20-min runs."""
    assert systemd.OVERLAP == {"overlap": "skip"}
    s = Schedule("unit", Every("15m"), **systemd.OVERLAP)
    r = reference(s, start=t("09:00"), until=t("10:00"), pump=Pump(tick=1000), ids=None,
                  worker=Worker(run="20m"))
    assert [x - t("09:00") for x in r.started.tolist()] == [0, 30 * M, 60 * M]
    assert [a for a, _, _ in r.skips] == [t("09:15"), t("09:45")]
