"""BullMQ's design in a lesson: one schedule's lane, computed by BullMQ 6.7.0's own scripts where
the pinned package is installed, by this course's model scripts where it is not.

Why one module: every page that shows BullMQ's design (04's `snap` lane and its store, the two
designs side by side of 04 and 05, 02's demo through `scripts()`, 06's retried step through
`retried()`) asks the same question, and the rule that answers it lives here once, with the
one place each script's reply becomes the models' word (`upsert_answer`, `chain_answer`).
With the pinned wheel (`engine.bullmq_scripts.package`), a lane is BullMQ's own scripts on one
embedded server, driven as its client drives them (`BullMQScripts`: the upsert,
each worker's take with the next job it makes, the finish), with the workers of `Crew` and an
outage in which no worker runs, as `chain.Chain` has them. Without it, `Chain` runs the model
scripts (scheduler-7, activate-3, chain-6, pickups-5): the same lane, held equal in
tests/test_lessons_bullmq_lanes_real.py, and `missing()` says in one line what to install.

What the scripts cannot compute stays the model's, and the lessons say so where they use it: a
crash between two writes, two pumps or a cancel (pump faults, which BullMQ's design refuses
anyway), and releases other than 6.7.0 (04's `snap-v5` and `epoch` lanes).
"""

from __future__ import annotations

import contextlib
import threading

from ..engine.cadence import Cron, Every
from ..engine.errors import InputError
from ..engine.faults import Faults
from ..engine.schedule import INF, Schedule
from ..engine.trace import Fire, Trace
from ..engine.worker import Crew, Worker

#: the one driver of BullMQ's scripts, made at the first lane; False when it cannot be made here
_DRIVER: list = []
_WHY: list = []        # the one line saying why not, when it cannot
_BUSY = threading.Lock()   # held by the lane using the shared driver (any other lane makes its own)


def missing() -> str | None:
    """None when BullMQ 6.7.0's own scripts compute the lanes here; else the one line saying what
    was found and what to install (the pinned package, or an embedded Lua that cannot take the
    project's cmsgpack and cjson). The models compute the lanes then."""
    _driver()
    return _WHY[0] if _WHY else None


def computed_by() -> str:
    """Whose code computes BullMQ's lanes here, in words: the one line a page can print."""
    why = missing()
    if why is None:
        from ..engine.bullmq_scripts import package

        return f"BullMQ's lanes: BullMQ {package.NPM_RELEASE}'s own scripts"
    return f"BullMQ's lanes: this course's model scripts ({why})"


def _driver():
    """The shared driver, made once (about 0.2 s); None when the scripts cannot run here."""
    if not _DRIVER:
        from ..engine.bullmq_scripts import package

        why = package.available()
        if why is None:
            from ..engine.bullmq_scripts.driver import BullMQScripts

            try:
                _DRIVER.append(BullMQScripts(queue="lane"))
            except InputError as exc:     # an embedded Lua without the modules: the models answer
                why = str(exc)
        if why is not None:
            _DRIVER.append(False)
            _WHY.append(why)
    return _DRIVER[0] or None


def _real_shaped(schedule: Schedule) -> bool:
    """A schedule whose lane the scripts compute here: BullMQ's one rule and no policies (anything
    else goes to the model, whose refusal says why in the project's words), and no start date,
    end date or limit (no lesson draws one, and the tests hold the two equal without them)."""
    return (isinstance(schedule, Schedule) and schedule.rule == "schedule" and schedule.missed == "snap"
            and schedule.overlap == "allow" and isinstance(schedule.cadence, (Every, Cron))
            and schedule.start is None and schedule.end is None and not schedule.limit)


class Lane:
    """One schedule in BullMQ's design from `start`, with `worker`'s workers and no worker
    running over `outage` (down, up): `run(fires=..., until=...)` gives the `Trace` so far (as
    `Chain.run` does, a call going on where the last stopped), `state()` the scheduler's row,
    its iteration count and its delayed and waiting jobs (as `BullMQ.state` reports them).
    `real` says whose code ran: BullMQ 6.7.0's scripts (True) or the models (False); `real=False`
    asks for the models."""

    def __init__(self, schedule: Schedule, *, start: int, worker: Worker | None = None,
                 outage: tuple[int, int] | None = None, real: bool | None = None):
        self.schedule, self.start, self.worker = schedule, start, worker or Worker()
        self.outage = Faults(outage=outage).outage if outage is not None else None
        driver = _driver() if real is not False and _real_shaped(schedule) else None
        self._chain = self._b = None
        self._holds = False
        if driver is None:
            from ..engine.chain import Chain

            self._chain = Chain(schedule, start=start, worker=self.worker,
                                faults=Faults(outage=outage) if outage is not None else None)
            self.real = False
            return
        self._holds = _BUSY.acquire(blocking=False)
        if not self._holds:                # a lane inside a lane, or on another thread: a driver of its own
            from ..engine.bullmq_scripts.driver import BullMQScripts

            driver = BullMQScripts(queue="lane-inner")
        self._b, self.real = driver, True
        self.trace = Trace()
        self.crew = Crew(self.worker, start)
        try:
            self._upsert(driver, schedule, start)
        except BaseException:
            self.close()
            raise

    @staticmethod
    def _upsert(driver, schedule: Schedule, start: int) -> None:
        """A new scheduler on a cleared queue, as `Queue.upsertJobScheduler` at `start`."""
        driver.clear()
        c = schedule.cadence
        opts = {"every": c.ms, "offset": c.offset} if isinstance(c, Every) else {"pattern": c.expr, "tz": c.tz}
        driver.upsert(schedule.name, start, **{k: v for k, v in opts.items() if v is not None})

    def run(self, fires: int | None = None, until: int | None = None) -> Trace:
        """Workers take the scheduler's jobs as they come ready, until `fires` more are taken or
        a pickup would start after `until`: each take on BullMQ's scripts at the instant a
        worker is free for it (`Crew`, and after `outage` ends), its finish at the run's end."""
        if self._chain is not None:
            return self._chain.run(fires=fires, until=until)
        b, name, trace = self._b, self.schedule.name, self.trace
        target = None if fires is None else trace.count + fires
        down, up = self.outage or (None, None)
        while target is None or trace.count < target:
            row = b.scheduler(name)
            if row is None:                 # the chain stopped: a limit, an end date, cron gave up
                break
            ready = max(row["next"], self.crew.free[0][0])
            if down is not None and down <= ready < up:
                ready = up
            if until is not None and self.crew.start(ready) > until:
                break
            run = self.crew.assign(trace.count + 1, ready)
            job = b.take(run.started)
            if job is None:
                raise RuntimeError(f"BullMQ's scripts gave no job at {run.started}, though the scheduler's "
                                   f"next run is {row['next']}")
            after = b.scheduler(name)
            slot = int(job.id.rsplit(":", 1)[1])
            trace.produced(Fire(trace.count + 1, name, slot, slot, run.started, run.finished, job.id,
                                next=INF if after is None else after["next"]))
            b.finish(job, run.finished)
        size = b.client.zcard(b.keys["repeat"])
        for f in trace.fires:
            f.size = size
        trace.registry_size = size
        row = b.scheduler(name)
        trace.next = INF if row is None else row["next"]
        return trace

    def state(self) -> dict:
        """The scheduler as BullMQ's oracle reports it: row score, offset, ic, every, pattern, the
        delayed jobs [id, run time] and the waiting ones."""
        if self._chain is not None:
            return self._chain.bullmq.state(self.schedule.name)
        return self._b.state(self.schedule.name)

    def marker(self) -> list[tuple[str, int]]:
        """The wake marker's members and scores, head first (as `Registry.marker` reads them)."""
        if self._chain is not None:
            return self._chain.bullmq.registry.marker()
        got = self._b.client.zrange(self._b.keys["marker"], 0, -1, withscores=True)
        return [(m.decode(), int(v)) for m, v in got]

    def close(self) -> None:
        """Give the shared driver back (or close a driver of its own, or the models' store); once."""
        if self._chain is not None:
            self._chain.close()
        elif self._holds:
            self._holds = False
            _BUSY.release()
        elif self._b is not None and self._b is not _DRIVER[0]:
            self._b.client.close()
            self._b = None

    def __enter__(self) -> "Lane":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@contextlib.contextmanager
def scripts(real: bool | None = None):
    """BullMQ 6.7.0's own scripts for a lesson that steps them itself (02's demo: upserts and
    pickups it calls one by one, the keys read after each): the shared driver, cleared and held
    for the block (a driver of its own when another lane holds it), or None where the models
    answer (`missing()`, or `real=False`)."""
    driver = _driver() if real is not False else None
    if driver is None:
        yield None
        return
    holds = _BUSY.acquire(blocking=False)
    if not holds:
        from ..engine.bullmq_scripts.driver import BullMQScripts

        driver = BullMQScripts(queue="lane-inner")
    try:
        driver.clear()
        yield driver
    finally:
        if holds:
            _BUSY.release()
        else:
            driver.client.close()


def upsert_answer(row: dict | None, cadence: Every | Cron) -> str:
    """An upsert (addJobScheduler-11) in the models' words (`engine.chain.BullMQ.upsert`'s), the
    one place they are given to BullMQ's own: the script answers the id of the job it made and
    its delay, whatever happened to the row, so the word comes from the scheduler as it stood
    just before (`row`, `BullMQScripts.scheduler`), as the script reads it: none, "created"; the
    same `every` (or cron pattern and zone), "kept" (the script keeps the score while the
    pending job waits); another, "rewritten" (a changed `every` starts again from its first
    run)."""
    if row is None:
        return "created"
    f = row["fields"]
    if isinstance(cadence, Every):
        same = f.get("every") == str(cadence.ms)
    else:
        same = (f.get("pattern"), f.get("tz") or "UTC") == (cadence.expr, cadence.tz or "UTC")
    return "kept" if same else "rewritten"


def chain_answer(made: str | None, row: dict | None, slot: int) -> tuple[str, int | float]:
    """The worker's upsert at a pickup (updateJobScheduler-12) in the models' words, and the next
    run it made (INF where none): the one place BullMQ's reply becomes a word of the models'
    chain-6 (`engine.chain.CHAIN`). The script answers the next job's id when it makes one,
    "chained"; otherwise nil, for one of three reasons it tells apart by what it reads first,
    which `row` (the scheduler's row just before the call, `BullMQScripts.scheduler`) repeats:
    no row, "absent"; a row whose score is not the taken job's `slot` (it has moved past it),
    "stale"; else the next job exists already, "duplicate" (the script logs `duplicated`).
    The client's own refusals (a limit, an end date, cron-parser giving up) make no call and
    are not mapped: `_real_shaped` lanes have no limit or end date."""
    if made is not None:
        return "chained", int(made.rsplit(":", 1)[1])
    if row is None:
        return "absent", INF
    return ("stale" if row["next"] != slot else "duplicate"), INF


def retried(schedule: Schedule, *, start: int, after: int = 1000, real: bool | None = None) -> dict:
    """Upserted at `start`, `schedule`'s first job is taken when it comes due, and the upsert a
    worker makes at a pickup runs again `after` ms later for the same job (the Worker's
    `retryIfFailed` after a connection error: `BullMQScripts.update`; the models'
    `BullMQ.retry_chain`). The job taken, each call's answer and next run (`pickup`, `again`,
    through `chain_answer` on the scripts), and the scheduler's row score, `ic` and delayed jobs
    [id, run time] after both; `real` as `Lane`'s."""
    with Lane(schedule, start=start, real=real) as one:
        due = max(start, one.state()["score"])
        if not one.real:
            bullmq = one._chain.bullmq
            taken = bullmq.pickup(due)
            retry = bullmq.retry_chain(taken, due + after)
            job_id, pickup, second = taken.job_id, (taken.result, taken.next), (retry.result, retry.next)
        else:
            b, name = one._b, schedule.name
            row = b.scheduler(name)
            job = b.take(due)
            slot = int(job.id.rsplit(":", 1)[1])
            pickup = chain_answer(job.made, row, slot)
            row = b.scheduler(name)
            second = chain_answer(b.update(job, due + after), row, slot)
            job_id = job.id
        st = one.state()
    return {"job_id": job_id, "pickup": pickup, "again": second, "score": st["score"], "ic": st["ic"],
            "delayed": [list(d) for d in st["delayed"]]}


def lane(schedule: Schedule, *, start: int, fires: int | None = None, until: int | None = None,
         worker: Worker | None = None, outage: tuple[int, int] | None = None, real: bool | None = None) -> Trace:
    """One run of `schedule` in BullMQ's design (`Lane`): the `Trace`, by BullMQ's own scripts
    where they run here, by the models where not (or with `real=False`)."""
    with Lane(schedule, start=start, worker=worker, outage=outage, real=real) as one:
        return one.run(fires=fires, until=until)


__all__ = ["Lane", "chain_answer", "computed_by", "lane", "missing", "retried", "scripts", "upsert_answer"]
