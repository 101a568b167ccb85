"""Lessons 02 and 03, the keys as data: one schedule's scripts stepped a `redis.call` at a time.

A reader steps through one registration, one release of its first run and one finish, and
sees each call the script makes, on the line it stands on, with its reply and every key of
the queue after it: the registry's one member and its score, the record's fields, the job, the
list a worker takes from, the wake marker. What changed is marked. The steps are recorded once
on the embedded fakeredis (`emqsim.engine.steps`), so the frames are plain data the static site
walks without a kernel.

Two walks, one per design. The pump design's are this course's model scripts of EchoMQ
(`register`, `enqueue`, `advance`, `take`, `finish`; `advance` follows EchoMQ's `@advance`,
whose code has no licence and is not shipped). BullMQ's design's are BullMQ 6.7.0's own
scripts, unmodified, read from the installed package and driven as its client drives them
(`emqsim.engine.bullmq_scripts`): addJobScheduler-11, moveToActive-11 then
updateJobScheduler-12, moveToFinished-14. Without that package the walk runs this course's
model of them (`scheduler`, `activate`, `chain`, `finish`), and each step's role says "(model)".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..engine.cadence import Every
from ..engine.chain import BullMQ
from ..engine.ids import Minter
from ..engine.registry import Registry
from ..engine.schedule import Schedule
from ..engine.scripts import file_names, script_files
from ..engine.steps import Recording, recording
from ..engine.store import Store, embedded
from ..engine.timefmt import hms
from .course import MINUTE, NAME, START
from .model import Model, Play, choice, slider
from .questions import Challenge, question

#: the two walks: design -> its label
DESIGNS = {
    "pump": "the pump design (this course's model of EchoMQ)",
    "bullmq": "BullMQ's design (BullMQ 6.7.0's own scripts)",
}
#: each script, what it stands for in the system it models
ROLES = {
    "register": "EchoMQ.Repeat.register (model)", "enqueue": "a pump beat makes the job (model)",
    "advance": "a pump beat moves the row: @advance (model)", "take": "a worker takes the job (model)",
    "finish": "the worker finishes it (model)",
    "scheduler": "upsertJobScheduler (model)", "activate": "a worker's take (model)",
    "chain": "the next job, made at the take (model)",
    "addJobScheduler": "Queue.upsertJobScheduler", "moveToActive": "a worker takes the job",
    "updateJobScheduler": "the next job, made at the take", "moveToFinished": "the worker finishes the job",
}
#: BullMQ 6.7.0 scores a delayed job by its time x 4096 plus a counter
#: (dist/cjs/commands/includes/getDelayedScore.lua; the test reads it off the real script's ZADD)
DELAY_SHIFT = 12
#: lines of source shown around the lit one: desktop, phone
WINDOW = {"normal": 6, "narrow": 3}
#: a run's length in the walks: it finishes 4 min after it starts
RUN = 4 * MINUTE
#: Unix ms past this read as times of day in the keys (the course's day and later)
TIMES_FROM = START - 30 * 24 * 60 * MINUTE


@dataclass(frozen=True)
class Entry:
    """One member, field or item of a key as drawn: its name, its value, whether it changed."""

    name: str
    value: str
    changed: bool


@dataclass(frozen=True)
class KeyView:
    """One key after the step: its name, type, entries, and what happened to it."""

    key: str
    kind: str
    entries: tuple[Entry, ...]
    state: str          # "same", "changed", "new", "deleted"


@dataclass(frozen=True)
class StepFrame:
    design: str
    step: int
    total: int
    script: str                 # the verb file, e.g. "advance-2.lua"
    role: str
    source: tuple[tuple[int, str], ...]   # the whole script, numbered
    lit: int                    # its line of this call (0 before the first)
    command: str
    reply: str
    keys: tuple[KeyView, ...]
    change: str                 # the change in words
    registry: int               # members of the registry after the step
    title: str
    readout: str


def _when(value: str) -> str:
    """A score or field as shown: Unix ms of the course's era get their time of day, and a
    delayed job's score (its time x 4096) its time."""
    if not value.isdigit():
        return value
    ms = int(value)
    if TIMES_FROM <= ms >> DELAY_SHIFT < TIMES_FROM * 2:
        return f"{value} ({hms(ms >> DELAY_SHIFT)} x 4096)"
    return f"{value} ({hms(ms)})" if TIMES_FROM <= ms < TIMES_FROM * 2 else value


def _entries(kind: str, value) -> list[tuple[str, str]]:
    if kind in ("zset", "hash"):
        return [(m, v) for m, v in value]
    if kind in ("list", "set"):
        return [(f"[{i}]", v) for i, v in enumerate(value)]
    if kind == "stream":
        return [("entries", str(value))]
    return [("", str(value))]


@functools.lru_cache(maxsize=4)
def walk(design: str) -> tuple[Recording, str]:
    """Record the walk of `design` on a server of its own: (the recording, whose scripts ran:
    "model" or "bullmq 6.7.0")."""
    if design == "bullmq":
        from ..engine.bullmq_scripts import package
        from .bullmq_lane import missing

        if missing() is None:          # the one rule of every BullMQ lane (`bullmq_lane`)
            return _bullmq_walk(), f"bullmq {package.NPM_RELEASE}"
    # always the embedded server, whatever EMQSIM_REDIS_URL says: only it can be watched
    with Store(client=embedded()) as store:
        files = file_names()
        labels = {store.scripts.source(v): files[v] for v in script_files()}
        schedule = Schedule(NAME, Every(15 * MINUTE))
        with recording(store.client, store.keys.pattern, labels) as rec:
            if design == "pump":
                reg = Registry(store)
                reg.register(schedule, START)
                job = Minter().mint(START)
                reg.enqueue(job, NAME, START, START)
                reg.advance(NAME, START + 15 * MINUTE, made=True)
                reg.take(job, START, parked=True)
                reg.finish([(job, START, START + RUN, "done")])
            else:
                bull = BullMQ(store)
                bull.upsert(schedule, START)
                taken = bull.pickup(START)
                bull.finish([(taken.job_id, START, START + RUN, "done")])
    return rec, "model"


def _bullmq_walk() -> Recording:
    """BullMQ 6.7.0's own scripts: the upsert, a worker's take (and the next job made then),
    the finish, as its client calls them."""
    from ..engine.bullmq_scripts import runtime
    from ..engine.bullmq_scripts.driver import BullMQScripts

    client = runtime.embedded()
    try:
        bull = BullMQScripts(client, queue="demo")
        labels = dict((text, name) for name, text in bull.texts.items())
        with recording(client, "bull:demo:*", labels) as rec:
            bull.upsert(NAME, START, every=15 * MINUTE)
            job = bull.take(START)
            bull.finish(job, START + RUN)
    finally:
        client.close()
    return rec


def _key_views(before: dict, after: dict) -> tuple[tuple[KeyView, ...], list[str]]:
    """The keys after a step, each entry marked if it changed, and the changes in words."""
    views, words = [], []
    for key in sorted(set(before) | set(after)):
        old, new = before.get(key), after.get(key)
        if new is None:
            views.append(KeyView(key, old[0], (), "deleted"))
            words.append(f"{key} deleted")
            continue
        kind = new[0]
        was = dict(_entries(*old)) if old is not None and old[0] == kind else {}
        entries = tuple(Entry(n, _when(v), old is None or was.get(n) != v) for n, v in _entries(*new))
        gone = [n for n in was if n not in dict(_entries(*new))]
        state = "new" if old is None else ("changed" if old != new else "same")
        views.append(KeyView(key, kind, entries, state))
        if state == "new":
            words.append(f"{key} made ({_size(kind, entries)})")
        elif state == "changed":
            parts = [f"{e.name or 'value'} {'added' if e.name not in was else 'now'} {e.value}"
                     for e in entries if e.changed][:3]
            parts += [f"{n} removed" for n in gone][:2]
            words.append(f"{key}: " + ", ".join(parts) if parts else f"{key} changed")
    return tuple(views), words


def _size(kind: str, entries) -> str:
    n = len(entries)
    unit = {"zset": "member", "hash": "field", "list": "item", "set": "member"}.get(kind)
    return f"{n} {unit}{'s' if n != 1 else ''}" if unit else kind


def _reply(call) -> str:
    if call.error:
        return f"error: {call.error}"
    if call.command[0].upper() == "XADD":   # the entry's id: fakeredis takes it from the wall clock
        return "(a new stream entry's id)"
    r = call.reply

    def one(v) -> str:
        return "nil" if v is None or v is False else str(v)

    if isinstance(r, dict):
        return next(iter(r.values()))
    if isinstance(r, list):
        return "[" + ", ".join(one(v) for v in r[:4]) + (", ..." if len(r) > 4 else "") + "]"
    return one(r)


@functools.lru_cache(maxsize=4)
def frames(design: str) -> tuple[StepFrame, ...]:
    """Every step of the walk of `design`: step 0 the keys before, then one per `redis.call`."""
    rec, _ = walk(design)
    out = []
    previous = rec.before
    total = len(rec.calls)
    registry_key = next((k for k in _all_keys(rec) if k.endswith(":repeat")), None)
    first = rec.scripts[0][0]
    numbered = {label: tuple(enumerate(src.splitlines(), 1)) for label, src in rec.scripts}
    views, _ = _key_views({}, rec.before)
    out.append(_frame(design, 0, total, first, numbered[first], 0, "", "", views,
                      "before the first script: no key of the queue yet" if not rec.before else "before the first script",
                      _members(rec.before, registry_key)))
    for k, call in enumerate(rec.calls, 1):
        views, words = _key_views(previous, call.keys)
        change = "; ".join(words) if words else "no key changed"
        out.append(_frame(design, k, total, call.script, numbered[call.script], call.line, " ".join(call.command),
                          _reply(call), views, change, _members(call.keys, registry_key)))
        previous = call.keys
    return tuple(out)


def _all_keys(rec: Recording) -> list[str]:
    seen = dict.fromkeys(rec.before)
    for c in rec.calls:
        seen.update(dict.fromkeys(c.keys))
    return list(seen)


def _members(keys: dict, registry_key: str | None) -> int:
    if registry_key is None or registry_key not in keys:
        return 0
    return len(keys[registry_key][1])


def _frame(design, step, total, script, source, lit, command, reply, views, change, registry) -> StepFrame:
    verb = script.rsplit("-", 1)[0]
    role = ROLES.get(verb, "")
    title = (f"Step {step} of {total}: {script} line {lit}, {role}" if step
             else f"Step 0 of {total}: before {script} runs")
    readout = "\n".join([title,
                         f"call: {command}  →  reply {reply}" if step else "call: none yet",
                         f"keys: {change}",
                         f"the registry holds {registry} member{'s' if registry != 1 else ''}"])
    return StepFrame(design, step, total, script, role, source, lit, command, reply, views, change, registry,
                     title, readout)


def _count(design: str) -> int:
    return len(walk(design)[0].calls)


#: Play's real ms a call: a frame is a script's listing (about 15 lines) and a 5-line readout,
#: read before the next; at 900 ms a reader could only pause and step (issue 30)
CALL_MS = 2000


class StepsModel(Model):
    """The keys as data, one call at a time, for either design's walk."""

    readout_id = "steps-readout"
    controls = (
        choice("design", [(DESIGNS["pump"], "pump"), (DESIGNS["bullmq"], "bullmq")], label="design"),
        slider("step", range(0, 200), 0, label="step", main=True,
               play=Play(step=1, interval=CALL_MS, label="calls per step", pass_ms=None),
               depends=lambda design, **_: range(0, _count(design) + 1)),
    )
    questions = (
        question(
            "02-stop-between-scripts",
            "The pump stops between its two scripts, `enqueue-3.lua` and `advance-2.lua`. What does Redis "
            "hold?",
            [("job-not-row", "The job only: it is queued, and the row still says 09:00",
              "A script's writes stand once it returns: the job is queued, and the row still says 09:00."),
             ("row-not-job", "The row only: it says 09:15, and no job is made",
              "The row moves in the second script, which has not run."),
             ("neither", "Neither: Redis undoes the first script's writes",
              "Redis runs each script whole but does not tie two together.")],
            lambda f: _between_scripts(f),
            show_me={"design": "pump", "step": 7},    # step_of("pump", "enqueue-last"), held by a test
        ),
        question(
            "02-who-writes-the-wake",
            "In BullMQ's design, which script writes the worker's next wake-up time on the marker?",
            [("update", "updateJobScheduler, at each pickup.",
              "It adds the next run's job to the delayed set and writes its time as the marker's member 1."),
             ("finish", "moveToFinished, once the run is done.",
              "Finishing closes the job; the next job was made at the take."),
             ("upsert", "addJobScheduler, once, when the schedule is registered.",
              "addJobScheduler makes only the first job; each later one is made at a take.")],
            lambda f: {"updateJobScheduler": "update", "moveToFinished": "finish", "addJobScheduler": "upsert",
                       "chain": "update", "finish": "finish", "scheduler": "upsert"}.get(
                f.script.rsplit("-", 1)[0], "none") if ":marker" in f.command else "none",
            show_me={"design": "bullmq", "step": 37},
        ),
    )
    challenge = Challenge(
        "02-next-job-delayed",
        "In BullMQ's design, step to the call that puts the next run's job in the delayed set.",
        lambda f: f.design == "bullmq" and f.command.startswith("ZADD ") and f.command.split()[1].endswith(":delayed"),
        "The 09:15 job is made at 09:00, when the 09:00 job is taken, and waits in the delayed set until "
        "its time.",
    )

    def compute(self, design: str, step: int) -> StepFrame:
        return frames(design)[step]

    def describe(self, frame: StepFrame) -> str:
        if not frame.step:
            held = (f"the queue holds {len(frame.keys)} key{'s' if len(frame.keys) != 1 else ''}" if frame.keys
                    else "the queue has no keys yet")
            return f"Before {frame.script} runs: {held}; step through its calls."
        return (f"Step {frame.step} of {frame.total}: {frame.script} line {frame.lit} runs "
                f"{frame.command.split()[0]}; the registry holds {frame.registry} member"
                f"{'s' if frame.registry != 1 else ''}.")


def step_of(design: str, what: str) -> int:
    """The step a question's Show me moves to: the enqueue's last call, or the chain's marker write."""
    if what == "enqueue-last":
        return max(f.step for f in frames(design)[1:] if f.script.rsplit("-", 1)[0] == "enqueue")
    for f in frames(design)[1:]:
        verb, command = f.script.rsplit("-", 1)[0], f.command.split()[0] if f.command else ""
        if what == "chain-marker" and verb in ("chain", "updateJobScheduler") and command == "ZADD" \
                and ":marker" in f.command:
            return f.step
    raise LookupError(what)


def _between_scripts(frame: StepFrame) -> str:
    """What the keys hold after the step, as 02's first question words it: the release's job made
    and the row not yet moved, the row moved and no job, or neither."""
    pending = next((k for k in frame.keys if k.key.endswith(":pending") and k.state != "deleted"), None)
    row = next((e.value for k in frame.keys if k.key.endswith(":repeat") for e in k.entries), "")
    first = row.endswith("(09:00:00)")
    if pending and pending.entries and first:
        return "job-not-row"
    if row and not first and not any(":job:" in k.key for k in frame.keys):
        return "row-not-job"
    return "neither"


def _marker(frame: StepFrame) -> dict[str, str]:
    """The marker's members and scores after the step ({} when it has none)."""
    return next(({e.name: e.value for e in k.entries} for k in frame.keys
                 if k.key.endswith(":marker") and k.state != "deleted"), {})


def _first_pop(frame: StepFrame) -> str:
    """The member a BZPOPMIN on the marker would pop after the step: the lowest score's."""
    members = _marker(frame)
    low = min(members, key=lambda m: int(members[m].split()[0]), default=None)
    return {"0": "zero", "1": "one", None: "neither"}[low]


def _parked_pop(frame: StepFrame) -> str:
    """What a worker parked after the finish pops first, read where the figure shows it: at the
    walk's last write to the marker (the chain's member 1) or later, since no call after that
    write touches the marker (the finish does not)."""
    if frame.design != "bullmq" or frame.step < step_of("bullmq", "chain-marker"):
        return "not yet"
    return _first_pop(frame)


class MarkerStepsModel(StepsModel):
    """Lesson 03's view of the same walks: BullMQ's design first, asked about the wake marker."""

    readout_id = "marker-steps-readout"
    controls = (
        choice("design", [(DESIGNS["bullmq"], "bullmq"), (DESIGNS["pump"], "pump")], label="design"),
        StepsModel.controls[1],
    )
    questions = (
        question(
            "03-marker-after-take",
            "A worker takes the 09:00 job (moveToActive); nothing else waits. Its last call to the marker is "
            "ZADD of member 0. How many members does it add?",
            [("none", "None: 0 was there already",
              "Adding the scheduler put 0 there: the ZADD only rewrites its score."),
             ("one", "One: the take used up 0",
              "A take leaves the marker alone: 0 is still there."),
             ("two", "Two: 0 and the next run's",
              "This call writes member 0 alone.")],
            lambda f: {"0": "none", "1": "one", "2": "two"}.get(f.reply, "none")
            if f.script.startswith("moveToActive") and ":marker" in f.command else "not this call",
            show_me={"design": "bullmq", "step": 22},
        ),
        question(
            "03-marker-first-pop",
            "updateJobScheduler adds member 1 to the marker; then the run finishes and the worker parks on "
            "BZPOPMIN again. Which member does it pop first?",
            [("zero", "Member 0: at once, though no job is ready",
              "Member 0 scores lowest: the worker wakes at once, the next job still delayed."),
             ("one", "Member 1: at its score, when the job is due",
              "Member 0 is still there, scored lower: it comes out first."),
             ("neither", "Neither: nothing left to pop",
              "moveToFinished leaves the marker alone: both members stay.")],
            _parked_pop,
            show_me={"design": "bullmq", "step": 37},            # the chain's ZADD of member 1
        ),
    )
    challenge = Challenge(
        "03-job-leaves-wait",
        "In BullMQ's design, step to the call that moves the 09:00 job's id from the `wait` list to `active`.",
        lambda f: f.design == "bullmq" and f.command.startswith("RPOPLPUSH "),
        "One RPOPLPUSH moves the id from wait to active in one step; the marker only tells workers when "
        "to try.",
    )
