"""What a simulation produced: one record per occurrence, plus the counts that matter.

Only the last `retain` records are kept (the counts cover every fire), so a run of a
million fires stays in bounded memory. `duplicates` counts slots produced more than
once; `lost` counts slots the registry held, that came due, and were overwritten
without ever being produced. A missed slot that a snap collapsed was never written
to the registry, so it is not lost: it was skipped by design.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import asdict, dataclass

import numpy as np

from .schedule import INF
from .timefmt import hms

RECENT = 256  # produced slots remembered per name, to spot a duplicate


@dataclass(slots=True)
class Fire:
    n: int
    name: str
    slot: int
    released: int
    started: int
    finished: int
    job_id: str
    size: int = 0                  # registry size after this fire
    next: int | float = INF        # the row's score after this fire (+inf: parked)


class Trace:
    FIELDS = ("n", "slot", "released", "started", "finished", "job_id")

    def __init__(self, retain: int = 10_000):
        if retain < 1:
            raise ValueError(f"retain {retain!r} must keep at least one record")
        self.fires: deque[Fire] = deque(maxlen=retain)
        self.count = 0
        self.duplicates = 0
        self.lost = 0
        self.registry_size = 0
        self.next: int | float = INF
        self._produced: dict[str, deque] = {}
        self._seen: dict[str, set] = {}

    # -- bookkeeping (called by the simulation) ---------------------------------------

    def produced(self, fire: Fire) -> None:
        self.count += 1
        self.fires.append(fire)
        recent, seen = self._recent(fire.name)
        if fire.slot in seen:
            self.duplicates += 1
            return
        if len(recent) == RECENT:
            seen.discard(recent.popleft())
        recent.append(fire.slot)
        seen.add(fire.slot)

    def rewritten(self, name: str, old: int | float, now: int) -> None:
        """The row of `name` held `old` and was just given a new score."""
        if old != INF and old <= now and old not in self._recent(name)[1]:
            self.lost += 1

    def _recent(self, name: str):
        if name not in self._produced:
            self._produced[name] = deque()
            self._seen[name] = set()
        return self._produced[name], self._seen[name]

    # -- views ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.fires)

    def __iter__(self):
        return iter(self.fires)

    def __getitem__(self, i) -> Fire:
        return self.fires[i]

    def column(self, field: str) -> list:
        return [getattr(f, field) for f in self.fires]

    def arrays(self) -> dict[str, np.ndarray]:
        """Columns as numpy arrays (int64 ms; `next` as float so +inf survives) for plots."""
        out = {f: np.fromiter((getattr(x, f) for x in self.fires), dtype=np.int64, count=len(self.fires))
               for f in ("n", "slot", "released", "started", "finished", "size")}
        out["next"] = np.fromiter((x.next for x in self.fires), dtype=float, count=len(self.fires))
        return out

    def to_dict(self) -> dict:
        return {
            "fires": [{f: getattr(x, f) for f in self.FIELDS} for x in self.fires],
            "registry_size": self.registry_size,
            "next": None if self.next == INF else self.next,
            "duplicates": self.duplicates,
            "lost": self.lost,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def table(self, tz: str = "UTC") -> str:
        """A plain-text table, times as HH:MM:SS in `tz`."""
        head = f"{'n':>4}  {'slot':8}  {'released':8}  {'started':8}  {'finished':8}  job_id"
        lines = [head, "-" * len(head)]
        for x in self.fires:
            lines.append(f"{x.n:>4}  {hms(x.slot, tz)}  {hms(x.released, tz)}  {hms(x.started, tz)}  "
                         f"{hms(x.finished, tz)}  {x.job_id}")
        nxt = "none (parked)" if self.next == INF else hms(self.next, tz)
        lines.append(f"registry rows {self.registry_size} · next run {nxt} · "
                     f"duplicates {self.duplicates} · lost {self.lost}")
        return "\n".join(lines)

    def records(self) -> list[dict]:
        return [asdict(x) for x in self.fires]
