"""emqsim held to the real BullMQ (bullmq 6.7.0 under Node, tests/oracles/bullmq.mjs).

(The other releases the course names, and which snap each computes: test_oracle_bullmq_releases.py.)

The recording (tests/oracles/recorded/bullmq.json) holds, for each scenario of
tests/oracles/bullmq_questions.py, what bullmq answered after every step: the job a pickup
took, the registry score, the stored offset, `ic`, and the delayed and waiting jobs.
Here the same steps run through emqsim: the BullMQ design (emqsim/engine/chain.py, its Lua
scripts on fakeredis or the real Redis of the `store` fixture), and, for the scores
alone, the cadence rule itself (`Every.first`/`phase`/`after`). Where Node, the oracle's
node_modules and EMQSIM_REDIS_URL exist, bullmq is asked again and must still agree with
the recording.
"""

from __future__ import annotations

import os

import oracle
import pytest

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.chain import BullMQ, Chain, job_id
from emqsim.lessons.designs import compare
from emqsim.engine.faults import Faults
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import simulate
from emqsim.engine.store import Store
from emqsim.engine.worker import Worker

REC = oracle.recording("bullmq")
SCENARIOS = REC["questions"]["scenarios"]
ANSWERS = REC["answers"]["answers"]
COMPARED = ("score", "offset", "ic", "every", "pattern", "delayed", "waiting")


def schedule_of(step: dict) -> Schedule:
    """The emqsim registration an oracle upsert step stands for."""
    if "pattern" in step:
        cad = Cron(step["pattern"], step.get("tz", "UTC"))
    else:
        cad = Every(step["every"], step.get("offset"))
    return Schedule("s", cad, start=step.get("startDate"), end=step.get("endDate"), limit=step.get("limit", 0))


def replay(scenario: dict, store: Store) -> list[dict]:
    """Run an oracle scenario's steps through emqsim's BullMQ design; answer as the oracle does."""
    b = BullMQ(store)
    out = []
    for step in scenario["steps"]:
        if step["op"] == "upsert":
            b.upsert(schedule_of(step), step["at"])
            out.append(b.state("s"))
        else:
            t = b.pickup(step["at"])
            taken = None if t is None else {"id": t.job_id, "timestamp": t.created}
            out.append({"taken": taken, **b.state("s")})
    return out


def expected(answer: list[dict]) -> list[dict]:
    return [{k: v for k, v in a.items() if k in COMPARED or k == "taken"} for a in answer]


def test_the_recording_is_big_enough_and_from_the_pinned_bullmq():
    assert REC["answers"]["bullmq"] == "6.7.0"
    assert len(SCENARIOS) == len(ANSWERS) >= 300 + 40
    kinds = {s["id"].split("-")[0] for s in SCENARIOS}
    assert {"every", "upsert", "cron", "offset", "catch", "bullmq", "fresh"} <= kinds
    assert sum(1 for s in SCENARIOS if s["id"].startswith("every-")) >= 300
    assert sum(1 for s in SCENARIOS if s["id"].startswith("fresh-")) >= 100   # outages, late pickups


def test_the_recorded_questions_are_the_generators():
    import questions

    assert questions.QUESTIONS["bullmq"]() == REC["questions"]


@pytest.mark.parametrize("i", range(len(SCENARIOS)), ids=[s["id"] for s in SCENARIOS])
def test_bullmq_design_answers_as_bullmq(i):
    """Slot for slot, score for score, offset for offset, ic, and the jobs present."""
    with Store() as store:
        assert replay(SCENARIOS[i], store) == expected(ANSWERS[i])


NAMED = [i for i, s in enumerate(SCENARIOS) if not s["id"].startswith("every-")][:40:4]


@pytest.mark.parametrize("i", NAMED, ids=[SCENARIOS[i]["id"] for i in NAMED])
def test_bullmq_design_on_every_backend(store, i):
    assert replay(SCENARIOS[i], store) == expected(ANSWERS[i])


def _cadence_walk(scenario: dict, answer: list[dict]):
    """The cadence rule alone, with no Redis: the scores an `every` scheduler goes through.

    first run `Every.first` (or the start date), stored phase `Every.phase`, each pickup
    of a due job `Every.after(slot, pickup, phase)`. Yields (what, emqsim, bullmq)."""
    steps = scenario["steps"]
    up = steps[0]
    e = Every(up["every"], up.get("offset"))
    first = max(up["startDate"], up["at"]) if "startDate" in up else e.first(up["at"])
    phase = e.phase(first)
    yield "first run", first, answer[0]["score"]
    yield "offset", phase, answer[0]["offset"]
    score = first
    for step, ans in zip(steps[1:], answer[1:]):
        if score <= step["at"]:
            yield f"taken at {step['at']}", job_id("s", score), ans["taken"]["id"]
            score = e.after(score, step["at"], phase)
        else:
            yield f"nothing due at {step['at']}", None, ans["taken"]
        yield f"score after {step['at']}", score, ans["score"]


PLAIN = [i for i, s in enumerate(SCENARIOS)
         if all(st["op"] == "pickup" for st in s["steps"][1:]) and "every" in s["steps"][0]
         and not {"limit", "endDate"} & set(s["steps"][0])]


def test_the_cadence_rule_gives_bullmqs_scores_and_offsets():
    assert len(PLAIN) >= 300
    wrong = [(SCENARIOS[i]["id"], what, ours, theirs) for i in PLAIN
             for what, ours, theirs in _cadence_walk(SCENARIOS[i], ANSWERS[i]) if ours != theirs]
    assert wrong == []


# -- the fixes the oracle showed, each pinned to its recorded answer ------------------------------

def _answer(name: str) -> list[dict]:
    return ANSWERS[[s["id"] for s in SCENARIOS].index(name)]


def test_offset_0_is_no_offset():
    # every 15 min from 09:07, offset 0, no worker from 09:20 to 09:40: bullmq's next run is 09:52
    # (emqsim stored offset 0 and snapped to 09:45 before)
    ans = _answer("offset-zero-0907-outage-0920-0940")
    assert ans[0]["offset"] == 7 * 60_000 == Every("15m", 0).phase(1796029620000)
    assert ans[3]["score"] == 1796032320000          # 09:52
    e = Every("15m", 0)
    assert e.after(1796031420000, 1796031600000, e.phase(1796029620000)) == 1796032320000


def test_upsert_keeps_ic_when_every_changes():
    ans = _answer("upsert-pending-every-10m")
    before, after = ans[2], ans[3]
    assert (before["ic"], after["ic"]) == (3, 3)
    assert (before["offset"], after["offset"]) == (420000, 420000)    # the old phase stays stored
    assert after["score"] == 1796030700000                            # a first run: now


def test_a_cron_pickup_exactly_on_the_next_slot_steps_over_it():
    # bullmq: the next slot strictly after max(slot, pickup); emqsim gave the pickup instant itself
    s = Schedule("s", Cron("*/15 * * * *"))
    ans = _answer("cron-late-onto-next-slot-*/15 * * * *-UTC")
    assert ans[2]["taken"]["id"] == "repeat:s:1796028300000"
    assert ans[2]["score"] == s.next_run(1796028300000, released=1796029200000, finished=None, phase=0) \
        == 1796030100000


# -- live: ask bullmq again ------------------------------------------------------------------------

def test_bullmq_still_answers_as_recorded():
    if oracle.node() is None:
        pytest.skip(oracle.status())
    if not os.environ.get("EMQSIM_REDIS_URL"):
        pytest.skip("EMQSIM_REDIS_URL unset: the BullMQ oracle needs a Redis to run on; recording used")
    live = oracle.ask("bullmq", REC["questions"])
    assert live["bullmq"] == REC["answers"]["bullmq"]
    diff = [SCENARIOS[i]["id"] for i, (a, b) in enumerate(zip(live["answers"], ANSWERS)) if a != b]
    assert diff == []


# -- the BullMQ design as a simulation: simulate(..., design="bullmq") and the command line --------

T0907 = 1796029620000
MIN = 60_000


@pytest.mark.parametrize("kind", ["absent", "zero"])
def test_chain_with_no_worker_over_an_outage_is_bullmqs(kind):
    # the recorded scenario's pickups are what a worker does when it is away 09:23-09:40
    ans = _answer(f"offset-{kind}-0907-outage-0920-0940")
    sched = Schedule("s", Every("15m", 0 if kind == "zero" else None))
    tr = simulate(sched, start=T0907, fires=4, design="bullmq", faults=Faults(outage=(T0907 + 16 * MIN, T0907 + 33 * MIN)))
    assert [f.job_id for f in tr] == [a["taken"]["id"] for a in ans[1:]]
    assert [f.started for f in tr] == [T0907, T0907 + 15 * MIN, T0907 + 33 * MIN, T0907 + 45 * MIN]
    assert [f.next for f in tr] == [a["score"] for a in ans[1:]]
    assert tr.next == ans[-1]["score"] and tr.registry_size == 1 and tr.duplicates == 0


def test_chain_long_runs_on_one_worker_start_late_and_never_overlap():
    # every 15 min, each run 20 min, one worker: a job is made only when the previous is taken
    tr = simulate(Schedule("s", Every("15m")), start=T0907, fires=4, design="bullmq", worker=Worker(run="20m"))
    assert [(f.slot, f.started) for f in tr] == [
        (T0907, T0907), (T0907 + 15 * MIN, T0907 + 20 * MIN), (T0907 + 30 * MIN, T0907 + 40 * MIN),
        (T0907 + 45 * MIN, T0907 + 60 * MIN)]
    assert all(a.finished <= b.started for a, b in zip(tr, list(tr)[1:]))
    assert tr.next == T0907 + 60 * MIN        # 09:52 + 15 = 10:07: not behind 10:07, so no snap


def test_chain_jobs_are_made_at_pickup(store):
    with Chain(Schedule("s", Every("15m")), start=T0907, store=store) as ch:
        assert ch.bullmq.state("s")["waiting"] == [f"repeat:s:{T0907}"]
        ch.run(fires=1)
        st = ch.bullmq.state("s")
        assert st["delayed"] == [[f"repeat:s:{T0907 + 15 * MIN}", T0907 + 15 * MIN]] and st["ic"] == 2
        assert ch.bullmq.job(f"repeat:s:{T0907 + 15 * MIN}")["created"] == str(T0907)
        assert ch.bullmq.job(f"repeat:s:{T0907}")["state"] == "done"


@pytest.mark.parametrize("kw, match", [
    (dict(schedule=Schedule("s", Every("15m"), rule="release")), "rule 'schedule'"),
    (dict(schedule=Schedule("s", Every("15m"), missed="epoch")), "missed 'snap'"),
    (dict(schedule=Schedule("s", Every("15m"), overlap="skip")), "no overlap policy"),
    (dict(faults=Faults(crash_after_enqueue=2)), "has no pump"),
    (dict(design="chain"), "design 'chain' is not one of pump, bullmq"),
])
def test_chain_refuses_what_bullmq_does_not_have(kw, match):
    sched = kw.pop("schedule", Schedule("s", Every("15m")))
    kw.setdefault("design", "bullmq")
    with pytest.raises(ValueError, match=match):
        simulate(sched, start=T0907, fires=2, **kw)


def test_cli_design_bullmq(capsys):
    from emqsim.cli import main

    assert main(["trace", "--every", "15m", "--fires", "4", "--design", "bullmq", "--start", "2026-11-30T09:07:00Z",
                 "--outage", "2026-11-30T09:20:00Z/2026-11-30T09:40:00Z"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "   n  slot      released  started   finished  job_id",
        "----------------------------------------------------",
        "   1  09:07:00  09:07:00  09:07:00  09:07:00  repeat:reports:1796029620000",
        "   2  09:22:00  09:22:00  09:40:00  09:40:00  repeat:reports:1796030520000",
        "   3  09:52:00  09:52:00  09:52:00  09:52:00  repeat:reports:1796032320000",
        "   4  10:07:00  10:07:00  10:07:00  10:07:00  repeat:reports:1796033220000",
        "registry rows 1 · next run 10:22:00 · duplicates 0 · lost 0",
    ]
    assert main(["trace", "--every", "15m", "--fires", "2", "--design", "bullmq", "--rule", "finish"]) == 2
    assert "rule 'schedule'" in capsys.readouterr().err


def test_compare_long_runs_backlog_against_the_chain():
    c = compare(Schedule("s", Every("15m")), start=T0907, fires=6, worker=Worker(run="40m"))
    assert c.summary() == {"pump": {"runs": 6, "late_ms": 125 * MIN, "running": 1, "waiting": 4},
                           "bullmq": {"runs": 6, "late_ms": 35 * MIN, "running": 1, "waiting": 1}}
    assert [f.slot for f in c.bullmq] == [T0907 + k * MIN for k in (0, 15, 45, 90, 135, 165)]
    assert c.table().splitlines()[3] == "   2  09:22:00   09:47:00  09:22:00     09:47:00"
    assert c.table().splitlines()[-1] == "bullmq: 6 runs · starts up to 35 min late · at most 1 running · at most 1 waiting"
