"""Faults to inject, so the course can show what each design loses or repeats."""

from __future__ import annotations

from dataclasses import dataclass

from .durations import parse_duration
from .errors import InputError, whole
from .ids import id_time

MAX_PUMPS = 64        # pumps beating on one queue: enough to show a race, not a memory sink
MAX_FIRE = 10**9      # a fire number beyond any run the package allows


@dataclass(frozen=True)
class Faults:
    """`outage`: (down, up) Unix ms while the pump is stopped.
    `workers_down`: (down, up) Unix ms while no worker takes a job and the pump beats on (a
    run going at `down` finishes; a job released meanwhile waits for `up`).
    `crash_after_enqueue`: the pump dies right after enqueuing fire N (two-step: before
    its advance; atomic: after its fire script) and restarts `restart_after` ms later.
    `pumps`: pumps beating on the same queue. `cancel_at`: a cancel of fire N's
    registration lands between its due read and its advance."""

    outage: tuple[int, int] | None = None
    workers_down: tuple[int, int] | None = None
    crash_after_enqueue: int | None = None
    restart_after: int = 0
    pumps: int = 1
    cancel_at: int | None = None

    def __post_init__(self):
        """Check every field before the run uses any (InputError naming the field)."""
        restart = parse_duration(self.restart_after, name="restart_after")
        for name in ("outage", "workers_down"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, _interval(getattr(self, name), name))
        for name in ("crash_after_enqueue", "cancel_at"):
            v = getattr(self, name)
            if v is not None:
                object.__setattr__(self, name, whole(v, name, low=1, high=MAX_FIRE, what="a fire number"))
        object.__setattr__(self, "pumps", whole(self.pumps, "pumps", low=1, high=MAX_PUMPS, what="a number of pumps"))
        object.__setattr__(self, "restart_after", restart)

    @property
    def quiet(self) -> bool:
        """No fault acts in the run: no outage, no workers away, no crash, one pump, no cancel
        (`restart_after` alone does nothing without a crash to restart from)."""
        return (self.outage is None and self.workers_down is None and self.crash_after_enqueue is None
                and self.pumps == 1 and self.cancel_at is None)


def _interval(o, name: str) -> tuple[int, int]:
    """A (down, up) pair of Unix ms, down first."""
    if isinstance(o, (str, bytes)) or not hasattr(o, "__len__") or len(o) != 2:
        raise InputError(f"{name} {o!r} must be a pair (down, up) of Unix ms", name)
    down, up = id_time(o[0], name), id_time(o[1], name)
    if up < down:
        raise InputError(f"{name} ends at {up} before it starts at {down}; put the earlier time first", name)
    return down, up
