"""Which instants a cron expression fires on a day when the wall clock jumps, by each library's rule.

A cron expression names wall-clock times; a zone turns each into an instant. On a
daylight-saving day some wall times happen twice (fall back) and some never (spring
forward), and each library decides for itself what the slot means then. Each rule here is
that library's own answer, and the test suite holds it to the library:

- ``"croniter"``: emqsim's `Cron` (croniter 7), `Cron(expr, tz).after(t)` iterated. A wall
  time in the skipped hour fires at the change (03:00 in New York); a repeated wall time fires
  in both passes.
- ``"debian"``: Debian cron's rule, as the cronsim library (2.x) implements it; cronsim is
  called, not re-derived. A *fixed-time* job (five fields whose minute and hour do not start
  with ``*``) fires once at a repeated wall time, in the first pass, and at the change for a
  skipped one; any other expression fires at every real instant whose wall time matches.
- ``"cron-parser"``: cron-parser 5.10.3 (the parser BullMQ 6.7.0 uses), one iterator from the
  start of the window, re-written from its source in `emqsim.cron_parser` and checked against
  the library's recorded answers. A repeated hour runs once, in its first pass, unless the hour
  field lists all 24 hours; a slot in a skipped hour moves into the hour the clock lands on,
  keeping its minute. On some days and zones it gives up (its loop limit): a ValueError.
- ``"bullmq"``: what a BullMQ 6.7.0 job scheduler runs when each job is taken on time: its
  next run is a fresh cron-parser parse from the previous run, one `next()` each
  (`defaultRepeatStrategy` in job-scheduler.js). It forgets what the iterator noted while
  crossing a change, so it can differ from ``"cron-parser"`` (``*/20 2 * * *`` on New York's
  spring day: 03:00 only, where the iterator gives 03:00, 03:20 and 03:40).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from functools import cached_property

from cronsim import CronSim, CronSimError

from . import cron_parser as _cron_parser
from .cadence import Cron
from .timefmt import hm, hms, iso, zone

CRON_PARSER_VERSION = _cron_parser.VERSION
#: the libraries' rules (what `emqsim cron --rule` offers)
RULES = ("croniter", "debian", "cron-parser")
#: the rules and BullMQ's use of cron-parser
ALL = (*RULES, "bullmq")
#: how each rule is named in prose
RULE_NAMES = {"croniter": "croniter", "debian": "Debian cron", "cron-parser": "cron-parser", "bullmq": "BullMQ"}
#: where each rule comes from, with versions
SOURCES = {
    "croniter": "croniter 7.x, croniter.get_next (emqsim's Cron)",
    "debian": "cronsim 2.x, CronSim (Debian cron's rule)",
    "cron-parser": f"cron-parser {_cron_parser.VERSION}, CronExpression.next() (one iterator)",
    "bullmq": f"bullmq 6.7.0 job-scheduler.js defaultRepeatStrategy: cron-parser {_cron_parser.VERSION}, "
              "a fresh parse from each previous run",
}

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


# -- the rules --------------------------------------------------------------------------------------

def _rule(rule: str, allowed=ALL) -> str:
    if rule not in allowed:
        raise ValueError(f"rule {rule!r} is not one of {', '.join(allowed)}")
    return rule


def _expand(expr: str) -> str:
    return _MACROS.get(expr.strip().lower(), expr) if isinstance(expr, str) else expr


def _instant(dt: datetime) -> int:
    return (dt - _EPOCH) // _MS


class Window:
    """One expression in one zone over [start, end): each rule's instants, worked out on demand
    and kept."""

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

    @cached_property
    def debian(self) -> list[int]:
        """cronsim's iterator from the window's start, in the zone."""
        begin = (_EPOCH + (self.start - 1) * _MS).astimezone(zone(self.tz))
        out = []
        try:
            for dt in CronSim(self.cron.expr, begin):
                t = _instant(dt)
                if t >= self.end:
                    return out
                if t >= self.start:      # a fixed-time slot read in its first pass can lie before
                    out.append(t)
        except CronSimError as exc:
            raise ValueError(f"cron {self.expr!r}: cronsim refuses it: {exc}") from None
        return out

    @cached_property
    def cron_parser(self) -> list[int]:
        """cron-parser's one iterator from the window's start (`emqsim.cron_parser`)."""
        return _cron_parser.runs(self.expr, self.tz, self.start - 1, self.end)

    @cached_property
    def bullmq(self) -> list[int]:
        """BullMQ's chain: a fresh cron-parser parse from each previous run."""
        return _cron_parser.chain(self.expr, self.tz, self.start - 1, self.end)

    def slots(self, rule: str = "croniter") -> list[int]:
        return list(getattr(self, _rule(rule).replace("-", "_")))

    def all(self, rules=ALL) -> dict[str, list[int]]:
        return {r: self.slots(r) for r in rules}


def slots_between(expr: str, tz: str, start: int, end: int, rule: str = "croniter") -> list[int]:
    """The instants (Unix ms) in [start, end) at which `expr` fires in `tz` under `rule`."""
    _rule(rule)
    return Window(expr, tz, start, end).slots(rule)


def runs_after(expr: str, tz: str, after: int, until: int, rule: str = "croniter") -> list[int]:
    """The instants strictly after `after` and before `until` (what `emqsim cron` lists)."""
    return slots_between(expr, tz, int(after) + 1, until, rule)


def listing(expr: str, tz: str, after: int, until: int, rule: str = "croniter") -> tuple[list[int], str | None]:
    """`runs_after`, except that where cron-parser gives up part-way (its loop limit) the runs it
    gave before that come back with its message instead of a ValueError. Bad input still raises."""
    _rule(rule)
    w = Window(expr, tz, int(after) + 1, until)
    if rule not in ("cron-parser", "bullmq"):
        return w.slots(rule), None
    _cron_parser.parse(expr)                       # a bad expression is refused before any run
    walk = _cron_parser.iter_runs if rule == "cron-parser" else _cron_parser.iter_chain
    out: list[int] = []
    try:
        out.extend(walk(expr, tz, int(after), until))
    except ValueError as exc:
        return out, str(exc)
    return out, None


def slots(expr: str, tz: str, day, rule: str = "croniter") -> list[int]:
    """The instants (Unix ms) at which `expr` fires on local day `day` ('2026-11-01') in `tz`."""
    _rule(rule)
    return Window(expr, tz, *day_bounds(tz, day)).slots(rule)


def compare(expr: str, tz: str, day, rules=ALL) -> dict[str, list[int]]:
    """Each rule for one day: {rule: [ms, ...]}."""
    return Window(expr, tz, *day_bounds(tz, day)).all(rules)


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


def table(runs: list[int], tz: str) -> str:
    """One line per run: its number, local date and time, the zone's offset and name, and UTC."""
    head = f"{'n':>4}  {'date':10}  {'local':8}  {'offset':15}  UTC"
    lines = [head, "-" * (len(head) + 18)]
    for n, t in enumerate(runs, 1):
        day = iso(t, tz)[:10]
        zone_text = f"{utc_offset(offset(t, tz))} {abbreviation(t, tz)}"
        lines.append(f"{n:>4}  {day}  {hms(t, tz)}  {zone_text:15}  {iso(t)}")
    return "\n".join(lines)
