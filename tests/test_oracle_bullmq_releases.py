"""Every bullmq release the course names, asked itself: which snap each one computes.

tests/oracles/bullmq.mjs runs the job-scheduler scenarios of tests/oracles/bullmq_questions.py
(the recorded ones and 120 fresh outages and late pickups) on each release of
`bullmq_questions.RELEASES`, and legacy repeatable jobs (`queue.add(..., {repeat: {every}})`) on
`LEGACY_RELEASES`, under the same fake clock; the answers are in tests/oracles/recorded/
(`bullmq.json` for the pinned 6.7.0, `bullmq-<release>.json`, `bullmq-repeat-<release>.json`).
From them this file derives which formula of `Every.after` each release computes, holds the
release table `SNAP_RELEASES` of emqsim/engine/cadence.py and every version range the course
names to it, and holds each lane named after BullMQ to its release. Where Node, the oracle's
node_modules and EMQSIM_REDIS_URL exist, every release is asked again.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import bullmq_questions as bq
import oracle
import pytest

from emqsim.engine.cadence import SNAP_RELEASES, SNAPS, Every
from emqsim.engine.chain import job_id
from emqsim.engine.faults import Faults
from emqsim.engine.pump import Pump
from emqsim.engine.reference import reference
from emqsim.engine.schedule import SNAP_OF, Schedule
from emqsim.engine.sim import simulate
from emqsim.engine.timefmt import at, hm

ROOT = Path(__file__).resolve().parent.parent
REC = {r: oracle.recording(bq.recording_name(r)) for r in bq.RELEASES}
LEGACY = {r: oracle.recording(bq.recording_name(r, legacy=True)) for r in bq.LEGACY_RELEASES}
POLICY_OF = {snap: policy for policy, snap in SNAP_OF.items()}     # "offset-v5" -> "snap-v5"
ALL = {**{("scheduler", r): d for r, d in REC.items()}, **{("repeat", r): d for r, d in LEGACY.items()}}


def version(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in v.split("."))


def plain(doc: dict) -> list[int]:
    """The scenarios whose score is the cadence alone: one `every` registration, then pickups."""
    return [i for i, s in enumerate(doc["questions"]["scenarios"])
            if all(st["op"] == "pickup" for st in s["steps"][1:]) and "every" in s["steps"][0]
            and not {"limit", "endDate"} & set(s["steps"][0])]


def walk(scenario: dict, answer: list[dict], snap: str, first: str = "recorded"):
    """The scores an `every` scheduler goes through when it snaps with `Every.after(..., snap)`.

    first="recorded" starts from the release's own first run and stored offset (a legacy
    repeatable job stores none: its first run's phase), so only the snap is compared;
    first="lane" runs the lane itself: a `Schedule` whose `missed` policy snaps with `snap`,
    its `first_run`, the cadence's stored phase, and `next_run` at each pickup of a due job.
    Yields (what, emqsim, bullmq)."""
    steps = scenario["steps"]
    up = steps[0]
    e = Every(up["every"], up.get("offset"))
    lane = Schedule("s", e, start=up.get("startDate"), missed=POLICY_OF[snap])
    if first == "recorded":
        score = answer[0]["score"]
        phase = (score if answer[0]["offset"] is None else answer[0]["offset"]) % e.ms
    else:
        score = lane.first_run(up["at"])
        phase = e.phase(score)
        yield "offset", phase, answer[0]["offset"]
    yield "first run", score, answer[0]["score"]
    for step, ans in zip(steps[1:], answer[1:]):
        if score <= step["at"]:
            yield f"taken at {step['at']}", job_id("s", score), (ans["taken"] or {}).get("id")
            score = lane.next_run(score, released=step["at"], finished=None, phase=phase)
        else:
            yield f"nothing due at {step['at']}", None, ans["taken"]
        yield f"score after {step['at']}", score, ans["score"]


def wrong(doc: dict, snap: str, first: str = "recorded") -> list[tuple]:
    sc, ans = doc["questions"]["scenarios"], doc["answers"]["answers"]
    return [(sc[i]["id"], what, ours, theirs) for i in plain(doc)
            for what, ours, theirs in walk(sc[i], ans[i], snap, first) if ours != theirs]


FORMS = {key: {s for s in SNAPS if not wrong(doc, s)} for key, doc in ALL.items()}


# -- the recordings --------------------------------------------------------------------------------

@pytest.mark.parametrize("key", sorted(ALL), ids=[f"{k}-{r}" for k, r in sorted(ALL)])
def test_each_recording_is_its_release_asked_the_generators_questions(key):
    kind, release = key
    doc = ALL[key]
    assert doc["answers"]["bullmq"] == release
    q = bq.release_questions(release) if kind == "scheduler" else bq.legacy_questions(release)
    assert doc["questions"] == q
    fresh = [i for i in plain(doc) if doc["questions"]["scenarios"][i]["id"].startswith("fresh-")]
    assert len(fresh) >= 100                      # new outages and late pickups, per release
    assert len(doc["answers"]["answers"]) == len(doc["questions"]["scenarios"])


def test_five_releases_of_job_schedulers_and_two_of_legacy_repeatable_jobs():
    assert bq.RELEASES == ("5.58.7", "5.58.8", "5.80.1", "5.80.2", "6.7.0")
    assert bq.LEGACY_RELEASES == ("5.15.0", "5.58.7")
    pinned = json.loads((ROOT / "tests/oracles/package.json").read_text())["dependencies"]
    assert pinned["bullmq"] == bq.PINNED
    for r in set(bq.RELEASES + bq.LEGACY_RELEASES) - {bq.PINNED}:
        assert pinned[bq.package(r)] == f"npm:bullmq@{r}"


# -- which snap each release computes --------------------------------------------------------------

def test_the_snap_each_release_computes():
    """Derived from the answers: the formulas of `Every.after` that give every recorded score."""
    assert FORMS == {
        ("scheduler", "5.58.7"): set(),            # next run computed in JS, on the grid of `every`
        ("scheduler", "5.58.8"): {"offset-v5"},
        ("scheduler", "5.80.1"): {"offset-v5"},
        ("scheduler", "5.80.2"): {"offset"},
        ("scheduler", "6.7.0"): {"offset"},
        ("repeat", "5.15.0"): {"epoch"},           # getNextMillis for every run
        ("repeat", "5.58.7"): set(),               # later runs go through the job-scheduler code
    }


def test_5_58_7_names_each_job_by_a_multiple_of_every_and_delays_it_by_the_offset():
    """Why none of the formulas fits 5.58.7: its job scheduler computes the next run in JS
    (`classes/job-scheduler.js`), as a multiple of `every`, and delays the job by the offset."""
    doc = REC["5.58.7"]
    sc, ans = doc["questions"]["scenarios"], doc["answers"]["answers"]
    jobs = [(int(jid.rsplit(":", 1)[1]), due, st["offset"], sc[i]["steps"][0]["every"])
            for i in plain(doc) if "startDate" not in sc[i]["steps"][0] for st in ans[i] for jid, due in st["delayed"]]
    assert len(jobs) >= 4000
    assert [j for j in jobs if j[0] % j[3] or j[1] != j[0] + j[2]] == []


def releases_with(snap: str) -> list[tuple[str, str]]:
    return sorted((k for k, forms in FORMS.items() if snap in forms), key=lambda k: version(k[1]))


def test_the_release_table_is_what_the_releases_answer():
    """SNAP_RELEASES names, for each snap, the first and last recorded release that computes it;
    a named first (last) release is exact when the recorded release just before (after) it,
    one patch apart, computes another snap."""
    assert set(SNAP_RELEASES) == set(SNAPS)
    for snap, (kind, first, last) in SNAP_RELEASES.items():
        having = releases_with(snap)
        assert {k for k, _ in having} == {kind}
        assert (having[0][1], having[-1][1]) == (first, last), snap
        recorded = sorted((r for k, r in ALL if k == kind), key=version)
        inside = [r for r in recorded if version(first) <= version(r) <= version(last)]
        assert [r for _, r in having] == inside, snap        # no gap: one run of releases
    # the exact boundaries: the neighbour one patch away answers with the other formula
    assert FORMS[("scheduler", "5.58.7")] == set() and version("5.58.7")[2] + 1 == version("5.58.8")[2]
    assert FORMS[("scheduler", "5.80.2")] == {"offset"} and version("5.80.1")[2] + 1 == version("5.80.2")[2]
    assert SNAP_RELEASES["offset-v5"][1:] == ("5.58.8", "5.80.1")
    assert SNAP_RELEASES["offset"][1:] == ("5.80.2", bq.PINNED)


# -- every lane named after BullMQ, held to its release --------------------------------------------

LANES = [("snap", "scheduler", "6.7.0"), ("snap", "scheduler", "5.80.2"), ("snap-v5", "scheduler", "5.80.1")]


@pytest.mark.parametrize("lane, kind, release", LANES)
def test_each_job_scheduler_lane_is_its_release_first_run_offset_and_snap(lane, kind, release):
    """The lane's own first run (`Every.first`), stored phase and snap, on every plain scenario
    (recorded and fresh) of the release it is named after."""
    doc = ALL[(kind, release)]
    assert len(plain(doc)) >= 400
    assert wrong(doc, SNAP_OF[lane], first="lane") == []


def test_the_snap_v5_lane_is_5_58_8_too_where_no_offset_is_given():
    # (5.58.8 ignores a given offset: test_5_58_8_ignores_an_explicit_offset_and_5_80_1_aligns_...)
    doc = REC["5.58.8"]
    sc, ans = doc["questions"]["scenarios"], doc["answers"]["answers"]
    unset = [i for i in plain(doc) if not sc[i]["steps"][0].get("offset")]
    assert len(unset) >= 250
    assert [(sc[i]["id"], *w) for i in unset for w in walk(sc[i], ans[i], SNAP_OF["snap-v5"], "lane")
            if w[1] != w[2]] == []


def test_the_epoch_lane_is_the_legacy_repeatable_jobs_of_5_15_0():
    # a legacy repeatable job starts on the next multiple of `every` strictly after `now`
    # (getNextMillis), and every later run is `Every.after(..., "epoch")`
    doc = LEGACY["5.15.0"]
    for s, a in zip(doc["questions"]["scenarios"], doc["answers"]["answers"]):
        at, every = s["steps"][0]["at"], s["steps"][0]["every"]
        assert a[0]["score"] == (at // every + 1) * every
    assert wrong(doc, SNAP_OF["epoch"]) == []


def test_epoch_steps_over_the_slot_a_late_pickup_lands_on():
    # every 1 s from 00:00:00 (legacy, bullmq 5.15.0): the 00:00:03 job is taken at 00:00:04, which
    # is exactly its next slot; getNextMillis(floor(now/every)*every + every) goes to 00:00:05
    # (emqsim gave 00:00:04 before: `prev + every` was not behind `now`)
    ans = LEGACY["5.15.0"]["answers"]["answers"][0]
    assert [a["taken"]["id"] for a in ans[3:4]] == ["repeat:s:1795996803000"]
    assert ans[3]["score"] == 1795996805000
    assert Every(1000).after(1795996803000, 1795996804000, 0, "epoch") == 1795996805000
    # a job scheduler keeps that slot: it is not behind `now` (bullmq 6.7.0 and 5.80.1 alike)
    assert Every(1000).after(1795996803000, 1795996804000, 0, "offset") == 1795996804000
    assert Every(1000).after(1795996803000, 1795996804000, 0, "offset-v5") == 1795996804000


def test_the_epoch_lane_steps_over_the_slot_its_release_lands_on_in_engine_and_reference():
    # every 15 min from 09:00, pump down 09:10-09:30: the 09:15 slot is released at 09:30, exactly
    # its next slot, and getNextMillis moves the row to 09:45 (before: 09:30, released at once)
    s = Schedule("r", Every("15m"), missed="epoch")
    kw = dict(start=at("2026-11-30 09:00"), fires=4, pump=Pump(tick=1000, latency=0))
    down = (at("2026-11-30 09:10"), at("2026-11-30 09:30"))
    ref = reference(s, outage=down, **kw)
    eng = simulate(s, faults=Faults(outage=down), **kw)
    slots, released = ["09:00", "09:15", "09:45", "10:00"], ["09:00", "09:30", "09:45", "10:00"]
    assert [hm(x) for x in ref.slot.tolist()] == [hm(f.slot) for f in eng] == slots
    assert [hm(x) for x in ref.released.tolist()] == [hm(f.released) for f in eng] == released


def test_5_80_2_answers_every_scenario_as_6_7_0():
    """So the BullMQ design (held to 6.7.0 in test_oracle_bullmq.py) is 5.80.2's as well."""
    assert REC["5.80.2"]["answers"]["answers"] == REC["6.7.0"]["answers"]["answers"]


def test_5_58_8_ignores_an_explicit_offset_and_5_80_1_aligns_the_first_run_to_it():
    # every 15 min with offset 3 min at 1486439640000 (bullmq's own test): 5.80.1 and later start
    # at the next :03 slot and store 180000; 5.58.8 starts now and stores now mod every
    name = "bullmq-test-every-15m-offset-3m"
    first = {r: REC[r]["answers"]["answers"][[s["id"] for s in REC[r]["questions"]["scenarios"]].index(name)][0]
             for r in ("5.58.8", "5.80.1", "6.7.0")}
    assert {r: (a["score"], a["offset"]) for r, a in first.items()} == {
        "5.58.8": (1486439640000, 1486439640000 % 900000),
        "5.80.1": (1486440180000, 180000), "6.7.0": (1486440180000, 180000)}


# -- the course names only what the releases answer ------------------------------------------------

VERSION = r"5\.\d+(?:\.\d+)?"
RANGE = re.compile(rf"({VERSION})\s*(?:-|–|to|through)\s*({VERSION}|6\.\d+\.\d+)")
SINCE = re.compile(rf"(?:since|arrived in|first shipped in|>=|from)\s+(?:bullmq\s+)?({VERSION})\b")


def course_texts() -> list[tuple[str, str]]:
    out = [(str(p.relative_to(ROOT)), p.read_text()) for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]]
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text())["cells"]
        out += [(f"{nb.name} cell {i}", "".join(c["source"])) for i, c in enumerate(cells)]
    out += [(str(p.relative_to(ROOT)), p.read_text()) for p in sorted((ROOT / "emqsim").rglob("*.py"))]
    return out


def test_every_bullmq_version_range_the_course_names_is_a_recorded_one():
    """A range such as "5.58.8 to 5.80.1" must be a row of SNAP_RELEASES, and "since 5.80.2" the
    first release of one (README, notebooks, the package's help and docstrings)."""
    ranges = {(first, last) for _, first, last in SNAP_RELEASES.values()}
    firsts = {first for _, first, _ in SNAP_RELEASES.values()}
    bad, seen = [], 0
    for where, text in course_texts():
        text = re.sub(r"\s+", " ", text)
        for m in RANGE.finditer(text):
            seen += 1
            if (m[1], m[2]) not in ranges and not (m[2] == bq.PINNED and (m[1], m[2]) in ranges):
                bad.append((where, m[0]))
        for m in SINCE.finditer(text):
            seen += 1
            if m[1] not in firsts:
                bad.append((where, m[0]))
    assert bad == []
    assert seen >= 5


def test_the_range_scan_catches_what_it_should():
    assert [m.groups() for m in RANGE.finditer("bullmq 5.59-5.80.0 and 5.58.8 to 5.80.1")] == [
        ("5.59", "5.80.0"), ("5.58.8", "5.80.1")]
    assert [m[1] for m in SINCE.finditer("the form since 5.80.1; arrived in 5.80.2")] == ["5.80.1", "5.80.2"]


# -- live: ask every release again -----------------------------------------------------------------

LIVE_KEYS = sorted(k for k in ALL if k != ("scheduler", bq.PINNED))   # the pinned one: test_oracle_bullmq.py


@pytest.fixture(scope="module")
def live() -> dict:
    """Every release's answers, asked again: two at a time (each oracle run is one Node process
    on one core), so CI pays for about half of them."""
    if oracle.node() is None:
        pytest.skip(oracle.status())
    if not os.environ.get("EMQSIM_REDIS_URL"):
        pytest.skip("EMQSIM_REDIS_URL unset: the BullMQ oracle needs a Redis to run on; recording used")
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {k: pool.submit(oracle.ask, "bullmq", ALL[k]["questions"]) for k in LIVE_KEYS}
        return {k: f.result() for k, f in futures.items()}


@pytest.mark.parametrize("key", LIVE_KEYS, ids=[f"{k}-{r}" for k, r in LIVE_KEYS])
def test_each_release_still_answers_as_recorded(live, key):
    doc = ALL[key]
    assert live[key]["bullmq"] == key[1]
    sc = doc["questions"]["scenarios"]
    assert [sc[i]["id"] for i, (a, b) in enumerate(zip(live[key]["answers"], doc["answers"]["answers"]))
            if a != b] == []
