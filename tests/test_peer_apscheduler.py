"""APScheduler 3 as a live oracle: its own scheduler and executor code decide, on a fake clock.

The driver is a `BaseScheduler` subclass whose loop is ours (no thread): it calls the real
`_process_jobs` at each wake-up it asks for, skips the wake-ups inside an outage (the scheduler
is down) and calls it again at the restart. The executor runs the real
`apscheduler.executors.base.run_job` (the per-run `misfire_grace_time` check), and holds the
instance for the run's length, so `max_instances` is the real `submit_job` check. Both modules'
`datetime` is replaced by one whose `now()` reads the fake clock. The engine lane with the
settings `emqsim.peers.apscheduler.settings` gives must produce the same runs (slot, release).
"""

from __future__ import annotations

import heapq
import random
from datetime import datetime, timezone

import pytest

aps = pytest.importorskip("apscheduler", minversion="3.10")
import apscheduler.executors.base as aps_executors  # noqa: E402
import apscheduler.schedulers.base as aps_schedulers  # noqa: E402
from apscheduler.events import EVENT_JOB_EXECUTED  # noqa: E402
from apscheduler.executors.base import BaseExecutor, run_job  # noqa: E402
from apscheduler.schedulers.base import BaseScheduler  # noqa: E402
from apscheduler.triggers.interval import IntervalTrigger  # noqa: E402

from emqsim.engine.cadence import Every
from emqsim.engine.errors import InputError
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.worker import Worker
from emqsim.lessons import missed_slots as mx
from emqsim.peers import apscheduler as peer

MIN = 60_000
PUMP = Pump(tick=1000)


class _Clock:
    ms = 0


def _fake_datetime(clock):
    class FakeDatetime(datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.fromtimestamp(clock.ms / 1000, tz or timezone.utc)

    return FakeDatetime


class _Holding(BaseExecutor):
    """Runs `run_job` at the submit instant and keeps the instance until the run ends."""

    def __init__(self, clock, run_ms, finishes, runs):
        super().__init__()
        self.clock, self.run_ms, self.finishes, self.runs = clock, run_ms, finishes, runs

    def _do_submit_job(self, job, run_times):
        events = run_job(job, job._jobstore_alias, run_times, self._logger.name)
        ran = [e.scheduled_run_time for e in events if e.code == EVENT_JOB_EXECUTED]
        for rt in ran:
            self.runs.append((round(rt.timestamp() * 1000), self.clock.ms))
        end = self.clock.ms + (self.run_ms if ran else 0)
        heapq.heappush(self.finishes, (end, len(self.runs), job.id, events))


class _Driven(BaseScheduler):
    def __init__(self, executor, **kw):
        self._holding = executor
        super().__init__(**kw)

    def wakeup(self):
        pass

    def shutdown(self, wait=True):
        super().shutdown(wait)

    def _create_default_executor(self):
        return self._holding


def apscheduler_runs(every: int, first: int, until: int, outage=None, run: int = 0, **options):
    """The runs the real APScheduler makes, as (scheduled run time, instant it ran) in Unix ms."""
    clock = _Clock()
    clock.ms = first
    fake = _fake_datetime(clock)
    finishes, runs = [], []
    mp = pytest.MonkeyPatch()
    mp.setattr(aps_schedulers, "datetime", fake)
    mp.setattr(aps_executors, "datetime", fake)
    try:
        ex = _Holding(clock, run, finishes, runs)
        s = _Driven(ex, timezone=timezone.utc)
        s.start()
        s.add_job(lambda: None, IntervalTrigger(seconds=every // 1000, start_date=datetime.fromtimestamp(
            first / 1000, timezone.utc), timezone=timezone.utc), id="reports", **options)
        down, up = outage if outage else (None, None)
        wake = first
        while True:
            if down is not None and wake is not None and wake >= down:
                wake, down = max(up, wake), None          # down from `down`; it starts again at `up`
            t = min([x for x in (wake, finishes[0][0] if finishes else None) if x is not None], default=None)
            if t is None or t > until:
                break
            clock.ms = t
            while finishes and finishes[0][0] <= t:       # runs end before the scheduler looks
                _, _, job_id, events = heapq.heappop(finishes)
                ex._run_job_success(job_id, events)
            if wake == t:
                wait = s._process_jobs()
                wake = None if wait is None else t + round(wait * 1000)
        s.shutdown(wait=False)
    finally:
        mp.undo()
    return runs


def engine_runs(every, first, until, outage=None, run=0, *, engine=True, **options):
    kw = peer.settings(**options)
    s = Schedule("reports", Every(every), **kw)
    worker = Worker(run=run)
    if engine:
        faults = Faults(outage=outage) if outage else None
        with PumpDesign(s, start=first, pump=PUMP, worker=worker, faults=faults) as sim:
            tr = sim.run(until=until)
        return [(f.slot, f.released) for f in tr]
    r = reference(s, start=first, until=until, pump=PUMP, worker=worker, outage=outage, ids=None)
    return list(zip(r.slot.tolist(), r.released.tolist()))


def _hm(runs):
    return [(mx.hm(a), mx.hm(b)) for a, b in runs]


# -- the course's outage (notebook 04) -----------------------------------------------------------

OUTAGE = (mx.DOWN, mx.UP)



def test_apscheduler_defaults_drop_the_coalesced_run_after_the_outage():
    """Defaults (grace 1 s, coalesce, one instance): 10:07 is 3 min late at 10:10, so 0 runs."""
    assert peer.DEFAULTS == {"misfire_grace_time": 1, "coalesce": True, "max_instances": 1}
    want = [("09:07", "09:07"), ("09:22", "09:22"), ("10:22", "10:22"), ("10:37", "10:37")]
    assert _hm(apscheduler_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE)) == want
    assert _hm(engine_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE)) == want


def test_apscheduler_with_a_grace_runs_the_latest_missed_time():
    """misfire_grace_time=300: one run at 10:10 for 10:07 (`run_times[-1:]`), then 10:22."""
    want = [("09:07", "09:07"), ("09:22", "09:22"), ("10:07", "10:10"), ("10:22", "10:22"), ("10:37", "10:37")]
    assert _hm(apscheduler_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE, misfire_grace_time=300)) == want
    assert _hm(engine_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE, misfire_grace_time=300)) == want
    # a grace of exactly the lateness still runs it (run_job drops only `difference > grace`)
    assert ("10:07", "10:10") in _hm(apscheduler_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE, misfire_grace_time=180))
    assert ("10:07", "10:10") in _hm(engine_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE, misfire_grace_time=180))
    assert ("10:07", "10:10") not in _hm(engine_runs(15 * MIN, mx.FIRST, mx.LISTED, OUTAGE, misfire_grace_time=179))


def test_apscheduler_max_instances_drops_a_release_while_a_run_is_going():
    """20-min runs every 15 min, one instance: 09:15 and 09:45 are refused, like overlap 'skip'."""
    first = mx.on_day("09:00")
    want = [("09:00", "09:00"), ("09:30", "09:30"), ("10:00", "10:00")]
    assert _hm(apscheduler_runs(15 * MIN, first, mx.on_day("10:10"), run=20 * MIN)) == want
    assert _hm(engine_runs(15 * MIN, first, mx.on_day("10:10"), run=20 * MIN)) == want


def test_settings_refuse_what_no_engine_policy_does():
    with pytest.raises(InputError, match="coalesce=False"):
        peer.settings(coalesce=False)
    with pytest.raises(InputError, match="max_instances 2"):
        peer.settings(max_instances=2)
    assert peer.settings(misfire_grace_time=None) == {"missed": "once", "overlap": "skip"}


# -- seeded scenarios: outages, grace times, long runs -------------------------------------------

def _scenario(seed: int):
    rnd = random.Random(seed)
    every = rnd.choice((60, 300, 900, 3600)) * 1000
    first = mx.FIRST + rnd.randrange(0, 3600) * 1000
    until = first + rnd.randint(6, 14) * every
    outage = None
    if rnd.random() < 0.8:
        down = first + rnd.randrange(1, 4 * every // 1000) * 1000
        outage = (down, down + rnd.randrange(1, 6 * every // 1000) * 1000)
    run = rnd.choice((0, 0, 10_000, every // 2, every, every + every // 2, 3 * every))
    grace = rnd.choice((None, 1, 2, 5, 60, 300, 899, 900, 3600))
    return dict(every=every, first=first, until=until, outage=outage, run=run), dict(misfire_grace_time=grace)


@pytest.mark.parametrize("seed", range(120))
def test_engine_lane_matches_live_apscheduler(seed):
    case, options = _scenario(seed)
    want = apscheduler_runs(**case, **options)
    assert engine_runs(**case, **options, engine=False) == want, (case, options)
    if seed % 4 == 0:  # the Lua engine too, on a quarter of them (the reference is held to it elsewhere)
        assert engine_runs(**case, **options) == want, (case, options)


def test_the_seeded_scenarios_cover_outages_deadlines_and_long_runs():
    """The scenarios are not all alike: some drop the coalesced run, some keep it, some overlap."""
    kinds = set()
    for seed in range(120):
        case, options = _scenario(seed)
        runs = apscheduler_runs(**case, **options)
        late = [r for r in runs if r[1] > r[0]]
        kinds.add("late run" if late else "none late")
        if case["run"] > case["every"]:
            kinds.add("long runs")
        if case["outage"] and not late and options["misfire_grace_time"] is not None:
            kinds.add("dropped")
    assert kinds == {"late run", "none late", "long runs", "dropped"}
