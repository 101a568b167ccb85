"""Kubernetes CronJob: which missed time the controller starts, and the engine policy that does the same.

Source: kubernetes/kubernetes `pkg/controller/cronjob/utils.go`, `mostRecentScheduleTime` and
`nextScheduleTime` of the v2 controller (1.21 on), checked against `utils_test.go`
`TestMostRecentScheduleTime` at commit 8921bcdb70d8b3cc58dde1c47adfd68650219e25. The
controller takes the latest schedule time in `(earliest, now]`, where `earliest` is the last
schedule time (or the CronJob's creation) moved up to `now - startingDeadlineSeconds` when a
deadline is set; none set (the default) means no limit. More than 100 missed times only adds a
`TooManyMissedTimes` warning: the latest is still returned and started.
"""

from __future__ import annotations

from collections.abc import Callable

from ..engine.errors import InputError, whole

SOURCE = "kubernetes/kubernetes pkg/controller/cronjob/utils.go mostRecentScheduleTime (v2 controller)"
VECTORS = "pkg/controller/cronjob/utils_test.go TestMostRecentScheduleTime @ 8921bcdb70d8"
#: the CronJob spec's defaults that decide missed and overlapping runs
DEFAULTS = {"startingDeadlineSeconds": None, "concurrencyPolicy": "Allow"}
#: concurrencyPolicy -> the engine's overlap policy. Forbid is not `skip`: the controller does
#: not advance lastScheduleTime when it declines a start because a Job is active, so when that
#: Job ends (its status change queues the CronJob again) the latest time passed meanwhile starts,
#: within the deadline: the engine's `forbid` (with `missed="once"`).
CONCURRENCY = {"Allow": "allow", "Forbid": "forbid", "Replace": "replace"}


def most_recent(next_after: Callable[[int], int], earliest: int, now: int,
                starting_deadline_seconds: int | None = None) -> int | None:
    """The schedule time the controller starts at `now` (Unix ms), or None, as
    `mostRecentScheduleTime` computes it. `next_after(t)` is the schedule's next time strictly
    after `t` (robfig/cron's `Next`); `earliest` is the last schedule time (or the creation),
    raised to `now - deadline` when one is set.

    The controller does not walk every missed time: it counts them from the gap between the
    first two, `(now - t1) // (t2 - t1) + 1` in whole seconds, and searches from two gaps
    before that estimate. On a regular schedule that finds the latest time; on an irregular one
    the search can start past it and return None (utils_test.go's "another complex schedule")."""
    if starting_deadline_seconds is not None:
        d = whole(starting_deadline_seconds, "startingDeadlineSeconds", low=0, what="whole seconds")
        earliest = max(earliest, now - d * 1000)
    t1 = next_after(earliest)
    t2 = next_after(t1)
    if now < t1:
        return None
    if now < t2:
        return t1
    between = round((t2 - t1) / 1000)             # whole seconds, rounded like Round(time.Second)
    if between < 1:
        raise InputError("the schedule's two next times are less than a second apart", "schedule")
    count = (now - t1) // 1000 // between + 1     # int64(now.Sub(t1).Seconds()) truncates
    t, latest = next_after(t1 + (count - 2) * between * 1000), None
    while t <= now:
        latest, t = t, next_after(t)
    return latest


def missed(starting_deadline_seconds: int | None = None) -> dict:
    """The engine's `Schedule` settings for a CronJob's missed times: `once` (the latest unmet
    time), with a deadline when one is set. The controller starts `t` only when `t > now - D`,
    a strict bound, while the engine's deadline admits a lag up to and including it: so D
    seconds is a deadline of `D * 1000 - 1` ms (every instant here is whole ms)."""
    if starting_deadline_seconds is None:
        return {"missed": "once"}
    d = whole(starting_deadline_seconds, "startingDeadlineSeconds", low=0, what="whole seconds")
    if d == 0:
        raise InputError("startingDeadlineSeconds 0 starts nothing: give 1 or more", "startingDeadlineSeconds")
    return {"missed": "once", "deadline": d * 1000 - 1}


def overlap(concurrency_policy: str = "Allow") -> dict:
    """The engine's `Schedule` settings for a `concurrencyPolicy` (Allow by default)."""
    if concurrency_policy not in CONCURRENCY:
        raise InputError(f"concurrencyPolicy {concurrency_policy!r} is not one of {', '.join(CONCURRENCY)}",
                         "concurrencyPolicy")
    return {"overlap": CONCURRENCY[concurrency_policy]}


def settings(starting_deadline_seconds: int | None = None, concurrency_policy: str = "Allow") -> dict:
    """Both at once: a CronJob spec's missed-run and overlap settings as `Schedule` keywords."""
    return {**missed(starting_deadline_seconds), **overlap(concurrency_policy)}
