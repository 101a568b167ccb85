"""Every Redis key of a queue, built in one place (EchoMQ's layout).

All keys carry the `{q}` hash tag, so one queue's keys share a cluster slot and a
script may touch any of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import queue_name


@dataclass(frozen=True)
class Keys:
    queue: str

    def __post_init__(self):
        queue_name(self.queue)

    @property
    def base(self) -> str:
        return f"emq:{{{self.queue}}}"

    @property
    def repeat(self) -> str:
        """The registry: a sorted set, member = registration name, score = next run (ms)."""
        return f"{self.base}:repeat"

    def record(self, name: str) -> str:
        """The registration's hash: its cadence, rule, template and iteration count."""
        return f"{self.base}:repeat:{name}"

    def job(self, job_id: str) -> str:
        return f"{self.base}:job:{job_id}"

    @property
    def pending(self) -> str:
        """Jobs released and waiting for a worker (a list, oldest first)."""
        return f"{self.base}:pending"

    @property
    def delayed(self) -> str:
        """Jobs made ahead of their run time (a sorted set scored by it): BullMQ's design,
        where a scheduler's next run is a delayed job (emqsim/engine/chain.py)."""
        return f"{self.base}:delayed"

    @property
    def marker(self) -> str:
        """The wake marker (BullMQ's): "0" at score 0 while a job is ready, "1" at the earliest
        later instant one becomes ready; a parked worker pops its head (lua/includes/marker.lua)."""
        return f"{self.base}:marker"

    @property
    def pattern(self) -> str:
        """Matches every key of this queue and no other (for clean-up after a run on a real
        server): SCAN's glob characters in the name are escaped, so "a[b" matches itself."""
        return re.sub(r"([*?\[\]\\])", r"\\\1", self.base) + ":*"
