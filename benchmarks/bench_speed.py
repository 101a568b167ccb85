"""`python benchmarks/bench_speed.py` (the first part of `make bench`): measured figures, printed, never asserted.

Speed goals live here rather than in timed unit tests. It prints, per backend
(fakeredis always, the real server too when EMQSIM_REDIS_URL is set):
- fires/s of the full path (due read, fire, worker start and finish, trace record) for the
  two-step and the atomic pump, for one registration and for 100 due on every beat;
- the baseline of the same run: a bare loop of ZRANGEBYSCORE + EVALSHA(advance);
- Redis commands per fire: client round trips and calls made inside scripts, also on the
  event path (fire by fire) of one `every 15m` schedule, both designs;
- BullMQ 6.7.0's own scripts per fire (with the fakelua adapter and without it) beside the real
  BullMQ's pickups, and what each model script buys over them on the same runs (`model_lines`);
- each lane a lesson computes in BullMQ's design, a frame with its own scripts and with the model
  scripts, against the figures' budget (`lane_lines`; `--lanes` prints only those);
- beside the real BullMQ (tests/oracles/bench_bullmq.mjs on redis-server, when Node and a
  server are there): whole processes making the same N on-time fires, and each ratio;
then, on the real server, a classroom (30 concurrent `emqsim trace` processes: wall time
and peak server memory), the reference model's fires/s, peak RSS of long runs (each in its
own process), fires/s of a backlog (runs longer than the gap) at 5k to 40k fires, whose
ratio should stay near 1 (the goal: within 1.5x), the per-move latency of every figure, and\nper notebook the time to run it headless and to its first figure, and Voila's time to its\nfirst figure (`--notebooks` prints only those). This folder holds the only modules allowed to read a clock; it is not\ninstalled with the package.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager

from emqsim.engine.cadence import Every
from emqsim.engine.pump import Pump
from emqsim.engine.registry import Registry
from emqsim.engine.schedule import Schedule
from emqsim.engine.sim import PumpDesign
from emqsim.engine.store import ENV, Store, embedded
from emqsim.engine.timefmt import at

T0 = at("2026-11-30 09:00")


# -- counting commands -------------------------------------------------------------------------

class Counter:
    """Client round trips (a pipeline is one), commands sent, and calls made inside scripts."""

    def __init__(self):
        self.trips = 0
        self.sent = 0
        self.inner = 0


@contextmanager
def counting(store: Store):
    import redis.client

    c = Counter()
    client = store.client
    orig_exec = client.execute_command
    orig_pipe = redis.client.Pipeline.execute

    def exec_(*a, **kw):
        c.trips += 1
        c.sent += 1
        return orig_exec(*a, **kw)

    def pipe_exec(self, *a, **kw):
        c.trips += 1
        c.sent += len(self.command_stack)
        return orig_pipe(self, *a, **kw)

    client.execute_command = exec_
    redis.client.Pipeline.execute = pipe_exec
    finish = _count_inner(store, c)
    try:
        yield c
    finally:
        client.execute_command = orig_exec
        redis.client.Pipeline.execute = orig_pipe
        finish()


def _count_inner(store: Store, c: Counter):
    """Script-internal calls: INFO commandstats on a real server, a wrapper on fakeredis."""
    if store.real:
        store.client.config_resetstat()

        def done():
            stats = store.client.info("commandstats")
            total = sum(v["calls"] for v in stats.values())
            # the server ran what the client sent, our CONFIG RESETSTAT, and the scripts' calls
            c.inner = max(0, total - c.sent - 1)
        return done
    # every command a script runs, through fakeredis's own path or the adapter's (engine/fakelua.py)
    from fakeredis._socket._base import BaseFakeSocket

    orig = BaseFakeSocket._run_command

    def wrapped(self, func, sig, args, from_script):
        c.inner += from_script
        return orig(self, func, sig, args, from_script)

    BaseFakeSocket._run_command = wrapped
    return lambda: setattr(BaseFakeSocket, "_run_command", orig)


# -- the full path and the baseline ------------------------------------------------------------

def schedules(rows: int) -> list[Schedule]:
    every = 1000 if rows > 1 else 900_000
    return [Schedule(f"s{i:03d}", Every(every)) for i in range(rows)]


def full_path(url: str | None, mode: str, rows: int, fires: int) -> tuple[float, float, float]:
    """(fires/s, round trips per fire, script calls per fire) of the whole simulation."""
    store = Store(url=url) if url else Store(client=embedded())
    pump = Pump(mode=mode, tick=1000, batch=100)
    with store, PumpDesign(schedules(rows), start=T0, pump=pump, store=store, retain=1000) as sim:
        sim.run(fires=min(fires, 50))  # warm the script cache
        with counting(store) as c:
            t = time.perf_counter()
            n0 = sim.trace.count
            sim.run(fires=fires)
            dt = time.perf_counter() - t
        n = sim.trace.count - n0
    return n / dt, c.trips / n, c.sent / n, c.inner / n  # the store closed: its keys are gone


def baseline(url: str | None, rows: int, fires: int) -> tuple[float, float, float]:
    """EchoMQ's minimal loop: ZRANGEBYSCORE the due rows, EVALSHA advance each; nothing else."""
    store = Store(url=url) if url else Store(client=embedded())
    reg = Registry(store)
    for s in schedules(rows):
        reg.register(s, T0)
    every = 1000 if rows > 1 else 900_000
    now, done = T0, 0
    client, keys = store.client, store.keys
    run = store.scripts.run
    with counting(store) as c:
        t = time.perf_counter()
        while done < fires:
            due = client.zrangebyscore(keys.repeat, "-inf", now, start=0, num=100, withscores=True)
            for member, score in due:
                name = member.decode()
                run("advance", [keys.repeat, keys.record(name)], [name, int(score) + every])
                done += 1
            now += every
        dt = time.perf_counter() - t
    store.close()
    return done / dt, c.trips / done, c.sent / done, c.inner / done


@contextmanager
def fast_paths(on: bool):
    """Both designs' fast-forwards on or off (their switches, `pump_fast.enabled` and
    `bullmq_fast.enabled`), put back after."""
    from emqsim.engine import bullmq_fast, pump_fast

    saved = pump_fast.enabled, bullmq_fast.enabled
    pump_fast.enabled = bullmq_fast.enabled = on
    try:
        yield
    finally:
        pump_fast.enabled, bullmq_fast.enabled = saved


def event_path_calls(fires: int = 500, forward: bool = False) -> list[tuple[str, float, float]]:
    """(design, round trips per fire, calls inside scripts per fire) of one `every 15m` schedule
    with an on-time worker: fire by fire, each design with its fast-forward off, so each fire
    takes the path a fault or an overlap forces (the pump in both its modes); with `forward`,
    the quiet run as the engine makes it, in fast-forward calls."""
    from emqsim.engine.chain import Chain

    out = []
    for design, mode in (("pump", "two-step"), ("pump", "atomic"), ("bullmq", None)):
        store = Store(client=embedded())
        sched = Schedule("reports", Every("15m"))
        run = (PumpDesign(sched, start=T0, store=store, pump=Pump(mode=mode)) if design == "pump"
               else Chain(sched, start=T0, store=store))
        with store, run, fast_paths(forward):
            run.run(fires=20)
            with counting(store) as c:
                n0 = run.trace.count
                run.run(fires=fires)
            n = run.trace.count - n0
        out.append((design if mode is None else f"{design} ({mode})", c.trips / n, c.inner / n))
    return out


def event_path_lines(fires: int) -> list[str]:
    lines = []
    for forward, what in ((False, "event path"), (True, "fast-forward")):
        lines += [f"{what}, design {design}, one every 15m, on-time worker: per fire {trips:.2f} round trips, "
                  f"{inner:.2f} calls inside scripts" for design, trips, inner in event_path_calls(fires, forward)]
    return lines


def panel_moves(title: str = "02 one row rewritten", moves: int = 40) -> tuple[float, float, int]:
    """(s to the slider's top, p95 ms of the other moves, moves) of a figure's main slider, each on
    a fresh panel, as a reader meets it: the panel shown (its first rendering), then one jump to
    the top (notebook 02: 10,000 fires through the Lua scripts), or a drag over `moves` positions
    leaving the top out; each move is the frame and the PNG sent to the widget."""
    from emqsim.figures import catalogue
    from emqsim.figures.controls import drag_path

    fig = catalogue.figure(title)
    fig.png()
    main = fig.model.main() or fig.model.controls[0]
    positions = [v for _, v in fig.model.positions(main.name, fig.values)]
    t = time.perf_counter()
    fig.update(**{main.name: positions[-1]})
    fig.png()
    top = time.perf_counter() - t
    fig = catalogue.figure(title)
    fig.png()
    times = []
    for value in drag_path(positions[:-1], moves):
        t = time.perf_counter()
        fig.update(**{main.name: value})
        fig.png()
        times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return top, times[min(len(times) - 1, int(len(times) * 0.95))], len(times)


def panel_line() -> str:
    top, p95, n = panel_moves()
    return (f"notebook 02, from the panel shown: to 10,000 fires {top:.2f} s (goal 1 s) · other moves p95 "
            f"{p95:.1f} ms over {n} (goal 100 ms)")


# -- beside the real BullMQ ----------------------------------------------------------------------

#: this folder, and the repository's root above it
HERE = os.path.dirname(os.path.abspath(__file__))
ORACLES = os.path.join(os.path.dirname(HERE), "tests", "oracles")
SIDE_BY_SIDE = (1_000, 10_000)


def _whole(cmd: list[str], env: dict) -> tuple[float, str]:
    """(wall seconds of one whole process, start to exit; its last line of output)."""
    t = time.perf_counter()
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    return time.perf_counter() - t, (out.stdout.strip().splitlines() or [""])[-1]


def _bullmq_ready() -> str | None:
    """Why the real BullMQ cannot run here (one line), or None when Node and its packages are there."""
    import shutil

    if not shutil.which("node"):
        return "no node on PATH"
    if not os.path.isdir(os.path.join(ORACLES, "node_modules", "bullmq")):
        return f"no bullmq under {ORACLES}/node_modules (npm ci there installs it)"
    return None


@contextmanager
def _redis_server():
    """The server the real BullMQ runs on: $EMQSIM_REDIS_URL, else a redis-server of our own on a
    free port (stopped afterwards); None when there is neither."""
    import shutil

    if os.environ.get(ENV):
        yield os.environ[ENV]
        return
    binary = shutil.which("redis-server")
    if not binary:
        yield None
        return
    port = _free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        import redis

        client = redis.Redis(port=port)
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        client.close()
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def real_scripts_lines(fires: int = 2000, rounds: int = 3) -> list[str]:
    """BullMQ 6.7.0's own scripts per fire on the embedded fakeredis, with and without the
    fakelua adapter (what the adapter buys them), and beside them the real BullMQ's pickups
    (tests/oracles/bench_bullmq.mjs on redis-server, its own timer around the pickups only);
    interleaved, `rounds` rounds, medians. Or why they cannot run here."""
    from emqsim.engine.bullmq_scripts import package
    from emqsim.engine.bullmq_scripts.speed import bench_line, per_fire

    missing = package.available()
    if missing:
        return [f"BullMQ 6.7.0's own scripts: not measured ({missing})"]
    why = _bullmq_ready()
    env = {k: v for k, v in os.environ.items() if k != ENV}
    ours: dict[bool, list[dict]] = {True: [], False: []}
    real: list[float] = []
    version = "?"
    with _redis_server() as url:
        if why is None and url is None:
            why = "no redis-server on PATH and EMQSIM_REDIS_URL unset"
        for _ in range(rounds):
            if why is None:
                _, last = _whole(["node", os.path.join(ORACLES, "bench_bullmq.mjs"), str(fires)], {**env, ENV: url})
                got = json.loads(last)
                version = got["bullmq"]
                real.append(got["ms"] / got["fires"])
            for fast in (True, False):
                ours[fast].append(per_fire(time.perf_counter, fires, fast=fast))
    med = {fast: sorted(v, key=lambda r: r["ms_per_fire"])[len(v) // 2] for fast, v in ours.items()}
    lines = [bench_line(time.perf_counter, fires, fast, med[fast]) + f" (median of {rounds})" for fast in (True, False)]
    if real:
        ms = sorted(real)[len(real) // 2]
        lines.append(f"real BullMQ {version} under Node on redis-server: {ms:.2f} ms a pickup ({fires:,} on-time "
                     f"pickups, the pickups only, median of {rounds}) · the own scripts on fakeredis "
                     f"{ms / med[True]['ms_per_fire']:.2f}x BullMQ, plain fakeredis "
                     f"{ms / med[False]['ms_per_fire']:.2f}x")
    else:
        lines.append(f"real BullMQ: not run ({why})")
    return lines


MODEL_RUNS = ((10_000, "fast-forward"), (10_000, "event path"), (40, "event path"))


def model_run_time(fires: int, path: str) -> float:
    """Seconds of `Chain` (BullMQ's design on the model scripts) making `fires` on-time fires of one
    `every 15m` scheduler with an on-time worker, from the upsert on (upsert included): on the
    fast-forward path (`pickups-5` many pickups a call) or fire by fire (`activate-3`, `chain-6`;
    `finish-1` in batches); the trace recorded as the engine records it."""
    from emqsim.engine.chain import Chain

    store = Store(client=embedded())
    with store, fast_paths(path == "fast-forward"):
        t = time.perf_counter()
        with Chain(Schedule("reports", Every("15m")), start=T0, store=store) as run:
            run.run(fires=fires)
            assert run.trace.count == fires
        return time.perf_counter() - t


def real_run_time(fires: int) -> float:
    """Seconds of the same run through BullMQ 6.7.0's own scripts (the driver): the upsert, then
    each fire a worker's take (moveToActive-11, updateJobScheduler-12) and its finish
    (moveToFinished-14), at the job's run time."""
    from emqsim.engine.bullmq_scripts.driver import BullMQScripts

    b = BullMQScripts()
    t = time.perf_counter()
    b.upsert("reports", T0, every=900_000)
    for k in range(fires):
        if b.pickup(T0 + k * 900_000) is None:
            raise RuntimeError(f"the real scripts made no job for fire {k + 1}")
    return time.perf_counter() - t


def upsert_times(n: int = 200) -> tuple[float, float]:
    """(ms an upsert of a new `every 15m` scheduler: the model's `scheduler-7`, the real
    `addJobScheduler-11`), over `n` schedulers on one server each."""
    from emqsim.engine.bullmq_scripts.driver import BullMQScripts
    from emqsim.engine.chain import BullMQ

    store = Store(client=embedded())
    model = BullMQ(store)
    model.upsert(Schedule("warm", Every("15m")), T0)
    t = time.perf_counter()
    for i in range(n):
        model.upsert(Schedule(f"s{i}", Every("15m")), T0)
    m = (time.perf_counter() - t) / n
    store.close()
    b = BullMQScripts()
    b.upsert("warm", T0, every=900_000)
    t = time.perf_counter()
    for i in range(n):
        b.upsert(f"s{i}", T0, every=900_000)
    return m * 1e3, (time.perf_counter() - t) / n * 1e3


def model_lines(runs=MODEL_RUNS, rounds: int = 3) -> list[str]:
    """What each model script buys over BullMQ's own scripts on the same runs: per run, the model's
    path and the real scripts fire by fire, interleaved, `rounds` rounds, medians; and an upsert."""
    from emqsim.engine.bullmq_scripts import package

    missing = package.available()
    if missing:
        return [f"model scripts against BullMQ's own: not measured ({missing})"]
    times: dict[tuple, list[float]] = {}
    for _ in range(rounds):
        for fires, path in runs:
            times.setdefault(("model", fires, path), []).append(model_run_time(fires, path))
            if ("real", fires) not in times or len(times[("real", fires)]) < len(times[("model", fires, path)]):
                times.setdefault(("real", fires), []).append(real_run_time(fires))
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    lines = []
    scripts = {"fast-forward": "pickups-5, many pickups a call", "event path": "activate-3, chain-6 a fire, finish-1 in batches"}
    for fires, path in runs:
        m, r = med[("model", fires, path)], med[("real", fires)]
        lines.append(f"model vs real scripts, {fires:,} on-time fires of every 15m, median of {rounds}: model "
                     f"{path} ({scripts[path]}) {m:.2f} s ({m / fires * 1e3:.3f} ms a fire) · BullMQ 6.7.0's "
                     f"own scripts fire by fire {r:.2f} s ({r / fires * 1e3:.3f} ms a fire) · the model buys "
                     f"{r / m:.1f}x")
    up = sorted((upsert_times() for _ in range(rounds)), key=lambda x: x[0] / x[1])[rounds // 2]
    lines.append(f"model vs real scripts, an upsert of a new every 15m scheduler: model scheduler-7 {up[0]:.3f} ms · "
                 f"BullMQ 6.7.0's addJobScheduler-11 {up[1]:.3f} ms · the model buys {up[1] / up[0]:.1f}x")
    return lines


def side_by_side(rounds: int = 3, sizes=SIDE_BY_SIDE) -> list[str]:
    """Lines comparing whole processes doing the same work, N on-time fires of one `every 15m`
    schedule: the real BullMQ (tests/oracles/bench_bullmq.mjs on redis-server, faking only Date)
    and `emqsim trace` on fakeredis, both designs; interleaved, `rounds` rounds, medians."""
    env = {k: v for k, v in os.environ.items() if k != ENV}   # emqsim on its embedded fakeredis
    emqsim = [sys.executable, "-m", "emqsim", "trace", "--every", "15m", "--start", "2026-11-30T09:00:00Z",
              "--format", "json"]
    why = _bullmq_ready()
    with _redis_server() as url:
        if why is None and url is None:
            why = "no redis-server on PATH and EMQSIM_REDIS_URL unset"
        runs = {"pump": lambda n: emqsim + ["--fires", str(n)],
                "bullmq": lambda n: emqsim + ["--design", "bullmq", "--fires", str(n)]}
        times: dict[tuple[str, int], list[float]] = {}
        version = "?"
        for _ in range(rounds):
            for n in sizes:
                if why is None:
                    t, last = _whole(["node", os.path.join(ORACLES, "bench_bullmq.mjs"), str(n)], {**env, ENV: url})
                    times.setdefault(("real", n), []).append(t)
                    version = json.loads(last)["bullmq"]
                for design, cmd in runs.items():
                    times.setdefault((design, n), []).append(_whole(cmd(n), env)[0])
    med = {k: sorted(v)[len(v) // 2] for k, v in times.items()}
    lines = []
    if why is not None:
        lines.append(f"real BullMQ: not run ({why}); emqsim's whole-process times only")
    for n in sizes:
        real = med.get(("real", n))
        cells = [f"real BullMQ {version} on redis-server {real:.2f} s" if real else None]
        for design in runs:
            t = med[(design, n)]
            cells.append(f"emqsim {design} on fakeredis {t:.2f} s" + (f" ({real / t:.2f}x BullMQ)" if real else ""))
        lines.append(f"side by side, N = {n:,} on-time fires of every 15m, whole processes, median of "
                     f"{rounds}: " + " · ".join(c for c in cells if c))
    return lines


# -- the reference model and memory -------------------------------------------------------------

def reference_rate(fires: int, ids) -> float:
    """Fires/s of the reference model: with JOB ids minted (what notebooks show) or without."""
    from emqsim.engine.reference import reference

    sched = Schedule("r", Every("15m"))
    reference(sched, start=T0, fires=1000, ids=ids)
    t = time.perf_counter()
    reference(sched, start=T0, fires=fires, ids=ids)
    return fires / (time.perf_counter() - t)


def peak_rss(what: str, fires: int) -> float | None:
    """Peak RSS (MB) of a fresh process running `what` for `fires` fires (0: set up only)."""
    code = {
        "reference": (
            "from emqsim.engine.reference import reference; from emqsim import Schedule, Every; "
            + (f"reference(Schedule('r', Every('15m')), start={T0}, fires={fires}, keep=False)" if fires else "0")
        ),
        "fakeredis": (
            "import sys, fakeredis; from emqsim import PumpDesign, Pump, Store; "
            f"sys.path.insert(0, {HERE!r}); from bench_speed import schedules; "
            f"s = PumpDesign(schedules(100), start={T0}, pump=Pump(mode='atomic'), "
            "store=Store(client=fakeredis.FakeRedis()), retain=1000); "
            + (f"s.run(fires={fires})" if fires else "0")
        ),
    }[what]
    # the new process's own high-water mark (VmHWM): ru_maxrss would carry over the peak of
    # this process, which started it, so every figure would read the same
    code += "; print(next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1])"
    env = dict(os.environ)
    env.pop(ENV, None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return None
    return int(out.stdout.split()[-1]) / 1024


# -- a backlog ------------------------------------------------------------------------------------

BACKLOG = (5_000, 10_000, 20_000, 40_000)


def backlog_rate(fires: int, drawn: bool = False) -> float:
    """Fires/s of `emqsim trace --every 1m --run 10m --fires N` on fakeredis: 10-minute runs
    a minute apart, so jobs pile up waiting (0.9 N at the end). `drawn`: the reference model
    instead, no Redis, its runs drawn (a spread of 1 ms), so the engine's `Crew` plans them."""
    from emqsim.engine.reference import reference
    from emqsim.engine.worker import Worker

    sched = Schedule("reports", Every("1m"))
    if drawn:
        t = time.perf_counter()
        reference(sched, start=T0, fires=fires, worker=Worker(run="10m", spread=1), ids=None, keep=False)
        return fires / (time.perf_counter() - t)
    with PumpDesign(sched, start=T0, worker=Worker(run="10m"), store=Store(client=embedded())) as sim:
        t = time.perf_counter()
        sim.run(fires=fires)
        return fires / (time.perf_counter() - t)


# -- a classroom on one server -------------------------------------------------------------------

def _used_memory(client) -> int:
    """INFO memory's used_memory; a cluster client answers per node, so those are summed."""
    info = client.info("memory")
    return info["used_memory"] if "used_memory" in info else sum(v["used_memory"] for v in info.values())


def classroom(url: str, students: int = 30, fires: int = 200) -> tuple[float, float, float, int, int]:
    """(wall s, server MB before, peak MB seen, run keys before, run keys after) of `students`
    concurrent `emqsim trace` processes on the server at `url`; used_memory is sampled from
    INFO memory every 20 ms. Run keys are all `emq:{demo-*}` keys, whoever wrote them."""
    from emqsim.engine.store import connect

    client = connect(url)
    pattern = "emq:{demo-*}:*"
    keys_before = sum(1 for _ in client.scan_iter(match=pattern, count=1000))
    before = peak = _used_memory(client)
    env = {**os.environ, ENV: url}
    t = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-m", "emqsim", "trace", "--every", f"{5 + i}m", "--run",
                               f"{i % 7}m", "--fires", str(fires)], env=env, stdout=subprocess.DEVNULL)
             for i in range(students)]
    while any(p.poll() is None for p in procs):
        peak = max(peak, _used_memory(client))
        time.sleep(0.02)
    wall = time.perf_counter() - t
    failed = sum(p.returncode != 0 for p in procs)
    if failed:
        raise RuntimeError(f"{failed} of {students} classroom runs failed")
    keys_after = sum(1 for _ in client.scan_iter(match=pattern, count=1000))
    client.close()
    return wall, before / 2**20, peak / 2**20, keys_before, keys_after


# -- figures -------------------------------------------------------------------------------------

def figure_latencies() -> list[tuple[str, float, float, int]]:
    """(figure, median ms, p95 ms, moves) of a drag along each figure's main slider: the frame
    (computed on first reach, as a reader's first drag does) and the PNG sent to the widget."""
    from emqsim.figures import catalogue
    from emqsim.figures.controls import drag_path

    out = []
    for name in catalogue.SOURCES:
        fig = catalogue.figure(name)
        fig.png()  # the first rendering, made when the panel is shown
        main = fig.model.main() or fig.model.controls[0]
        positions = [v for _, v in fig.model.positions(main.name, fig.values)]
        times = []
        for value in drag_path(positions, 40):
            t = time.perf_counter()
            fig.update(**{main.name: value})
            fig.png()
            times.append((time.perf_counter() - t) * 1000)
        times.sort()
        out.append((name, times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.95))], len(times)))
    return out


def phone_panel_latencies() -> list[tuple[str, float, float, int]]:
    """(figure, median ms, p95 ms, moves) of the same drag in a panel the browser has called
    narrow (at most controls.NARROW_PX wide: a phone in Lab or Voila), through the panel's own
    move: the frame, the narrow twin's drawing at the kernel's dpi and the PNG sent."""
    from emqsim.figures import catalogue
    from emqsim.figures.controls import drag_path

    out = []
    for name in catalogue.SOURCES:
        fig = catalogue.figure(name)
        panel = fig.panel()
        panel.narrow.value = True   # as the width watcher's click sets it; the first narrow drawing
        main = fig.model.main() or fig.model.controls[0]
        positions = [v for _, v in fig.model.positions(main.name, fig.values)]
        times = []
        for value in drag_path(positions, 40):
            t = time.perf_counter()
            panel.on_move(main.name, value)
            times.append((time.perf_counter() - t) * 1000)
        panel.close()
        times.sort()
        out.append((name, times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.95))], len(times)))
    return out


# -- BullMQ's lanes a frame: its own scripts against the models (lessons/bullmq_lane) -------------

def lane_cases(frames: int | None = None) -> list[tuple[str, list]]:
    """(lane, the calls of its frames) for each lane a lesson computes in BullMQ's design, with
    the arguments the lesson gives it: each call is `bullmq_lane` work only, `real` its argument."""
    from emqsim.engine.cadence import Every as E
    from emqsim.engine.worker import Worker
    from emqsim.lessons import bullmq_lane, overlap
    from emqsim.lessons import missed_slots as mx
    from emqsim.lessons.course import EVERY, NAME, START

    snap = mx.lane_schedule("snap")
    ups = [u for u in mx.restarts(mx.DOWN)]

    def states(real):   # 04's store: the row at three clock times, as bullmq_states asks
        with bullmq_lane.Lane(snap, start=mx.FIRST, outage=(mx.DOWN, mx.UP), real=real) as one:
            for clock in ("09:29", "10:09", "10:10"):
                one.run(until=mx.clock_time(clock))
                one.state()

    def marker(real):   # 03's marker: the upsert, one take, the marker and the waiting list
        with bullmq_lane.Lane(Schedule(NAME, E("15m")), start=START, real=real) as one:
            one.marker()
            one.run(fires=1)
            one.marker()
            one.state()

    cases = [
        ("04 snap lane, a frame of the pump-up slider", [
            (lambda real, up=up: mx.snap_lane(mx.DOWN, up, real=real)) for up in ups]),
        ("04 bullmq_store, the row at 3 times", [states]),
        ("04 designs, BullMQ's side", [
            (lambda real, o=o: bullmq_lane.lane(snap, start=mx.FIRST, until=mx.LISTED, outage=o, real=real))
            for o in ((mx.DOWN, mx.UP),)]),
        ("05 backlog, 4 to 32 fires, 40 min runs", [
            (lambda real, n=n, w=w: bullmq_lane.lane(Schedule(NAME, E(EVERY)), start=START, fires=n, real=real,
                                                     worker=Worker(run=overlap.CHAIN_RUN, concurrency=w)))
            for n, w in [(n, 1) for n in overlap.CHAIN_FIRES] + [(6, 3)]]),
        ("03 the marker, upsert and one take", [marker]),
    ]
    return [(name, calls[:frames] if frames else calls) for name, calls in cases]


def lane_lines(frames: int | None = None, rounds: int = 3) -> list[str]:
    """Per lane: a frame's time with BullMQ's own scripts and with the model scripts (median and
    p95 over its frames, each frame the best of `rounds`, interleaved), against the figures' budget
    of 100 ms a move. The first frame's driver (made once a process) is made before timing."""
    from emqsim.lessons import bullmq_lane

    missing = bullmq_lane.missing()
    if missing:
        return [f"BullMQ's lanes a frame: the model scripts only ({missing})"]
    lines = []
    for name, calls in lane_cases(frames):
        per = {True: [], False: []}
        for call in calls:
            for real in (True, False):
                best = None
                for _ in range(rounds):
                    t = time.perf_counter()
                    call(None if real else False)
                    ms = (time.perf_counter() - t) * 1e3
                    best = ms if best is None else min(best, ms)
                per[real].append(best)

        def stat(v):
            v = sorted(v)
            return v[len(v) // 2], v[min(len(v) - 1, int(len(v) * 0.95))]

        (rm, rp), (mm, mp) = stat(per[True]), stat(per[False])
        lines.append(f"BullMQ lane {name}: BullMQ 6.7.0's own scripts median {rm:.1f} ms, p95 {rp:.1f} ms a frame · "
                     f"model scripts median {mm:.1f} ms, p95 {mp:.1f} ms · {len(calls)} call(s), best of {rounds} "
                     f"· budget 100 ms a move")
    return lines


# -- notebooks -----------------------------------------------------------------------------------

def _has_figure(cell) -> bool:
    return any("image/png" in o.get("data", {}) for o in cell.get("outputs", []))


def notebook_time(path: str) -> tuple[float, float | None]:
    """(s from the kernel being ready to the last cell done, s to the first cell with a figure):
    the notebook run headless, on fakeredis, as nbval and "Run All" run it."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    env = {k: v for k, v in os.environ.items() if k != ENV}
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": os.path.dirname(path) or "."}})
    saved = os.environ.copy()
    os.environ.clear()
    os.environ.update(env)  # the kernel inherits it: fakeredis, as a reader without a server
    try:
        with client.setup_kernel():
            t0, first = time.perf_counter(), None
            for i, cell in enumerate(nb.cells):
                client.execute_cell(cell, i)
                if first is None and _has_figure(cell):
                    first = time.perf_counter() - t0
            return time.perf_counter() - t0, first
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def voila_command(voila: str, port: int, root: str, environ=None) -> tuple[list[str], dict]:
    """Voila's command line and environment for the page a class gets: the course's presenter
    template as `make present` serves it (when the repository's templates are there), on the
    embedded store (the bench's own server setting left out)."""
    env = {k: v for k, v in (os.environ if environ is None else environ).items() if k != ENV}
    args = [voila, "--no-browser", f"--port={port}", "--Voila.ip=127.0.0.1", root]
    share = os.path.join(os.path.dirname(HERE), "share")
    if os.path.isdir(os.path.join(share, "voila", "templates", "emqsim-present")):
        env["JUPYTER_PATH"] = os.pathsep.join(p for p in (share, env.get("JUPYTER_PATH")) if p)
        env["EMQSIM_PRESENT"] = "1"
        args.insert(-1, "--template=emqsim-present")
    return args, env


def voila_times(paths: list[str]) -> dict[str, tuple[float, float | None]]:
    """path -> (s until Voila's page is complete, s until its first figure arrived): what a class
    waits for after opening the notebook with `make present`. Needs voila; {} without it."""
    import shutil
    import urllib.request

    voila = shutil.which("voila", path=os.path.dirname(sys.executable)) or shutil.which("voila")
    if not voila or not paths:
        return {}
    port = _free_port()
    args, env = voila_command(voila, port, os.path.dirname(os.path.abspath(paths[0])))
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    out = {}
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(300):
            try:
                urllib.request.urlopen(base + "/", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        for path in paths:
            url = f"{base}/voila/render/{os.path.basename(path)}"
            t0, first, seen = time.perf_counter(), None, b""
            with urllib.request.urlopen(url, timeout=600) as page:
                while chunk := page.read(65536):
                    seen = seen[-64:] + chunk
                    if first is None and b"image/png" in seen:
                        first = time.perf_counter() - t0
            out[path] = (time.perf_counter() - t0, first)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    return out


def notebook_report(folder: str = "notebooks", only=None) -> list[str]:
    """One line per notebook (those whose names start with one of `only`, when given): headless
    time beyond kernel start, time to its first figure, and Voila's time to the first figure and
    to the whole page."""
    import glob

    paths = sorted(p for p in glob.glob(os.path.join(folder, "*.ipynb"))
                   if not only or os.path.basename(p).startswith(tuple(only)))
    voila = voila_times(paths)
    lines = []
    for path in paths:
        total, first = notebook_time(path)
        v = voila.get(path)
        fmt = lambda s: "-" if s is None else f"{s:.2f} s"  # noqa: E731
        lines.append(f"notebook {os.path.basename(path):<28} headless {total:5.2f} s beyond kernel start, "
                     f"first figure {fmt(first)}"
                     + (f" · Voila first figure {fmt(v[1])}, page {v[0]:.2f} s" if v else ""))
    return lines


# -- what each fast path buys -------------------------------------------------------------------

#: the fast paths, each behind its one switch, a module's `enabled` flag: (label, the module
#: under emqsim.engine, design)
FAST_PATHS = (
    ("pump fast-forward (pump_fast.enabled)", "pump_fast", "pump"),
    ("bullmq fast-forward (bullmq_fast.enabled)", "bullmq_fast", "bullmq"),
    ("fakeredis adapter (fakelua.enabled), pump event path", "fakelua", "pump"),
)


def fast_path_lines(fires: int = 3000) -> list[str]:
    """Each fast path on and off by its switch, the rest as they are (the pump's fast-forward
    off under the adapter's line, so the event path runs), best of two: what it buys. A fast
    path that buys under 2x goes (issue 31); the real scripts' line above shows the adapter's
    own share there."""
    from emqsim import Every, Schedule, simulate

    def timed(design):
        best = float("inf")
        for _ in range(2):
            t = time.perf_counter()
            simulate(Schedule("r0", Every("1m")), start=T0, fires=fires, design=design)
            best = min(best, time.perf_counter() - t)
        return best

    out = []
    url = os.environ.pop(ENV, None)   # the embedded server, whose adapter is one of the switches
    try:
        for label, module, design in FAST_PATHS:
            out.append(_fast_path_line(timed, fires, label, module, design))
    finally:
        if url is not None:
            os.environ[ENV] = url
    return out


def _fast_path_line(timed, fires, label, module, design) -> str:
    """One fast path timed on and off by its switch (the pump's fast-forward off under the others)."""
    import importlib

    from emqsim.engine import pump_fast

    owner = importlib.import_module(f"emqsim.engine.{module}")
    forward = pump_fast.enabled
    pump_fast.enabled = owner is pump_fast
    try:
        on = timed(design)
        owner.enabled = False
        try:
            off = timed(design)
        finally:
            owner.enabled = True
    finally:
        pump_fast.enabled = forward
    return f"fast path {label}: {fires:,} fires on {on:.2f} s, off {off:.2f} s, buys {off / on:.2f}x (embedded server)"


# -- main ----------------------------------------------------------------------------------------

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python benchmarks/bench_speed.py", description=__doc__.splitlines()[0])
    ap.add_argument("--fires", type=int, default=3000, help="fires per full-path measurement")
    ap.add_argument("--quick", action="store_true", help="small runs, no memory or figure section")
    ap.add_argument("--notebooks", action="store_true", help="only the per-notebook times")
    ap.add_argument("--only", action="append", metavar="PREFIX",
                    help="with --notebooks: only the notebooks whose names start so (e.g. --only 02 --only 03)")
    ap.add_argument("--bullmq", action="store_true",
                    help="only the calls per fire, notebook 02's panel and the side by side with the real BullMQ")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of the side by side (default 3)")
    ap.add_argument("--lanes", action="store_true",
                    help="only BullMQ's lanes a frame, its own scripts against the model scripts")
    args = ap.parse_args(argv)
    if args.lanes:
        for line in lane_lines(rounds=args.rounds):
            print(line, flush=True)
        return 0
    if args.notebooks:
        for line in notebook_report(only=args.only):
            print(line, flush=True)
        return 0
    if args.bullmq:
        from emqsim.engine.fakelua import state

        print(state(), flush=True)
        for line in (event_path_lines(1000) + [panel_line()] + real_scripts_lines(2000, args.rounds)
                     + model_lines(rounds=args.rounds) + side_by_side(args.rounds)):
            print(line, flush=True)
        return 0
    fires = 600 if args.quick else args.fires
    backends = [("fakeredis", None)]
    if os.environ.get(ENV):
        backends.append(("redis", os.environ[ENV]))
    from emqsim.engine.fakelua import state

    print(f"emqsim bench · {os.cpu_count()} cores · python {sys.version.split()[0]} · {state()}")
    for label, url in backends:
        for rows in (1, 100):
            b = baseline(url, rows, fires)
            print(f"[{label}] {rows:>3} due per beat · baseline ZRANGEBYSCORE+EVALSHA(advance): "
                  f"{b[0]:>8,.0f} fires/s · per fire {b[1]:.2f} round trips, {b[2]:.2f} commands sent, "
                  f"{b[3]:.2f} calls inside scripts")
            for mode in ("two-step", "atomic"):
                r = full_path(url, mode, rows, fires)
                print(f"[{label}] {rows:>3} due per beat · full path {mode:<8}: {r[0]:>8,.0f} fires/s · "
                      f"per fire {r[1]:.2f} round trips, {r[2]:.2f} commands sent, {r[3]:.2f} calls inside "
                      f"scripts · {r[0] / b[0]:.2f}x baseline")
    for line in (event_path_lines(200 if args.quick else 1000) + [panel_line()]
                 + real_scripts_lines(300 if args.quick else 2000, 1 if args.quick else args.rounds)
                 + model_lines(((2_000, "fast-forward"), (2_000, "event path"), (40, "event path")) if args.quick
                               else MODEL_RUNS, 1 if args.quick else args.rounds)
                 + side_by_side(1 if args.quick else args.rounds, (1_000,) if args.quick else SIDE_BY_SIDE)):
        print(line, flush=True)
    if os.environ.get(ENV):
        n = 50 if args.quick else 200
        wall, before, peak, k0, k1 = classroom(os.environ[ENV], fires=n)
        print(f"[redis] classroom: 30 concurrent `emqsim trace` runs of {n} fires · "
              f"wall {wall:.1f} s · server memory {before:.1f} MB before, peak {peak:.1f} MB · "
              f"run keys on the server {k0} before, {k1} after")
    for line in fast_path_lines(600 if args.quick else 3000):
        print(line, flush=True)
    n = 100_000 if args.quick else 1_000_000
    print(f"reference model: {reference_rate(n, None):,.0f} fires/s without job ids, "
          f"{reference_rate(n, 'fresh'):,.0f} fires/s minting JOB ids")
    if args.quick:
        return 0
    for what, n in (("reference", 0), ("reference", 1_000_000), ("fakeredis", 0), ("fakeredis", 10_000),
                    ("fakeredis", 100_000)):
        mb = peak_rss(what, n)
        print(f"peak RSS, {n:>9,} {what} fires: " + ("n/a" if mb is None else f"{mb:,.0f} MB"))
    # after the RSS runs: their processes would inherit this one's peak, which a backlog raises
    for label, drawn in (("engine on fakeredis", False), ("reference model, drawn runs", True)):
        # the reference runs take a fraction of a second: the best of three evens out a busy machine
        rates = [max(backlog_rate(n, drawn) for _ in range(3 if drawn else 1)) for n in BACKLOG]
        print(f"backlog (--every 1m --run 10m), {label}: "
              + " · ".join(f"{n // 1000}k {r:,.0f} fires/s" for n, r in zip(BACKLOG, rates))
              + f" · {BACKLOG[0] // 1000}k/{BACKLOG[-1] // 1000}k rate ratio {rates[0] / rates[-1]:.2f}")
    for line in lane_lines(3 if args.quick else None, 1 if args.quick else args.rounds):
        print(line, flush=True)
    try:
        for name, med, p95, n in figure_latencies():
            print(f"figure {name:<24} median {med:6.1f} ms · p95 {p95:6.1f} ms per move ({n} moves)")
        for name, med, p95, n in phone_panel_latencies():
            print(f"figure {name:<24} phone panel median {med:6.1f} ms · p95 {p95:6.1f} ms per move ({n} moves)")
    except ImportError as exc:
        print(f"figures: not available ({exc})")
    if os.path.isdir("notebooks"):
        for line in notebook_report():
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
