"""Temporal Schedules: defaults, overlap policies and the id of the workflow an action starts.

Sources: docs.temporal.io/schedule (Action, Overlap Policy, Catchup Window) and the scheduler's
own tests, temporalio/temporal `service/worker/scheduler/workflow_test.go` at commit c01fd64845cf
(`TestStart`, `TestOverlapSkip`, `TestOverlapBufferOne`, `TestOverlapBufferAll`,
`TestOverlapTerminate`): a workflow
started by a schedule gets the action's nominal time appended to the **workflow id set in the
action** (`myid-2022-06-01T00:15:00Z`), not to the schedule's id; the `TemporalScheduledStartTime` search
attribute holds that timestamp and `TemporalScheduledById` the schedule's id. The overlap
policy defaults to Skip (start nothing while a run is open); BufferOne starts one buffered
action when the running one closes and drops any further one; BufferAll queues every one and
starts them in turn (no engine lane); AllowAll starts it beside the
running one; TerminateOther terminates the running one and starts the new one. The catchup
window defaults to one year.
"""

from __future__ import annotations

from datetime import datetime, timezone

from ..engine.errors import InputError

SOURCE = "docs.temporal.io/schedule (Action, Overlap Policy, Catchup Window)"
DEFAULTS = {"overlap": "Skip", "catchupWindow": "1 year"}
#: overlap policy -> the engine's. TerminateOther stops the running one at once, like `replace`;
#: CancelOther waits for it to finish cancelling (instant in the engine), BufferAll has none.
OVERLAP = {"Skip": "skip", "BufferOne": "buffer-one", "AllowAll": "allow", "TerminateOther": "replace"}


def overlap(policy: str = "Skip") -> dict:
    """The engine's `Schedule` settings for a Temporal overlap policy (Skip by default)."""
    if policy not in OVERLAP:
        raise InputError(f"overlap policy {policy!r} has no engine policy: one of {', '.join(OVERLAP)}", "overlap")
    return {"overlap": OVERLAP[policy]}



def workflow_id(action_workflow_id: str, nominal: int) -> str:
    """The id of the workflow an action starts: the action's workflow id, a dash, and the
    action's nominal time (Unix ms) in RFC 3339 UTC to the second (`TestStart`)."""
    stamp = datetime.fromtimestamp(nominal // 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{action_workflow_id}-{stamp}"


def starts(policy: str, actions: list[int], run) -> list[tuple[int, int]]:
    """The overlap rule as arithmetic: for actions at `actions` (Unix ms, in order) whose
    workflows take `run` ms (one length, or one per action), the (action time, start) of each
    workflow that starts. TerminateOther's terminated runs are in the list too (they started);
    its new one starts at once (the engine's cancel is instant; Temporal's waits for the close).
    BufferAll, which has no engine lane, queues every action that comes while a run is open and
    starts them one after another as each run closes (`TestOverlapBufferAll`)."""
    if policy == "BufferAll":
        return _buffer_all(actions, run)
    overlap(policy)
    runs = list(run) if isinstance(run, (list, tuple)) else [run] * len(actions)
    out, busy_until, buffered = [], None, None
    for t, length in zip(actions, runs):
        if buffered is not None and busy_until <= t:
            b, b_len = buffered
            out.append((b, busy_until))          # the buffered one starts when the run closes
            busy_until, buffered = busy_until + b_len, None
        open_run = busy_until is not None and busy_until > t
        if not open_run or policy in ("AllowAll", "TerminateOther"):
            out.append((t, t))
            busy_until = max(busy_until or 0, t + length) if policy == "AllowAll" else t + length
        elif policy == "BufferOne" and buffered is None:
            buffered = (t, length)
    if buffered is not None:
        out.append((buffered[0], busy_until))
    return out


def _buffer_all(actions: list[int], run) -> list[tuple[int, int]]:
    """BufferAll: every late action waits its turn; none is dropped."""
    runs = list(run) if isinstance(run, (list, tuple)) else [run] * len(actions)
    out, busy_until, queue = [], None, []

    def drain(until):
        nonlocal busy_until
        while queue and (until is None or busy_until <= until):
            t, length = queue.pop(0)
            out.append((t, busy_until))
            busy_until += length

    for t, length in zip(actions, runs):
        drain(t)
        if queue or (busy_until is not None and busy_until > t):
            queue.append((t, length))
        else:
            out.append((t, t))
            busy_until = t + length
    drain(None)
    return out
