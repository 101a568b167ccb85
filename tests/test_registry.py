"""The registry's verbs through the Lua scripts, on every backend (fakeredis, real Redis)."""

from __future__ import annotations

import pytest

from emqsim.engine.cadence import Cron, Every
from emqsim.engine.registry import ADVANCE_ONLY, Registry
from emqsim.engine.schedule import INF, Schedule
from emqsim.engine.scripts import ScriptError
from emqsim.engine.timefmt import at

T9 = at("2026-11-30 09:00")
MIN = 60_000


@pytest.fixture
def reg(store):
    return Registry(store)


def test_register_is_insert_if_absent(reg):
    assert reg.register(Schedule("reports", Every("15m")), T9) == "registered"
    assert reg.register(Schedule("reports", Every("5m")), T9 + MIN) == "exists"
    assert reg.rows() == [("reports", T9)]
    assert reg.record("reports")["every_ms"] == "900000"


def test_upsert_rewrites_the_cadence_and_keeps_one_row(reg):
    assert reg.upsert(Schedule("reports", Every("15m")), T9) == "created"
    assert reg.upsert(Schedule("reports", Every("15m")), T9 + 3 * MIN) == "kept"
    assert reg.score("reports") == T9                       # same cadence: score kept
    assert reg.record("reports")["offset"] == "0"            # and the phase of the first run
    assert reg.upsert(Schedule("reports", Every("5m")), T9 + 3 * MIN) == "rewritten"
    assert reg.rows() == [("reports", T9 + 3 * MIN)]          # changed: a first run again
    assert reg.record("reports")["every_ms"] == "300000"
    assert reg.size() == 1


T907 = at("2026-11-30 09:07")


def _upserted_after_two_fires(reg):
    """Every 15 min from 09:07 (phase 7 min), two jobs enqueued, the row at 09:37."""
    reg.upsert(Schedule("s", Every("15m")), T907)
    for slot in (T907, T907 + 15 * MIN):
        reg.enqueue(f"repeat:s:{slot}", "s", slot, slot)
        reg.advance("s", slot + 15 * MIN, made=True)
    assert reg.record("s")["fired"] == "2" and reg.score("s") == T907 + 30 * MIN


# What bullmq 6.7.0 answered for the same upserts at 09:25 (recorded scenarios
# upsert-pending-*, tests/oracles/recorded/bullmq.json): the score, the stored offset, and
# the iteration count carried over.
@pytest.mark.parametrize("cadence, answer, score, offset", [
    (Every("15m"), "kept", at("2026-11-30 09:37"), 7 * MIN),
    (Every("15m", offset="4m"), "kept", at("2026-11-30 09:37"), 4 * MIN),     # same every: score kept
    (Every("15m", offset=0), "kept", at("2026-11-30 09:37"), 7 * MIN),        # offset 0 is no offset
    (Every("10m"), "rewritten", at("2026-11-30 09:25"), 7 * MIN),             # old offset kept
    (Every("10m", offset=0), "rewritten", at("2026-11-30 09:25"), 7 * MIN),
    (Every("10m", offset="2m"), "rewritten", at("2026-11-30 09:32"), 2 * MIN),
    (Every("1h"), "rewritten", at("2026-11-30 09:25"), 7 * MIN),
])
def test_upsert_keeps_its_count_and_the_stored_offset_as_bullmq_does(reg, cadence, answer, score, offset):
    _upserted_after_two_fires(reg)
    assert reg.upsert(Schedule("s", cadence), at("2026-11-30 09:25")) == answer
    assert reg.score("s") == score
    assert reg.record("s")["offset"] == str(offset)
    assert reg.record("s")["fired"] == "2"            # was dropped on a changed cadence before


def test_upsert_to_a_pattern_keeps_its_count_and_takes_the_next_slot(reg):
    _upserted_after_two_fires(reg)
    assert reg.upsert(Schedule("s", Cron("*/10 * * * *")), at("2026-11-30 09:25")) == "rewritten"
    assert reg.score("s") == at("2026-11-30 09:30")
    assert reg.record("s")["fired"] == "2" and reg.record("s")["offset"] == str(7 * MIN)


def test_upsert_same_every_keeps_an_overdue_score(reg):
    # bullmq 6.7.0, upsert-overdue-same-every: the 09:37 run, overdue at 09:42, stays
    _upserted_after_two_fires(reg)
    assert reg.upsert(Schedule("s", Every("15m")), at("2026-11-30 09:42")) == "kept"
    assert reg.score("s") == at("2026-11-30 09:37")


def test_upsert_from_a_pattern_to_every_keeps_phase_0(reg):
    # bullmq 6.7.0, upsert-pattern-to-every-10m: a pattern's record holds offset 0
    reg.upsert(Schedule("s", Cron("*/15 * * * *")), at("2026-11-30 09:03"))
    assert reg.upsert(Schedule("s", Every("10m")), at("2026-11-30 09:23")) == "rewritten"
    assert reg.score("s") == at("2026-11-30 09:23")
    assert reg.record("s")["offset"] == "0"


def test_three_upserts_of_one_id_leave_one_scheduler(reg):
    for i in range(3):
        reg.upsert(Schedule("same-id", Every(1000 * (i + 1))), T9)
    assert reg.size() == 1


def test_cron_and_interval_rows_have_the_same_shape(reg):
    reg.upsert(Schedule("reports", Cron("0 9 * * *")), T9 - 12 * MIN)
    reg.upsert(Schedule("heartbeat", Every("15m", offset=0)), T9 - 12 * MIN)
    assert reg.rows() == [("heartbeat", T9 - 12 * MIN), ("reports", T9)]
    assert reg.record("reports")["pattern"] == "0 9 * * *"
    assert reg.record("heartbeat")["every_ms"] == "900000"


def test_cancel_then_cancel_again(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    assert reg.cancel("reports") == "cancelled"
    assert reg.cancel("reports") == "absent"
    assert reg.size() == 0 and reg.record("reports") == {}


def test_advance_rewrites_the_row_and_sweeps_a_cancelled_one(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    assert reg.advance("reports", T9 + 15 * MIN) == "advanced"
    assert reg.rows() == [("reports", T9 + 15 * MIN)]
    reg.client.delete(reg.k.record("reports"))   # the record is gone, the member dangles
    assert reg.advance("reports", T9 + 30 * MIN) == "absent"
    assert reg.size() == 0                        # swept, not resurrected


def test_advance_can_park_a_row(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    assert reg.advance("reports", INF) == "advanced"
    assert reg.rows() == [("reports", INF)]
    assert reg.due(T9 + 10**9) == []


def test_due_reads_rows_at_or_before_now_with_their_records(reg):
    reg.register(Schedule("a", Every("15m")), T9)
    reg.register(Schedule("b", Every("15m"), start=T9 + MIN), T9)
    due = reg.due(T9)
    assert [(d.name, d.slot) for d in due] == [("a", T9)]
    assert due[0].record[b"every_ms"] == b"900000"
    assert [d.name for d in reg.due(T9 + MIN, limit=1)] == ["a"]


def test_enqueue_writes_job_pending_and_marker(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    assert reg.enqueue("JOB0SUaKlrtAo4", "reports", T9, T9 + 500) == "enqueued"
    assert reg.job("JOB0SUaKlrtAo4") == {"name": "reports", "slot": str(T9), "released": str(T9 + 500),
                                         "data": "{}", "state": "pending"}
    assert reg.pending() == ["JOB0SUaKlrtAo4"]
    assert reg.marker() == [("0", 0)]             # a job is ready (BullMQ's base marker)
    assert "fired" not in reg.record("reports")   # counted where the row moves: the advance
    assert reg.enqueue("JOB0SUaKlrtAo4", "reports", T9, T9 + 500) == "duplicate"
    assert reg.pending() == ["JOB0SUaKlrtAo4"]


def test_the_advance_after_a_job_made_counts_it_and_the_one_after_none_does_not(reg):
    """The two-step pump's `fired` is bumped by the advance that follows a job made (as `fire`
    bumps it): an enqueue a crash cut off from its advance, a slot skipped by policy, and a
    row whose record is gone count nothing, and nothing re-creates a cancelled record."""
    reg.register(Schedule("reports", Every("15m")), T9)
    assert b"fired" not in reg.due(T9)[0].record                    # read once, then kept
    reg.enqueue("J1", "reports", T9, T9)
    assert reg.advance("reports", T9 + 15 * MIN, made=True) == "advanced"
    assert reg.record("reports")["fired"] == "1"
    assert reg.due(T9 + 15 * MIN)[0].record[b"fired"] == b"1"      # the kept record counts it too
    reg.enqueue("J2", "reports", T9 + 15 * MIN, T9 + 15 * MIN)     # a crash: no advance
    assert reg.record("reports")["fired"] == "1"
    assert reg.advance("reports", T9 + 45 * MIN) == "advanced"      # a skip: no job made
    assert reg.record("reports")["fired"] == "1"
    assert reg.due(T9 + 45 * MIN)[0].record[b"fired"] == b"1"
    reg.cancel("reports")
    assert reg.advance("reports", T9 + 60 * MIN, made=True) == "absent"
    assert reg.record("reports") == {} and reg.size() == 0


def test_fire_enqueues_and_advances_in_one_step(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    size, head, res = reg.fire(T9, [("reports", T9, T9 + 15 * MIN, "JOB1", T9, "{}")])
    assert (size, head, [r.result for r in res]) == (1, T9 + 15 * MIN, ["fired"])
    assert reg.marker() == [("0", 0)]             # a job is ready; the next run is the pump's business
    assert reg.pending() == ["JOB1"]
    # a second pump that read the same slot finds the row moved
    _, _, res = reg.fire(T9, [("reports", T9, T9 + 15 * MIN, "JOB2", T9, "{}")])
    assert [r.result for r in res] == ["stale"]
    assert reg.pending() == ["JOB1"]


def test_fire_on_a_cancelled_row_writes_nothing(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    reg.cancel("reports")
    size, head, res = reg.fire(T9, [("reports", T9, T9 + 15 * MIN, "JOB1", T9, "{}")])
    assert (size, head, [r.result for r in res]) == (0, INF, ["absent"])
    assert reg.pending() == [] and reg.size() == 0


def test_fire_with_slot_ids_deduplicates(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    jid = f"repeat:reports:{T9}"
    reg.fire(T9, [("reports", T9, T9 + 15 * MIN, jid, T9, "{}")], dedupe=True)
    reg.advance("reports", T9)   # pretend the advance was lost: the slot comes due again
    _, _, res = reg.fire(T9, [("reports", T9, T9 + 15 * MIN, jid, T9, "{}")], dedupe=True)
    assert [r.result for r in res] == ["duplicate"]
    assert reg.pending() == [jid]


def test_finish_takes_jobs_off_pending_with_retention(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    reg.enqueue("J1", "reports", T9, T9)
    reg.enqueue("J2", "reports", T9, T9)
    assert reg.finish([("J2", T9, T9 + MIN, "done")], evict=["J1"]) == 1
    assert reg.pending() == ["J1"]
    assert reg.job("J2")["state"] == "done" and reg.job("J2")["finished"] == str(T9 + MIN)
    assert reg.job("J1") == {}


def test_finish_marks_a_replaced_run_cancelled(reg):
    reg.enqueue("J1", "reports", T9, T9)
    assert reg.finish([("J1", T9, T9 + 15 * MIN, "cancelled")]) == 1
    assert (reg.pending(), reg.job("J1")["state"]) == ([], "cancelled")
    with pytest.raises(ValueError, match="state .gone. is refused"):   # an end state it does not know
        reg.finish([("J1", T9, T9 + MIN, "gone")])


def test_fire_labels_the_job_and_skips_by_policy(reg):
    reg.register(Schedule("reports", Every("15m")), T9)
    # the row reads 09:00; the job stands for 09:30 (missed="once" coalesced two slots into it)
    size, head, res = reg.fire(T9 + 40 * MIN, [("reports", T9, T9 + 45 * MIN, "JOB1", T9 + 30 * MIN, "{}")])
    assert (size, head, [r.result for r in res]) == (1, T9 + 45 * MIN, ["fired"])
    assert reg.job("JOB1")["slot"] == str(T9 + 30 * MIN)
    assert reg.record("reports")["fired"] == "1"
    # an empty job id (ADVANCE_ONLY): the row advances under the same guard, no job is made
    assert ADVANCE_ONLY == ""
    _, head, res = reg.fire(T9 + 50 * MIN, [("reports", T9 + 45 * MIN, T9 + 60 * MIN, ADVANCE_ONLY, T9 + 45 * MIN,
                                             "{}")])
    assert (head, [r.result for r in res]) == (T9 + 60 * MIN, ["skipped"])
    assert reg.pending() == ["JOB1"] and reg.record("reports")["fired"] == "1"
    _, _, res = reg.fire(T9 + 50 * MIN, [("reports", T9 + 45 * MIN, T9 + 60 * MIN, "", T9 + 45 * MIN, "{}")])
    assert [r.result for r in res] == ["stale"]
    with pytest.raises(ValueError, match="label 'soon' is refused"):   # a label that is not a number
        reg.fire(T9, [("reports", T9 + 60 * MIN, T9 + 75 * MIN, "JOB2", "soon", "{}")])


def test_a_refused_register_leaves_nothing_half_written(reg):
    from emqsim.engine.scripts import ScriptError

    with pytest.raises(ScriptError, match="ERR_SCORE"):
        reg.store.scripts.run("register", [reg.k.repeat, reg.k.record("x"), reg.k.marker],
                              ["x", "soon", "every_ms", "900000"])
    with pytest.raises(ScriptError, match="ERR_FIELDS"):
        reg.store.scripts.run("register", [reg.k.repeat, reg.k.record("x"), reg.k.marker], ["x", T9, "every_ms"])
    assert reg.rows() == [] and reg.record("x") == {} and reg.marker() == []
