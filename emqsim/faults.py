"""Faults to inject, so the course can show what each design loses or repeats."""

from __future__ import annotations

from dataclasses import dataclass

from .durations import parse_duration


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
        object.__setattr__(self, "restart_after", parse_duration(self.restart_after, name="restart_after"))
        if self.outage is not None:
            down, up = self.outage
            if up < down:
                raise ValueError(f"outage ends at {up} before it starts at {down}")
        for name in ("crash_after_enqueue", "cancel_at"):
            v = getattr(self, name)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise ValueError(f"{name} {v!r} must be a fire number, 1 or more")
        if isinstance(self.pumps, bool) or not isinstance(self.pumps, int) or self.pumps < 1:
            raise ValueError(f"pumps {self.pumps!r} must be 1 or more")
