"""The questions put to the BullMQ oracle (bullmq.mjs): job schedulers driven step by step.

A scenario is an upsert at its start, then pickups (one worker asking for one job, with the
clock at that instant), and sometimes a later upsert. The instants are chosen around the
slots a scheduler could use, so the answers pin down BullMQ's rule without assuming it:
on a slot, one millisecond either side, after outages of one to many periods, on the phase
grid and on the grid of multiples of `every` (where an offset of 0 would put it).

The same scenarios are put to every bullmq release the course names (`RELEASES`: the pinned
`bullmq` and the npm aliases of tests/oracles/package.json), and legacy repeatable jobs
(`queue.add(..., {repeat})`, 5.x only) to `LEGACY_RELEASES`; `fresh` scenarios (outages, late
pickups by a random amount, exactly one period, one ms either side) come from a seed of their own.

Seeded: the same call always returns the same questions, so a recording can be re-asked.
Re-record every release: ``EMQSIM_REDIS_URL=... python tests/oracles/bullmq_questions.py record``.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

SEED = 8
FRESH_SEED = 5808
FRESH = 120                       # fresh scenarios per question set
#: the bullmq releases the course names: the pinned one (npm `bullmq`) and the aliased ones
PINNED = "6.7.0"
RELEASES = ("5.58.7", "5.58.8", "5.80.1", "5.80.2", PINNED)
#: the releases asked about legacy repeatable jobs (v6 removed `repeat`): the last before job
#: schedulers (5.16.0 brought them), whose worker makes every next run with `getNextMillis`, and
#: one whose worker hands a repeatable's later runs to the job-scheduler code
LEGACY_RELEASES = ("5.15.0", "5.58.7")
DAY = 86_400_000
MIN = 60_000
BASE = 1_795_996_800_000          # 2026-11-30T00:00:00Z, a whole number of days since 1970
EVERYS = (1000, 1500, 2000, 5000, 7000, 10_000, 30_000, MIN, 90_000, 5 * MIN, 13 * MIN, 15 * MIN,
          3_600_000, 2 * 3_600_000, 6 * 3_600_000, DAY)
OFFSETS = ("absent", "zero", "positive")
T0907 = BASE + 9 * 3_600_000 + 7 * MIN   # 09:07Z on 2026-11-30


def _upsert(at: int, every: int | None = None, offset: str | int = "absent", **more) -> dict:
    step = {"op": "upsert", "at": at}
    if every is not None:
        step["every"] = every
    if offset == "zero":
        step["offset"] = 0
    elif isinstance(offset, int) and not isinstance(offset, bool):
        step["offset"] = offset
    step.update({k: v for k, v in more.items() if v is not None})
    return step


def _pick(*instants: int) -> list[dict]:
    return [{"op": "pickup", "at": t} for t in instants]


def _first(start: int, every: int, offset) -> int:
    """Where the generator aims its first pickups (BullMQ's documented first run); the
    answers, not this guess, are what the tests compare."""
    if isinstance(offset, int) and offset > 0:
        s = start // every * every + offset
        return s + every if s <= start else s
    return start


def _every_scenario(rng: random.Random, i: int) -> dict:
    every = EVERYS[i % len(EVERYS)]
    offset_kind = OFFSETS[(i // len(EVERYS)) % 3]
    aligned = (i // (3 * len(EVERYS))) % 2 == 0
    start = (BASE + rng.randrange(0, DAY)) // every * every
    if not aligned:
        start += rng.randrange(1, every)
    offset = offset_kind if offset_kind != "positive" else rng.randrange(1, every)
    first = _first(start, every, offset)
    phase = offset if isinstance(offset, int) else first % every
    steps = [_upsert(start, every, offset)]
    # on time, or a little late, for a few periods
    picks = []
    for k in range(rng.randrange(2, 5)):
        late = rng.choice((0, 0, 1, every // 3))
        picks.append(first + k * every + late)
    t = picks[-1]
    # an outage: the next pickup lands on a slot, 1 ms before it or 1 ms after it, on the phase
    # grid or on the grid of multiples of `every`, after 1, 2, 3 or many periods
    periods = rng.choice((1, 1, 2, 3, 10, 100 if every <= 10 * MIN else 4))
    grid = rng.choice((phase, phase, 0))
    end = (t + periods * every) // every * every + grid + rng.choice((-1, 0, 1))
    end = max(end, t)
    picks.append(end)
    picks.append(end)                       # the same instant again: is the next job due at once?
    nxt = (end - grid) // every * every + grid + every
    picks += [nxt - 1, nxt, nxt + every, nxt + 2 * every + rng.choice((0, 1, every // 2))]
    steps += _pick(*sorted(picks))
    return {"id": f"every-{i:03d}-{every}-{offset_kind}-{'aligned' if aligned else 'unaligned'}",
            "steps": steps}


def _named() -> list[dict]:
    out = []

    def add(name, steps):
        out.append({"id": name, "steps": steps})

    # BullMQ's own tests (tests/job_scheduler.test.ts), re-expressed
    add("bullmq-test-every-15m-offset-3m", [_upsert(1486439640000, 15 * MIN, 3 * MIN),
                                           *_pick(1486439640000, 1486440180000, 1486441080000)])
    s1900 = BASE + 41 * 2000 + 1900
    add("bullmq-test-every-2000-started-1900-after", [_upsert(s1900, 2000), *_pick(s1900, s1900 + 2000, s1900 + 4000)])
    add("bullmq-test-every-2000-started-1900-after-offset-0",
        [_upsert(s1900, 2000, "zero"), *_pick(s1900, s1900 + 2000, s1900 + 4000)])
    add("bullmq-test-cron-every-2s", [_upsert(1486481040000, pattern="*/2 * * * * *"),
                                      *_pick(1486481040000, 1486481042000, 1486481044000)])
    t = BASE + 3_600_000
    add("bullmq-test-every-100-end-date", [_upsert(t, 100, endDate=t + 1000),
                                           *_pick(*(t + 100 * k for k in range(14)))])
    add("bullmq-test-every-100-limit-5", [_upsert(t, 100, limit=5), *_pick(*(t + 100 * k for k in range(9)))])
    add("bullmq-test-three-upserts-one-id", [_upsert(t, 1000), _upsert(t, 2000), _upsert(t, 3000),
                                             *_pick(t, t + 3000)])
    # the example: every 15 min from 09:07, offset 0, no worker 09:20-09:40
    for kind in ("absent", "zero"):
        add(f"offset-{kind}-0907-outage-0920-0940",
            [_upsert(T0907, 15 * MIN, kind), *_pick(T0907, T0907 + 15 * MIN, T0907 + 33 * MIN, T0907 + 45 * MIN)])
    # catch-up only when prev + every < now, strictly
    s = BASE + 10 * 3_600_000
    for late in (-1, 0, 1):
        add(f"catch-up-strict-late-by-a-period{late:+d}ms",
            [_upsert(s, MIN), *_pick(s, s + 2 * MIN + late, s + 2 * MIN + late, s + 3 * MIN)])
    # an explicit offset skips a start that sits exactly on its slot
    for every, off in ((15 * MIN, 3 * MIN), (2000, 500), (DAY, 9 * 3_600_000)):
        on_slot = BASE + 5 * every + off
        add(f"offset-start-on-its-slot-{every}-{off}",
            [_upsert(on_slot, every, off), *_pick(on_slot, on_slot + every - 1, on_slot + every)])
        add(f"offset-start-1ms-before-its-slot-{every}-{off}",
            [_upsert(on_slot - 1, every, off), *_pick(on_slot - 1, on_slot, on_slot + every)])
    # startDate: in the future, in the past
    add("start-date-future", [_upsert(s, 10 * MIN, startDate=s + 7 * MIN),
                              *_pick(s + 6 * MIN, s + 7 * MIN, s + 17 * MIN, s + 40 * MIN)])
    add("start-date-past", [_upsert(s, 10 * MIN, startDate=s - 7 * MIN), *_pick(s, s + 10 * MIN)])
    add("start-date-future-with-offset", [_upsert(s, 10 * MIN, 2 * MIN, startDate=s + 7 * MIN),
                                          *_pick(s + 7 * MIN, s + 17 * MIN, s + 45 * MIN)])
    # a worker that never comes back: nothing new appears, however long we wait
    add("no-worker-no-new-job", [_upsert(s, MIN), *_pick(s), *_pick(s + 10 * DAY)])
    return out


def _upserts() -> list[dict]:
    """Upserts after some pickups: what happens to the score, the offset and `ic`."""
    out = []
    e = 15 * MIN
    head = [_upsert(T0907, e), *_pick(T0907, T0907 + e)]     # ic 3: the 09:37 job is delayed
    at = T0907 + 18 * MIN                                    # 09:25
    late = T0907 + 35 * MIN                                  # 09:42: the 09:37 job is overdue
    cases = {
        "same-every": dict(every=e),
        "same-every-new-offset": dict(every=e, offset=4 * MIN),
        "same-every-offset-0": dict(every=e, offset="zero"),
        "every-10m": dict(every=10 * MIN),
        "every-10m-offset-0": dict(every=10 * MIN, offset="zero"),
        "every-10m-offset-2m": dict(every=10 * MIN, offset=2 * MIN),
        "every-5m": dict(every=5 * MIN),
        "every-1h": dict(every=3_600_000),
        "to-pattern": dict(pattern="*/10 * * * *"),
    }
    for when, t in (("pending", at), ("overdue", late)):
        for name, kw in cases.items():
            kw = dict(kw)
            offset = kw.pop("offset", "absent")
            steps = [*head, _upsert(t, offset=offset, **kw)]
            steps += _pick(t, t + 5 * MIN, t + 10 * MIN, t + 15 * MIN, t + 20 * MIN, t + 75 * MIN)
            out.append({"id": f"upsert-{when}-{name}", "steps": steps})
    # pattern first, then every or another pattern
    p0 = BASE + 9 * 3_600_000 + 3 * MIN
    phead = [_upsert(p0, pattern="*/15 * * * *"), *_pick(p0 + 12 * MIN)]
    for name, kw in {"to-every-10m": dict(every=10 * MIN), "to-pattern-20": dict(pattern="*/20 * * * *"),
                     "same-pattern": dict(pattern="*/15 * * * *")}.items():
        steps = [*phead, _upsert(p0 + 20 * MIN, **kw), *_pick(p0 + 20 * MIN, p0 + 27 * MIN, p0 + 37 * MIN,
                                                            p0 + 57 * MIN)]
        out.append({"id": f"upsert-pattern-{name}", "steps": steps})
    return out


CRON = (("0 9 * * *", "UTC"), ("*/15 * * * *", "UTC"), ("30 1 * * *", "America/New_York"),
        ("0 9 * * 1-5", "Europe/London"), ("*/7 * * * *", "Australia/Sydney"), ("0 */6 * * *", "Asia/Kolkata"),
        ("*/10 * * * * *", "UTC"), ("5 4 * * 0", "UTC"))


def _cron() -> list[dict]:
    """A few cron schedulers: first runs through pickups every few minutes, hours and days
    (away from daylight-saving changes: those are cron-parser's own oracle's questions)."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from croniter import croniter

    out = []
    start = BASE + 8 * 3_600_000 + 17 * MIN + 3000
    for expr, tz in CRON:
        it = croniter(expr, datetime.fromtimestamp(start / 1000, ZoneInfo(tz)),
                      second_at_beginning=len(expr.split()) == 6)
        slots = [round(it.get_next(float) * 1000) for _ in range(5)]
        picks = [start, slots[0], slots[1] + 1, slots[3], slots[3], slots[4] + (slots[4] - slots[3]) * 3]
        out.append({"id": f"cron-{expr}-{tz}", "steps": [_upsert(start, pattern=expr, tz=tz), *_pick(*picks)]})
        # late by exactly one period: the pickup lands on the next slot
        out.append({"id": f"cron-late-onto-next-slot-{expr}-{tz}",
                    "steps": [_upsert(start, pattern=expr, tz=tz), *_pick(slots[0], slots[2], slots[2], slots[3])]})
    return out


def _fresh_scenario(rng: random.Random, i: int, op: str = "upsert") -> dict:
    """A scheduler and 5-9 pickups, each on time, late within a period, late by exactly one
    period (or 1 ms either side), after an outage of 2-60 periods, or early (nothing due).
    The generator aims at the 6.x rule's next run; the answers are what the tests compare."""
    every = rng.choice(EVERYS)
    kind = "absent" if op == "add" else rng.choice(OFFSETS)
    start = BASE + rng.randrange(0, DAY)
    if rng.random() < 0.3:
        start = start // every * every
    offset = kind if kind != "positive" else rng.randrange(1, every)
    step = _upsert(start, every, offset)
    step["op"] = op
    due = (start // every + 1) * every if op == "add" else _first(start, every, offset)
    phase = due % every
    picks, t = [], start
    for _ in range(rng.randrange(5, 10)):
        r = rng.random()
        if r < 0.25:
            at = due
        elif r < 0.45:
            at = due + rng.randrange(1, every)
        elif r < 0.6:
            at = due + every + rng.choice((-1, 0, 0, 1))
        elif r < 0.85:
            at = due + rng.randrange(2, 61) * every + rng.choice((0, 1, -1, rng.randrange(0, every)))
        else:
            at = due - rng.randrange(1, every)
        t = max(t, at)
        picks.append(t)
        if t >= due:
            nxt = due + every
            if nxt < t:
                a = t // every * every + phase
                nxt = a + every if a <= t else a
            due = nxt
    return {"id": f"fresh-{i:03d}-{every}-{kind}", "steps": [step, *_pick(*picks)]}


def fresh(op: str = "upsert", seed: int = FRESH_SEED, n: int = FRESH) -> list[dict]:
    """`n` seeded scenarios of outages and late pickups (`op` "add": legacy repeatable jobs)."""
    rng = random.Random(seed)
    return [_fresh_scenario(rng, i, op) for i in range(n)]


def questions() -> dict:
    """The job-scheduler questions, the same for every release (the pinned one reads no package)."""
    rng = random.Random(SEED)
    scenarios = [_every_scenario(rng, i) for i in range(3 * 2 * len(EVERYS) * 4)]
    return {"scenarios": _named() + _upserts() + _cron() + scenarios + fresh()}


def package(release: str) -> str:
    """The npm name a release is installed under: `bullmq` for the pinned one, else its alias."""
    if release not in RELEASES + LEGACY_RELEASES:
        raise ValueError(f"bullmq {release!r} is not one of the recorded releases "
                         f"{', '.join(sorted(set(RELEASES + LEGACY_RELEASES)))}")
    return "bullmq" if release == PINNED else "bullmq-" + release.replace(".", "-")


def release_questions(release: str) -> dict:
    """The job-scheduler questions for `release` (the pinned one's are `questions()` itself)."""
    q = questions()
    return q if release == PINNED else {"package": package(release), **q}


def legacy_questions(release: str) -> dict:
    """Legacy repeatable jobs (`queue.add` with `repeat: {every}`) on a 5.x `release`: a few
    outages of whole periods, then the fresh ones."""
    if release not in LEGACY_RELEASES:
        raise ValueError(f"bullmq {release!r} has no legacy repeat recorded; one of {', '.join(LEGACY_RELEASES)}")
    out = []
    for every in (1000, 60_000, 15 * MIN):
        for start in (BASE, BASE + 1, BASE + every // 3):
            first = (start // every + 1) * every
            picks = (first, first + every, first + 3 * every, first + 3 * every + 5, first + 6 * every,
                     first + 6 * every, first + 7 * every - 1, first + 7 * every, first + 9 * every)
            out.append({"id": f"legacy-{every}-{start - BASE}",
                        "steps": [{"op": "add", "at": start, "every": every}, *_pick(*picks)]})
    return {"package": package(release), "scenarios": out + fresh("add")}


def recording_name(release: str, legacy: bool = False) -> str:
    """The recording (tests/oracles/recorded/<name>.json) of a release's answers."""
    if legacy:
        return f"bullmq-repeat-{release}"
    return "bullmq" if release == PINNED else f"bullmq-{release}"


def record_all() -> None:
    """Ask every release (needs Node, npm ci here and EMQSIM_REDIS_URL) and write the recordings;
    the pinned one's as oracle.py writes it, the others compact (one line)."""
    import oracle

    jobs = [(r, False, release_questions(r)) for r in RELEASES]
    jobs += [(r, True, legacy_questions(r)) for r in LEGACY_RELEASES]
    for release, legacy, q in jobs:
        name = recording_name(release, legacy)
        if name == "bullmq":
            doc = oracle.record(name, q)
        else:
            doc = {"questions": q, "answers": oracle.ask("bullmq", q)}
            (oracle.RECORDED / f"{name}.json").write_text(json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n")
        if doc["answers"]["bullmq"] != release:
            raise SystemExit(f"{name}: asked bullmq {release}, answered by {doc['answers']['bullmq']}")
        print(f"recorded {len(doc['answers']['answers'])} answers of bullmq {doc['answers']['bullmq']} in {name}.json")


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python tests/oracles/bullmq_questions.py record")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    record_all()
