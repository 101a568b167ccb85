"""The project's model scripts for BullMQ's design (lua/scheduler-7, activate-3, chain-6 and,
in a run's fast-forward, pickups-5, driven through emqsim/engine/chain.py) held equal to
BullMQ 6.7.0's own scripts run in-process (emqsim/engine/bullmq_scripts/driver.py), over
seeded scenarios, with no Node: the job each pickup takes (id and when it was made), the
registry score (the next run), the stored offset, the iteration count, and the delayed and
waiting jobs after every step."""

from __future__ import annotations

import random

import pytest

from bullmq_replay import replay, upsert
from emqsim.engine.bullmq_scripts import package
from emqsim.engine.bullmq_scripts.driver import BullMQScripts
from emqsim.engine.cadence import Cron, Every
from emqsim.engine.chain import BullMQ
from emqsim.engine.faults import Faults
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.sim import simulate
from emqsim.engine.store import Store
from emqsim.engine.worker import Worker

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))

MIN, HOUR, DAY = 60_000, 3_600_000, 86_400_000
BASE = 1_795_996_800_000          # 2026-11-30T00:00:00Z
EVERYS = (2_000, 90_000, 15 * MIN, HOUR, DAY)
PATTERNS = (("0 9 * * *", "UTC"), ("*/15 * * * *", "UTC"), ("30 1 * * *", "America/New_York"),
            ("0 9 * * 1-5", "Europe/London"))
SEED = 2929
SCENARIOS = 60


def _cadence(rng) -> dict:
    if rng.random() < 0.6:
        every = rng.choice(EVERYS)
        step = {"every": every}
        kind = rng.choice(["absent", "zero", "positive"])
        if kind == "zero":
            step["offset"] = 0
        elif kind == "positive":
            step["offset"] = rng.randrange(1, every)
        return step
    pattern, tz = rng.choice(PATTERNS)
    return {"pattern": pattern, "tz": tz}


def _period(step: dict) -> int:
    return step.get("every") or (DAY if step["pattern"].startswith(("0 9", "30 1")) else 15 * MIN)


def scenario(seed: int) -> dict:
    """An upsert, then pickups on time, early, late, after skipped runs and a day late, and
    sometimes an upsert again (the same cadence or another)."""
    rng = random.Random(seed)
    at = BASE + rng.randrange(0, DAY)
    first = {"op": "upsert", "at": at, **_cadence(rng)}
    period = _period(first)
    steps = [first]
    t = at
    for _ in range(rng.randrange(4, 9)):
        kind = rng.choice(["on time", "early", "late", "skipped", "25 h late", "upsert"])
        if kind == "on time":
            t += period
        elif kind == "early":
            t += max(1, period - rng.randrange(1, max(2, period // 3)))
        elif kind == "late":
            t += period + rng.randrange(1, period)
        elif kind == "skipped":
            t += period * rng.randrange(2, 5) + rng.choice([0, 1, period // 2])
        elif kind == "25 h late":
            t += 25 * HOUR
        else:
            t += rng.randrange(1, period)
            step = {"op": "upsert", "at": t, **(_cadence(rng) if rng.random() < 0.5 else
                                                 {k: v for k, v in first.items() if k not in ("op", "at")})}
            steps.append(step)
            period = _period(step)
            continue
        steps.append({"op": "pickup", "at": t})
    return {"id": f"seeded-{seed}", "steps": steps}


def _schedule(step: dict) -> Schedule:
    cad = Cron(step["pattern"], step["tz"]) if "pattern" in step else Every(step["every"], step.get("offset"))
    return Schedule("s", cad)


def model_replay(sc: dict) -> list[dict]:
    with Store() as store:
        b = BullMQ(store)
        out = []
        for step in sc["steps"]:
            if step["op"] == "upsert":
                b.upsert(_schedule(step), step["at"])
                out.append(b.state("s"))
            else:
                t = b.pickup(step["at"])
                out.append({"taken": None if t is None else {"id": t.job_id, "timestamp": t.created},
                            **b.state("s")})
        return out


def test_the_seeded_scenarios_cover_every_kind_of_step():
    kinds = set()
    for seed in range(SEED, SEED + SCENARIOS):
        steps = scenario(seed)["steps"]
        kinds |= {"cron" if "pattern" in steps[0] else "every"}
        kinds |= {"upsert again" for s in steps[1:] if s["op"] == "upsert"}
        kinds |= {"pickup" for s in steps[1:] if s["op"] == "pickup"}
    assert kinds == {"cron", "every", "upsert again", "pickup"}


@pytest.mark.parametrize("seed", range(SEED, SEED + SCENARIOS))
def test_the_model_verbs_answer_as_the_real_scripts(seed):
    sc = scenario(seed)
    real = replay(sc, BullMQScripts())
    assert any(r.get("taken") for r in real) or len(sc["steps"]) < 3
    assert model_replay(sc) == real


# -- a whole run (the Chain, its fast-forward through pickups-5 included) against the scripts ------

RUNS = [
    ("every 15m", Every("15m"), Worker(), None),
    ("every 15m, offset 3m, 20 min runs", Every("15m", 180_000), Worker(run="20m"), None),
    ("every 90s, an outage", Every("90s"), Worker(), (BASE + 10 * MIN, BASE + 47 * MIN)),
    ("cron 0 9 * * *", Cron("0 9 * * *"), Worker(), None),
    ("cron 0 9 * * *, a 25 h outage", Cron("0 9 * * *"), Worker(), (BASE + 2 * DAY, BASE + 3 * DAY + HOUR)),
    ("cron */15 London, polling worker", Cron("*/15 * * * *", "Europe/London"), Worker(poll="4m"), None),
]


@pytest.mark.parametrize("fast", [True, False], ids=["fast-forward", "event path"])
@pytest.mark.parametrize("name,cad,worker,outage", RUNS, ids=[r[0] for r in RUNS])
def test_a_chain_run_takes_what_the_real_scripts_make(name, cad, worker, outage, fast, monkeypatch):
    """The run's pickups replayed on BullMQ's own scripts at the instants the run took them: the
    same job each time, the same next run after it, the same iteration count at the end."""
    from emqsim.engine import bullmq_fast

    monkeypatch.setattr(bullmq_fast, "enabled", fast)
    calls = []
    pickups = BullMQ.pickups
    monkeypatch.setattr(BullMQ, "pickups", lambda self, *a: calls.append(1) or pickups(self, *a))
    start = BASE + 7 * MIN
    sched = Schedule("s", cad)
    tr = simulate(sched, start=start, fires=40, design="bullmq", worker=worker,
                  faults=Faults(outage=outage) if outage else None)
    b = BullMQScripts()
    step = {"at": start, **({"every": cad.ms, "offset": cad.offset} if isinstance(cad, Every)
                            else {"pattern": cad.expr, "tz": cad.tz})}
    upsert(b, {k: v for k, v in step.items() if v is not None})
    fires = list(tr)
    assert len(fires) == 40
    assert bool(calls) == fast               # the fast-forward's pickups-5 made (some of) these fires
    for f in fires:
        job = b.take(f.started)
        assert job is not None and job.id == f.job_id, f
        got = b.scheduler("s")
        assert (INF if got is None else got["next"]) == f.next, f
        b.finish(job, f.finished)
    assert int(b.scheduler("s")["fields"]["ic"]) == 41
    nxt = fires[-1].next
    if nxt > fires[-1].started:                       # the next job waits until its run, not a ms less
        assert b.take(nxt - 1) is None
    else:                                             # a late pickup: the next run is now, waiting
        assert b.state("s")["waiting"] == [f"repeat:s:{nxt}"]
    assert b.take(nxt).id == f"repeat:s:{nxt}"


def test_the_models_and_bullmqs_scripts_keep_different_keys():
    """docs/bullmq-scripts.md's decision (the engine keeps scheduler-7): BullMQ's addJobScheduler-11
    cannot stand in for the model's upsert alone, because after one upsert the two stores hold
    different keys and fields, and the model's pickups read the model's."""
    t = BASE + 9 * HOUR
    with Store() as store:
        BullMQ(store).upsert(Schedule("r", Every(15 * MIN)), t)
        k = store.keys
        model = {key.decode()[len(k.base) + 1:]: sorted(f.decode() for f in store.client.hgetall(key))
                 for key in store.queue_keys() if store.client.type(key) == b"hash"}
    b = BullMQScripts()
    b.upsert("r", t, every=15 * MIN)
    real = {key.decode()[len(b.keys[""]):]: sorted(f.decode() for f in b.client.hgetall(key))
            for key in b.client.scan_iter(match=b.keys[""] + "*") if b.client.type(key) == b"hash"}
    assert model == {"repeat:r": ["cadence", "every_ms", "ic", "offset", "rule", "template"],
                     f"job:repeat:r:{t}": ["count", "created", "data", "name", "slot", "state"]}
    assert real == {"meta": ["opts.maxLenEvents", "version"], "repeat:r": ["every", "ic", "name", "offset"],
                    f"repeat:r:{t}": ["data", "delay", "name", "opts", "priority", "rjk", "timestamp"]}
    from importlib.resources import files

    lua = files("emqsim.engine").joinpath("lua")        # the model's pickups read the model's job fields
    assert "'name', 'slot', 'created', 'count'" in lua.joinpath("activate-3.lua").read_text()
    assert "'state', 'count', 'slot'" in lua.joinpath("pickups-5.lua").read_text()
