"""The real scripts' cost per fire on the embedded fakeredis, for `make bench`.

A fire is what a worker's pickup costs in BullMQ 6.7.0: moveToActive-11, updateJobScheduler-12
and moveToFinished-14, on time, for an `every 15m` scheduler. The engine reads no clock, so
the bench hands in its timer (`time.perf_counter`). Also measured: the per-call floor on the
same client (EVALSHA of a script that only returns, and a plain PING).
"""

from __future__ import annotations

from . import runtime
from .driver import BullMQScripts
from ..steps import recording

T0 = 1_796_029_620_000     # 2026-11-30 09:07Z
EVERY = 900_000


def per_fire(timer, fires: int = 2000, client=None, fast: bool = True) -> dict:
    """{"fires", "ms_per_fire", "calls_per_fire", "evalsha_floor_ms", "driver_floor_ms",
    "command_floor_ms"}; on `client` or a new embedded server (`fast`: with the engine's fakelua
    adapter). The floors: EVALSHA of a script that only returns, through redis-py and through
    the driver's own path (`fakelua.runner`, redis-py's when the adapter is off); a PING."""
    b = BullMQScripts(client if client is not None else runtime.embedded(fast))
    b.upsert("s", T0, every=EVERY)
    with recording(b.client, b.keys[""] + "*") as log:    # one fire, to count its redis.call's
        b.pickup(T0)
    calls = len(log.calls)
    t = T0 + EVERY
    start = timer()
    for i in range(fires):
        b.pickup(t)
        t += EVERY
    per = (timer() - start) / fires
    floor = b.client.register_script("return 1")
    floor()
    start = timer()
    for _ in range(fires):
        floor()
    evalsha = (timer() - start) / fires
    from ..fakelua import runner

    direct = runner(b.client, "return 1") or floor     # the path the driver's scripts take
    direct()
    start = timer()
    for _ in range(fires):
        direct()
    driver_floor = (timer() - start) / fires
    start = timer()
    for _ in range(fires):
        b.client.ping()
    command = (timer() - start) / fires
    return {"fires": fires, "ms_per_fire": per * 1e3, "calls_per_fire": calls,
            "evalsha_floor_ms": evalsha * 1e3, "driver_floor_ms": driver_floor * 1e3,
            "command_floor_ms": command * 1e3}


def bench_line(timer, fires: int = 2000, fast: bool = True, r: dict | None = None) -> str:
    """One line for `make bench` (of `r`, one `per_fire` result, when given)."""
    r = per_fire(timer, fires, fast=fast) if r is None else r
    where = "fakeredis" if fast else "plain fakeredis (no fakelua adapter)"
    return (f"BullMQ 6.7.0's own scripts on {where}: {r['ms_per_fire']:.2f} ms a fire "
            f"({r['calls_per_fire']} redis.call's; {r['fires']:,} on-time fires); per-call floor: "
            f"EVALSHA {r['evalsha_floor_ms'] * 1e3:.0f} us through redis-py, "
            f"{r['driver_floor_ms'] * 1e3:.0f} us the driver's way, a command {r['command_floor_ms'] * 1e3:.0f} us")
