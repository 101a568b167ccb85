"""Lessons 02 and 03, the keys as data: one schedule's scripts stepped a `redis.call` at a time.

A reader steps through one registration, one release of its first run and one finish, and
sees each call the script makes, on the line it stands on, with its reply and every key of
the queue after it: the registry's one member and its score, the record's fields, the job, the
list a worker takes from, the wake marker. What changed is marked. The steps are recorded once
on the embedded fakeredis (`emqsim.engine.steps`), so the frames are plain data the static site
walks without a kernel.

Two walks, one per design. The pump design's are this course's model scripts of EchoMQ
(`register`, `enqueue`, `advance`, `take`, `finish`; `advance` follows EchoMQ's `@advance`
line for line); BullMQ's design's are this course's model of BullMQ 6.7.0's job-scheduler
scripts (`scheduler`, `activate`, `chain`, `finish`), held to BullMQ itself by the oracles.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..engine.cadence import Every
from ..engine.chain import BullMQ
from ..engine.ids import Minter
from ..engine.registry import Registry
from ..engine.schedule import Schedule
from ..engine.scripts import script_files
from ..engine.steps import Recording, recording
from ..engine.store import Store
from ..engine.timefmt import hms
from .course import MINUTE, NAME, START
from .model import Model, Play, choice, slider
from .questions import Challenge, question

#: the two walks: design -> (label, what each verb stands for)
DESIGNS = {
    "pump": "the pump design (this course's model of EchoMQ)",
    "bullmq": "BullMQ's design (this course's model of its scripts)",
}
#: each script, what it stands for in the system it models
ROLES = {
    "register": "EchoMQ.Repeat.register", "enqueue": "a pump beat: the job", "advance": "a pump beat: EchoMQ's @advance",
    "take": "a worker takes the job", "finish": "the worker finishes it",
    "scheduler": "Queue.upsertJobScheduler", "activate": "a worker's take (moveToActive)",
    "chain": "the next job (updateJobScheduler)",
}
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
    """A score or field as shown: Unix ms of the course's era get their time of day."""
    try:
        ms = int(value)
    except ValueError:
        try:
            ms = int(float(value))
        except ValueError:
            return value
        if str(ms) != value.split(".")[0]:
            return value
    return f"{value} ({hms(ms)})" if ms >= TIMES_FROM else value


def _entries(kind: str, value) -> list[tuple[str, str]]:
    if kind in ("zset", "hash"):
        return [(m, v) for m, v in value]
    if kind in ("list", "set"):
        return [(f"[{i}]", v) for i, v in enumerate(value)]
    return [("", str(value))]


@functools.lru_cache(maxsize=4)
def walk(design: str) -> tuple[Recording, dict[str, str]]:
    """Record the walk of `design` on a store of its own; (the recording, verb of each label)."""
    labels = {}
    with Store() as store:
        files = {name.rsplit("-", 1)[0]: name for name in _file_names()}
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
    return rec, {v: k for k, v in labels.items()}


@functools.lru_cache(maxsize=1)
def _file_names() -> tuple[str, ...]:
    from importlib import resources

    return tuple(e.name for e in resources.files("emqsim.engine").joinpath("lua").iterdir() if e.name.endswith(".lua"))


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
    r = call.reply
    if isinstance(r, dict):
        return next(iter(r.values()))
    if isinstance(r, list):
        return "[" + ", ".join(map(str, r[:4])) + (", ..." if len(r) > 4 else "") + "]"
    return "nil" if r is None or r is False else str(r)


def frames(design: str) -> tuple[StepFrame, ...]:
    """Every step of the walk of `design`: step 0 the keys before, then one per `redis.call`."""
    rec, verbs = walk(design)
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
        change = "; ".join(words) if words else "a read: no key changed"
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


class StepsModel(Model):
    """The keys as data, one call at a time, for either design's walk."""

    readout_id = "steps-readout"
    controls = (
        choice("design", [(DESIGNS["pump"], "pump"), (DESIGNS["bullmq"], "bullmq")], label="design"),
        slider("step", range(0, 200), 0, label="step", main=True,
               play=Play(step=1, interval=900, label="calls per tick"),
               depends=lambda design, **_: range(0, _count(design) + 1)),
    )
    questions = (
        question(
            "02-registry-after-zadd",
            "The pump design registers `reports`, then releases its first run and advances the row. "
            "After the advance's ZADD, how many members does the registry hold?",
            [("one", "One: the same member, its score rewritten.",
              "ZADD on a member that is there already rewrites its score; it adds nothing."),
             ("two", "Two: the run just released and the next one.",
              "That would be a registry of runs. The sorted set keys schedules, not runs."),
             ("zero", "None: the member left when its job was made.",
              "The job went to a key of its own and to the list a worker takes from; the member stays.")],
            lambda f: {1: "one", 2: "two", 0: "zero"}.get(f.registry, "two"),
            show_me={"design": "pump", "step": 10},
        ),
        question(
            "02-who-writes-the-wake",
            "In BullMQ's design, which script writes the worker's next wake-up time on the marker?",
            [("chain", "The one that makes the next job at the take (BullMQ's updateJobScheduler).",
              "It adds the next run's delayed job and writes its time as the marker's member 1."),
             ("finish", "The finish script, once the run is done.",
              "The finish only closes the job it was given; the next job was made at the take already."),
             ("scheduler", "The upsert, once, when the schedule is registered.",
              "The upsert makes the first job; each later one is made when the one before it is taken.")],
            lambda f: f.script.rsplit("-", 1)[0] if ":marker" in f.command else "none",
            show_me={"design": "bullmq", "step": 26},
        ),
    )
    challenge = Challenge(
        "02-next-job-delayed",
        "In BullMQ's design, step to the call that puts the next run's job in the delayed set.",
        lambda f: f.design == "bullmq" and f.command.startswith("ZADD ") and f.command.split()[1].endswith(":delayed"),
        "The job for 09:15 is made at 09:00, when the 09:00 job is taken, and waits in the delayed set scored "
        "by its run time. No job is made at 09:15 itself: a worker that takes nothing makes nothing.",
    )

    def compute(self, design: str, step: int) -> StepFrame:
        return frames(design)[step]

    def describe(self, frame: StepFrame) -> str:
        if not frame.step:
            return f"Before {frame.script} runs: the queue has no keys yet; step through its calls."
        return (f"Step {frame.step} of {frame.total}: {frame.script} line {frame.lit} runs "
                f"{frame.command.split()[0]}; the registry holds {frame.registry} member"
                f"{'s' if frame.registry != 1 else ''}.")


def step_of(design: str, what: str) -> int:
    """The step a question's Show me moves to: the advance's ZADD, or the chain's marker write."""
    for f in frames(design)[1:]:
        verb, command = f.script.rsplit("-", 1)[0], f.command.split()[0] if f.command else ""
        if what == "advance-zadd" and verb == "advance" and command == "ZADD":
            return f.step
        if what == "chain-marker" and verb == "chain" and command == "ZADD" and ":marker" in f.command:
            return f.step
    raise LookupError(what)
