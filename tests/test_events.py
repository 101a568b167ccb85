"""The one event core (emqsim/engine/events.py), the way SimPy's Environment is specified:
order by time, then kind, then scheduling order; time moves only when an event is stepped."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from emqsim.engine.clock import VirtualClock
from emqsim.engine.errors import InputError
from emqsim.engine.events import Events

ENGINE = Path(__file__).resolve().parent.parent / "emqsim" / "engine"

ORDER = [
    # (scheduled as (time, kind, arg), stepped in this order of args)
    ([(5, 0, "a"), (3, 0, "b"), (4, 0, "c")], ["b", "c", "a"]),          # by time
    ([(5, 2, "late kind"), (5, 1, "early kind")], ["early kind", "late kind"]),   # then by kind
    ([(5, 1, "first"), (5, 1, "second"), (5, 1, "third")], ["first", "second", "third"]),  # then FIFO
    ([(7, 0, "x"), (2, 9, "y"), (7, 0, "z"), (2, 1, "w")], ["w", "y", "x", "z"]),
]


@pytest.mark.parametrize("scheduled,stepped", ORDER)
def test_events_come_out_by_time_then_kind_then_order(scheduled, stepped):
    ev = Events()
    for t, kind, arg in scheduled:
        ev.schedule(t, kind, arg)
    assert len(ev) == len(scheduled)
    assert [ev.step()[2] for _ in scheduled] == stepped
    assert ev.peek() is None and len(ev) == 0


def test_peek_and_due_by_look_without_taking():
    ev = Events()
    ev.schedule(10, 3, "a")
    assert ev.peek() == (10, 3) and ev.due_by(10) and not ev.due_by(9)
    assert len(ev) == 1


def test_step_moves_the_clock_and_the_clock_never_goes_back():
    clock = VirtualClock(0)
    ev = Events(clock)
    ev.schedule(20, 0, "a")
    assert ev.step() == (20, 0, "a") and clock.now == 20
    ev.schedule(10, 0, "b")             # an event in the past is a bug in a design: refused
    with pytest.raises(InputError):
        ev.step()


def test_same_takes_the_other_events_of_a_kind_at_an_instant():
    ev = Events()
    for t, kind, arg in [(5, 1, "a"), (5, 1, "b"), (5, 2, "c"), (6, 1, "d")]:
        ev.schedule(t, kind, arg)
    t, kind, first = ev.step()
    assert (t, kind, first, ev.same(t, kind)) == (5, 1, "a", ["b"])
    assert ev.peek() == (5, 2)


def test_run_hands_each_event_to_its_kind_s_handler_until_a_time_or_a_stop():
    seen = []
    ev = Events()
    for t in (1, 2, 3, 4):
        ev.schedule(t, t % 2, t)
    handlers = {0: lambda t, a: seen.append(("even", t)), 1: lambda t, a: seen.append(("odd", t))}
    ev.run(handlers, until=2)
    assert seen == [("odd", 1), ("even", 2)] and ev.peek() == (3, 1)
    ev.run(handlers, stop=lambda kind: kind == 0)
    assert seen[-1] == ("odd", 3) and ev.peek() == (4, 0)   # the stopped event stays queued


def test_a_handler_may_schedule_more_events():
    ev, seen = Events(), []

    def again(t, n):
        seen.append(t)
        if n:
            ev.schedule(t + 10, 0, n - 1)

    ev.schedule(0, 0, 3)
    ev.run({0: again})
    assert seen == [0, 10, 20, 30]


def test_both_designs_run_on_the_core_and_keep_no_queue_of_their_own():
    for name in ("sim.py", "chain.py"):
        tree = ast.parse((ENGINE / name).read_text())
        imported = {(n.module, a.name) for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        plain = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert ("events", "Events") in imported, name
        assert "heapq" not in plain, name
