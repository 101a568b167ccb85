"""Questions for the BullMQ oracle (bullmq.mjs) that the in-process driver of BullMQ's own
scripts (emqsim/engine/bullmq_scripts/driver.py) is replayed against, step by step: `every
15m` and cron `0 9 * * *`, each with pickups on time, early, late, after skipped runs, 25 h
late, and an upsert in the middle. Recorded in recorded/bullmq_steps.json (the pinned npm `bullmq`, 6.7.0); re-record with
``EMQSIM_REDIS_URL=... python tests/oracles/bullmq_step_questions.py record``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

MIN = 60_000
HOUR = 60 * MIN
DAY = 24 * HOUR
BASE = 1_795_996_800_000          # 2026-11-30T00:00:00Z
T0907 = BASE + 9 * HOUR + 7 * MIN


def _pick(*ts):
    return [{"op": "pickup", "at": t} for t in ts]


def questions() -> dict:
    every = {"op": "upsert", "at": T0907, "every": 15 * MIN}
    cron = {"op": "upsert", "at": BASE + 8 * HOUR, "pattern": "0 9 * * *"}
    s = []

    def add(name, steps):
        s.append({"id": name, "steps": steps})

    q = 15 * MIN
    add("steps-every-15m-on-time", [every, *_pick(T0907, T0907 + q, T0907 + 2 * q, T0907 + 3 * q)])
    add("steps-every-15m-early", [every, *_pick(T0907, T0907 + q - 1, T0907 + q, T0907 + 2 * q - 5 * MIN,
                                                T0907 + 2 * q)])
    add("steps-every-15m-late", [every, *_pick(T0907 + 1, T0907 + q + 5 * MIN, T0907 + 2 * q + 14 * MIN,
                                               T0907 + 3 * q + 14 * MIN + 59_999)])
    add("steps-every-15m-skipped", [every, *_pick(T0907, T0907 + 3 * q + 1, T0907 + 4 * q, T0907 + 7 * q)])
    add("steps-every-15m-25h-late", [every, *_pick(T0907, T0907 + 25 * HOUR, T0907 + 25 * HOUR + q,
                                                   T0907 + 25 * HOUR + 2 * q)])
    add("steps-every-15m-upsert-between", [every, *_pick(T0907, T0907 + q),
                                           {"op": "upsert", "at": T0907 + q + 3 * MIN, "every": 15 * MIN},
                                           *_pick(T0907 + 2 * q, T0907 + 2 * q + 3 * MIN, T0907 + 3 * q + 3 * MIN)])
    nine = BASE + 9 * HOUR
    add("steps-cron-0-9-on-time", [cron, *_pick(nine, nine + DAY, nine + 2 * DAY)])
    add("steps-cron-0-9-early", [cron, *_pick(nine - 1, nine, nine + DAY - 1, nine + DAY, nine + 2 * DAY - HOUR)])
    add("steps-cron-0-9-late", [cron, *_pick(nine + 30 * MIN, nine + DAY + 23 * HOUR, nine + 2 * DAY + 5)])
    add("steps-cron-0-9-skipped", [cron, *_pick(nine, nine + 3 * DAY + 1, nine + 4 * DAY)])
    add("steps-cron-0-9-25h-late", [cron, *_pick(nine, nine + DAY + 25 * HOUR, nine + 3 * DAY, nine + 4 * DAY)])
    add("steps-cron-0-9-upsert-between", [cron, *_pick(nine), {"op": "upsert", "at": nine + 2 * HOUR,
                                                              "pattern": "0 9 * * *"},
                                          *_pick(nine + DAY, nine + 2 * DAY)])
    return {"scenarios": s}


NAME = "bullmq_steps"
KEYS_NAME = "bullmq_steps_keys"
TOKEN = "emqsim-worker"          # the worker token both sides use (it is stored in the job's lock)


def record() -> dict:
    """Ask the live oracles (the pinned bullmq) and write recorded/bullmq_steps.json (bullmq.mjs:
    the compared fields) and recorded/bullmq_steps_keys.json (bullmq_keys.mjs: every key)."""
    import oracle

    qs = questions()
    doc = {"questions": qs, "answers": oracle.ask("bullmq", qs)}
    (oracle.RECORDED / f"{NAME}.json").write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    keys_q = {"token": TOKEN, **qs}
    keys = {"questions": keys_q, "answers": oracle.ask("bullmq_keys", keys_q)}
    (oracle.RECORDED / f"{KEYS_NAME}.json").write_text(json.dumps(keys, sort_keys=True) + "\n")
    return doc


if __name__ == "__main__":
    if sys.argv[1:] != ["record"]:
        sys.exit("usage: python tests/oracles/bullmq_step_questions.py record")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    done = record()
    print(f"recorded {len(done['answers']['answers'])} scenarios of bullmq {done['answers']['bullmq']}")
