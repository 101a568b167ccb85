"""`Every.between` and `Every.missed`: the grid slots of a phase in a span, and the ones an outage leaves behind."""

from __future__ import annotations

import pytest

from emqsim import InputError
from emqsim.engine.cadence import Every
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.timefmt import at

MIN = 60_000
E = Every("15m")
PHASE = 7 * MIN          # 09:07 mod 15 min


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


def test_between_counts_both_ends_unless_told():
    assert E.between(t("09:00"), t("10:07"), PHASE) == [t("09:07"), t("09:22"), t("09:37"), t("09:52"), t("10:07")]
    assert E.between(t("09:00"), t("10:07"), PHASE, inclusive=False) == [t("09:07"), t("09:22"), t("09:37"), t("09:52")]
    assert E.between(t("09:07"), t("09:07"), PHASE) == [t("09:07")]
    assert E.between(t("09:07"), t("09:07"), PHASE, inclusive=False) == []
    assert E.between(t("09:08"), t("09:21"), PHASE) == []
    assert E.between(t("10:00"), t("09:00"), PHASE) == []                      # an empty span
    assert E.between(t("09:00"), t("11:00"), PHASE, cap=2) == [t("09:07"), t("09:22")]
    assert E.between(t("09:00"), t("11:00"), 0) == [t("09:00") + i * 15 * MIN for i in range(9)]
    assert Every(1000).between(5_500, 8_000, 500) == [5_500, 6_500, 7_500]


def test_between_is_the_grid_that_next_run_walks():
    # a schedule on time steps prev + every: the same instants
    s = Schedule("reports", E)
    slots, slot = [], t("09:07")
    while slot <= t("12:00"):
        slots.append(slot)
        slot = s.next_run(slot, released=slot, finished=None, phase=PHASE)
    assert E.between(t("09:07"), t("12:00"), PHASE) == slots


def test_between_refuses_bad_arguments():
    with pytest.raises(InputError, match=r"^phase 900000 must be a phase inside the gap, in ms, 0 to 899,999$"):
        E.between(t("09:00"), t("10:00"), 15 * MIN)
    with pytest.raises(InputError, match=r"^start 1\.5 must be a whole number"):
        E.between(1.5, t("10:00"), PHASE)
    with pytest.raises(InputError, match=r"^cap -1 must be a whole number, 0 or more$"):
        E.between(t("09:00"), t("10:00"), PHASE, cap=-1)


def test_missed_slots_of_an_outage():
    assert E.missed(t("09:30"), t("10:10"), PHASE) == [t("09:37"), t("09:52"), t("10:07")]
    # a restart exactly on a slot: the row is behind, so that slot is caught up with the rest
    assert E.missed(t("09:30"), t("10:07"), PHASE) == [t("09:37"), t("09:52"), t("10:07")]
    # ... but if nothing came due while the pump was down, nothing was missed
    assert E.missed(t("09:30"), t("09:37"), PHASE) == []
    assert E.missed(t("09:22"), t("09:23"), PHASE) == [t("09:22")]   # down at a slot: missed
    assert E.missed(t("09:30"), t("09:30"), PHASE) == []
    # no slot before the first run
    assert E.missed(t("08:00"), t("09:10"), PHASE, first=t("09:07")) == [t("09:07")]
    assert E.missed(t("08:00"), t("09:10"), PHASE) == [t("08:07"), t("08:22"), t("08:37"), t("08:52"), t("09:07")]
    with pytest.raises(InputError, match=r"^up \d+ ms is before down \d+ ms"):
        E.missed(t("10:00"), t("09:30"), PHASE)


@pytest.mark.parametrize("down,up", [("09:30", "10:10"), ("09:30", "10:07"), ("09:30", "09:37"), ("09:22", "09:23"),
                                     ("09:10", "11:00"), ("10:52", "10:53"), ("09:40", "09:51")])
def test_missed_is_what_replay_all_catches_up(down, up):
    # under missed="all" every missed slot gets its own job after the restart, released later
    # than its slot; a slot released at its own instant was on time
    down, up = t(down), t(up)
    s = Schedule("reports", E, missed="all")
    r = reference(s, start=t("09:07"), until=t("11:45"), pump=Pump(tick=1000), outage=(down, up), ids=None)
    caught = [slot for slot, rel in zip(r.slot.tolist(), r.released.tolist()) if rel >= up and slot < rel]
    assert caught == E.missed(down, up, PHASE, first=t("09:07"))


def test_missed_is_what_the_engine_catches_up():
    s = Schedule("reports", E, missed="all")
    with PumpDesign(s, start=t("09:07"), pump=Pump(tick=1000), faults=Faults(outage=(t("09:30"), t("10:07")))) as sim:
        tr = sim.run(until=t("10:40"))
    assert [f.slot for f in tr if f.released >= t("10:07") and f.slot < f.released] == \
        E.missed(t("09:30"), t("10:07"), PHASE, first=t("09:07"))
