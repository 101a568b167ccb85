"""Which instants a cron expression fires on a day when the wall clock jumps, by three rules.

A cron expression names wall-clock times; a zone turns each into an instant. On a
daylight-saving day some wall times happen twice (fall back) and some never (spring
forward), and each library decides for itself what the slot means then:

- ``"croniter"``: what emqsim's `Cron` does (`Cron(expr, tz).after(t)`, iterated). A wall
  time in the skipped hour fires at the change (03:00 in New York); a repeated wall time
  fires in both hours.
- ``"debian"``: Debian cron's rule, which the cronsim library implements. For a *fixed-time*
  job (five fields whose minute and hour do not start with ``*``): a repeated wall time
  fires once, in the first hour; a skipped one fires at the change. Any other expression
  (``0 * * * *``, ``*/30 * * * *``) fires at every real instant whose wall time matches:
  both repeated hours, nothing in the skipped hour.
- ``"cron-parser"``: BullMQ's JavaScript parser. Recorded (../shared/DOMAIN.md): on a
  spring-forward day ``30 2 * * *`` fires at 03:30 local, the wall time read with the offset
  from before the change (shifted by the gap). Assumed, not checked against cron-parser here:
  the shift applies to every fixed-time slot in a skipped hour, and everything else
  (repeated hours, wildcard-hour expressions) is as croniter.

Both the Debian and the cron-parser rule are built from croniter's own slots: those in the
zone, and those on the bare wall clock (`Cron(expr, "UTC")` read as local wall time).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from functools import cached_property

from .cadence import Cron
from .timefmt import hm, hms, zone

RULES = ("croniter", "debian", "cron-parser")
#: how each rule is named in prose
RULE_NAMES = {"croniter": "croniter", "debian": "Debian cron", "cron-parser": "cron-parser"}

HOUR = 3_600_000
DAY = 24 * HOUR
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MS = timedelta(milliseconds=1)
_MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
           "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}


# -- the zone's offsets and changes --------------------------------------------------------------

def offset(ms: int, tz: str) -> int:
    """The zone's UTC offset at instant `ms`, in ms (New York in winter: -18000000)."""
    return (_EPOCH + ms * _MS).astimezone(zone(tz)).utcoffset() // _MS


def abbreviation(ms: int, tz: str) -> str:
    """The zone's name for its offset at `ms`: EDT, EST, BST, GMT, AEDT, UTC..."""
    return (_EPOCH + ms * _MS).astimezone(zone(tz)).tzname()


@dataclass(frozen=True)
class Change:
    """A daylight-saving change: at instant `at` the offset goes from `before` to `after` (ms)."""

    at: int
    before: int
    after: int

    @property
    def forward(self) -> bool:
        return self.after > self.before

    @property
    def wall(self) -> tuple[int, int]:
        """The wall times (as UTC ms of the bare clock) that are skipped or repeated: [from, to)."""
        a, b = self.at + self.before, self.at + self.after
        return (a, b) if a < b else (b, a)


def changes(tz: str, start: int, end: int, *, step: int = 6 * HOUR) -> list[Change]:
    """The zone's offset changes in [start, end), found by sampling every `step` and bisecting
    (zoneinfo has no public list of transitions). Two changes closer than `step` are missed."""
    out, t, off = [], start, offset(start, tz)
    while t < end:
        u = min(t + step, end)
        o = offset(u, tz) if u < end else offset(end - 1, tz)
        if o != off:
            lo, hi = t, u if u < end else end - 1   # offset(lo) == off, offset(hi) != off
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if offset(mid, tz) == off else (lo, mid)
            out.append(Change(hi, off, o))
            off = o
        t = u
    return out


def year_changes(tz: str, year: int) -> list[Change]:
    """The changes of a calendar year (UTC): two for New York, London, Sydney; none for UTC."""
    return changes(tz, _utc_ms(datetime(year, 1, 1)), _utc_ms(datetime(year + 1, 1, 1)))


# -- wall clock <-> instants -----------------------------------------------------------------------

def _utc_ms(naive: datetime) -> int:
    return (naive - _NAIVE_EPOCH) // _MS


def _naive(wall: int) -> datetime:
    return _NAIVE_EPOCH + wall * _MS


def wall(ms: int, tz: str) -> int:
    """The local wall-clock reading at instant `ms`, as ms of the bare clock (read it in UTC)."""
    return ms + offset(ms, tz)


@dataclass(frozen=True)
class WallTime:
    """What a zone makes of one wall-clock time: the real instants that show it (none, one,
    or two), the instant it reads as with the offset from before a change (`shifted`), and,
    for a time in a skipped hour, the instant of the change that skipped it (`change`)."""

    instants: tuple[int, ...]
    shifted: int
    change: int | None = None

    @property
    def skipped(self) -> bool:
        return not self.instants

    @property
    def repeated(self) -> bool:
        return len(self.instants) == 2


def resolve(wall_ms: int, tz: str) -> WallTime:
    """PEP 495's folds: fold=0 is the first of two readings, and in a gap the offset before."""
    z, naive = zone(tz), _naive(wall_ms)
    i0 = (naive.replace(tzinfo=z, fold=0) - _EPOCH) // _MS
    i1 = (naive.replace(tzinfo=z, fold=1) - _EPOCH) // _MS
    real = [i for i in sorted({i0, i1}) if wall(i, tz) == wall_ms]
    if real:
        return WallTime(tuple(real), i0)
    # a gap: fold=1 (offset after) reads earlier than the change, fold=0 (offset before) later
    lo, hi = i1, i0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if offset(mid, tz) == offset(i1, tz) else (lo, mid)
    return WallTime((), i0, hi)


def parse_day(day) -> date:
    """'2026-11-01' (or a date) to a date; anything else is a ValueError naming it."""
    if isinstance(day, date) and not isinstance(day, datetime):
        return day
    try:
        return date.fromisoformat(day)
    except (TypeError, ValueError):
        raise ValueError(f"day {day!r} is not a date; write it like '2026-11-01'") from None


def day_bounds(tz: str, day) -> tuple[int, int]:
    """[start, end) of a local calendar day as Unix ms: 23, 24 or 25 hours long."""
    d = parse_day(day)

    def midnight(x: date) -> int:
        w = resolve(_utc_ms(datetime(x.year, x.month, x.day)), tz)
        return w.instants[0] if w.instants else w.change

    return midnight(d), midnight(d + timedelta(days=1))


# -- the three rules --------------------------------------------------------------------------------

def _rule(rule: str) -> str:
    if rule not in RULES:
        raise ValueError(f"rule {rule!r} is not one of {', '.join(RULES)}")
    return rule


def _expand(expr: str) -> str:
    return _MACROS.get(expr.strip().lower(), expr) if isinstance(expr, str) else expr


def fixed_time(expr: str) -> bool:
    """Debian cron's "fixed-time job": five fields, minute and hour not starting with '*'."""
    fields = _expand(expr).split()
    return len(fields) == 5 and not fields[0].startswith("*") and not fields[1].startswith("*")


class Window:
    """One expression in one zone over [start, end): croniter's slots, the bare wall-clock
    matches, and each rule's instants, worked out once and shared."""

    def __init__(self, expr: str, tz: str, start: int, end: int):
        self.cron = Cron(_expand(expr), tz)       # a bad expression or zone -> ValueError
        self.expr, self.tz, self.start, self.end = expr, tz, int(start), int(end)
        if self.end <= self.start:
            raise ValueError(f"window end {end} ms is not after start {start} ms")

    @staticmethod
    def _iterate(cron: Cron, start: int, end: int) -> list[int]:
        out, t = [], start - 1
        while True:
            t = cron.after(t)
            if t >= end:
                return out
            out.append(t)

    @cached_property
    def croniter(self) -> list[int]:
        """`Cron(expr, tz).after(t)` iterated: emqsim's own slots."""
        return self._iterate(self.cron, self.start, self.end)

    @cached_property
    def walls(self) -> list[int]:
        """Bare wall-clock matches that can land in the window, each as a UTC-ms reading."""
        offs = [offset(self.start - 1, self.tz), offset(self.start, self.tz), offset(self.end - 1, self.tz)]
        for c in changes(self.tz, self.start, self.end):
            offs += [c.before, c.after]
        return self._iterate(Cron(self.cron.expr, "UTC"), self.start + min(offs), self.end + max(offs))

    def _inside(self, instants) -> list[int]:
        return sorted({i for i in instants if self.start <= i < self.end})

    @cached_property
    def debian(self) -> list[int]:
        """A fixed-time job: each wall match once, at its first reading or at the change that
        skipped it. Any other: every real instant whose wall time matches."""
        out = []
        fixed = fixed_time(self.expr)
        for w in self.walls:
            r = resolve(w, self.tz)
            if fixed:
                out.append(r.instants[0] if r.instants else r.change)   # first hour; the change
            else:
                out.extend(r.instants)                                  # every real reading
        return self._inside(out)

    @cached_property
    def cron_parser(self) -> list[int]:
        """croniter's slots, except that a fixed-time slot in a skipped hour is read with the
        offset from before the change (02:30 -> 03:30) instead of running at the change."""
        if not fixed_time(self.expr):
            return self.croniter
        matches = set(self.walls)
        kept = [s for s in self.croniter if wall(s, self.tz) in matches]   # drop croniter's moves
        readings = [resolve(w, self.tz) for w in self.walls]
        return self._inside(kept + [r.shifted for r in readings if r.skipped])

    def slots(self, rule: str = "croniter") -> list[int]:
        return list(getattr(self, _rule(rule).replace("-", "_")))

    def all(self) -> dict[str, list[int]]:
        return {r: self.slots(r) for r in RULES}


def slots_between(expr: str, tz: str, start: int, end: int, rule: str = "croniter") -> list[int]:
    """The instants (Unix ms) in [start, end) at which `expr` fires in `tz` under `rule`."""
    _rule(rule)
    return Window(expr, tz, start, end).slots(rule)


def slots(expr: str, tz: str, day, rule: str = "croniter") -> list[int]:
    """The instants (Unix ms) at which `expr` fires on local day `day` ('2026-11-01') in `tz`."""
    _rule(rule)
    return Window(expr, tz, *day_bounds(tz, day)).slots(rule)


def compare(expr: str, tz: str, day) -> dict[str, list[int]]:
    """All three rules for one day, sharing croniter's work: {rule: [ms, ...]}."""
    return Window(expr, tz, *day_bounds(tz, day)).all()


# -- formatting --------------------------------------------------------------------------------------

def local(ms: int, tz: str) -> str:
    """'01:30 EDT': the wall clock and the zone's abbreviation (seconds only when nonzero)."""
    text = hms(ms, tz) if ms % 60_000 else hm(ms, tz)
    return f"{text} {abbreviation(ms, tz)}"


def utc(ms: int) -> str:
    """'05:30Z'."""
    return (hms(ms) if ms % 60_000 else hm(ms)) + "Z"


def label(ms: int, tz: str) -> str:
    """'01:30 EDT (05:30Z)'."""
    return f"{local(ms, tz)} ({utc(ms)})"


def utc_offset(ms: int) -> str:
    """An offset in ms as 'UTC-04:00'."""
    sign, m = ("-" if ms < 0 else "+"), abs(ms) // 60_000
    return f"UTC{sign}{m // 60:02d}:{m % 60:02d}"
