"""A virtual clock: time moves only when the simulation says so, never from the wall clock."""

from __future__ import annotations

import numbers

from emqsim.engine.errors import MAX_MS, InputError
from emqsim.engine.timefmt import iso



def _check_int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{what} {value!r} is not an integer; give whole milliseconds", what)
    value = int(value)
    if not -MAX_MS < value < MAX_MS:
        raise InputError(f"{what} {value!r} is out of range; give whole ms below 2**53", what)
    return value


class VirtualClock:
    """Integer Unix ms that only moves forward, so replays are exact and deterministic."""

    def __init__(self, start_ms: int) -> None:
        self._now = _check_int(start_ms, "start_ms")

    @property
    def now(self) -> int:
        return self._now

    def advance(self, ms: int) -> int:
        """Move forward by `ms`; returns the new time."""
        ms = _check_int(ms, "advance")
        if ms < 0:
            raise InputError(f"cannot advance the clock by {ms} ms; give 0 or more", "advance")
        _check_int(self._now + ms, "advance")
        self._now += ms
        return self._now

    def jump_to(self, t: int) -> int:
        """Move to absolute time `t`; returns it."""
        t = _check_int(t, "jump_to")
        if t < self._now:
            raise InputError(
                f"cannot move the clock back from {self._now} to {t}; virtual time only moves forward", "jump_to")
        self._now = t
        return self._now

    def __repr__(self) -> str:
        return f"VirtualClock({iso(self._now)})"
