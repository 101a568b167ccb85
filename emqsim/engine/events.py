"""The one discrete-event core both designs run on.

Prior art: SimPy's `Environment` (`peek`, `step`, `run(until)`), made small. An event is a time,
a kind and an argument; events come out ordered by time, then by kind (a design numbers its
kinds in the order they must run at one instant: a worker's finish before the next beat, say),
then by the order they were scheduled, so a run is the same on every machine. Time moves only
when an event is stepped: the pump design hands in its `VirtualClock`, which refuses to go back.
The pump's beats and releases, the workers' takes, wakes and finishes, the outages and BullMQ's
pickups are all events here; what each does is its design's handler.
"""

from __future__ import annotations

import heapq
import itertools
from typing import Callable

from .clock import VirtualClock


class Events:
    """A queue of (time, kind, argument), stepped in order; `run` hands each to its handler."""

    def __init__(self, clock: VirtualClock | None = None):
        self.clock = clock
        self._heap: list = []
        self._seq = itertools.count()

    def __len__(self) -> int:
        return len(self._heap)

    def schedule(self, at: int, kind: int, arg=None) -> None:
        """Put an event of `kind` at time `at`."""
        heapq.heappush(self._heap, (at, kind, next(self._seq), arg))

    def peek(self) -> tuple[int, int] | None:
        """(time, kind) of the next event, or None when there is none."""
        return self._heap[0][:2] if self._heap else None

    def due_by(self, t: int) -> bool:
        """Is an event waiting at or before `t`?"""
        return bool(self._heap) and self._heap[0][0] <= t

    def step(self) -> tuple[int, int, object]:
        """Take the next event, move the clock (if any) to its time, and return (time, kind, arg)."""
        t, kind, _, arg = heapq.heappop(self._heap)
        if self.clock is not None:
            self.clock.jump_to(t)
        return t, kind, arg

    def same(self, t: int, kind: int) -> list:
        """Take the other events of `kind` at time `t`, so one handler call serves them all."""
        out = []
        while self._heap and self._heap[0][0] == t and self._heap[0][1] == kind:
            out.append(heapq.heappop(self._heap)[3])
        return out

    def clear(self) -> None:
        self._heap.clear()

    def run(self, handlers: dict[int, Callable[[int, object], None]], *, until: int | None = None,
            stop: Callable[[int], bool] | None = None) -> None:
        """Step events into their kind's handler, `handler(time, arg)`, until none is left, the
        next is after `until`, or `stop(kind)` says the next should not run (it stays queued)."""
        heap = self._heap
        while heap:
            t, kind = heap[0][0], heap[0][1]
            if (until is not None and t > until) or (stop is not None and stop(kind)):
                break
            t, kind, arg = self.step()
            handlers[kind](t, arg)
