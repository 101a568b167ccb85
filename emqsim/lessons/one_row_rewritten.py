"""One row, rewritten each fire: the registry stays at one entry while the jobs pile up.

The model holds one engine simulation of the course's schedule and runs it only as far
as a reader has moved the slider: each fire goes through the Lua scripts once, and the
state after it (ZCARD, the row's score, the jobs so far, the newest id) is kept, so moving
back costs nothing and moving on runs just the fires not yet made. `reregister_demo` puts
EchoMQ's insert-if-absent next to BullMQ's upsert on the same name; `bullmq_demo` runs the
same calls in BullMQ's own design, whose `ic` counts the jobs made (the simulator's pump design
counts the fires made in its record's `fired`; EchoMQ's record keeps only `every_ms` and `template`).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from itertools import islice

import numpy as np

from ..engine.cadence import Every
from ..engine.chain import BullMQ
from .course import DAY, EVERY, NAME, START, on_day
from ..engine.durations import parse_duration
from ..engine.errors import InputError, whole
from ..engine.ids import minted_at, parse, unsnowflake
from ..engine.schedule import INF, Schedule
from ..engine.sim import PumpDesign
from ..engine.store import Store
from ..engine.timefmt import hm, hms, iso, zone
from .model import Model, Play, slider
from .questions import Challenge, question

#: the most fires the slider reaches (the notebook's run)
FIRES = 10_000
#: where the slider's step grows: (from this many fires, step); every fire at first
STEPS = ((0, 1), (30, 2), (60, 5), (150, 10), (300, 25), (750, 50), (1500, 100), (3000, 250))
READOUT_ID = "registry-rows-readout"


def fire_positions(top: int = FIRES) -> tuple[int, ...]:
    """The slider's positions: every fire from 0 to 30, then steps growing with the count (2, 5,
    10, ... 250), and `top` itself; 155 positions for 10,000 fires."""
    top = whole(top, "top", low=1, what="a whole number of fires")
    ends = [start for start, _ in STEPS[1:]] + [top]
    values = {top}
    for (start, step), end in zip(STEPS, ends):
        values.update(range(start, min(end, top) + 1, step))
    return tuple(sorted(v for v in values if v <= top))


def reports(*, start: int | None = None, **options) -> PumpDesign:
    """The course's schedule: `reports`, every 15 min, registered at 09:00 UTC (not run yet)."""
    return PumpDesign(Schedule(NAME, Every(EVERY)), start=START if start is None else start, **options)


def _fires(n: int) -> str:
    return f"{n} fire" if n == 1 else f"{n} fires"


def _day(ms: int | float, tz: str) -> str:
    return "parked" if ms == INF else iso(int(ms), tz)[:10]


def row_score(ms: int | float, tz: str = "UTC") -> str:
    """A row's score as the course shows it: HH:MM on YYYY-MM-DD."""
    return "+inf (parked)" if ms == INF else f"{hm(int(ms), tz)} on {_day(ms, tz)}"


@dataclass(frozen=True)
class RowState:
    """What the registry and the queue hold after `fires` fires."""

    fires: int
    size: int                     # ZCARD of the registry
    name: str
    score: int | float            # the one row's score
    jobs: int                     # jobs produced so far
    job_id: str | None            # the latest job's id
    minted: int | None            # what that id decodes to (Unix ms)


def describe(st: RowState, tz: str = "UTC") -> str:
    """The readout: the registry and the newest job after `st.fires` fires."""
    last = "no job yet" if st.job_id is None else \
        f"last job {st.job_id} minted {hms(st.minted, tz)} on {_day(st.minted, tz)}"
    return (f"after {_fires(st.fires)} · ZCARD {st.size} · jobs {st.jobs} · "
            f"row {st.name} -> {row_score(st.score, tz)} · {last}")


def cursor_text(st: RowState, tz: str = "UTC") -> str:
    """The box on the figure: the row at the cursor and the newest job."""
    job = "none yet" if st.job_id is None else f"{st.job_id} ({hms(st.minted, tz)})"
    return f"cursor at {_fires(st.fires)}: row {st.name} -> {row_score(st.score, tz)}\nlatest job {job}"


def id_parts(job_id: str) -> dict:
    """A branded id taken apart: its length in bytes, namespace, the snowflake number, and what
    the number packs (`minted` Unix ms, `worker`, `seq`)."""
    namespace, number = parse(job_id)
    _, worker, seq = unsnowflake(number)
    return {"bytes": len(job_id), "namespace": namespace, "number": number, "minted": minted_at(job_id),
            "worker": worker, "seq": seq}


def job_id_anatomy(job_ids) -> str:
    """Each branded id taken apart (`id_parts`), one line per id."""
    lines = []
    for job_id in job_ids:
        p = id_parts(job_id)
        lines.append(f"{job_id}  {p['bytes']} bytes  {p['namespace']}  {p['number']:>20}  "
                     f"minted {iso(p['minted'])}  worker {p['worker']}  seq {p['seq']}")
    return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class RegistryRowsFrame:
    """The figure after `fires` fires: the readout, the cursor's box, and both lines up to the
    cursor (x = fires elapsed, jobs produced, ZCARD, read-only arrays), on an axis of `top`
    fires. Frames compare by identity: the model makes one per count and caches it."""

    fires: int
    readout: str
    box: str
    x: np.ndarray
    jobs: np.ndarray
    sizes: np.ndarray
    state: RowState
    top: int
    title: str


def gained(frame: RegistryRowsFrame, a: int, b: int) -> str:
    """What Redis gained from fire `a` to fire `b`, as far as `frame` has got, as the key of 02's
    first question: the rows the registry gained if any, else the jobs made."""
    b = min(b, frame.fires)
    a = min(a, b)
    rows, jobs = int(frame.sizes[b] - frame.sizes[a]), int(frame.jobs[b] - frame.jobs[a])
    return f"{rows} rows" if rows else f"{jobs} jobs" if jobs else "no job"


#: the first instant of the course's next day: where the challenge asks the row's score to land
MIDNIGHT = on_day("00:00") + DAY


class RegistryRowsModel(Model):
    """`reports` (every 15 min from 09:00 UTC) run fire by fire through the engine, up to `top`
    fires; the `fires` slider walks every fire to 30, then in growing steps. `options` go to
    the PumpDesign (a pump, a worker, a store)."""

    readout_id = READOUT_ID
    questions = (
        question(
            "02-gain-50-to-100",
            f"`{NAME}` runs every 15 min from 09:00. From fire 50 to fire 100, what does Redis gain?",
            [("50 jobs", "50 jobs, and still one row",
              "Each fire makes a job and only moves the row's score on."),
             ("50 rows", "50 rows, and 50 jobs with them",
              "The registry keeps one row per registration; a fire rewrites its score."),
             ("no job", "Nothing, as the one row and its job are rewritten",
              "Only the row is rewritten; each job is a new key.")],
            answer=lambda f: gained(f, 50, 100),
            show_me={"fires": 100}),
        question(
            "02-score-after-6",
            f"`{NAME}` runs every 15 min from 09:00. After 6 fires, what time does its row's score say?",
            [("10:30", "10:30, the run after the sixth",
              "The score is the next run: 09:00 to 10:15 have fired, so the row points at 10:30."),
             ("10:15", "10:15, the last run made",
              "The row keeps the next run, not the last one."),
             ("10:45", "10:45, six gaps after 09:15",
              "The first fire was at 09:00 itself, so six fires end at 10:15.")],
            answer=lambda f: hm(int(f.state.score)), show_me={"fires": 6}),
    )
    challenge = Challenge(
        "02-midnight", "Find the fire count after which the row's next run is midnight: 00:00 on 1 December.",
        met=lambda f: f.state.score == MIDNIGHT,
        explain="Sixty fires of 15 min after 09:00 make 15 hours. The row is still one number; only the jobs "
                "piled up.")

    def __init__(self, *, top: int = FIRES, tz: str = "UTC", **options):
        super().__init__()
        positions = fire_positions(top)
        zone(tz)  # an unknown zone is refused here, not at the first move
        self.top, self.tz, self.options = positions[-1], tz, options
        self.controls = (
            slider("fires", positions, 0, label="fires elapsed", fmt=lambda n: f"{n:,}", main=True,
                   play=Play(step=1, max_step=10, interval=300, label="positions per step")),
        )
        self.title = f"One row, rewritten each fire ({NAME}, {Every(EVERY).describe()})"
        self._sim: PumpDesign | None = None
        self._close = None
        # index k = the state after k fires; k = 0 is the registration
        self._sizes: list[int] = []
        self._scores: list[int | float] = []
        self._job_ids: list[str | None] = []
        self._jobs: list[int] = []

    # -- the walk ------------------------------------------------------------------------

    @property
    def reached(self) -> int:
        """Fires run so far (-1 before the schedule is registered)."""
        return len(self._jobs) - 1

    def _simulation(self) -> PumpDesign:
        """Register the schedule (on first use) and record the state right after."""
        if self._sim is None:
            sim = reports(retain=self.top, **self.options)
            self._close = weakref.finalize(self, sim.close)
            rows = sim.registry.rows()
            if len(rows) != 1:
                raise InputError(f"the registry holds {len(rows)} rows; this figure shows exactly one schedule")
            self._sim = sim
            self.name, first = rows[0]
            self._sizes.append(sim.registry.size())
            self._scores.append(first)
            self._jobs.append(0)
            self._job_ids.append(None)
        return self._sim

    def walk(self, fires: int) -> int:
        """Run the simulation on to `fires` fires, keeping the state after each; a count already
        passed runs nothing. Returns the fires run so far."""
        fires = self._check(fires)
        sim = self._simulation()
        trace = sim.trace
        try:
            if fires > trace.count:
                sim.run(fires=fires - trace.count)
        finally:  # keep what was made, even by a run that failed part way
            made = trace.count - self.reached
            for f in islice(trace.fires, len(trace.fires) - made, None):
                self._sizes.append(f.size)
                self._scores.append(f.next)
                self._jobs.append(f.n)
                self._job_ids.append(f.job_id)
        if self.reached < fires:
            raise InputError(f"the schedule produced {self.reached} fires, not {fires}; "
                             "it ended (limit or end date) before that", "fires")
        return self.reached

    def _check(self, fires) -> int:
        if isinstance(fires, bool) or not isinstance(fires, (int, np.integer)) or not 0 <= fires <= self.top:
            raise InputError(f"fires {fires!r} is out of range; use a whole number 0..{self.top}", "fires")
        return int(fires)

    def state(self, fires: int) -> RowState:
        """The state after `fires` fires (0 = right after registration), running the walk there."""
        k = self._check(fires)
        self.walk(k)
        score, job_id = self._scores[k], self._job_ids[k]
        return RowState(k, int(self._sizes[k]), self.name, INF if score == INF else int(score), int(self._jobs[k]),
                     job_id, None if job_id is None else minted_at(job_id))

    def describe(self, frame: RegistryRowsFrame) -> str:
        s = frame.state
        rows = "1 registry row" if s.size == 1 else f"{s.size} registry rows"
        return f"After {s.fires:,} fires: {s.jobs:,} jobs produced (solid line), still {rows} (dashed line)."

    def compute(self, fires: int) -> RegistryRowsFrame:
        st = self.state(fires)
        k = st.fires
        x, jobs, sizes = np.arange(k + 1), np.array(self._jobs[: k + 1]), np.array(self._sizes[: k + 1])
        for a in (x, jobs, sizes):
            a.flags.writeable = False
        return RegistryRowsFrame(fires=k, readout=describe(st, self.tz), box=cursor_text(st, self.tz), x=x,
                                 jobs=jobs, sizes=sizes, state=st, top=self.top, title=self.title)

    def live(self, fires: int | None = None) -> dict:
        """The live registry read from Redis (not from the kept states), after `fires` fires (the
        walk is run there first), or where the walk stands if None: the fires walked, ZCARD, the
        rows (name, score) and the record's `every_ms` and `fired`. Redis holds only the latest
        state, so a count the walk has already passed is refused."""
        if fires is not None:
            fires = self._check(fires)
            if fires < self.reached:
                raise InputError(f"the run is already at {self.reached} fires and Redis holds only its latest "
                                 f"state; ask for {self.reached} or more, or use a fresh model", "fires")
            self.walk(fires)
        reg = self._simulation().registry
        record = reg.record(self.name)
        return {"fires": self.reached, "size": reg.size(), "rows": tuple(reg.rows()),
                "every_ms": record.get("every_ms"), "fired": record.get("fired")}

    def summary(self, fires: int | None = None) -> str:
        """The live registry (`live`) in two lines."""
        f = self.live(fires)
        rows = ", ".join(f"{name} -> {row_score(score, self.tz)}" for name, score in f["rows"])
        return (f"after {_fires(f['fires'])} the registry holds ZCARD {f['size']}: {rows}\n"
                f"its record: every_ms {f['every_ms']}, fired {f['fired']} "
                "(the simulator's count of fires made)")

    def close(self) -> None:
        """Close the simulation's store (on a real server, delete its keys); the kept states stay."""
        if self._close is not None:
            self._close()


# -- registering the same name again -----------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One call on the registry and what it left behind."""

    at: int                      # virtual time of the call
    call: str                    # e.g. "register every 5 min"
    answer: str                  # the script's answer
    size: int                    # ZCARD after
    rows: list                   # [(name, score)] after
    record: dict                 # the record hash after


def _snapshot(reg, name, t, call, answer) -> Step:
    return Step(t, call, answer, reg.size(), reg.rows(), reg.record(name))


def _demo_args(fires, later) -> int:
    if isinstance(fires, bool) or not isinstance(fires, int) or fires < 1:
        raise InputError(f"fires {fires!r} must be a whole number of fires, at least 1", "fires")
    return parse_duration(later, name="later", allow_zero=False)


def reregister_demo(store: Store, start: int, *, fires: int = 4, later: str | int = "5m") -> list[Step]:
    """Register `reports` (every 15 min) at `start` and let it fire `fires` times; then, at the
    last release + `later`, register the name again with every 5 min (EchoMQ), upsert every
    5 min (BullMQ), and upsert every 5 min once more. Returns the state after each call."""
    gap = _demo_args(fires, later)
    sim = reports(start=start, store=store)
    reg = sim.registry
    steps = [_snapshot(reg, NAME, start, "register every 15 min", "registered")]
    trace = sim.run(fires=fires)
    t = trace[-1].released + gap
    steps.append(_snapshot(reg, NAME, trace[-1].released, f"after {fires} fires", "-"))
    five = Schedule(NAME, Every("5m"))
    steps.append(_snapshot(reg, NAME, t, "register every 5 min", reg.register(five, t)))
    steps.append(_snapshot(reg, NAME, t, "upsert every 5 min", reg.upsert(five, t)))
    steps.append(_snapshot(reg, NAME, t, "upsert every 5 min", reg.upsert(five, t)))
    return steps


def bullmq_demo(store: Store, start: int, *, fires: int = 4, later: str | int = "5m",
                real: bool | None = None) -> list[Step]:
    """The same calls in BullMQ's own design: upsert `reports` (every 15 min) at `start`, let a
    worker take `fires` jobs on time, then, `later` after the last pickup, upsert every 5 min
    twice. Its `ic` is BullMQ's: 1 for a new scheduler, one more for each job made.

    Computed by BullMQ 6.7.0's own scripts where the pinned package is installed (the rule of
    `bullmq_lane`; `store` is not used then), each step's record the scheduler's hash under
    BullMQ's field names (`every`, `ic`, `offset`, `name`); by the model scripts on `store`
    otherwise, or with `real=False` (the record under the models' names, `every_ms`)."""
    gap = _demo_args(fires, later)
    from . import bullmq_lane

    with bullmq_lane.scripts(real) as driver:
        if driver is not None:
            return _bullmq_demo_scripts(driver, start, fires, gap)
    bull = BullMQ(store)
    reg = bull.registry
    steps = [_snapshot(reg, NAME, start, "upsert every 15 min", bull.upsert(Schedule(NAME, Every(EVERY)), start))]
    t = start
    for _ in range(fires):
        taken = bull.pickup(t)
        t = taken.next
    last = taken.started
    steps.append(_snapshot(reg, NAME, last, f"after {fires} pickups", "-"))
    five = Schedule(NAME, Every("5m"))
    for _ in range(2):
        steps.append(_snapshot(reg, NAME, last + gap, "upsert every 5 min", bull.upsert(five, last + gap)))
    return steps


def _bullmq_demo_scripts(b, start: int, fires: int, gap: int) -> list[Step]:
    """`bullmq_demo` on BullMQ's own scripts (`b`, a cleared `BullMQScripts`): each upsert's word
    from `bullmq_lane.upsert_answer`, each pickup a take and its finish at once, and after each
    step what the keys hold: ZCARD and the rows of `bull:<q>:repeat`, and the scheduler's hash."""
    from .bullmq_lane import upsert_answer

    repeat = b.keys["repeat"]

    def snapshot(t: int, call: str, answer: str) -> Step:
        rows = [(m.decode(), int(v)) for m, v in b.client.zrange(repeat, 0, -1, withscores=True)]
        record = {k.decode(): v.decode() for k, v in b.client.hgetall(f"{repeat}:{NAME}").items()}
        return Step(t, call, answer, b.client.zcard(repeat), rows, record)

    def upsert(t: int, every: Every) -> str:
        before = b.scheduler(NAME)
        b.upsert(NAME, t, every=every.ms)
        return upsert_answer(before, every)

    steps = [snapshot(start, "upsert every 15 min", upsert(start, Every(EVERY)))]
    t = last = start
    for _ in range(fires):
        if b.pickup(t) is None:
            raise RuntimeError(f"BullMQ's scripts gave no job at {t}, the scheduler's next run")
        last, t = t, b.scheduler(NAME)["next"]
    steps.append(snapshot(last, f"after {fires} pickups", "-"))
    for _ in range(2):
        steps.append(snapshot(last + gap, "upsert every 5 min", upsert(last + gap, Every("5m"))))
    return steps


def steps_table(steps: list[Step], tz: str = "UTC", count: str = "fired") -> str:
    """The demo as plain text: member names, scores and record fields, never key names. The last
    column is the record's count, the field `count`: `fired` (fires made) for the simulator's pump
    design, `ic` (jobs made, the waiting next one included) for BullMQ's."""
    head = f"{'time':8}  {'call':22}  {'answer':10}  {'ZCARD':5}  {'row (member -> score)':30}  every_ms  {count}"
    lines = [head, "-" * len(head)]
    for s in steps:
        row = "; ".join(f"{name} -> {row_score(score, tz)}" for name, score in s.rows)
        every = s.record.get("every_ms", s.record.get("every", "-"))   # the models' name, or BullMQ's
        lines.append(f"{hms(s.at, tz)}  {s.call:22}  {s.answer:10}  {s.size:>5}  {row:30}  "
                     f"{every:>8}  {s.record.get(count, '-')}")
    return "\n".join(lines)


def records_table(steps: list[Step]) -> str:
    """Each step's record hash, fields sorted, the payload template left out: one line per step."""
    lines = []
    for step in steps:
        fields = ", ".join(f"{k}={v}" for k, v in sorted(step.record.items()) if k != "template")
        lines.append(f"{step.call:22} {step.answer:10} {fields}")
    return "\n".join(lines)
