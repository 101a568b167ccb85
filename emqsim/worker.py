"""Workers: when a released job starts and how long it runs.

A worker blocked on the marker starts a job the moment it is released; a polling
worker only notices on its next poll. With every worker busy a job waits its turn
(oldest first).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from .durations import parse_duration
from .rand import draw


@dataclass(frozen=True)
class Worker:
    run: int = 0
    spread: int = 0
    concurrency: int = 1
    poll: int = 0
    seed: int = 0

    def __post_init__(self):
        for name in ("run", "spread", "poll"):
            object.__setattr__(self, name, parse_duration(getattr(self, name), name=name))
        c = self.concurrency
        if isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise ValueError(f"concurrency {c!r} must be a whole number of workers, at least 1")

    def duration(self, n: int) -> int:
        """Run length of job n: `run`, plus a seeded draw in [0, spread]."""
        return self.run + draw(self.seed + 1, n, self.spread)


class Crew:
    """The free times of `concurrency` workers; assigns jobs in release order."""

    def __init__(self, worker: Worker, origin: int):
        self.worker = worker
        self.origin = origin
        self.free = [origin] * worker.concurrency

    def assign(self, n: int, released: int) -> tuple[int, int]:
        """(started, finished) of job n released at `released`."""
        ready = max(released, heapq.heappop(self.free))
        poll = self.worker.poll
        started = ready if not poll else self.origin - (-(ready - self.origin) // poll) * poll
        finished = started + self.worker.duration(n)
        heapq.heappush(self.free, finished)
        return started, finished
