"""Java's `ScheduledExecutorService`: the two periodic methods, start-to-start and start-to-finish.

Source: OpenJDK 17, `java.base/share/classes/java/util/concurrent/ScheduledThreadPoolExecutor.java`,
`ScheduledFutureTask.setNextRunTime`: a fixed-rate task's next time is its previous *scheduled*
time plus the period (`time += p`), a fixed-delay task's is the moment its run ended plus the
delay (`time = triggerTime(-p)`, now + delay); and the interface's Javadoc: a fixed-rate run that
takes longer than its period makes later ones "start late, but will not concurrently execute".
Neither can run here on virtual time (the executor reads `System.nanoTime`), so the rules are
stated as plain arithmetic and the tests hold the engine to them (tests/test_peer_java.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..engine.errors import one_of, whole

SOURCE = ("OpenJDK 17 java/util/concurrent/ScheduledThreadPoolExecutor.java "
          "ScheduledFutureTask.setNextRunTime; ScheduledExecutorService Javadoc")
METHODS = ("scheduleAtFixedRate", "scheduleWithFixedDelay")


def starts(method: str, first: int, period: int, runs: Sequence[int]) -> list[int]:
    """When each run starts, one task on its executor: run n lasts `runs[n]` ms. Fixed rate:
    the scheduled time steps by the period from `first`, and a run starts at that time or when
    the previous one ends, whichever is later (never two at once). Fixed delay: each run starts
    `period` ms after the previous one ended."""
    one_of(method, METHODS, "method")
    t, free, out = whole(first, "first"), None, []
    whole(period, "period", low=1)
    for n, run in enumerate(runs):
        start = t if free is None else max(t, free)
        out.append(start)
        free = start + whole(run, f"runs[{n}]", low=0)
        t = t + period if method == "scheduleAtFixedRate" else free + period
    return out


def settings(method: str) -> dict:
    """The engine's `Schedule` settings that behave the same, run by one worker: fixed rate is
    the `schedule` rule (`prev + every`, a late run starting late, the backlog queued);
    fixed delay is the `finish` rule (the next run counted from the end of the last)."""
    if one_of(method, METHODS, "method") == "scheduleAtFixedRate":
        return {"rule": "schedule", "overlap": "allow"}
    return {"rule": "finish"}
