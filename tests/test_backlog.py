"""A backlog (runs longer than the gap, so jobs pile up waiting) costs the same per event at
any length: the crew drops finished runs through a heap instead of re-reading every run still
going on each release, and no script searches the pending list for a job that is not there.
Operations are counted, never timed."""

from __future__ import annotations

import fakeredis
import pytest

from emqsim import Every, Schedule, PumpDesign, Store, Worker
from emqsim.engine.reference import reference
from emqsim.engine.timefmt import at
from emqsim.engine import pump_fast
from emqsim.engine import worker as worker_module
from emqsim.engine.worker import Crew

T0 = at("2026-11-30 09:00")
MIN = 60_000


class _Counted(worker_module.Run):
    """A Run that counts how often its finish is read: the crew's work per release."""

    __slots__ = ()
    reads = 0

    def __getattribute__(self, attr):
        if attr == "finished":
            _Counted.reads += 1
        return object.__getattribute__(self, attr)


def _reads_per_release(monkeypatch, releases: int) -> int:
    monkeypatch.setattr(worker_module, "Run", _Counted)
    _Counted.reads = 0
    crew = Crew(Worker(run="10m"), T0)
    for n in range(1, releases + 1):
        crew.assign(n, T0 + (n - 1) * MIN, name="a")
    return _Counted.reads


def test_a_release_reads_a_bounded_number_of_runs_however_long_the_backlog(monkeypatch):
    # every 1m, 10m runs, one worker: after n releases 0.9 n jobs wait. The crew used to
    # re-read every run still going on each release (about n^2 / 2 reads in all).
    # Now each release reads its own run's finish twice (the workers' heap, the name's heap)
    # and each run once more when it is dropped: 49 of 500 have finished, 199 of 2000.
    assert _reads_per_release(monkeypatch, 500) == 2 * 500 + 49
    assert _reads_per_release(monkeypatch, 2000) == 2 * 2000 + 199


def test_the_crew_keeps_only_the_runs_still_going():
    crew = Crew(Worker(run="10m", concurrency=2), T0)
    for n in range(1, 1001):
        crew.assign(n, T0 + (n - 1) * MIN, name="a")
    t = T0 + 999 * MIN
    # two workers, 10 min each: the jobs released at minutes 2k and 2k+1 start at 10k and
    # 10k+1, so at minute 999 those from minute 198 on are still waiting or running: 802
    going = crew.going("a", t)
    assert len(going) == 802
    assert [(r.started - T0) // MIN for r in going[:4]] == [990, 991, 1000, 1001]
    assert crew.kept() == 802                         # nothing finished is held


def test_a_moved_or_cancelled_run_is_dropped_at_its_new_finish():
    crew = Crew(Worker(run="10m"), T0)
    a = crew.assign(1, T0, name="a")
    crew.move(a, T0 + 2 * MIN)                        # started 2 min late: finishes at 12 min
    assert [r.finished for r in crew.going("a", T0 + 11 * MIN)] == [T0 + 12 * MIN]
    assert crew.going("a", T0 + 12 * MIN) == []
    b = crew.assign(2, T0 + 13 * MIN, name="a")
    crew.cancel(b, T0 + 15 * MIN)                     # cancelled: over at 15 min, not 23
    assert crew.going("a", T0 + 15 * MIN) == []
    assert crew.kept() == 1                           # b's stale entry under 23 min, dropped later
    crew.going("a", T0 + 23 * MIN)
    assert crew.kept() == 0


def test_the_engine_crew_holds_what_redis_holds(store):
    # 300 fires a minute apart, 10-minute runs: at minute 300, when the 31st job starts, 30
    # are done, one is running and 269 wait on Redis's list; the crew holds the 270 going
    sim = PumpDesign(Schedule("a", Every("1m")), start=T0, worker=Worker(run="10m"), store=store)
    trace = sim.run(fires=300)
    t = sim.clock.now
    assert t == T0 + 300 * MIN
    assert store.client.llen(store.keys.pending) == 269
    assert len(sim.crew.going("a", t)) == sum(1 for f in trace if f.finished > t) == 270
    assert sim.crew.kept() == 270


def _lua_calls(monkeypatch) -> list[str]:
    from fakeredis.commands_mixins import scripting_mixin as sm

    calls: list[str] = []
    orig = sm.ScriptingCommandsMixin._lua_redis_call

    def counted(self, lua_runtime, expected_globals, op, *args):
        calls.append(bytes(op).decode().upper() if isinstance(op, (bytes, bytearray)) else str(op).upper())
        return orig(self, lua_runtime, expected_globals, op, *args)

    monkeypatch.setattr(sm.ScriptingCommandsMixin, "_lua_redis_call", counted)
    return calls


def test_no_script_searches_the_pending_list_in_a_backlog(monkeypatch):
    # the worker takes the oldest job, at the head: popped, not searched for; a finished job
    # was taken off the list already, so finish does not look for it there
    calls = _lua_calls(monkeypatch)
    monkeypatch.setattr(pump_fast, "enabled", False)   # every job through take: the event path
    sim = PumpDesign(Schedule("a", Every("1m")), start=T0, worker=Worker(run="10m"),
                     store=Store(client=fakeredis.FakeRedis()))
    sim.run(fires=300)
    assert calls.count("LREM") == 0
    # jobs taken at minutes 0 (by its parked worker), 10, 20, ..., 300: each popped off the head
    assert calls.count("LPOP") == 31


@pytest.mark.parametrize("overlap, kept", [("allow", 364), ("replace", 11), ("buffer-one", 2), ("skip", 1)])
def test_the_reference_model_keeps_only_what_is_going(monkeypatch, overlap, kept):
    # runs of 10-12 min, drawn, so the Crew plans them with a backlog under allow: the crew it
    # uses holds the runs going at the end, never the ones that finished (under replace, the
    # cancelled runs' old finishes, up to 12 min on, until they come)
    crews = []
    monkeypatch.setattr("emqsim.engine.reference.Crew", lambda *a: crews.append(Crew(*a)) or crews[-1])
    sched = Schedule("a", Every("1m"), overlap=overlap)
    ref = reference(sched, start=T0, fires=400, worker=Worker(run="10m", spread="2m", seed=3), ids=None)
    end = int(ref.released[-1])
    assert len(crews[0].going("a", end)) == int((ref.finished > end).sum())
    assert crews[0].kept() == kept


# -- the horizon guard counts what the pump can release --------------------------------------

def _trace(capsys, *args: str) -> tuple[int, str, str]:
    from emqsim.cli import main

    status = main(["trace", "--start", "2026-11-30T09:00:00Z", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_tick_of_an_hour_releases_one_fire_an_hour_whatever_the_interval(capsys):
    # every 1ms over two hours is 7,200,001 slots, but the pump reads the row once a beat
    status, out, err = _trace(capsys, "--every", "1ms", "--tick", "1h", "--until", "2026-11-30T11:00:00Z",
                              "--format", "json")
    assert (status, err) == (0, "")
    import json

    assert [f["released"] for f in json.loads(out)["fires"]] == [at("2026-11-30 09:00"), at("2026-11-30 10:00"),
                                                                 at("2026-11-30 11:00")]


@pytest.mark.parametrize("args, fires", [
    # the 1s tick: one beat a second, 1,000,000 beats from 09:00:00 to 22:46:39 eleven days on
    (["--every", "1ms", "--until", "2026-12-11T22:46:39Z"], None),
    (["--every", "1ms", "--until", "2026-12-11T22:46:40Z"], "1,000,001"),
    (["--every", "1ms", "--until", "2026-11-30T10:00:00Z"], None),          # 3,601 beats, not 3.6 M
    # a restart starts a new grid: one beat more
    (["--every", "1ms", "--until", "2026-12-11T22:46:39Z", "--outage", "2026-11-30T09:30:00.500Z/2026-11-30T10:00:00.500Z"],
     "1,000,001"),
    (["--every", "1ms", "--until", "2026-12-11T22:46:38Z", "--crash-after-enqueue", "3"], None),
    (["--every", "1ms", "--until", "2026-12-11T22:46:39Z", "--crash-after-enqueue", "3"], "1,000,001"),
    # a tick of 1ms bounds nothing here; no tick, no bound: the interval's slots count
    (["--every", "1ms", "--tick", "1ms", "--until", "2026-11-30T10:00:00Z"], "3,600,001"),
    (["--every", "1ms", "--tick", "0", "--until", "2026-11-30T09:16:40Z"], "1,000,001"),
    (["--every", "1ms", "--tick", "0", "--until", "2026-11-30T09:16:39.999Z"], None),
    # BullMQ's chain has no pump: the tick does not pace it
    (["--every", "1ms", "--design", "bullmq", "--until", "2026-11-30T10:00:00Z"], "3,600,001"),
])
def test_the_horizon_guard_counts_one_fire_a_beat(monkeypatch, capsys, args, fires):
    ran = []  # the command imports simulate when it runs, from the engine
    monkeypatch.setattr("emqsim.engine.sim.simulate", lambda *a, **kw: ran.append(kw) or _Empty())
    status, out, err = _trace(capsys, *args)
    if fires is None:
        assert (status, err, len(ran)) == (0, "", 1)
    else:
        until = args[args.index("--until") + 1]
        assert (status, err, ran) == (2, f"emqsim: error: --until {until!r} is about {fires} fires away; "
                                         "give a horizon of at most 1,000,000 fires\n", [])


class _Empty:
    def table(self, tz):
        return ""


def test_taking_a_job_behind_the_head_leaves_the_others_in_order(store):
    # the head is popped and checked; a job further back is searched for, the head put back
    c, k = store.client, store.keys
    c.rpush(k.pending, "J1", "J2", "J3")
    for j in ("J1", "J2", "J3"):
        c.hset(k.job(j), mapping={"state": "pending"})
    out = store.scripts.run("take", [k.marker, k.pending, k.job("J2")], [1000, "J2", "0"])
    assert [x.decode() if isinstance(x, bytes) else x for x in out] == [2, "J2", 1]
    assert c.lrange(k.pending, 0, -1) == [b"J1", b"J3"]
    out = store.scripts.run("take", [k.marker, k.pending, k.job("J1")], [1000, "J1", "0"])
    assert c.lrange(k.pending, 0, -1) == [b"J3"]
    # finish: a taken job is off the list already; a waiting one cancelled leaves it
    store.scripts.run("finish", [k.pending, k.job("J1"), k.job("J3")],
                      [2, "J1", 1000, 2000, "done", "J3", 2000, 2000, "cancelled"])
    assert c.lrange(k.pending, 0, -1) == []
    assert [c.hget(k.job(j), "state") for j in ("J1", "J2", "J3")] == [b"done", b"active", b"cancelled"]
