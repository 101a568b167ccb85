"""BullMQ 6.7.0's job-scheduler path driven from Python, through its own scripts.

Each verb builds the scripts' KEYS and ARGV as the 6.7.0 client does (the lines named are
those of npm bullmq 6.7.0's `dist/cjs/classes/`), with `now` an argument where the client
reads `Date.now()`:

- `upsert`: `Queue.upsertJobScheduler` (queue.js 244-252), `JobScheduler.upsertJobScheduler`
  with `override: true` (job-scheduler.js 77-175: the limit and end-date checks, cron's next
  run by `defaultRepeatStrategy` 297-314, `getNextJobOpts` 176-194), then `addJobScheduler-11`
  (redis-queue-backend.js 619-656). For `every` the client's nextMillis is undefined, sent as
  '' (ioredis `toArg`), and the script computes the run itself.
- `take`: a worker's `getNextJob` (worker.js 355-395) calls `moveToActive-11`
  (redis-queue-backend.js 1387-1416); for a job of a scheduler, `nextJobFromJobData`
  (worker.js 522-556) upserts the scheduler again with `override: false` and the taken job as
  producer, which is `updateJobScheduler-12` (redis-queue-backend.js 657-686).
- `finish`: `job.moveToCompleted` (job.js 419-436, redis-queue-backend.js 1674-1685) is
  `moveToFinished-14` with the arguments of `moveToFinishedArgs` (redis-queue-backend.js 790-838).
- `scheduler`: `getJobScheduler-1` (redis-queue-backend.js 1228-1236, job-scheduler.js 206-269).
- `remove`: `removeJobScheduler-3` (redis-queue-backend.js 687-693).

Made, it writes what a new `Queue` writes (its meta fields), so every key it leaves is the
real BullMQ's (tests/test_bullmq_scripts_driver.py compares them all where Node is there).

Cron's next run comes from the engine's port of cron-parser (`cron_parser.next_after`), as
bullmq's comes from cron-parser. The scripts' text is checked (`package.read`) before a
client is touched, so a missing or changed package writes nothing.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass

from ..cron_parser import GaveUp, next_after
from ..errors import InputError, whole
from . import package, runtime
from .packing import UNDEFINED, pack

#: the queue's keys (queue-keys.js 8-34)
KEY_TYPES = ("", "active", "wait", "waiting-children", "paused", "id", "delayed", "prioritized", "stalled-check",
             "completed", "failed", "stalled", "repeat", "limiter", "meta", "events", "pc", "marker", "de")
LOCK_DURATION = 30_000      # Worker's default (worker.js 43)
MAX_LEN_EVENTS = 10_000     # Queue's default events stream length (queue.js 80)
TOKEN = "emqsim-worker"
#: the stored short option names and the client's long ones (utils/index.js 112-119)
OPTS_DECODE = {"de": "deduplication", "fpof": "failParentOnFailure", "cpof": "continueParentOnFailure",
               "idof": "ignoreDependencyOnFailure", "kl": "keepLogs", "rdof": "removeDependencyOnFailure"}
OPTS_ENCODE = {v: k for k, v in OPTS_DECODE.items()}
#: UNDEFINED (packing's) is a JS `undefined`: dropped where JS drops it, nil where msgpackr packs it


@dataclass(frozen=True)
class Job:
    """A job a worker took: its id, hash fields as read, and its decoded options."""

    id: str
    name: str
    data: str
    timestamp: int
    opts: dict
    repeat_key: str | None
    #: the id of the scheduler's next job the take made (updateJobScheduler-12's reply), None
    #: where it made none: `take` fills it in; a job read otherwise leaves it None
    made: str | None = None


def _arg(v) -> str:
    """ioredis's `toArg` (utils/index.js 165-170): null and undefined are '', numbers as JS
    writes them."""
    if v is None or v is UNDEFINED:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e21:
            return str(int(v))
        return "NaN" if math.isnan(v) else repr(v)
    return str(v)


def _text(value, what: str) -> str:
    if isinstance(value, str) and value:
        return value
    raise InputError(f"{what} {value!r} must be non-empty text", what)


def _json_text(data) -> str:
    """`JSON.stringify(data)` as the client sends a job's data, for what JSON can hold: dicts with
    text keys, lists, text, finite numbers, booleans and None. Anything else is one line (a
    set, an object, NaN or an infinity, which JSON.stringify would write as null or refuse)."""
    try:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        found = "NaN or an infinity" if isinstance(exc, ValueError) else type(_unwritable(data)).__name__
        raise InputError(f"data {_short(data)} holds {found}, which JSON cannot write; expected dicts, lists, "
                         "text, finite numbers, booleans and None", "data") from None


def _unwritable(v):
    """The first value inside `v` that JSON cannot write (for the refusal's words)."""
    if isinstance(v, dict):
        for k, x in v.items():
            if not isinstance(k, (str, int, float, bool)) and k is not None:
                return k
            bad = _unwritable(x)
            if bad is not None:
                return bad
        return None
    if isinstance(v, (list, tuple)):
        return next((b for b in map(_unwritable, v) if b is not None), None)
    if v is None or isinstance(v, (str, int, float, bool)):
        return None
    return v


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _opts_as_json(opts: dict) -> dict:
    """`optsAsJSON` (redis-queue-backend.js 2109-2137): undefined dropped, long names shortened."""
    out = {}
    for k, v in opts.items():
        if v is UNDEFINED:
            continue
        if k in OPTS_ENCODE:
            out[OPTS_ENCODE[k]] = v
        elif k == "telemetry":
            if v.get("metadata", UNDEFINED) is not UNDEFINED:
                out["tm"] = v["metadata"]
            if v.get("omitContext", UNDEFINED) is not UNDEFINED:
                out["omc"] = v["omitContext"]
        else:
            out[k] = v
    return out


def _js_add(*terms):
    """JS `+` over numbers, undefined (NaN) and null (0)."""
    total = 0
    for t in terms:
        if t is UNDEFINED:
            return math.nan
        total += 0 if t is None else t
    return total


#: the stored job fields `take` and `finish` read
CHECKED_FIELDS = ("opts", "data", "name", "timestamp", "rjk", "parentKey", "parent")
CHECKED_RAW = tuple(f.encode() for f in CHECKED_FIELDS)
#: a scheduler's repeat options the client reads at a pickup, and what each must be in JSON
REPEAT_NUMBERS = ("every", "offset", "count", "limit", "startDate", "endDate")
REPEAT_TEXTS = ("pattern", "tz")


def _job_fields(job_id: bytes, raw: list, known: tuple | None = None) -> tuple[dict, dict]:
    """A taken job's hash (HGETALL's flat list) as text, and its options decoded, as the 6.7.0
    client reads them (`Job.fromJSON`, job.js 99-140): the fields read UTF-8 text, `opts` JSON text
    of an object whose `repeat` is an object of numbers and text, `data` JSON text,
    `timestamp` a number. Anything else is one InputError naming the job, the field, what was
    found and what is expected. `known`: (opts, data, timestamp, the options decoded) as this
    function read them a moment before (the check before a take); when the three texts are the
    same, they are not read again."""
    name = job_id.decode("utf-8", "replace") if isinstance(job_id, bytes) else str(job_id)
    fields = {}
    for i in range(0, len(raw), 2):
        key, value = raw[i], raw[i + 1]
        key = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
        if not isinstance(value, bytes):
            fields[key] = value
        elif key in CHECKED_FIELDS:
            try:
                fields[key] = value.decode()
            except UnicodeDecodeError:
                _corrupt(name, key, value, "UTF-8 text")
        else:   # a field the driver does not read (processedOn, returnvalue, ...)
            fields[key] = value.decode("utf-8", "replace")
    if known is not None and known[:3] == (fields.get("opts"), fields.get("data"), fields.get("timestamp")):
        return fields, known[3]
    return fields, _checked_texts(name, fields)


def _checked_texts(name: str, fields: dict) -> dict:
    """`_job_fields`' reading of a job's opts, data and timestamp: the options decoded."""
    try:
        stored = json.loads(fields.get("opts") or "{}")
    except ValueError:
        _corrupt(name, "opts", fields["opts"], "the JSON text of an object (the job's options)")
    if not isinstance(stored, dict):
        _corrupt(name, "opts", fields["opts"], "the JSON text of an object (the job's options)")
    if not _number_or_none(stored.get("prevMillis")) or not isinstance(stored.get("telemetry", {}), dict):
        _corrupt(name, "opts", fields["opts"], "options whose prevMillis is a number and telemetry an object")
    repeat = stored.get("repeat")
    if repeat is not None:
        bad = not isinstance(repeat, dict) or not all(_number_or_none(repeat.get(f)) for f in REPEAT_NUMBERS) \
            or any(repeat.get(f) is not None and not isinstance(repeat[f], str) for f in REPEAT_TEXTS)
        if bad:
            _corrupt(name, "opts", fields["opts"], "options whose repeat is an object of numbers "
                     f"({', '.join(REPEAT_NUMBERS)}) and text ({', '.join(REPEAT_TEXTS)})")
    try:
        json.loads(fields.get("data") or "{}")
    except ValueError:
        _corrupt(name, "data", fields["data"], "JSON text (the job's data, as JSON.stringify wrote it)")
    try:
        ok = math.isfinite(float(fields.get("timestamp", 0)))
    except ValueError:
        ok = False
    if not ok:
        _corrupt(name, "timestamp", fields["timestamp"], "a number (ms since 1970)")
    return stored


def _parent_fields(job: str, found: list) -> None:
    """moveToFinished-14 reads a job's `parent` with cjson.decode and takes the parent's id from
    `parentKey` (its lines 926-962) after it has released the lock: a value it cannot read there
    fails the script half done. So, before it runs: `parent`, when stored, JSON text of an
    object whose id and queueKey are text, and `parentKey` a key ending ':' and an id."""
    key, parent = (v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in found)
    if parent is not None:
        try:
            got = json.loads(parent)
        except ValueError:
            got = None
        if not (isinstance(got, dict) and isinstance(got.get("id"), str) and isinstance(got.get("queueKey"), str)):
            _corrupt(job, "parent", found[1], "the JSON text of an object whose id and queueKey are text")
    elif key is not None and key and (":" not in key or key.endswith(":")):
        _corrupt(job, "parentKey", found[0], "a job's key (the queue's prefix, ':', the job's id)")


def _number_or_none(v) -> bool:
    """A JSON number (finite, not a boolean) or null."""
    return v is None or (not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v))


def _corrupt(job: str, field: str, found, expected: str):
    raise InputError(f"BullMQ job {job!r}: its stored {field} is {_short(found)}; expected {expected}", field)


def _returned(value) -> str:
    """`JSON.stringify(returnvalue)` as the client sends it: the text kept for a text value (the
    same at every pickup); json.dumps for anything else."""
    if type(value) is str:
        return _returned_text(value)
    return json.dumps(value)


@functools.lru_cache(maxsize=64)
def _returned_text(value: str) -> str:
    return json.dumps(value)


@functools.lru_cache(maxsize=64)
def _worker_opts(token: str) -> bytes:
    """moveToActive-11's packed options (redis-queue-backend.js 1387-1416): the same for every take
    of one worker, so packed once."""
    return pack({"token": token, "lockDuration": LOCK_DURATION, "limiter": None, "name": None})


def _finish_opts(token: str, attempts, fpof: bool, cpof: bool, idof: bool, rdof: bool) -> bytes:
    """moveToFinished-14's packed options (redis-queue-backend.js 790-838), packed once for each
    worker and job option set (a list or dict as attempts, which cannot be a key, each time)."""
    try:
        return _finish_packed(token, attempts, fpof, cpof, idof, rdof)
    except TypeError:
        return _finish_packed.__wrapped__(token, attempts, fpof, cpof, idof, rdof)


@functools.lru_cache(maxsize=256)
def _finish_packed(token, attempts, fpof, cpof, idof, rdof) -> bytes:
    return pack({"token": token, "name": None, "keepJobs": {"count": -1}, "limiter": None,
                 "lockDuration": LOCK_DURATION, "attempts": attempts, "maxMetricsSize": "",
                 "fpof": fpof, "cpof": cpof, "idof": idof, "rdof": rdof})


class BullMQScripts:
    """One BullMQ queue on `client` (default: a new embedded fakeredis with the project's
    cmsgpack and cjson), driven through BullMQ 6.7.0's own scripts."""

    def __init__(self, client=None, *, queue: str = "emqsim", prefix: str = "bull", distribution=None):
        texts = package.read(distribution=distribution)      # refused here, before any write
        if not isinstance(queue, str) or not queue or not isinstance(prefix, str) or not prefix:
            raise InputError(f"queue {queue!r} and prefix {prefix!r} must be non-empty text", "queue")
        self.client = client if client is not None else runtime.embedded()
        self.texts = texts
        from ..fakelua import runner

        # on the embedded server, each script called without redis-py's command path (fakelua.runner)
        self._scripts = {name.rsplit("-", 1)[0]: runner(self.client, text) or self.client.register_script(text)
                         for name, text in texts.items()}
        # the runner's own entry for fields already encoded (None where redis-py's script object runs)
        self._raw = {name: getattr(f, "raw", None) for name, f in self._scripts.items()}
        self._field = getattr(self._scripts["moveToActive"], "field", None)
        from .. import fastcalls
        from ..fakelua import reader

        self._read, self._miss = reader(self.client), fastcalls.MISS   # the check's reads, on the embedded server
        self._checked: dict = {}      # the check before a take: what it read of each job, by id
        self._data_texts: dict = {}   # a job's stored data text -> the text the client sends on
        self.prefix = prefix
        self.queue = queue
        self.keys = {t: f"{prefix}:{queue}:{t}" for t in KEY_TYPES}
        self._raw_keys = {t: v.encode() for t, v in self.keys.items()}
        if self._field is not None:   # each script's fixed KEYS, encoded once
            f, k = self._field, self.keys
            self._fixed = {
                "moveToActive": [f(k[t]) for t in ("wait", "active", "prioritized", "events", "stalled", "limiter",
                                                   "delayed", "paused", "meta", "pc", "marker")],
                "updateJobScheduler": [f(k[t]) for t in ("repeat", "delayed", "wait", "paused", "meta", "prioritized",
                                                         "marker", "id", "events", "pc")],
                "moveToFinished": [f(k[t]) for t in ("wait", "active", "prioritized", "events", "stalled", "limiter",
                                                     "delayed", "paused", "meta", "pc", "completed")],
                "prefix": f(k[""]), "active": f(k["active"]), "marker": f(k["marker"]),
                "metrics": f(self.key("metrics:completed"))}
        # a new Queue writes its meta fields (queue.js 43-55 and 77-83, redis-queue-backend.js 1855-1858)
        self.client.hset(self.keys["meta"], mapping={"opts.maxLenEvents": MAX_LEN_EVENTS,
                                                     "version": f"bullmq:{package.NPM_RELEASE}"})

    def clear(self) -> None:
        """Delete every key of this queue and write what a new Queue writes: the same driver, its
        scripts loaded once, for another run from scratch."""
        c = self.client
        pattern = "".join("\\" + ch if ch in "[]*?\\" else ch for ch in self.keys[""]) + "*"
        doomed = list(c.scan_iter(match=pattern, count=1000))
        if doomed:
            c.delete(*doomed)
        c.hset(self.keys["meta"], mapping={"opts.maxLenEvents": MAX_LEN_EVENTS,
                                           "version": f"bullmq:{package.NPM_RELEASE}"})

    def key(self, name: str) -> str:
        return self.keys[""] + name

    def run(self, script: str, keys: list, args: list):
        """EVALSHA of the named script (EVAL when the server does not hold it yet)."""
        return self._scripts[script](keys=[k if type(k) is str else _arg(k) for k in keys],
                                     args=[a if type(a) is str or isinstance(a, bytes) else _arg(a) for a in args])

    def _run_fixed(self, script: str, extra_keys: list, args: list):
        """`run` of a script of the pickup path: its fixed KEYS (encoded once), then `extra_keys`
        (text), then `args`, handed to the runner as the fields it sends."""
        f = self._field
        values = self._fixed[script] + [f(k) for k in extra_keys]
        numkeys = len(values)
        values += [f(a if type(a) is str or isinstance(a, bytes) else _arg(a)) for a in args]
        return self._raw[script](numkeys, values)

    # -- the producer --------------------------------------------------------------------------

    def upsert(self, scheduler_id: str, now: int, *, every: int | None = None, pattern: str | None = None,
               tz: str | None = None, offset: int | None = None, start: int | None = None, end: int | None = None,
               limit: int | None = None, name: str = "job", data=None):
        """Queue.upsertJobScheduler at `now`: the id of the job it made, or None when the client
        makes none (a limit reached, an end date past, cron-parser giving up)."""
        _text(scheduler_id, "scheduler_id")
        _text(name, "name")
        now = whole(now, "now", low=0, what="a time in ms since 1970")
        if (every is None) == (pattern is None):
            raise InputError(f"every {every!r} and pattern {pattern!r}: give exactly one of them", "every")
        if every is not None:
            every = whole(every, "every", low=1, what="a period in ms")
        if pattern is not None:
            _text(pattern, "pattern")
            from ..cron_parser import parse

            parse(pattern)                                 # cron-parser's refusals, in its words
        if tz is not None:
            from ..timefmt import zone

            zone(tz)
        for what, v in (("offset", offset), ("start", start), ("end", end), ("limit", limit)):
            if v is not None:
                whole(v, what, low=0, what="a whole number of ms" if what != "limit" else "a count")
        if end is not None and end < now:                  # queue.js 246-249
            raise InputError(f"end {end} is before now {now}: bullmq refuses it", "end")
        repeat = {}
        for k, v in (("every", every), ("offset", offset), ("pattern", pattern), ("tz", tz), ("startDate", start),
                     ("limit", limit), ("endDate", end)):
            if v is not None:
                repeat[k] = v
        data = {} if data is None else data
        _json_text(data)                                  # refused here, before any write
        return self._upsert(scheduler_id, repeat, name, data, {}, now, override=True, producer=None)

    def _upsert(self, sid: str, repeat: dict, name: str, data, opts: dict, now: int, *, override: bool,
                producer: str | None, stored_data: str | None = None):
        """JobScheduler.upsertJobScheduler (job-scheduler.js 77-175); `stored_data`, when given, is
        the data as a job stored it (JSON text; then `data` is not read)."""
        every, limit, pattern, offset = (repeat.get(k) for k in ("every", "limit", "pattern", "offset"))
        count = repeat.get("count")
        iteration = count + 1 if count else 1                               # line 95
        if limit is not None and iteration > limit:                          # lines 96-99
            return None
        end = repeat.get("endDate")
        if end and now > end:                                                # lines 101-105
            return None
        prev = opts.get("prevMillis") or 0
        clock = now if prev < now else prev                                  # lines 106-107
        filtered = {k: v for k, v in repeat.items() if k != "immediately"}
        next_millis = UNDEFINED
        new_offset = offset if every and offset else None                    # line 111
        if pattern:                                                          # lines 112-117
            next_millis = self._cron_next(clock, repeat)
            if next_millis is not UNDEFINED and next_millis < clock:
                next_millis = clock
        if not ((next_millis is not UNDEFINED and next_millis) or every):    # line 118
            return None
        merged = self._next_job_opts(next_millis, sid, {**opts, "repeat": filtered,
                                                        "telemetry": opts.get("telemetry", UNDEFINED)},
                                     iteration, new_offset, now)
        data_text = _json_text(data) if stored_data is None else self._data_text(stored_data)
        k = self.keys
        if override:                                                         # lines 134-160
            if next_millis is not UNDEFINED and next_millis < clock:
                next_millis = clock
            scheduler_opts = {"name": name, "startDate": repeat.get("startDate", UNDEFINED),
                              "endDate": end if end else UNDEFINED, "tz": repeat.get("tz", UNDEFINED),
                              "pattern": pattern if pattern is not None else UNDEFINED,
                              "every": every if every is not None else UNDEFINED,
                              "limit": limit if limit is not None else UNDEFINED, "offset": new_offset}
            reply = self.run("addJobScheduler",                              # redis-queue-backend.js 619-656
                             [k["repeat"], k["delayed"], k["wait"], k["paused"], k["meta"], k["prioritized"],
                              k["marker"], k["id"], k["events"], k["pc"], k["active"]],
                             [next_millis, pack(scheduler_opts), sid, data_text,
                              pack(_opts_as_json(opts)), pack(_opts_as_json(merged)), now,
                              k[""], self.key(producer) if producer else ""])
            if isinstance(reply, int) and reply < 0:
                raise InputError(f"addJobScheduler-11 answered {reply} for scheduler {sid!r}", "scheduler_id")
            return reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
        args = [next_millis, sid, data_text, pack(_opts_as_json(merged)), now, k[""], producer]
        if self._field is not None:
            reply = self._run_fixed("updateJobScheduler", [self.key(producer) if producer else "", k["active"]], args)
        else:
            reply = self.run("updateJobScheduler",                           # redis-queue-backend.js 657-686
                             [k["repeat"], k["delayed"], k["wait"], k["paused"], k["meta"], k["prioritized"],
                              k["marker"], k["id"], k["events"], k["pc"], self.key(producer) if producer else "",
                              k["active"]], args)
        return reply.decode() if isinstance(reply, bytes) else reply

    @staticmethod
    def _cron_next(clock: int, repeat: dict):
        """`defaultRepeatStrategy` (job-scheduler.js 297-314): cron-parser from the later of the
        start date and `clock`, one `next()`; its errors (the loop limit, past the end date) are
        swallowed and there is no next run."""
        start = repeat.get("startDate")
        current = start if start is not None and start > clock else clock
        try:
            t = next_after(repeat["pattern"], repeat.get("tz") or "UTC", current)
        except GaveUp:
            return UNDEFINED
        end = repeat.get("endDate")
        if end is not None and t > end:
            return UNDEFINED
        return t

    @staticmethod
    def _next_job_opts(next_millis, sid: str, opts: dict, count: int, offset, now: int) -> dict:
        """`getNextJobOpts` (job-scheduler.js 176-194)."""
        job_id = f"repeat:{sid}:{'undefined' if next_millis is UNDEFINED else _arg(next_millis)}"
        delay = _js_add(next_millis, offset, -now)
        merged = {**opts, "jobId": job_id, "delay": 0 if delay < 0 else delay, "timestamp": now,
                  "prevMillis": next_millis, "repeatJobKey": sid}
        rep = dict(opts.get("repeat") or {})
        rep.update({"offset": offset, "count": count,
                    "startDate": rep["startDate"] if rep.get("startDate") else UNDEFINED,
                    "endDate": rep["endDate"] if rep.get("endDate") else UNDEFINED})
        merged["repeat"] = rep
        return merged

    # -- the worker ----------------------------------------------------------------------------

    def take(self, now: int, token: str = TOKEN) -> Job | None:
        """A worker's `getNextJob(token, {block: false})` at `now`: moveToActive-11, then, for a
        scheduler's job, the scheduler's next job (updateJobScheduler-12). None: nothing due."""
        now = whole(now, "now", low=0, what="a time in ms since 1970")
        _text(token, "token")
        k = self.keys
        self._check_candidates(now)                                          # refused here, before any write
        if self._field is not None:
            f = self._fixed
            reply = self._raw["moveToActive"](11, f["moveToActive"] + [f["prefix"], str(now).encode(),
                                                                       _worker_opts(token)])
        else:
            reply = self.run("moveToActive",                                 # redis-queue-backend.js 1387-1416
                             [k["wait"], k["active"], k["prioritized"], k["events"], k["stalled"], k["limiter"],
                              k["delayed"], k["paused"], k["meta"], k["pc"], k["marker"]],
                             [k[""], now, _worker_opts(token)])
        raw, job_id = reply[0], reply[1]
        checked, self._checked = self._checked, {}
        if not raw:
            return None
        fields, stored = _job_fields(job_id, raw, checked.get(job_id))
        # optsFromJSON (redis-queue-backend.js 2044-2067), then the Job constructor (job.js 85-93):
        # attempts first, repeatJobKey taken out of opts, backoff set (undefined) at the end;
        # the key order is kept because it is the order the options are packed and stored in
        opts = {"attempts": 0}
        opts.update({OPTS_DECODE.get(key, key): v for key, v in stored.items() if key != "repeatJobKey"})
        opts["backoff"] = opts.get("backoff", UNDEFINED)
        taken, name, data, rjk = job_id.decode(), fields.get("name", ""), fields.get("data", "{}"), fields.get("rjk")
        made = self._chain(rjk, opts, name, data, taken, now) if rjk else None              # worker.js 541-554
        return Job(id=taken, name=name, data=data, timestamp=int(float(fields.get("timestamp", 0))), opts=opts,
                   repeat_key=rjk, made=made)

    def _chain(self, rjk: str, opts: dict, name: str, data: str, producer: str, now: int) -> str | None:
        """The worker's upsert for a scheduler's job it took (worker.js 541-554, `override: false`,
        the job as producer): updateJobScheduler-12's reply, the next job's id or None."""
        return self._upsert(rjk, dict(opts.get("repeat") or {}), name, None, opts, now,
                            override=False, producer=producer, stored_data=data)

    def update(self, job: Job, now: int) -> str | None:
        """The worker's upsert at pickup run again at `now` for `job`, already taken: the Worker
        wraps it in `retryIfFailed` (worker.js 534-556; the retry loop 955-993), which calls it
        again after a connection error, when the first call may have written already. That is
        `upsertJobScheduler(..., {override: false, producerId: job.id})` (job-scheduler.js
        77-175), updateJobScheduler-12 (redis-queue-backend.js 657-686). The id of the job it
        made, or None where it made none (the script's nil reply: the scheduler gone, the row
        moved past the job's slot, or its next job already there; or the client made no call)."""
        if not isinstance(job, Job):
            raise InputError(f"job {_short(job)} must be a Job that take() returned", "job")
        now = whole(now, "now", low=0, what="a time in ms since 1970")
        if not job.repeat_key:
            raise InputError(f"job {job.id!r} has no job scheduler (no rjk field): nothing to upsert", "job")
        return self._chain(job.repeat_key, job.opts, job.name, job.data, job.id, now)

    def _data_text(self, stored: str) -> str:
        """A job's stored data as the client sends it on (`JSON.stringify(JSON.parse(data))`), kept
        for each text seen (a scheduler's jobs carry the same data fire after fire)."""
        text = self._data_texts.get(stored)
        if text is None:
            if len(self._data_texts) > 64:
                self._data_texts.clear()
            text = self._data_texts[stored] = _json_text(json.loads(stored))
        return text

    def _check_candidates(self, now: int) -> None:
        """Every job moveToActive-11 may take at `now` read and checked as `take` and `finish` read
        it (the wait list's tail, the first prioritized job, the delayed jobs it promotes:
        promoteDelayedJobs' range), so a job whose stored fields cannot be read is refused before
        the script moves anything. On the embedded server the reads take no command
        (`fakelua.reader`); elsewhere they are two pipelines, no script (so neither a recording
        nor a count of the calls inside scripts sees them)."""
        k = self.keys
        top = (now + 1) * 0x1000 - 1
        got = self._read_candidates(str(top).encode()) if self._read is not None else None
        if got is None:   # a real server, or a read fakeredis's own path answers: two pipelines of reads
            pipe = self.client.pipeline(transaction=False)
            pipe.zrangebyscore(k["delayed"], 0, top, start=0, num=1000)
            pipe.lindex(k["wait"], -1)
            pipe.zrange(k["prioritized"], 0, 0)
            ids, last, first = pipe.execute()
            ids = list(ids) + ([last] if last is not None else []) + list(first)
            pipe = self.client.pipeline(transaction=False)
            for job_id in ids:
                pipe.hmget(k[""] + job_id.decode("utf-8", "replace"), *CHECKED_FIELDS)
            got = [x for job_id, fields in zip(ids, pipe.execute() if ids else []) for x in (job_id, *fields)]
        checked = self._checked = {}
        for i in range(0, len(got), 1 + len(CHECKED_FIELDS)):
            job_id, values = got[i], got[i + 1:i + 1 + len(CHECKED_FIELDS)]
            if any(v is not None for v in values):
                fields, stored = _job_fields(job_id, [x for f, v in zip(CHECKED_FIELDS, values) if v is not None
                                                      for x in (f, v)])
                _parent_fields(job_id.decode("utf-8", "replace"), values[-2:])
                checked[job_id] = (fields.get("opts"), fields.get("data"), fields.get("timestamp"), stored)

    def _read_candidates(self, top: bytes) -> list | None:
        """The candidates' ids, each followed by its CHECKED_FIELDS (None where absent), read from
        the embedded server's values (fakelua.reader); None where a read would take fakeredis's
        own path (then the pipelines ask)."""
        read, k, miss = self._read, self._raw_keys, self._miss
        ids = read("zrangebyscore", k["delayed"], b"0", top, b"LIMIT", b"0", b"1000")
        last = read("lindex", k["wait"], b"-1")
        first = read("zrange", k["prioritized"], b"0", b"0")
        if ids is miss or last is miss or first is miss:
            return None
        ids = ids + ([last] if last is not None else []) + first
        out = []
        for job_id in ids:
            fields = read("hmget", k[""] + job_id, *CHECKED_RAW)
            if fields is miss:
                return None
            out += [job_id, *fields]
        return out

    def finish(self, job: Job, now: int, token: str = TOKEN, value="done") -> None:
        """`job.moveToCompleted(value, token, false)` at `now`: moveToFinished-14."""
        _parent_fields(job.id, self.client.hmget(self.key(job.id), "parentKey", "parent"))   # before any write
        self._finish(job, now, token, value)

    def _finish(self, job: Job, now: int, token: str = TOKEN, value="done") -> None:
        """moveToFinished-14, the job's parent fields already checked (`finish`, or `take` just before)."""
        k = self.keys
        o = job.opts
        args = [job.id, now, "returnvalue", _returned(value), "completed", 0, k[""],
                _finish_opts(token, o.get("attempts"), bool(o.get("failParentOnFailure")),
                             bool(o.get("continueParentOnFailure")), bool(o.get("ignoreDependencyOnFailure")),
                             bool(o.get("removeDependencyOnFailure"))),
                ""]
        if self._field is not None:
            f = self._field
            values = self._fixed["moveToFinished"] + [f(self.key(job.id)), self._fixed["metrics"],
                                                      self._fixed["marker"]]
            values += [f(a if type(a) is str or isinstance(a, bytes) else _arg(a)) for a in args]
            self._raw["moveToFinished"](14, values)
            return
        self.run("moveToFinished",                                           # redis-queue-backend.js 790-838
                 [k["wait"], k["active"], k["prioritized"], k["events"], k["stalled"], k["limiter"], k["delayed"],
                  k["paused"], k["meta"], k["pc"], k["completed"], self.key(job.id), self.key("metrics:completed"),
                  k["marker"]], args)

    def pickup(self, now: int) -> Job | None:
        """What the course's oracle does at a pickup (tests/oracles/bullmq.mjs): take one job and
        complete it at once."""
        job = self.take(now)
        if job is not None:
            self._finish(job, now)   # its parent fields were read with it, a moment ago
        return job

    # -- reading and removing --------------------------------------------------------------------

    def scheduler(self, sid: str) -> dict | None:
        """getJobScheduler-1: the scheduler's hash fields and its next run, or None."""
        reply = self.run("getJobScheduler", [self.keys["repeat"]], [sid])
        if len(reply) < 2:            # the script's {nil, nil} reaches the client as an empty array
            return None
        raw, score = reply
        fields = {raw[i].decode(): raw[i + 1].decode() for i in range(0, len(raw), 2)}
        return {"fields": fields, "next": int(score)}

    def remove(self, sid: str) -> bool:
        """removeJobScheduler-3: True when there was a scheduler to remove."""
        k = self.keys
        return self.run("removeJobScheduler", [k["repeat"], k["delayed"], k["events"]], [sid, k[""]]) == 0

    def state(self, sid: str = "s") -> dict:
        """The keys the course compares, as the oracle reports them (tests/oracles/bullmq.mjs)."""
        c, k = self.client, self.keys
        score = c.zscore(k["repeat"], sid)
        h = {a.decode(): b.decode() for a, b in c.hgetall(f"{k['repeat']}:{sid}").items()}

        def num(v):
            if v is None:
                return None
            try:
                f = float(v)
            except ValueError:
                return v
            return int(f) if f.is_integer() else f

        delayed = c.zrange(k["delayed"], 0, -1, withscores=True)
        return {"score": num(None if score is None else repr(score)), "offset": num(h.get("offset")),
                "ic": num(h.get("ic")), "every": num(h.get("every")), "pattern": h.get("pattern"),
                "delayed": [[m.decode(), int(s // 0x1000)] for m, s in delayed],
                "waiting": sorted(m.decode() for m in c.lrange(k["wait"], 0, -1))}
