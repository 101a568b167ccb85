"""Kubernetes CronJob: its rule (`emqsim.peers.kubernetes.most_recent`) against the controller's own
test vectors, then the engine lane (`missed="once"` with the deadline `missed()` gives) against
that rule on seeded outages and deadlines.

Vectors: kubernetes/kubernetes pkg/controller/cronjob/utils_test.go, TestMostRecentScheduleTime,
commit 8921bcdb70d8b3cc58dde1c47adfd68650219e25 (times after 2016-05-19T10:00:00Z, a Thursday).
"""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.errors import InputError
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.worker import Worker
from emqsim.lessons.course import on_day
from emqsim.peers import kubernetes as k8s

T = int(datetime(2016, 5, 19, 10, tzinfo=timezone.utc).timestamp() * 1000)
S, M, H = 1000, 60_000, 3_600_000
D = 24 * H


def _next(schedule: str):
    """robfig/cron's Next: a cron's next slot strictly after t; `@every` counts from t itself."""
    if schedule.startswith("@every "):
        gap = Every(schedule.split()[1]).ms
        return lambda t: t - t % 1000 + gap
    c = Cron(schedule, "UTC")
    return c.after


# (name, schedule, creation, last schedule time, deadline s, includeSDS, now, expected most recent)
VECTORS = [
    ("now before next schedule", "0 * * * *", T, None, None, False, T + 30 * S, None),
    ("now just after next schedule", "0 * * * *", T, None, None, False, T + 61 * M, T + 60 * M),
    ("missed 5 schedules", "0 * * * *", T + 10 * S, None, None, False, T + 301 * M, T + 300 * M),
    ("complex schedule", "30 6-16/4 * * 1-5", T, T + 30 * M, None, False, T + D + 31 * M, T + D + 30 * M),
    ("another complex schedule", "30 10,11,12 * * 1-5", T, T + 30 * M, None, False, T + 30 * H + 30 * M, None),
    ("complex schedule with longer diff between executions", "30 6-16/4 * * 1-5", T, T + 30 * M, None, False,
     T + 96 * H + 31 * M, T + 96 * H + 30 * M),
    ("complex schedule with shorter diff between executions", "30 6-16/4 * * 1-5", T, None, None, False,
     T + D + 31 * M, T + D + 30 * M),
    ("@every schedule", "@every 1h", T - 59 * M, T + M, 10, False, T + 7 * D, T + 6 * D + 23 * H + M),
    ("earliestTime being CreationTimestamp and LastScheduleTime", "0 * * * *", T, T, None, False, T + 30 * S, None),
    ("earliestTime being LastScheduleTime", "*/5 * * * *", T, T + 30 * M, None, False, T + 31 * M, None),
    ("earliestTime being LastScheduleTime (within StartingDeadlineSeconds)", "*/5 * * * *", T, T + 30 * M, 60, False,
     T + 31 * M, None),
    ("earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)", "*/5 * * * *", T, T + 30 * M, 60, True,
     T + 32 * M, None),
]


@pytest.mark.parametrize("name, schedule, created, last, deadline, sds, now, want", VECTORS, ids=[v[0] for v in VECTORS])
def test_most_recent_matches_the_controllers_vectors(name, schedule, created, last, deadline, sds, now, want):
    earliest = created if last is None else last
    assert k8s.most_recent(_next(schedule), earliest, now, deadline if sds else None) == want


def test_the_rogue_cronjob_vector_is_refused():
    """'59 23 31 2 *' never matches: the controller errors, the engine refuses the cron."""
    with pytest.raises(InputError, match="never matches"):
        k8s.most_recent(_next("59 23 31 2 *"), T + 10 * S, T + H)


def test_the_latest_time_starts_past_a_hundred_missed():
    """v2 warns (TooManyMissedTimes) and still starts the most recent one: @every 1h, a week."""
    assert k8s.most_recent(_next("@every 1h"), T + M, T + 7 * D) == T + 6 * D + 23 * H + M


def test_the_irregular_schedule_case_differs_from_the_engines_latest_slot():
    """'another complex schedule': the latest unmet time is Friday 12:30, but the controller's
    estimate searches from Friday 15:30 on and finds none; the engine's `once` labels 12:30."""
    c = Cron("30 10,11,12 * * 1-5", "UTC")
    s = Schedule("r", c, **k8s.missed())
    assert s.label(c.after(T + 30 * M), T + 30 * H + 30 * M) == T + 26 * H + 30 * M
    assert k8s.most_recent(c.after, T + 30 * M, T + 30 * H + 30 * M) is None


def test_missed_settings():
    assert k8s.DEFAULTS == {"startingDeadlineSeconds": None, "concurrencyPolicy": "Allow"}
    assert k8s.missed() == {"missed": "once"}
    assert k8s.missed(300) == {"missed": "once", "deadline": 299_999}
    with pytest.raises(InputError, match="startingDeadlineSeconds 0"):
        k8s.missed(0)
    with pytest.raises(InputError, match="Sometimes"):
        k8s.overlap("Sometimes")
    assert k8s.overlap() == {"overlap": "allow"} and k8s.overlap("Replace") == {"overlap": "replace"}
    assert k8s.settings(60, "Forbid") == {"missed": "once", "deadline": 59_999, "overlap": "forbid"}


# -- the engine lane against the rule, seeded ------------------------------------------------------

def _controller(every, first, until, outage, deadline):
    """Sync instants: every slot outside [down, up), plus `up` itself."""
    down, up = outage
    grid = lambda t: first + ((t - first) // every + 1) * every if t >= first else first  # noqa: E731
    syncs = sorted({s for s in range(first, until + 1, every) if not down <= s < up} | ({up} if up <= until else set()))
    runs, last = [], first - 1
    for t in syncs:
        mr = k8s.most_recent(grid, last, t, deadline)
        if mr is not None and mr > last:
            runs.append((mr, t))
            last = mr
    return runs


def _scenario(seed):
    rnd = random.Random(seed)
    every = rnd.choice((60, 300, 900, 3600)) * S
    first = on_day("09:00") + rnd.randrange(0, 3600) * S
    until = first + rnd.randint(6, 14) * every
    down = first + rnd.randrange(1, 4 * every // S) * S
    up = down + rnd.randrange(1, 6 * every // S) * S
    deadline = rnd.choice((None, 1, 2, 10, 60, 120, 299, 300, 900, 3600))
    return every, first, until, (down, up), deadline


@pytest.mark.parametrize("seed", range(120))
def test_engine_lane_matches_the_controller(seed):
    every, first, until, outage, deadline = _scenario(seed)
    want = _controller(every, first, until, outage, deadline)
    s = Schedule("cj", Every(every), **k8s.missed(deadline))
    r = reference(s, start=first, until=until, pump=Pump(tick=1000), outage=outage, ids=None)
    assert list(zip(r.slot.tolist(), r.released.tolist())) == want, (every, first, until, outage, deadline)
    if seed % 4 == 0:
        with PumpDesign(s, start=first, pump=Pump(tick=1000), faults=Faults(outage=outage)) as sim:
            tr = sim.run(until=until)
        assert [(f.slot, f.released) for f in tr] == want


def test_the_seeded_scenarios_cover_late_starts_and_dropped_ones():
    kinds = set()
    for seed in range(120):
        every, first, until, outage, deadline = _scenario(seed)
        runs = _controller(every, first, until, outage, deadline)
        late = [r for r in runs if r[1] > r[0]]
        missed_any = any(outage[0] <= s < outage[1] for s in range(first, until + 1, every))
        kinds.add("late start" if late else ("dropped" if missed_any else "nothing missed"))
    assert kinds == {"late start", "dropped", "nothing missed"}


# -- concurrencyPolicy with runs longer than the gap ---------------------------------------------

def controller_with_jobs(every, first, until, run, deadline, policy):
    """The controller with Jobs that take `run` ms: it syncs at each schedule time and when a Job
    ends. A sync that finds a Job active under Forbid starts nothing and leaves lastScheduleTime
    alone; under Replace it deletes the active Jobs and starts the new one; under Allow it
    starts it beside them. (syncCronJob in cronjob_controllerv2.go; the Job informer's update
    handler queues the CronJob when a Job changes.)"""
    grid = lambda x: first + ((x - first) // every + 1) * every if x >= first else first  # noqa: E731
    syncs = set(range(first, until + 1, every))
    runs, last, active = [], first - 1, []
    while syncs:
        t = min(syncs)
        syncs.discard(t)
        active = [j for j in active if j[1] > t]
        if active and policy == "Forbid":
            continue
        mr = k8s.most_recent(grid, last, t, deadline)
        if mr is None:
            continue
        if policy == "Replace":
            for j in active:
                j[2] = True
            active = []
        job = [t, t + run, False, mr]
        runs.append(job)
        active.append(job)
        last = mr
        if t + run <= until:
            syncs.add(t + run)
    return [(j[3], j[0], j[1], j[2]) for j in runs]


@pytest.mark.parametrize("seed", range(120))
def test_engine_lanes_match_the_controller_with_long_jobs(seed):
    rnd = random.Random(seed)
    every = rnd.choice((60, 300, 900)) * S
    first = on_day("09:00") + rnd.randrange(0, 3600) * S
    until = first + rnd.randint(6, 14) * every
    run = rnd.choice((every // 3, every, every + every // 3, 2 * every + rnd.randrange(1, every // S) * S))
    deadline = rnd.choice((None, 1, 10, every // S // 3, every // S))
    policy = ("Forbid", "Forbid", "Replace", "Allow")[seed % 4]
    want = controller_with_jobs(every, first, until, run, deadline, policy)
    s = Schedule("cj", Every(every), **k8s.settings(deadline, policy))
    worker = Worker(run=run, concurrency=4)
    r = reference(s, start=first, until=until, pump=Pump(tick=1000), worker=worker, ids=None)
    got = [x for x in zip(r.slot.tolist(), r.released.tolist(), r.finished.tolist(), r.cancelled.tolist())]
    if policy == "Allow":   # the controller's runs beside each other: the engine needs a worker for each
        assert max(sum(1 for j in got if j[1] <= t < j[2]) for t in range(first, until, 1000)) <= 4
    assert [g[:2] for g in got] == [w[:2] for w in want], (every, first, until, run, deadline, policy)
    assert [bool(g[3]) for g in got] == [w[3] for w in want]
    if seed % 8 == 0:
        with PumpDesign(s, start=first, pump=Pump(tick=1000), worker=worker) as sim:
            assert [(f.slot, f.released) for f in sim.run(until=until)] == [g[:2] for g in got]


def test_forbid_starts_the_skipped_time_when_the_running_job_ends():
    """Every 15 min from 09:00, 20-min Jobs, Forbid: 09:15 is declined while 09:00 runs, then
    starts at 09:20, when it ends (with skip it would be gone); 09:30 is declined and starts at
    09:40; at 10:00 the latest unmet time is 10:00 itself, so 09:45 never runs."""
    s = Schedule("cj", Every("15m"), **k8s.settings(None, "Forbid"))
    r = reference(s, start=on_day("09:00"), until=on_day("10:30"), pump=Pump(tick=1000), worker=Worker(run="20m"),
                  ids=None)
    hm = lambda x: datetime.fromtimestamp(x / 1000, timezone.utc).strftime("%H:%M")  # noqa: E731
    assert [(hm(a), hm(b)) for a, b in zip(r.slot.tolist(), r.released.tolist())] == [
        ("09:00", "09:00"), ("09:15", "09:20"), ("09:30", "09:40"), ("10:00", "10:00"), ("10:15", "10:20")]
