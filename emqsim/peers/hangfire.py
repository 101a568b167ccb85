"""Hangfire recurring jobs: what a late check does with the missed occurrences.

Source: HangfireIO/Hangfire `src/Hangfire.Core/RecurringJobEntity.cs` (`ScheduleNext`, 1.8
line; read at commit c236dd0f930f of main). From the last execution it walks the cron occurrences up
to `now`: one exactly at `now` is kept as it is; a missed one is, by `MisfireHandlingMode`,
replaced by `now` and the walk ends there (Relaxed, the default: one run stamped with the
check's own time), kept (Strict: one run per missed occurrence, each with its own time), or
kept only if it is within `precision` of `now` (Ignorable). The next execution is the first
occurrence after the last one walked. `src/Hangfire.Core/Server/RecurringJobScheduler.cs`
(lines 325-358) enqueues every run `ScheduleNext` returns in one pass, in one write transaction:
Strict after a day down is 96 jobs at once (`burst`), not one a beat as the engine's `all` lane
releases them.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.errors import InputError, one_of, whole

SOURCE = "HangfireIO/Hangfire src/Hangfire.Core/RecurringJobEntity.cs ScheduleNext @ c236dd0f930f"
MODES = ("Relaxed", "Strict", "Ignorable")
DEFAULTS = {"MisfireHandling": "Relaxed"}


def schedule_next(next_after: Callable[[int], int], last: int, now: int, mode: str = "Relaxed",
                  precision: int = 0) -> tuple[list[int], int]:
    """`ScheduleNext` as arithmetic (Unix ms): the times of the runs it creates, and the next
    execution it stores. `next_after(t)` is the cron's first occurrence strictly after `t`."""
    one_of(mode, MODES, "MisfireHandling")
    out, nxt = [], last
    while (nxt := next_after(nxt)) <= now:
        if nxt == now or mode == "Strict":
            out.append(nxt)
        elif mode == "Relaxed":
            nxt = now
            out.append(nxt)
        elif now - precision <= nxt:
            out.append(nxt)
    return out, nxt


def burst(next_after: Callable[[int], int], last: int, now: int, mode: str = "Relaxed",
          precision: int = 0) -> dict[int, list[int]]:
    """What one check of the scheduler enqueues, by the instant it enqueues it: every run
    `schedule_next` returns goes in at `now`, in one transaction (RecurringJobScheduler.cs)."""
    runs, _ = schedule_next(next_after, last, now, mode, precision)
    return {now: runs} if runs else {}


def missed(mode: str = "Relaxed", precision: int = 0, gap: int | None = None) -> dict:
    """The engine's `Schedule` settings for a `MisfireHandlingMode`: Relaxed is `now` (one run
    stamped with the release instant), Strict is `all` (the engine releases them a pump beat
    apart, Hangfire all in one pass: the same stamps). Ignorable keeps a missed occurrence only
    within `precision` ms of the check: with a precision shorter than the cadence's `gap` only
    the latest can be, which is `once` with that deadline."""
    one_of(mode, MODES, "MisfireHandling")
    if mode == "Relaxed":
        return {"missed": "now"}
    if mode == "Strict":
        return {"missed": "all"}
    precision = whole(precision, "precision", low=0)
    if gap is None or precision >= gap:
        raise InputError(f"Ignorable precision {precision} ms must be shorter than the cadence's gap ({gap} ms) "
                         "to be one engine policy", "precision")
    return {"missed": "once", "deadline": precision}
