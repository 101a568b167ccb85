from __future__ import annotations

import pytest

from emqsim.engine.errors import InputError
from emqsim.engine.ids import (
    ALPHABET,
    EPOCH_MS,
    Minter,
    base62,
    encode,
    id_time,
    minted_at,
    parse,
    slot_job_id,
    snowflake,
    span,
    span_dates,
    unbase62,
    unsnowflake,
    years,
)

T = 1764493200000  # 2025-11-30T09:00:00Z


def test_alphabet_order():
    assert len(ALPHABET) == 62
    assert (ALPHABET[0], ALPHABET[10], ALPHABET[36], ALPHABET[61]) == ("0", "A", "a", "z")
    assert EPOCH_MS == 1704067200000


@pytest.mark.parametrize(
    "n, text",
    [
        (0, "00000000000"),
        (1, "00000000001"),
        (61, "0000000000z"),
        (62, "00000000010"),
        (62**2, "00000000100"),
        (2**63 - 1, "AzL8n0Y58m7"),
    ],
)
def test_base62_round_trip(n, text):
    assert base62(n) == text
    assert unbase62(text) == n


@pytest.mark.parametrize("bad, match", [(-1, "-1"), (2**63, str(2**63)), (2**64, str(2**64)), (True, "True"), ("7", "'7'")])
def test_base62_rejects(bad, match):
    with pytest.raises(ValueError, match=match):
        base62(bad)


@pytest.mark.parametrize("bad", ["", "0000000000", "000000000000", "0000000000-", "AzL8n0Y58m8", "LygHa16AHYF", "zzzzzzzzzzz"])
def test_unbase62_rejects(bad):
    with pytest.raises(ValueError, match=repr(bad)):
        unbase62(bad)


@pytest.mark.parametrize(
    "namespace, n, branded",
    [
        ("USR", 274557032793636864, "USR0KHTOWnGLuC"),
        ("USR", 320636799581945856, "USR0NgWEfAEJfs"),
        ("JOB", 0, "JOB00000000000"),
    ],
)
def test_contract_vectors(namespace, n, branded):
    assert encode(namespace, n) == branded
    assert parse(branded) == (namespace, n)


def test_echomq_self_check_vectors():
    """The vectors EchoMQ's own self-check asserts (fiberfx, branch echo_mq, commit b9f34ed0:
    echo/apps/echo_data/lib/echo_data/branded_id.ex, and base62.ex's largest payload)."""
    assert "USR" + base62(274557032793636864) == "USR0KHTOWnGLuC"
    assert parse("USR0NgWEfAEJfs") == ("USR", 320636799581945856)
    assert (base62(0), base62(61), base62(62)) == ("00000000000", "0000000000z", "00000000010")
    assert base62(2**63 - 1) == "AzL8n0Y58m7"  # base62.ex @max_payload: base62(2^63 - 1)


def test_ids_have_echomqs_41_bit_timestamp():
    """EchoMQ's snowflake at b9f34ed0 (echo_data/lib/echo_data/snowflake.ex): ts(41) << 22 |
    node(10) << 12 | seq(12), values in [0, 2^63); base62.ex and branded_id.ex refuse larger.
    So the ids reach 2093-09-06, not 2163 (an older commit's 42 bits)."""
    last = EPOCH_MS + 2**41 - 1
    assert snowflake(last, 1023, 4095) == 2**63 - 1
    assert id_time(last, "start") == last
    with pytest.raises(InputError, match=f"start {last + 1} is outside .* to 2093-09-06T15:47:35.551Z"):
        id_time(last + 1, "start")
    assert span() == "give a time from 2024-01-01T00:00:00Z to 2093-09-06T15:47:35.551Z"
    assert span_dates() == "2024-01-01 to 2093-09-06"
    assert years() == "about 69.7 years"


@pytest.mark.parametrize(
    "ms, worker, seq, n",
    [
        (EPOCH_MS, 0, 0, 0),
        (EPOCH_MS, 0, 1, 1),
        (EPOCH_MS, 1, 0, 4096),
        (EPOCH_MS + 1, 0, 0, 1 << 22),
        (EPOCH_MS + 1, 1023, 4095, (1 << 22) | (1023 << 12) | 4095),
        (EPOCH_MS + 2**41 - 1, 1023, 4095, 2**63 - 1),
    ],
)
def test_snowflake_round_trip(ms, worker, seq, n):
    assert snowflake(ms, worker, seq) == n
    assert unsnowflake(n) == (ms, worker, seq)


@pytest.mark.parametrize(
    "args, match",
    [
        ((EPOCH_MS - 1,), f"ms {EPOCH_MS - 1} "),
        ((EPOCH_MS + 2**41,), f"ms {EPOCH_MS + 2**41} "),
        ((T, 1024), "worker 1024 .*0..1023"),
        ((T, -1), "worker -1 "),
        ((T, 0, 4096), "seq 4096 .*0..4095"),
        ((T, 0, -1), "seq -1 "),
        ((float(T),), "ms 1764493200000.0 "),
    ],
)
def test_snowflake_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        snowflake(*args)


@pytest.mark.parametrize("namespace", ["usr", "US", "USER", "U1R", "ÄBC", ""])
def test_encode_rejects_namespace(namespace):
    with pytest.raises(ValueError, match=f"namespace {namespace!r} .*3 upper-case letters"):
        encode(namespace, 1)


@pytest.mark.parametrize(
    "branded, match",
    [
        ("USR0KHTOWnGLu", "'USR0KHTOWnGLu' is not a branded id; expected 14"),
        ("USR0KHTOWnGLuCx", "'USR0KHTOWnGLuCx'"),
        ("usr0KHTOWnGLuC", "namespace 'usr'"),
        ("USR0KHTOWnGL_C", "'0KHTOWnGL_C'"),
    ],
)
def test_parse_rejects(branded, match):
    with pytest.raises(ValueError, match=match):
        parse(branded)


def test_minted_at_vector():
    assert minted_at("USR0KHTOWnGLuC") == EPOCH_MS + (274557032793636864 >> 22)


@pytest.mark.parametrize("t", [EPOCH_MS, T, T + 1, EPOCH_MS + 2**41 - 1])
def test_minted_at_round_trip(t):
    assert minted_at(Minter().mint(t)) == t


def test_minter_sequence_within_and_across_ms():
    minter = Minter(worker=5, namespace="EVT")
    ids = [minter.mint(T), minter.mint(T), minter.mint(T), minter.mint(T + 1)]
    decoded = [unsnowflake(parse(i)[1]) for i in ids]
    assert decoded == [(T, 5, 0), (T, 5, 1), (T, 5, 2), (T + 1, 5, 0)]
    assert all(i.startswith("EVT") and len(i) == 14 and len(i.encode()) == 14 for i in ids)


def test_ids_sort_in_mint_order():
    minter = Minter()
    times = [EPOCH_MS, EPOCH_MS + 1, EPOCH_MS + 61, EPOCH_MS + 62, T, T, T + 999, T + 86_400_000]
    ids = [minter.mint(t) for t in times]
    assert sorted(ids) == ids
    assert len(set(ids)) == len(ids)


def test_minter_rejects_going_back_and_keeps_state():
    minter = Minter()
    minter.mint(T)
    with pytest.raises(ValueError, match=f"cannot mint at {T - 1} after minting at {T}"):
        minter.mint(T - 1)
    assert unsnowflake(parse(minter.mint(T))[1]) == (T, 0, 1)


def test_minter_mints_the_4097th_id_of_one_ms_in_the_next_ms():
    """A snowflake whose sequence runs out takes the next ms (it used to raise)."""
    minter = Minter(worker=3)
    ids = [minter.mint(T) for _ in range(4098)]
    assert unsnowflake(parse(ids[4095])[1]) == (T, 3, 4095)
    assert unsnowflake(parse(ids[4096])[1]) == (T + 1, 3, 0)
    assert unsnowflake(parse(ids[4097])[1]) == (T + 1, 3, 1)
    assert ids[4095:4098] == ["JOB0IimPaaOPt9", "JOB0IimPaafzxA", "JOB0IimPaafzxB"]
    # asked for the borrowed ms itself: the sequence goes on inside it
    assert unsnowflake(parse(minter.mint(T + 1))[1]) == (T + 1, 3, 2)
    # a later ms starts a fresh sequence
    assert unsnowflake(parse(minter.mint(T + 2))[1]) == (T + 2, 3, 0)
    assert minted_at(ids[4096]) == T + 1


def test_minter_overflow_across_several_ms_stays_unique_and_ordered():
    minter = Minter()
    ids = [minter.mint(T) for _ in range(3 * 4096 + 5)]
    assert sorted(ids) == ids and len(set(ids)) == len(ids)
    assert [unsnowflake(parse(i)[1]) for i in ids[-6:]] == [(T + 2, 0, 4095)] + [(T + 3, 0, s) for s in range(5)]
    # still refuses a ms before the latest one asked for, and before a borrowed one it names what was asked
    with pytest.raises(ValueError, match=f"cannot mint at {T - 1} after minting at {T}"):
        minter.mint(T - 1)
    # the caller's clock catches up with the borrowed ms: the ids go on growing
    assert unsnowflake(parse(minter.mint(T + 3))[1]) == (T + 3, 0, 5)
    assert unsnowflake(parse(minter.mint(T + 4))[1]) == (T + 4, 0, 0)


def test_minter_overflow_at_the_end_of_the_id_range_is_refused():
    last = EPOCH_MS + 2**41 - 1
    minter = Minter()
    for _ in range(4096):
        minter.mint(last)
    with pytest.raises(ValueError, match=f"ms {last + 1} is out of range"):
        minter.mint(last)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"worker": 1024}, "worker 1024"), ({"namespace": "job"}, "namespace 'job'")],
)
def test_minter_rejects_bad_config(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Minter(**kwargs)


def test_minter_rejects_ms_before_epoch():
    with pytest.raises(ValueError, match=f"ms {EPOCH_MS - 1} "):
        Minter().mint(EPOCH_MS - 1)


def test_a_release_of_more_than_4096_runs_at_one_instant_completes():
    """`--every 1s --tick 0 --missed all` after a 70-minute outage: 4,196 runs released at
    one ms. It used to stop with "more than 4096 ids minted"; now the last 100 take the next ms."""
    from emqsim import Every, Pump, Schedule
    from emqsim.engine.faults import Faults
    from emqsim.engine.sim import simulate

    t9 = 1796029200000  # 2026-11-30T09:00:00Z
    tr = simulate(Schedule("r", Every("1s"), missed="all"), start=t9, fires=4200, pump=Pump(tick=0),
                  faults=Faults(outage=(t9 + 5000, t9 + 4_205_000)))
    fires = list(tr)
    ids = [f.job_id for f in fires]
    assert len(ids) == 4200 and len(set(ids)) == 4200 and sorted(ids) == ids
    assert (tr.duplicates, tr.lost) == (0, 0)
    assert {f.released - t9 for f in fires[5:]} == {4_205_000}
    assert [(f.n, f.job_id) for f in fires[4100:4103]] == [
        (4101, "JOB0SUfLHUoYAR"), (4102, "JOB0SUfLHV68ES"), (4103, "JOB0SUfLHV68ET")]
    assert unsnowflake(parse(ids[4100])[1]) == (t9 + 4_205_000, 0, 4095)
    assert unsnowflake(parse(ids[4101])[1]) == (t9 + 4_205_001, 0, 0)


def test_slot_job_id_is_bullmqs_repeat_name_slot():
    assert slot_job_id("reports", T) == "repeat:reports:1764493200000"
    assert slot_job_id("a:b", 0) == "repeat:a:b:0"


def test_engine_reference_and_chain_make_the_same_slot_ids():
    from emqsim.engine.cadence import Every
    from emqsim.engine.chain import job_id
    from emqsim.engine.pump import Pump
    from emqsim.engine.reference import reference
    from emqsim.engine.schedule import Schedule
    from emqsim.engine.sim import simulate

    s = Schedule("r", Every("15m"))
    expected = [slot_job_id("r", T + k * 900_000) for k in range(3)]
    assert [f.job_id for f in simulate(s, start=T, fires=3, pump=Pump(ids="slot"))] == expected
    assert reference(s, start=T, fires=3, ids="slot").job_ids == expected            # the fast path
    assert reference(s, start=T, fires=3, ids="slot", pump=Pump(jitter=1)).job_ids[0] == expected[0]  # general
    assert job_id is slot_job_id
