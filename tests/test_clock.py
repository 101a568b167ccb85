from __future__ import annotations

import pytest

from emqsim.engine.clock import VirtualClock

T = 1767258000000  # 2026-01-01T09:00:00Z


def test_starts_at_given_time():
    assert VirtualClock(T).now == T


@pytest.mark.parametrize("steps, end", [([], T), ([0], T), ([1], T + 1), ([1000, 60000, 5], T + 61005)])
def test_advance(steps, end):
    clock = VirtualClock(T)
    for step in steps:
        clock.advance(step)
    assert clock.now == end


def test_advance_and_jump_return_new_time():
    clock = VirtualClock(T)
    assert clock.advance(500) == T + 500
    assert clock.jump_to(T + 1000) == T + 1000


@pytest.mark.parametrize("target", [T, T + 1, T + 86_400_000])
def test_jump_to(target):
    clock = VirtualClock(T)
    clock.jump_to(target)
    assert clock.now == target


def test_jump_back_rejected_and_time_kept():
    clock = VirtualClock(T)
    with pytest.raises(
        ValueError,
        match=r"^cannot move the clock back from 1767258000000 to 1767257000000; virtual time only moves forward$",
    ):
        clock.jump_to(T - 1_000_000)
    assert clock.now == T


def test_negative_advance_rejected():
    clock = VirtualClock(T)
    with pytest.raises(ValueError, match=r"by -5 ms"):
        clock.advance(-5)
    assert clock.now == T


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: VirtualClock(1.5), "start_ms 1.5 "),
        (lambda: VirtualClock(True), "start_ms True "),
        (lambda: VirtualClock(T).advance(1.0), "advance 1.0 "),
        (lambda: VirtualClock(T).advance("5m"), "advance '5m' "),
        (lambda: VirtualClock(T).jump_to(False), "jump_to False "),
        (lambda: VirtualClock(T).jump_to(str(T)), f"jump_to '{T}' "),
    ],
)
def test_non_int_rejected(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    "start, text",
    [(T, "VirtualClock(2026-01-01T09:00:00Z)"), (T + 250, "VirtualClock(2026-01-01T09:00:00.250Z)")],
)
def test_repr_shows_iso_utc(start, text):
    assert repr(VirtualClock(start)) == text
