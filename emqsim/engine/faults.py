"""Faults to inject, so the course can show what each design loses or repeats."""

from __future__ import annotations

from dataclasses import dataclass

from .durations import parse_duration
from .errors import InputError, instant, whole

MAX_PUMPS = 64        # pumps beating on one queue: enough to show a race, not a memory sink
MAX_FIRE = 10**9      # a fire number beyond any run the package allows


@dataclass(frozen=True)
class Faults:
    """`outage`: (down, up) Unix ms while the pump is stopped.
    `crash_after_enqueue`: the pump dies right after enqueuing fire N (two-step: before
    its advance; atomic: after its fire script) and restarts `restart_after` ms later.
    `pumps`: pumps beating on the same queue. `cancel_at`: a cancel of fire N's
    registration lands between its due read and its advance."""

    outage: tuple[int, int] | None = None
    crash_after_enqueue: int | None = None
    restart_after: int = 0
    pumps: int = 1
    cancel_at: int | None = None

    def __post_init__(self):
        """Check every field before the run uses any (InputError naming the field)."""
        restart = parse_duration(self.restart_after, name="restart_after")
        if self.outage is not None:
            o = self.outage
            if isinstance(o, (str, bytes)) or not hasattr(o, "__len__") or len(o) != 2:
                raise InputError(f"outage {o!r} must be a pair (down, up) of Unix ms", "outage")
            down, up = instant(o[0], "outage"), instant(o[1], "outage")
            if up < down:
                raise InputError(f"outage ends at {up} before it starts at {down}; put the earlier time first",
                                 "outage")
            object.__setattr__(self, "outage", (down, up))
        for name in ("crash_after_enqueue", "cancel_at"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, whole(v, name, low=1, high=MAX_FIRE, what="a fire number"))
        object.__setattr__(self, "pumps", whole(self.pumps, "pumps", low=1, high=MAX_PUMPS, what="a number of pumps"))
        object.__setattr__(self, "restart_after", restart)
