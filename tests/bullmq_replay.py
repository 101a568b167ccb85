"""Replaying an oracle scenario (tests/oracles/bullmq.mjs's steps) through the driver of
BullMQ's own scripts, answering as the oracle does; shared by the driver's and the models' tests."""

from __future__ import annotations

COMPARED = ("score", "offset", "ic", "every", "pattern", "delayed", "waiting")


def upsert(b, step: dict, sid: str = "s"):
    return b.upsert(sid, step["at"], every=step.get("every"), pattern=step.get("pattern"), tz=step.get("tz"),
                    offset=step.get("offset"), start=step.get("startDate"), end=step.get("endDate"),
                    limit=step.get("limit"))


def replay(scenario: dict, b) -> list[dict]:
    out = []
    for step in scenario["steps"]:
        if step["op"] == "upsert":
            upsert(b, step)
            out.append(b.state("s"))
        else:
            job = b.pickup(step["at"])
            taken = None if job is None else {"id": job.id, "timestamp": job.timestamp}
            out.append({"taken": taken, **b.state("s")})
    return out


def expected(answer: list[dict]) -> list[dict]:
    return [{k: v for k, v in a.items() if k in COMPARED or k == "taken"} for a in answer]
