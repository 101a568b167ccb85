"""EchoMQ's repeat verbs and pump, as its code reads at one commit, held against the simulator.

EchoMQ (Elixir on Valkey) cannot run here, so each test re-expresses what its code does, read
at github.com/jonny-novikov/fiberfx, branch echo_mq, commit b9f34ed0:
echo/apps/echo_mq/lib/echo_mq/repeat.ex (`EchoMQ.Repeat`: @register, @cancel, @advance, due/3)
and echo/apps/echo_mq/lib/echo_mq/pump.ex (`EchoMQ.Pump`: fire_one/3, handle_info(:tick), arm/1).
"""

from __future__ import annotations

from emqsim.engine.cadence import Every
from emqsim.engine.faults import Faults
from emqsim.engine.ids import minted_at
from emqsim.engine.pump import Pump
from emqsim.engine.registry import Registry
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import simulate
from emqsim.engine.timefmt import at

T9 = at("2026-11-30 09:00")
MIN = 60_000


def test_register_answers_exists_and_changes_nothing(store):
    """repeat.ex @register: EXISTS on the record -> 0 (:exists), else HSET + ZADD -> 1."""
    reg = Registry(store)
    assert reg.register(Schedule("reports", Every("15m")), T9) == "registered"
    assert reg.register(Schedule("reports", Every("5m")), T9 + MIN) == "exists"
    assert reg.rows() == [("reports", T9)] and reg.record("reports")["every_ms"] == "900000"


def test_advance_sweeps_a_member_whose_record_is_gone(store):
    """repeat.ex @advance: no record -> ZREM the member, 0 (:absent); else ZADD, 1 (:advanced)."""
    reg = Registry(store)
    reg.register(Schedule("reports", Every("15m")), T9)
    assert reg.advance("reports", T9 + 15 * MIN) == "advanced"
    reg.client.delete(reg.k.record("reports"))
    assert reg.advance("reports", T9 + 30 * MIN) == "absent" and reg.size() == 0


def test_cancel_answers_cancelled_then_absent(store):
    """repeat.ex @cancel: ZREM the member and DEL the record; 1 :cancelled, 0 :absent."""
    reg = Registry(store)
    reg.register(Schedule("reports", Every("15m")), T9)
    assert (reg.cancel("reports"), reg.cancel("reports")) == ("cancelled", "absent")


def test_next_run_is_the_release_instant_plus_every(store):
    """repeat.ex advance/4: next_at = now_ms() + every_ms, read when the pump advances; with a
    1 s tick and every 1500 ms each score lands mid-tick, so runs come 2000 ms apart."""
    tr = simulate(Schedule("r", Every(1500), rule="release"), start=T9, fires=4, pump=Pump(tick=1000),
                  store=store)
    assert [f.released - T9 for f in tr] == [0, 2000, 4000, 6000]


def test_rearmed_pump_beats_a_tick_plus_the_sweep_apart(store):
    """pump.ex handle_info(:tick): sweep, then arm/1 (Process.send_after(tick_ms)): the next beat
    comes a tick after the sweep ends. With 200 ms of sweep time each beat is 1200 ms after the last."""
    tr = simulate(Schedule("r", Every(1000)), start=T9, fires=4, store=store,
                  pump=Pump(tick=1000, beat="rearm", latency=200))
    assert [f.released - T9 for f in tr] == [200, 1400, 2600, 3800]


def test_a_crash_between_enqueue_and_advance_refires_under_a_new_id(store):
    """pump.ex fire_one/3: a fresh JOB id (BrandedId.generate!), Jobs.enqueue, then
    Repeat.advance: two round trips. A crash between them re-fires the slot on restart."""
    tr = simulate(Schedule("reports", Every("15m")), start=T9, fires=5, store=store,
                  faults=Faults(crash_after_enqueue=3, restart_after=MIN))
    fires = list(tr)
    assert tr.duplicates == 1 and tr.lost == 0
    assert [f.slot for f in fires[2:4]] == [T9 + 30 * MIN, T9 + 30 * MIN]
    assert fires[2].job_id != fires[3].job_id
    assert minted_at(fires[3].job_id) == T9 + 31 * MIN
