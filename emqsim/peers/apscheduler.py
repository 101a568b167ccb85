"""APScheduler 3: its job defaults and the engine settings that behave the same way.

Source: APScheduler 3.11.3 (PyPI), `apscheduler/schedulers/base.py` (`BaseScheduler` job
defaults: `misfire_grace_time` 1 s, `coalesce` True, `max_instances` 1; `_process_jobs`:
with coalesce only `run_times[-1:]` is submitted, and the next run counts from that time;
`submit_job` refuses a run while `max_instances` are going) and `apscheduler/executors/base.py`
(`run_job`: a run time later than `misfire_grace_time` is dropped as missed, the grace checked
per run time). The tests drive the real scheduler on a fake clock (tests/test_peer_apscheduler.py).
"""

from __future__ import annotations

from ..engine.errors import InputError, whole

SOURCE = "APScheduler 3.11.3 apscheduler/schedulers/base.py _process_jobs, apscheduler/executors/base.py run_job"
DEFAULTS = {"misfire_grace_time": 1, "coalesce": True, "max_instances": 1}


def settings(misfire_grace_time: int | None = 1, coalesce: bool = True, max_instances: int = 1) -> dict:
    """The engine's `Schedule` settings for a job with these options (APScheduler's defaults):
    coalescing keeps the latest missed time (`once`), the grace time is its deadline (`None`:
    no limit), and one instance at a time drops a release while a run is going (`skip`)."""
    if coalesce is not True:
        raise InputError("coalesce=False hands every missed time to one executor call at once; "
                         "no engine policy does that: use coalesce=True", "coalesce")
    if whole(max_instances, "max_instances", low=1) != 1:
        raise InputError(f"max_instances {max_instances!r}: only 1 (the default) has an engine policy, overlap 'skip'",
                         "max_instances")
    out = {"missed": "once", "overlap": "skip"}
    if misfire_grace_time is not None:
        out["deadline"] = whole(misfire_grace_time, "misfire_grace_time", low=1,
                                what="whole seconds, 1 or more (APScheduler refuses 0), or None") * 1000
    return out
