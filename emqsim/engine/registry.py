"""The registry's verbs: one sorted-set row per registration, scored by its next run.

Every write goes through a Lua script of `emqsim/engine/lua/`; reads are plain commands,
as in EchoMQ (`due` is a ZRANGEBYSCORE and one hash read per row). Answers use
EchoMQ's atoms: "registered"/"exists", "cancelled"/"absent", "advanced"/"absent".

Each verb checks its arguments in Python before its script runs (times and scores are whole
ms in [0, 2**53), scripts.ms_arg), so a bad value is one InputError naming the argument; the
scripts check them again, since a script may be called without this class.
"""

from __future__ import annotations

from collections import Counter, deque
from dataclasses import dataclass

from .errors import InputError, whole
from .schedule import INF, Schedule
from .scripts import ms_arg, name_arg
from .store import CHANGED, Store
from .timefmt import iso

REGISTER = {1: "registered", 0: "exists"}
UPSERT = {1: "created", 2: "rewritten", 3: "kept"}
CANCEL = {1: "cancelled", 0: "absent"}
ADVANCE = {1: "advanced", 0: "absent"}
ENQUEUE = {1: "enqueued", 0: "duplicate"}
FIRE = {1: "fired", 0: "absent", 2: "stale", 3: "duplicate", 4: "skipped"}
TAKE = {0: "parked", 1: "sleep", 2: "taken", 3: "idle"}
ADVANCE_ONLY = ""  # the job id of a fire row that only advances: the occurrence is skipped by policy
END_STATES = ("done", "cancelled")


class RegistryChanged(RuntimeError):
    """The run's registry (or a key of its queue) is not what the run wrote: another client
    deleted or rewrote it mid-run. `status` is the command line's exit status for it; a run
    that raises it has written nothing since it noticed, and its store's clean-up still runs."""

    status = CHANGED[0]
    remains: str | None = None   # as ServerError: the command line prints it when set

    def __init__(self, key: str, expected: tuple[int, int | float | None] | None,
                 found: tuple[int, int | float | None] | None, detail: str = ""):
        def rows(seen):
            size, head = seen
            return f"{size} row{'s' * (size != 1)}" + (f", head {_when(head)}" if size and head is not None else "")

        said = "; ".join(x for x in (detail, expected and f"expected {rows(expected)}",
                                     found and f"found {rows(found)}") if x)
        super().__init__(f"the registry {key} changed under the run (another client deleted or rewrote it): "
                         + said)


def _when(score: int | float) -> str:
    return "none (parked)" if score == INF else iso(score)[:19] + "Z"


def score_arg(score: int | float, what: str = "score") -> str:
    """Scores travel as text: whole ms, or "+inf" for a parked row (an InputError naming `what`
    for anything else)."""
    return ms_arg(what, score, parked=True)


def schedule_arg(schedule) -> Schedule:
    if not isinstance(schedule, Schedule):
        raise InputError(f"schedule {schedule!r} is refused: use a Schedule", "schedule")
    return schedule


def flag_arg(what: str, value) -> str:
    if not isinstance(value, bool):
        raise InputError(f"{what} {value!r} is refused: use True or False", what)
    return "1" if value else "0"


def text_arg(what: str, value) -> str:
    """Text a script stores as it is (a job id that may be empty, a payload template)."""
    if not isinstance(value, str):
        raise InputError(f"{what} {value!r} is refused: use text", what)
    return value


def parse_score(raw) -> int | float:
    if raw is None or raw == b"" or raw == "":
        return INF
    value = float(raw)
    return INF if value == INF else int(value)


@dataclass(frozen=True)
class Due:
    """One row read due: its name, its slot (the score read) and its record."""

    name: str
    slot: int
    record: dict


@dataclass(frozen=True)
class Fired:
    """What a fire script answered for one row."""

    name: str
    result: str


#: finished jobs told to Redis in one `finish` call: nothing reads a job's end between calls (a
#: run flushes before it returns), and the call's one check for jobs still waiting is paid once
#: per this many (at 256, under 0.004 of a call a fire)
FLUSH = 256


class Retention:
    """Keep the last `keep` finished jobs in Redis: memory stays bounded however long a run is."""

    def __init__(self, keep: int):
        self.keep = keep
        self._ids: deque[str] = deque()

    def evict(self, finished) -> list[str]:
        """Note the job ids that just finished; return the oldest ones now past the bound."""
        self._ids.extend(finished)
        return [self._ids.popleft() for _ in range(max(0, len(self._ids) - self.keep))]


class Registry:
    """The verbs on one store. It counts what the pump's verbs answered, because the trace
    records only what was produced: `answers` is keyed "verb answer" ("enqueue duplicate",
    "advance absent", "fire stale", ...) for enqueue, advance and fire, and `refused` holds
    (slot, now) of each enqueue answered "duplicate" (its job id existed)."""

    def __init__(self, store: Store):
        if not isinstance(store, Store):
            raise InputError(f"store {store!r} is not a Store: give one, such as Store()", "store")
        self.store = store
        self.k = store.keys
        self.client = store.client
        self._run = store.scripts.run
        self.answers: Counter = Counter()
        self.refused: list[tuple[int, int]] = []
        #: (registry size, head score) as the last advance, fire or forward answered it
        self.seen: tuple[int, int | float] | None = None
        # name -> its record as read, kept between fires: this object's own writes keep it
        # current (a fire bumps `fired`); any other answer or verb on the name drops it
        self._records: dict[str, dict] = {}

    # -- registration --------------------------------------------------------------------

    def register(self, schedule: Schedule, now: int) -> str:
        """EchoMQ's insert-if-absent: an existing name is left exactly as it was."""
        schedule_arg(schedule)
        first = schedule.first_run(int(ms_arg("now", now)))
        first_arg = ms_arg("first run", first)
        fields = _flat(schedule.to_record(_phase(schedule, first)))
        self.forget(schedule.name)
        code = self._run("register", [self.k.repeat, self.k.record(schedule.name), self.k.marker],
                         [schedule.name, first_arg, *fields])
        return REGISTER[code]

    def upsert(self, schedule: Schedule, now: int) -> str:
        """BullMQ's upsert: rewrite the record; a changed `every` restarts from its first run,
        and the iteration count and the stored offset are carried over (upsert-3.lua)."""
        schedule_arg(schedule)
        first = schedule.first_run(int(ms_arg("now", now)))
        first_arg = ms_arg("first run", first)
        fields = _flat(schedule.to_record(_phase(schedule, first)))
        given = "1" if getattr(schedule.cadence, "offset", None) else "0"
        self.forget(schedule.name)
        code = self._run("upsert", [self.k.repeat, self.k.record(schedule.name), self.k.marker],
                         [schedule.name, first_arg, given, *fields])
        return UPSERT[code]

    def cancel(self, name: str) -> str:
        name_arg("name", name)
        self.forget(name)
        return CANCEL[self._run("cancel", [self.k.repeat, self.k.record(name)], [name])]

    # -- the pump's verbs ----------------------------------------------------------------

    def due(self, now: int, limit: int = 100) -> list[Due]:
        """Rows scored at or before `now`, oldest first, with their records: one round trip, and
        one more for the records not kept since this registry last read them."""
        now, limit = ms_arg("now", now), whole(limit, "limit", low=1, high=1_000_000)
        rows = [(m.decode(), int(s)) for m, s in
                self.client.zrangebyscore(self.k.repeat, "-inf", now, start=0, num=limit, withscores=True)]
        unknown = [name for name, _ in rows if name not in self._records]
        if unknown:
            pipe = self.client.pipeline(transaction=False)
            for name in unknown:
                pipe.hgetall(self.k.record(name))
            for name, rec in zip(unknown, pipe.execute()):
                if rec:   # a record that is gone is read again next time
                    self._records[name] = rec
                else:
                    self._records.pop(name, None)
            return [Due(name, slot, self._records.get(name, {})) for name, slot in rows]
        return [Due(name, slot, self._records[name]) for name, slot in rows]

    def _made(self, name: str, jobs: int = 1) -> None:
        """`jobs` were made for `name`: its kept record counts them as the script did (HINCRBY)."""
        rec = self._records.get(name)
        if rec is not None:
            rec = dict(rec)   # a Due handed out earlier keeps the record it was read with
            rec[b"fired"] = str(int(rec.get(b"fired", b"0")) + jobs).encode()
            self._records[name] = rec

    def forget(self, name: str) -> None:
        """Read the record of `name` again at the next `due` (it was written by another verb)."""
        self._records.pop(name, None)

    def advance(self, name: str, nxt: int | float, *, made: bool = False) -> str:
        """EchoMQ's advance: rewrite the one row, or sweep it if the record is gone. `made`: the
        enqueue before it made a job, which the record's `fired` counts as the row moves (as
        `fire` counts it), so an enqueue a crash cut off from its advance is not counted. The
        registry's size and head after it are in `seen`."""
        args = [name_arg("name", name), score_arg(nxt, "next score")] + (["1"] if flag_arg("made", made) == "1" else [])
        code, size, head = self._run("advance", [self.k.repeat, self.k.record(name)], args)
        out = ADVANCE[code]
        if out != "advanced":
            self.forget(name)
        elif made:
            self._made(name)
        self.seen = (int(size), parse_score(head))
        self.answers["advance " + out] += 1
        return out

    def enqueue(self, job_id: str, name: str, slot: int, now: int, template: str = "{}") -> str:
        """EchoMQ's enqueue: the job goes on the pending list and "0" on the marker. The
        record's `fired` is counted by the `advance` that follows."""
        args = [name_arg("job id", job_id), name_arg("name", name), ms_arg("slot", slot), ms_arg("now", now),
                text_arg("template", template)]
        keys = [self.k.job(job_id), self.k.pending, self.k.marker]
        out = ENQUEUE[self._run("enqueue", keys, args)]
        self.answers["enqueue " + out] += 1
        if out == "duplicate":
            self.refused.append((slot, now))
        return out

    def fire(self, now: int, rows: list[tuple[str, int, int | float, str, int, str]], dedupe: bool = False):
        """Enqueue and advance rows atomically: rows are (name, slot read, next, job id, slot
        label, template); a job id of `ADVANCE_ONLY` ("") only advances the row.

        Returns (registry size, head score, [Fired...]).
        """
        if not rows:
            raise InputError("rows [] is refused: use at least one (name, slot, next, job id, label, template)", "rows")
        keys = [self.k.repeat, self.k.pending, self.k.marker]
        args: list = [ms_arg("now", now), flag_arg("dedupe", dedupe)]
        for row in rows:
            if not isinstance(row, (tuple, list)) or len(row) != 6:
                raise InputError(f"row {row!r} is refused: use (name, slot, next, job id, label, template)", "rows")
            name, slot, nxt, job_id, label, template = row
            record = self.k.record(name_arg("name", name))
            keys += [record, record if job_id == ADVANCE_ONLY else self.k.job(text_arg("job id", job_id))]
            args += [name, ms_arg("slot", slot), score_arg(nxt, "next score"), job_id, ms_arg("label", label),
                     text_arg("template", template)]
        out = self._run("fire", keys, args)
        results = [Fired(row[0], FIRE[code]) for row, code in zip(rows, out[2:2 + len(rows)])]
        self.answers.update("fire " + r.result for r in results)
        for r in results:
            if r.result == "fired":
                self._made(r.name)
            elif r.result in ("absent", "stale"):
                self.forget(r.name)
        self.seen = (int(out[0]), parse_score(out[1]))
        return *self.seen, results

    def forward(self, name: str, slot: int, nxt: int | float, template: str,
                jobs: list[tuple[str, int, int, int | None]]) -> tuple[int, int | float]:
        """Many fires of the row `name` in one call (forward-4.lua): `jobs` are (job id, slot
        label, release instant, finish instant or None while it runs), each taken at once by a
        parked worker; `slot` is the row's score now, `nxt` its score after the last. The simulation calls it only where the
        event-by-event path would write the same; the answers it counts are the caller's.

        Returns (registry size, head score); a RuntimeError if the store is not as the
        simulation left it (nothing is written then)."""
        if not jobs:
            raise InputError("jobs [] is refused: use at least one (job id, label, release, finish)", "jobs")
        keys = [self.k.repeat, self.k.pending, self.k.marker, self.k.record(name_arg("name", name))]
        args: list = [name, ms_arg("slot", slot), score_arg(nxt, "next score"), text_arg("template", template)]
        labels, nows, ends = [], [], []
        for job in jobs:
            if not isinstance(job, (tuple, list)) or len(job) != 4:
                raise InputError(f"job {job!r} is refused: use (job id, label, release, finish)", "jobs")
            job_id, label, now, finished = job
            keys.append(self.k.job(name_arg("job id", job_id)))
            labels.append(ms_arg("label", label))
            nows.append(ms_arg("now", now))
            ends.append("-" if finished is None else ms_arg("finished", finished))
        out = self._run("forward", keys, args + [" ".join(labels), " ".join(nows), " ".join(ends)])
        if out == 0:
            raise RegistryChanged(self.k.repeat, None, None, f"the row {name!r}, its record, the pending list, the "
                                  "marker or a job to make is not as the run left it; nothing was written")
        self._made(name, len(jobs))
        self.seen = (int(out[0]), parse_score(out[1]))
        return self.seen

    def take(self, job_id: str, now: int, *, parked: bool) -> tuple[str, int | None, bool]:
        """A worker takes `job_id` ("" for none) at `now`; a parked one pops the marker first.

        Returns (answer, instant, again): ("taken", now, again), again being whether "0" went
        back on the marker because another job still waits; ("sleep", t, False) for a "1"
        popped at a later t; ("parked", None, False) when the marker was empty; or
        ("idle", None, False) when there was nothing to take."""
        args = [ms_arg("now", now), text_arg("job id", job_id), flag_arg("parked", parked)]
        keys = [self.k.marker, self.k.pending, self.k.job(job_id) if job_id else self.k.pending]
        out = self._run("take", keys, args)
        answer = TAKE[int(out[0])]
        if answer == "taken":
            return answer, now, out[2] == 1
        return answer, (parse_score(out[1]) if answer == "sleep" else None), False

    def finish(self, done: list[tuple[str, int, int, str]], evict: list[str] = ()) -> int:
        """Workers finished (job id, started, finished, "done"|"cancelled"): off pending, state
        set; `evict` deleted."""
        if not isinstance(done, (list, tuple)) or not isinstance(evict, (list, tuple)):
            raise InputError(f"done {done!r} and evict {evict!r} must be lists", "done")
        args: list = [len(done)]
        for row in done:
            if not isinstance(row, (tuple, list)) or len(row) != 4:
                raise InputError(f"finished job {row!r} is refused: use (job id, started, finished, state)", "done")
            job_id, started, finished, state = row
            if state not in END_STATES:
                raise InputError(f"state {state!r} is refused: use one of {', '.join(END_STATES)}", "state")
            args += [name_arg("job id", job_id), ms_arg("started", started), ms_arg("finished", finished), state]
        evict = list(evict)
        for job_id in evict:
            name_arg("evicted job id", job_id)
        keys = [self.k.pending] + [self.k.job(j) for j, *_ in done] + [self.k.job(j) for j in evict]
        return self._run("finish", keys, args)

    # -- reads for figures and tests ------------------------------------------------------

    def peek(self) -> tuple[int, int | float]:
        """(registry size, earliest score) in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        pipe.zcard(self.k.repeat)
        pipe.zrange(self.k.repeat, 0, 0, withscores=True)
        size, head = pipe.execute()
        return size, (parse_score(head[0][1]) if head else INF)

    def rows(self) -> list[tuple[str, int | float]]:
        """The whole registry, earliest first: what ZRANGE ... WITHSCORES shows."""
        return [(m.decode(), parse_score(s)) for m, s in self.client.zrange(self.k.repeat, 0, -1, withscores=True)]

    def record(self, name: str) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.client.hgetall(self.k.record(name)).items()}

    def score(self, name: str) -> int | float | None:
        raw = self.client.zscore(self.k.repeat, name_arg("name", name))
        return None if raw is None else parse_score(raw)

    def size(self) -> int:
        return self.client.zcard(self.k.repeat)

    def marker(self) -> list[tuple[str, int]]:
        """The wake marker, head first: [("0", 0)] while a job is ready, [] when empty."""
        return [(m.decode(), parse_score(s)) for m, s in self.client.zrange(self.k.marker, 0, -1, withscores=True)]

    def job(self, job_id: str) -> dict[str, str]:
        return {k.decode(): v.decode() for k, v in self.client.hgetall(self.k.job(job_id)).items()}

    def pending(self) -> list[str]:
        return [j.decode() for j in self.client.lrange(self.k.pending, 0, -1)]


def _phase(schedule: Schedule, first: int) -> int | None:
    c = schedule.cadence
    return c.phase(first) if hasattr(c, "phase") else None


def _flat(record: dict[str, str]) -> list[str]:
    return [x for kv in record.items() for x in kv]
