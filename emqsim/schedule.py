"""A registration: a name, a cadence and the rule that turns one run into the next score.

The rule is the whole lesson of the module:
- ``schedule``: start-to-start from the prior *scheduled* time (BullMQ's ``prevMillis + every``),
  snapping forward over missed slots;
- ``release``: the release instant plus the gap (EchoMQ's ``now_ms() + every_ms``);
- ``finish``: start-to-finish, measured from when the run ended.

The record hash in Redis is the source of truth; `to_record`/`from_record` are its two ends.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .cadence import SNAPS, Cadence, Cron, Every

RULES = ("schedule", "release", "finish")
INF = float("inf")  # a parked row: the next run is not known (or there is none)


def _choice(value: str, allowed: tuple[str, ...], what: str) -> str:
    if value not in allowed:
        raise ValueError(f"{what} {value!r} is not one of {', '.join(allowed)}")
    return value


@dataclass(frozen=True)
class Schedule:
    """What a producer registers. `start`/`end` are Unix ms, `limit` a run count (0 = none)."""

    name: str
    cadence: Cadence
    rule: str = "schedule"
    snap: str = "offset"
    template: str = "{}"
    start: int | None = None
    end: int | None = None
    limit: int = 0
    extra: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name or any(c in self.name for c in "{}"):
            raise ValueError(f"schedule name {self.name!r} must be non-empty text without braces")
        if not isinstance(self.cadence, (Every, Cron)):
            raise ValueError(f"cadence {self.cadence!r} must be Every(...) or Cron(...)")
        _choice(self.rule, RULES, "rule")
        _choice(self.snap, SNAPS, "snap")
        if isinstance(self.limit, bool) or not isinstance(self.limit, int) or self.limit < 0:
            raise ValueError(f"limit {self.limit!r} must be a whole number of runs, 0 for none")
        if self.start is not None and self.end is not None and self.end <= self.start:
            raise ValueError(f"end {self.end} ms is not after start {self.start} ms")

    # -- the next-run arithmetic ---------------------------------------------------------

    def first_run(self, now: int) -> int:
        """BullMQ's first run: `max(start, now)` with a start date, else the cadence's first."""
        if self.start is not None:
            now = max(self.start, now)
            return now if isinstance(self.cadence, Every) else self.cadence.at_or_after(now)
        return self.cadence.first(now)

    def next_run(self, slot: int, *, released: int, finished: int | None, phase: int) -> int:
        """The score after the run of `slot`, released at `released` (and ended at `finished`)."""
        c = self.cadence
        if self.rule == "schedule":
            if isinstance(c, Every):
                return c.after(slot, released, phase, self.snap)
            nxt = c.after(slot)
            return nxt if nxt >= released else c.after(released)
        anchor = released if self.rule == "release" else finished
        if anchor is None:
            raise ValueError("the finish rule needs the run's finish time")
        return anchor + c.ms if isinstance(c, Every) else c.after(anchor)

    def bounded(self, nxt: int, produced: int) -> int | float:
        """Apply limit and end: once `produced` runs hit the limit, or the next run reaches
        the end, the row is parked at +inf (the registry keeps it, as BullMQ does)."""
        if self.limit and produced >= self.limit:
            return INF
        if self.end is not None and nxt >= self.end:
            return INF
        return nxt

    # -- the record hash -------------------------------------------------------------------

    def to_record(self, phase: int | None) -> dict[str, str]:
        """The fields written to `emq:{q}:repeat:<name>`; the cadence lives here, not on the ZSET."""
        c = self.cadence
        rec = {"rule": self.rule, "template": self.template, "cadence": self.cadence_key}
        if isinstance(c, Every):
            rec["every_ms"] = str(c.ms)
            rec["offset"] = str(phase if phase is not None else (c.offset or 0))
            rec["snap"] = self.snap
        else:
            rec["pattern"] = c.expr
            rec["tz"] = c.tz
        if self.start is not None:
            rec["start"] = str(self.start)
        if self.end is not None:
            rec["end"] = str(self.end)
        if self.limit:
            rec["limit"] = str(self.limit)
        return rec

    @property
    def cadence_key(self) -> str:
        """What an upsert compares: a changed cadence is a first run, an unchanged one keeps its score."""
        c = self.cadence
        return f"every:{c.ms}:{c.offset or 0}" if isinstance(c, Every) else f"cron:{c.expr}:{c.tz}"

    @classmethod
    def from_record(cls, name: str, rec: dict) -> tuple["Schedule", int, int]:
        """Rebuild the registration from its hash: returns (schedule, phase, iteration count)."""
        rec = {k.decode() if isinstance(k, bytes) else k: v.decode() if isinstance(v, bytes) else v
               for k, v in rec.items()}
        if "every_ms" in rec:
            cad: Cadence = _every(int(rec["every_ms"]))
            phase = int(rec.get("offset", 0))
        else:
            cad = _cron(rec["pattern"], rec.get("tz", "UTC"))
            phase = 0
        sched = cls(
            name=name, cadence=cad, rule=rec.get("rule", "release"), snap=rec.get("snap", "offset"),
            template=rec.get("template", "{}"),
            start=int(rec["start"]) if "start" in rec else None,
            end=int(rec["end"]) if "end" in rec else None,
            limit=int(rec.get("limit", 0)),
        )
        return sched, phase, int(rec.get("ic", 0))

    def with_(self, **changes) -> "Schedule":
        return replace(self, **changes)


_EVERY: dict[int, Every] = {}
_CRON: dict[tuple[str, str], Cron] = {}


def _every(ms: int) -> Every:
    """Records are read every beat; reuse the parsed cadence instead of re-validating it."""
    c = _EVERY.get(ms)
    if c is None:
        c = _EVERY[ms] = Every(ms)
    return c


def _cron(expr: str, tz: str) -> Cron:
    c = _CRON.get((expr, tz))
    if c is None:
        c = _CRON[(expr, tz)] = Cron(expr, tz)
    return c
