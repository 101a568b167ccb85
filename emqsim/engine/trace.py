"""What a simulation produced: one record per occurrence, plus the counts that matter.

Only the last `retain` records are kept (the counts cover every fire), so a run of a
million fires stays in bounded memory. `duplicates` counts slots produced more than
once; `lost` counts slots the registry held, that came due, and were overwritten
without ever being produced or skipped. A missed slot that a snap collapsed was never
written to the registry, so it is not lost either.

`skipped` counts occurrences a policy chose not to produce: a release past the
schedule's deadline (``missed="skip"``, or ``"once"`` with a deadline) or one made while an
earlier run of the same schedule was going (``overlap="skip"`` or ``"forbid"``, or
``buffer-one`` with one already waiting).
They are by design, so they are not lost; `skips` keeps the last `retain` of them.
A run cancelled by ``overlap="replace"`` is still a fire, with ``cancelled=True`` and
`finished` at the instant it was cancelled.

`answers` and `refused` are what the registry's verbs answered over the run (see
`Registry.answers`): a duplicate the slot ids absorbed shows there, not among the fires.
They are not part of `to_dict`, so the saved trace is what it was.
"""

from __future__ import annotations

import json
from collections import Counter, deque
from dataclasses import asdict, dataclass, fields
from datetime import date
from typing import TYPE_CHECKING, NamedTuple

from .errors import InputError, one_of, whole, whole_ms
from .parts import MAX_RETAIN
from .schedule import INF
from .timefmt import hms, iso

if TYPE_CHECKING:   # imported where used (`Trace.arrays`): the command line never needs numpy
    import numpy as np

RECENT = 256  # slots remembered per name, to spot a duplicate or a lost one
STALL = 1000  # skips in a row, nothing produced: a run asked for N fires gives up


def stalled(fires: int) -> ValueError:
    """A deadline that every release misses would make run(fires=N) spin for ever."""
    return ValueError(f"{STALL} occurrences in a row were skipped and none produced, so fires={fires} "
                      "is never reached; give a longer deadline or an until time")


class FireRecord(NamedTuple):
    """One fire in the shape both models report: the engine's `Trace` (`Fire.record`) and the
    reference model's `RefTrace.to_fires`, so the tests compare the two as lists of these, and
    the rows `Trace.to_dict` saves. `job_id` is None when the reference was asked for no ids."""

    n: int
    slot: int
    released: int
    started: int
    finished: int
    job_id: str | None
    cancelled: bool


class SkipRecord(NamedTuple):
    """One skipped occurrence in the shape both models report (`Skip.record`, `RefTrace.skips`)."""

    slot: int
    at: int
    why: str


@dataclass(slots=True)
class Fire:
    """One occurrence the engine produced: a `FireRecord`'s fields, plus what only the engine
    knows (the registration's name, the registry's size and the row's score after it)."""

    n: int
    name: str
    slot: int                      # the slot the job stands for (its label)
    released: int
    started: int
    finished: int
    job_id: str
    size: int = 0                  # registry size after this fire
    next: int | float = INF        # the row's score after this fire (+inf: parked)
    cancelled: bool = False        # replaced by a later run of its schedule at `finished`

    def __post_init__(self):
        """Whole numbers (numpy's too, kept as int) in the times and the count, text in the names."""
        if type(self.slot) is not int or type(self.started) is not int or type(self.n) is not int \
                or type(self.released) is not int or type(self.finished) is not int:
            for f in ("n", "slot", "released", "started", "finished"):
                setattr(self, f, whole(getattr(self, f), f, low=0))
        if not isinstance(self.name, str) or not isinstance(self.job_id, str):
            raise InputError(f"name {self.name!r} and job_id {self.job_id!r} must be text", "name")

    def record(self) -> FireRecord:
        return FireRecord(self.n, self.slot, self.released, self.started, self.finished, self.job_id,
                          self.cancelled)


#: the fields of a fire a column can be read of
COLUMNS = tuple(f.name for f in fields(Fire))


@dataclass(frozen=True, slots=True)
class Skip:
    """An occurrence not produced: the row's `slot`, the release instant `at`, and `why`
    ("deadline": too late under missed="skip"; "overlap": an earlier run was going)."""

    name: str
    slot: int
    at: int
    why: str

    def record(self) -> SkipRecord:
        return SkipRecord(self.slot, self.at, self.why)


class _Recent:
    """The last RECENT slots of one name, as a set with a bounded memory."""

    def __init__(self):
        self.order: deque = deque()
        self.seen: set = set()

    def add(self, slot: int) -> None:
        if slot in self.seen:
            return
        if len(self.order) == RECENT:
            self.seen.discard(self.order.popleft())
        self.order.append(slot)
        self.seen.add(slot)


class Trace:
    FIELDS = FireRecord._fields

    def __init__(self, retain: int = 10_000):
        retain = whole(retain, "retain", low=1, high=MAX_RETAIN, what="a number of records to keep")
        self.fires: deque[Fire] = deque(maxlen=retain)
        self.skips: deque[Skip] = deque(maxlen=retain)
        self.count = 0
        self.duplicates = 0
        self.lost = 0
        self.skipped = 0
        self.registry_size = 0
        self.next: int | float = INF
        self.answers: Counter = Counter()   # what the registry's verbs answered, "verb answer" -> count
        self.refused: tuple = ()            # (slot, now) of each enqueue refused: its job id existed
        self._labels: dict[str, _Recent] = {}    # slots produced, to spot a duplicate
        self._handled: dict[str, _Recent] = {}   # row scores produced or skipped, to spot a lost one

    # -- bookkeeping (called by the simulation) ---------------------------------------

    def produced(self, fire: Fire, read: int | None = None) -> None:
        """`fire` was produced for the row score `read` (its slot, unless the missed policy
        labelled it with a later one)."""
        if type(fire) is not Fire:
            raise InputError(f"fire {fire!r} is not a Fire", "fire")
        self.count += 1
        self.fires.append(fire)
        labels = self._recent(self._labels, fire.name)
        if fire.slot in labels.seen:
            self.duplicates += 1
        labels.add(fire.slot)
        self._recent(self._handled, fire.name).add(fire.slot if read is None else read)

    def skip(self, name: str, slot: int, at: int, why: str, read: int | None = None) -> None:
        """An occurrence for `slot` was not produced; `read` is the row score it came from (its
        slot, unless the missed policy labelled it with a later one, as `produced` takes it)."""
        if not isinstance(name, str) or not isinstance(why, str):
            raise InputError(f"name {name!r} and why {why!r} must be text", "name")
        slot, at = whole_ms(slot, "slot"), whole_ms(at, "at")
        self.skipped += 1
        self.skips.append(Skip(name, slot, at, why))
        self._recent(self._handled, name).add(slot if read is None else read)

    def rewritten(self, name: str, old: int | float, now: int) -> None:
        """The row of `name` held `old` and was just given a new score."""
        if not isinstance(name, str):
            raise InputError(f"name {name!r} must be text", "name")
        old = old if old == INF else whole_ms(old, "old")
        now = whole_ms(now, "now")
        if old != INF and old <= now and old not in self._recent(self._handled, name).seen:
            self.lost += 1

    @staticmethod
    def _recent(table: dict, name: str) -> _Recent:
        r = table.get(name)
        if r is None:
            r = table[name] = _Recent()
        return r

    # -- views ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.fires)

    def __iter__(self):
        return iter(self.fires)

    def __getitem__(self, i) -> Fire:
        return self.fires[i]

    def fire_records(self) -> list[FireRecord]:
        """The kept fires in the shape the reference model's `RefTrace.to_fires` gives."""
        return [x.record() for x in self.fires]

    def skip_records(self) -> list[SkipRecord]:
        """The kept skips in the shape of the reference model's `RefTrace.skips`."""
        return [x.record() for x in self.skips]

    def column(self, field: str) -> list:
        one_of(field, COLUMNS, "field")
        return [getattr(f, field) for f in self.fires]

    def arrays(self) -> dict[str, np.ndarray]:
        """Columns as numpy arrays (int64 ms; `next` as float so +inf survives) for plots. numpy
        is imported here: the command line never plots, and numpy is a third of its start-up."""
        import numpy as np

        k = len(self.fires)
        out = {f: np.fromiter((getattr(x, f) for x in self.fires), dtype=np.int64, count=k)
               for f in ("n", "slot", "released", "started", "finished", "size")}
        out["next"] = np.fromiter((x.next for x in self.fires), dtype=float, count=k)
        out["cancelled"] = np.fromiter((x.cancelled for x in self.fires), dtype=bool, count=k)
        return out

    def to_dict(self) -> dict:
        return {
            "fires": [x.record()._asdict() for x in self.fires],
            "registry_size": self.registry_size,
            "next": None if self.next == INF else self.next,
            "duplicates": self.duplicates,
            "lost": self.lost,
            "skipped": self.skipped,
        }

    def to_json(self, indent: int | None = None) -> str:
        indent = None if indent is None else whole(indent, "indent", low=0, high=16)
        return json.dumps(self.to_dict(), indent=indent)

    def table(self, tz: str = "UTC") -> str:
        """A plain-text table, times as HH:MM:SS in `tz`. A cancelled run is marked after its
        id; the skipped count is shown only when a policy skipped something.

        When the rows' times fall on more than one date, a `date` column gives each row's
        slot date, and a time on a later date than its row's slot carries "+Nd"; otherwise
        three daily runs would print as three identical 09:00:00 rows."""
        days = {_day(v, tz) for x in self.fires for v in (x.slot, x.released, x.started, x.finished)}
        dated = len(days) > 1
        rows = [[_clock(v, tz, _day(x.slot, tz) if dated else None) for v in (x.slot, x.released, x.started,
                                                                             x.finished)] for x in self.fires]
        w = max([8] + [len(c) for cells in rows for c in cells])
        head = (f"{'n':>4}  " + (f"{'date':10}  " if dated else "")
                + f"{'slot':{w}}  {'released':{w}}  {'started':{w}}  {'finished':{w}}  job_id")
        lines = [head, "-" * len(head)]
        for x, cells in zip(self.fires, rows):
            lines.append(f"{x.n:>4}  " + (f"{iso(x.slot, tz)[:10]}  " if dated else "")
                         + "  ".join(f"{c:{w}}" for c in cells)
                         + f"  {x.job_id}" + ("  cancelled" if x.cancelled else ""))
        nxt = "none (parked)" if self.next == INF else hms(self.next, tz)
        if self.fires and self.next != INF and iso(self.next, tz)[:10] != iso(self.fires[-1].slot, tz)[:10]:
            nxt += f" ({iso(self.next, tz)[:10]})"  # a daily cron's next run is on another day
        lines.append(f"registry rows {self.registry_size} · next run {nxt} · "
                     f"duplicates {self.duplicates} · lost {self.lost}"
                     + (f" · skipped {self.skipped}" if self.skipped else ""))
        return "\n".join(lines)

    def records(self) -> list[dict]:
        """Every field of each kept Fire, as dicts (name, size and next too, which the
        reference model does not have: `fire_records` is the shape the two share)."""
        return [asdict(x) for x in self.fires]


def _day(ms: int, tz: str) -> int:
    """The calendar date of `ms` in `tz`, as a day number (for differences in days)."""
    return date.fromisoformat(iso(ms, tz)[:10]).toordinal()


def _clock(ms: int, tz: str, day: int | None) -> str:
    """HH:MM:SS, with "+Nd" when `ms` falls N days after the row's `day`."""
    extra = 0 if day is None else _day(ms, tz) - day
    return hms(ms, tz) + (f"+{extra}d" if extra else "")
