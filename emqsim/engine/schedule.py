"""A registration: a name, a cadence and the rule that turns one run into the next score.

The rule is the whole lesson of the module:
- ``schedule``: start-to-start from the prior *scheduled* time (BullMQ's ``prevMillis + every``);
- ``release``: the release instant plus the gap (EchoMQ's ``now_ms() + every_ms``);
- ``finish``: start-to-finish, measured from when the run ended.

Two per-schedule policies say what the peers disagree on:
- ``missed``: what a late release does with the slots it missed. ``snap`` (BullMQ's job
  schedulers since 5.80.2, 6.x included: one run for the row's slot, then the nearest slot
  on the phase grid), ``snap-v5`` (their snap in 5.58.8 to 5.80.1: the same run, then the
  phase-grid slot one gap further on), ``epoch`` (the legacy repeatable jobs' rule, which
  has no phase: the next multiple of `every`), ``all`` (every missed slot, one per beat),
  ``once`` (one run, labelled with the latest missed slot; with a `deadline`, only if that
  slot is at most `deadline` ms old), ``now`` (one run, labelled with the release instant
  itself), ``skip`` (a release later than `deadline` ms after the row's slot produces
  nothing). Which peer does which, with which settings, is `emqsim.peers`.
- ``overlap``: what a release does while an earlier run of the same schedule is going
  (``allow``, ``skip``, ``buffer-one``, ``replace``, ``forbid``); the workers apply it
  (`worker.Crew`). ``forbid`` produces nothing either, but unlike ``skip`` the row does not move
  on to the next slot: it comes due again when the running one ends, and under ``missed="once"``
  (which it needs) that release runs the latest slot passed meanwhile, within the deadline.

The record hash in Redis is the source of truth; `to_record`/`from_record` are its two ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .cadence import Cadence, Cron, Every
from .durations import parse_duration
from .errors import InputError, one_of, whole, whole_ms
from .ids import id_time

#: the most fires one run may be asked for, and the most runs `on_time_runs` lists
#: (`parts.MAX_FIRES`, the command line's --fires cap)
MAX_FIRES = 1_000_000

RULES = ("schedule", "release", "finish")
MISSED = ("snap", "snap-v5", "epoch", "all", "once", "now", "skip")
#: the policies a `deadline` applies to: `skip` needs one, `once` may have one
DEADLINED = ("skip", "once")
#: the formula of `Every.after` each policy snaps with (the policies not named use "offset")
SNAP_OF = {"snap": "offset", "snap-v5": "offset-v5", "epoch": "epoch"}
OVERLAPS = ("allow", "skip", "buffer-one", "replace", "forbid")
GRID_ONLY = ("all", "once", "now")   # policies that walk the slot grid: only the schedule rule has one
INF = float("inf")  # a parked row: the next run is not known (or there is none)


MAX_NAME = 200          # characters of a registration's name
MAX_LIMIT = 10**9       # a run count past any run the package allows


def _choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    return one_of(value, allowed, what)


@dataclass(frozen=True)
class Schedule:
    """What a producer registers. `start`/`end` are Unix ms, `limit` a run count (0 = none),
    `deadline` the ms a release may lag the slot it stands for under ``missed="skip"`` (the
    row's slot) or ``missed="once"`` (the latest missed slot)."""

    name: str
    cadence: Cadence
    rule: str = "schedule"
    missed: str = "snap"
    template: str = "{}"
    start: int | None = None
    end: int | None = None
    limit: int = 0
    deadline: int | None = None
    overlap: str = "allow"
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        """Check every field at construction (InputError naming it), so a bad registration
        never reaches Redis or a run."""
        n = self.name
        if not isinstance(n, str) or not n or any(c in n for c in "{}") or len(n) > MAX_NAME or not n.isprintable():
            raise InputError(f"schedule name {n!r} must be non-empty printable text without braces, "
                             f"at most {MAX_NAME} characters", "name")
        if not isinstance(self.cadence, (Every, Cron)):
            raise InputError(f"cadence {self.cadence!r} must be Every(...) or Cron(...)", "cadence")
        _choice(self.rule, RULES, "rule")
        _choice(self.missed, MISSED, "missed")
        _choice(self.overlap, OVERLAPS, "overlap")
        if not isinstance(self.template, str):
            raise InputError(f"template {self.template!r} must be text (the job's payload)", "template")
        if not isinstance(self.extra, dict):
            raise InputError(f"extra {self.extra!r} must be a dict", "extra")
        if self.missed in GRID_ONLY and self.rule != "schedule":
            raise InputError(f"missed {self.missed!r} needs rule 'schedule', not {self.rule!r}: "
                             "only the schedule rule has a grid of slots to miss", "missed")
        if self.overlap == "forbid" and self.missed != "once":
            raise InputError(f"overlap 'forbid' needs missed 'once', not {self.missed!r}: the release at the "
                             "running one's end runs the latest slot passed meanwhile", "overlap")
        if (self.overlap == "forbid" and isinstance(self.cadence, Every) and self.cadence.offset
                and self.start is not None):
            raise InputError("overlap 'forbid' with both an offset and a start date: the first run may sit "
                             "off the offset's grid, which names the slot a held row runs; give one of them",
                             "overlap")
        if self.deadline is not None:
            if self.missed not in DEADLINED:
                raise InputError(f"deadline {self.deadline!r} applies to missed 'skip' or 'once', "
                                 f"not to {self.missed!r}", "deadline")
            object.__setattr__(self, "deadline", parse_duration(self.deadline, name="deadline"))
        elif self.missed == "skip":
            raise InputError("missed 'skip' needs a deadline: how late a release may still run, like 5m", "deadline")
        object.__setattr__(self, "limit", whole(self.limit, "limit", low=0, high=MAX_LIMIT,
                                                what="a whole number of runs (0 for none)"))
        for name in ("start", "end"):
            if getattr(self, name) is not None:
                object.__setattr__(self, name, id_time(getattr(self, name), name))
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise InputError(f"end {self.end} ms is not after start {self.start} ms", "end")

    # -- the next-run arithmetic ---------------------------------------------------------

    def first_run(self, now: int) -> int:
        """BullMQ's first run: `max(start, now)` with a start date, else the cadence's first."""
        if self.start is not None:
            now = max(self.start, now)
            return now if isinstance(self.cadence, Every) else self.cadence.at_or_after(now)
        return self.cadence.first(now)

    def on_time_score(self, registered: int, now: int) -> int:
        """The score the row holds at `now` when it was registered at `registered` and every run
        before `now` was released on its slot.

        The row starts at `first_run(registered)`; each on-time release of slot `s` writes
        `next_run(s)`, which is `s + every` for an interval (start-to-start, nothing to snap)
        and the next calendar slot for a cron. So the answer is the first run if it is not
        before `now`, else the first of its successors at or after `now`: a run due exactly at
        `now` is still on the row, not yet released.
        """
        registered, now = whole_ms(registered, "registered"), whole_ms(now, "now")
        first = self.first_run(registered)
        if first >= now:
            return first
        c = self.cadence
        if isinstance(c, Every):
            return first + -(-(now - first) // c.ms) * c.ms
        return c.at_or_after(now)

    def on_time_runs(self, registered: int, start: int, end: int, *, cap: int | None = None) -> list[int]:
        """The runs from `start` to `end` (both counted), in order, at most `cap` of them, of a
        schedule registered at `registered` and released on time: the scores its row takes in
        turn, so a figure's marks are the engine's.

        The first is `on_time_score(registered, start)` (a run due exactly at `start` counts);
        each on-time release then writes the next: `+ every` for an interval, the next calendar
        slot for a cron. Like `on_time_score`, it reads the cadence and start date, not `limit`
        or `end`. A cron that never matches has none. Without a cap, a span of more than
        MAX_FIRES runs (a trace's own bound) is refused, not listed."""
        start, end = whole(start, "start"), whole(end, "end")
        if cap is not None:
            cap = whole(cap, "cap", low=0)
        c = self.cadence
        if isinstance(c, Every):
            first = self.on_time_score(registered, start)
            runs = range(first, end + 1, c.ms)
            if cap is None and len(runs) > MAX_FIRES:
                self._too_many(end, runs[MAX_FIRES])
            return list(runs if cap is None else runs[:cap])
        try:
            first = self.on_time_score(registered, start)
        except ValueError:  # no slot at all
            return []
        runs = c.between(first, end, cap=MAX_FIRES + 1 if cap is None else cap)
        if cap is None and len(runs) > MAX_FIRES:
            self._too_many(end, runs[MAX_FIRES])
        return runs

    @staticmethod
    def _too_many(end: int, beyond: int):
        raise InputError(f"end {end} ms is more than {MAX_FIRES:,} runs away (run {MAX_FIRES + 1:,} is at "
                         f"{beyond} ms), more than a trace makes; give a nearer end or a cap", "end")

    def next_run(self, slot: int, *, released: int, finished: int | None, phase: int) -> int:
        """The score after the run of `slot`, released at `released` (and ended at `finished`)."""
        c = self.cadence
        if self.rule == "schedule":
            if self.missed == "once":
                slot = self.label(slot, released, phase)   # the step from the latest slot is ahead of now
            elif self.missed == "now" and released > slot:
                # Hangfire Relaxed: the run is "now", the next is the first slot strictly after it
                if isinstance(c, Every):
                    return slot + ((released - slot) // c.ms + 1) * c.ms
                return c.after(released)
            if isinstance(c, Every):
                if self.missed == "all":
                    return slot + c.ms
                return c.after(slot, released, phase, SNAP_OF.get(self.missed, "offset"))
            # BullMQ: the slot strictly after max(slot, release), so a release that lands
            # exactly on the next slot steps over it (bullmq 6.7.0, checked by its oracle)
            return c.after(slot if self.missed == "all" else max(slot, released))
        anchor = released if self.rule == "release" else finished
        if anchor is None:
            raise InputError("the finish rule needs the run's finish time", "finished")
        return anchor + c.ms if isinstance(c, Every) else c.after(anchor)

    def label(self, slot: int, released: int, phase: int | None = None) -> int:
        """The slot a job released at `released` stands for: the row's own `slot`, except
        under ``missed="once"``, where it is the latest slot of the schedule's grid (an interval's
        `phase`, or the row's own slot when none is given) not after the release (the missed ones
        before it are coalesced into this one run), and under ``missed="now"``, where it is the
        release instant (a late run is stamped "now"). A row that ``overlap="forbid"`` held to a
        run's end is off the grid: the grid, not the row, names the slot."""
        slot, released = whole_ms(slot, "slot"), whole_ms(released, "released")
        if self.missed == "now":
            return released if released > slot else slot
        if self.missed != "once":
            return slot
        c = self.cadence
        if self.overlap == "forbid":     # the grid names the slot: a held row's own score is off it
            if isinstance(c, Every):
                return released - (released - (slot if phase is None else phase)) % c.ms
            return c.before(c.after(released))
        if released <= slot:
            return slot
        if isinstance(c, Every):
            return slot + (released - slot) // c.ms * c.ms
        return max(slot, c.before(c.after(released)))

    def late(self, slot: int, released: int, phase: int | None = None) -> bool:
        """Is this release past the deadline, so it produces nothing? Measured from the slot
        the job would stand for (`label`): the row's slot under ``skip``, the latest missed
        slot under ``once``."""
        return self.deadline is not None and released - self.label(slot, released, phase) > self.deadline

    def bounded(self, nxt: int, produced: int) -> int | float:
        """Apply limit and end: once `produced` runs hit the limit, or the next run reaches
        the end, the row is parked at +inf (the pump design's choice: bullmq 6.7.0 leaves the
        score on the last job's run time and compares an end date with the pickup instant, see
        `chain.BullMQ.pickup`)."""
        nxt = nxt if nxt == INF else whole_ms(nxt, "nxt")
        produced = whole(produced, "produced", low=0)
        if self.limit and produced >= self.limit:
            return INF
        if self.end is not None and nxt >= self.end:
            return INF
        return nxt

    # -- the record hash -------------------------------------------------------------------

    def to_record(self, phase: int | None) -> dict[str, str]:
        """The fields written to `emq:{q}:repeat:<name>`; the cadence lives here, not on the ZSET.

        Like start, end and limit, the policies are written only when they differ from the
        defaults, so a plain registration's hash shows just what BullMQ's and EchoMQ's do."""
        c = self.cadence
        rec = {"rule": self.rule, "template": self.template, "cadence": self.cadence_key}
        if isinstance(c, Every):
            rec["every_ms"] = str(c.ms)
            rec["offset"] = str(phase if phase is not None else (c.offset or 0))
        else:
            rec["pattern"] = c.expr
            rec["tz"] = c.tz
            if c.reader != "croniter":
                rec["reader"] = c.reader       # BullMQ's design reads its pattern with cron-parser
        if self.start is not None:
            rec["start"] = str(self.start)
        if self.end is not None:
            rec["end"] = str(self.end)
        if self.limit:
            rec["limit"] = str(self.limit)
        if self.missed != "snap":
            rec["missed"] = self.missed
        if self.deadline is not None:
            rec["deadline"] = str(self.deadline)
        if self.overlap != "allow":
            rec["overlap"] = self.overlap
        return rec

    @property
    def cadence_key(self) -> str:
        """What an upsert compares: a changed cadence is a first run, an unchanged one keeps its score."""
        c = self.cadence
        return f"every:{c.ms}:{c.offset or 0}" if isinstance(c, Every) else f"cron:{c.expr}:{c.tz}"

    @classmethod
    def from_record(cls, name: str, rec: dict) -> tuple["Schedule", int, int]:
        """Rebuild the registration from its hash: returns (schedule, phase, fires made so far: its `fired` count)."""
        rec = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
               for k, v in rec.items()}
        if "every_ms" in rec:
            cad: Cadence = _every(int(rec["every_ms"]))
            phase = int(rec.get("offset", 0))
        else:
            cad = _cron(rec["pattern"], rec.get("tz", "UTC"), rec.get("reader", "croniter"))
            phase = 0
        sched = cls(
            name=name, cadence=cad, rule=rec.get("rule", "release"), missed=rec.get("missed", "snap"),
            template=rec.get("template", "{}"),
            start=int(rec["start"]) if "start" in rec else None,
            end=int(rec["end"]) if "end" in rec else None,
            limit=int(rec.get("limit", 0)),
            deadline=int(rec["deadline"]) if "deadline" in rec else None,
            overlap=rec.get("overlap", "allow"),
        )
        return sched, phase, int(rec.get("fired", 0))

    def with_(self, **changes) -> "Schedule":
        return replace(self, **changes)


_EVERY: dict[int, Every] = {}
_CRON: dict[tuple[str, str, str], Cron] = {}


def _every(ms: int) -> Every:
    """Records are read every beat; reuse the parsed cadence instead of re-validating it."""
    c = _EVERY.get(ms)
    if c is None:
        c = _EVERY[ms] = Every(ms)
    return c


def _cron(expr: str, tz: str, reader: str = "croniter") -> Cron:
    c = _CRON.get((expr, tz, reader))
    if c is None:
        c = _CRON[(expr, tz, reader)] = Cron(expr, tz, reader)
    return c
