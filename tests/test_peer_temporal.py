"""Temporal Schedules: the overlap policies as `emqsim.peers.temporal.starts` and the workflow id
rule, against the scheduler's own tests (temporalio/temporal service/worker/scheduler/workflow_test.go
at commit c01fd64845cf), then the engine lanes the lessons label with Temporal's names against
that rule on seeded runs longer than the gap."""

from __future__ import annotations

import random
import re
from datetime import datetime, timezone

import pytest

from emqsim.engine.cadence import Every
from emqsim.engine.errors import InputError
from emqsim.engine.reference import reference
from emqsim.engine.schedule import Schedule
from emqsim.engine.worker import Worker
from emqsim.lessons.course import on_day
from emqsim.peers import temporal

M = 60_000


def test_defaults_and_names():
    assert temporal.DEFAULTS == {"overlap": "Skip", "catchupWindow": "1 year"}
    assert temporal.overlap() == {"overlap": "skip"}
    assert temporal.overlap("BufferOne") == {"overlap": "buffer-one"}
    with pytest.raises(InputError, match="'BufferAll' has no engine policy"):
        temporal.overlap("BufferAll")
    with pytest.raises(InputError, match="'CancelOther' has no engine policy"):
        temporal.overlap("CancelOther")


T0 = int(datetime(2022, 6, 1, tzinfo=timezone.utc).timestamp() * 1000)


def test_the_workflow_id_is_the_actions_id_with_the_nominal_time():
    """TestStart: action id "myid", schedule id "myschedule", 00:15 -> "myid-2022-06-01T00:15:00Z"."""
    assert temporal.workflow_id("myid", T0 + 15 * M) == "myid-2022-06-01T00:15:00Z"


def test_the_schedulers_overlap_vectors():
    every5 = [T0 + k * 5 * M for k in range(1, 7)]        # 00:05 .. 00:30
    # TestOverlapSkip: 00:05 runs 7 min, so :10 is skipped; :15 runs
    assert temporal.starts("Skip", every5[:3], [7 * M, 1 * M, 2 * M]) == [(every5[0], every5[0]), (every5[2], every5[2])]
    # TestOverlapBufferOne: 00:05 runs 22 min; :10 is buffered and starts at :27; :15, :20, :25
    # are skipped; :30 starts on time
    assert temporal.starts("BufferOne", every5, [22 * M, 2 * M, M, M, M, 9 * M]) == [
        (every5[0], every5[0]), (every5[1], T0 + 27 * M), (every5[5], every5[5])]


def test_the_documented_examples():
    """Every 15 min, 20-min workflows: Skip starts every other action; BufferOne starts 09:15 at
    09:20 and, with one already buffered, drops the next one that comes while it runs."""
    acts = [on_day("09:00") + k * 15 * M for k in range(4)]
    assert temporal.starts("Skip", acts, 20 * M) == [(acts[0], acts[0]), (acts[2], acts[2])]
    assert temporal.starts("BufferOne", acts, 40 * M)[:2] == [(acts[0], acts[0]), (acts[1], acts[0] + 40 * M)]
    assert all(a == s for a, s in temporal.starts("AllowAll", acts, 40 * M))


@pytest.mark.parametrize("seed", range(120))
def test_engine_lanes_match_temporals_overlap_rule(seed):
    rnd = random.Random(seed)
    every = rnd.choice((60, 300, 900)) * 1000
    first = on_day("09:00") + rnd.randrange(0, 3600) * 1000
    n = rnd.randint(4, 12)
    run = rnd.choice((every // 2, every, every + 1000, 2 * every - 1000, 3 * every + 7000))
    policy = ("Skip", "BufferOne", "AllowAll", "TerminateOther")[seed % 4]
    acts = [first + k * every for k in range(n)]
    want = temporal.starts(policy, acts, run)
    s = Schedule("wf", Every(every), **temporal.overlap(policy))
    r = reference(s, start=first, until=acts[-1], worker=Worker(run=run, concurrency=8), ids=None)
    got = list(zip(r.slot.tolist(), r.started.tolist()))
    assert got == [w for w in want if w[0] <= acts[-1]], (every, run, policy)


def test_buffer_all_queues_every_late_action():
    """Issue 28: TestOverlapBufferAll (workflow_test.go at c01fd64845cf): every 5 min, 00:05 runs
    12 min; :10 starts at :17, :15 at :19, :20 at :22, and :25 is back on time. Nothing is dropped."""
    every5 = [T0 + k * 5 * M for k in range(1, 6)]        # 00:05 .. 00:25
    assert temporal.starts("BufferAll", every5, [12 * M, 2 * M, 3 * M, 1 * M, 2 * M]) == [
        (every5[0], every5[0]), (every5[1], T0 + 17 * M), (every5[2], T0 + 19 * M),
        (every5[3], T0 + 22 * M), (every5[4], every5[4])]


def test_notebook_05_lists_buffer_all_with_temporals_policies():
    """05's peers' table now lives on its reference page, "Other schedulers when runs overlap",
    as a list a phone can read (issue 30)."""
    import json
    from pathlib import Path
    cells = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "ref_peers_overlap.ipynb").read_text())["cells"]
    table = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    temporal = table[table.index("- **Temporal Schedules**"):]
    temporal = temporal[:temporal.index("\n- **", 1)]     # the policies listed under Temporal
    # a policy's name may be a link to its glossary entry
    assert re.findall(r"^  - \[?(Buffer\w+)(?:\]\([^)\s]+\))?: ", temporal, re.M) == ["BufferOne", "BufferAll"]
