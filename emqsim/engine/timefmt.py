"""Time zones and ISO 8601 instants, converted to and from integer Unix ms.

Also what a zone does to its wall clock: its offset at an instant, the instants it changes
offset, the real instants that show a wall-clock time (none, one or two), the bounds of a
local day (23, 24 or 25 hours), and the short texts the lessons print ('01:30 EDT (05:30Z)').
The cron rules that read these live in `emqsim.cron.rules`.

Pure functions of their arguments: nothing here looks at the wall clock.
"""

from __future__ import annotations

import numbers

from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InputError

#: Unix time 0, as an aware instant and as a bare clock reading; one millisecond
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_NAIVE_EPOCH = datetime(1970, 1, 1)
_MS = timedelta(milliseconds=1)
#: how far apart `changes` samples a zone's offset: closer than any two real changes
_SAMPLE = 6 * 3_600_000
_EXAMPLE = "2026-11-30T09:00:00Z"


def zone(name: str) -> ZoneInfo:
    """Look up an IANA zone, turning the library's several failure types into one InputError."""
    try:
        if isinstance(name, str) and name:
            return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        pass
    raise InputError(
        f"unknown time zone {name!r}; use an IANA name such as 'UTC', 'Europe/London' or 'America/New_York'", "tz")


def parse_instant(text: str, tz: str = "UTC", *, name: str | None = None, repeated: str = "first") -> int:
    """ISO 8601 text to Unix ms; times without an offset are wall-clock times in `tz`.

    A local time that does not exist in `tz` (inside a spring-forward gap) is refused, naming
    the gap, rather than moved. One that happens twice (a fall-back hour) is the first of the
    two, the offset before the change, with `repeated="first"`; `repeated="refuse"` asks for
    an explicit offset instead. Only ASCII digits are read. `name` labels the errors."""
    where = zone(tz)
    try:
        dt = datetime.fromisoformat(text.strip()) if isinstance(text, str) and text.isascii() else None
    except ValueError:
        dt = None
    if dt is None:
        raise InputError(f"{_named(name)}{text!r} is not an ISO 8601 time; write it like {_EXAMPLE}", name)
    if dt.tzinfo is None:
        first, second = dt.replace(tzinfo=where, fold=0), dt.replace(tzinfo=where, fold=1)
        if _wall(first) != dt:  # the clocks jumped over this wall time
            raise InputError(
                f"{_named(name)}{text!r} does not exist in {tz}: the clocks skip from {_offset_text(first)} to "
                f"{_offset_text(second)} that day; give a time outside the gap or an explicit offset", name)
        if first.utcoffset() != second.utcoffset():
            if repeated == "refuse":
                raise InputError(
                    f"{_named(name)}{text!r} happens twice in {tz} ({_offset_text(first)}, then {_offset_text(second)}); "
                    f"add the offset you mean, like {text.strip()}{_offset_text(first)}", name)
        dt = first
    try:
        return (dt - _EPOCH) // _MS
    except OverflowError:
        raise InputError(f"{_named(name)}{text!r} is out of range; write it like {_EXAMPLE}", name) from None


def _named(name: str | None) -> str:
    return "" if name is None else f"{name} "


def _wall(dt: datetime) -> datetime:
    """The local wall time `dt` really reads after a round trip through UTC."""
    return dt.astimezone(timezone.utc).astimezone(dt.tzinfo).replace(tzinfo=None)


def _offset_text(dt: datetime) -> str:
    return dt.isoformat()[-6:] if dt.utcoffset() else "+00:00"


def at(date_time_text: str, tz: str = "UTC") -> int:
    """Short alias of parse_instant for tests and notebooks: at("2026-11-30 09:00")."""
    return parse_instant(date_time_text, tz)


def parse_interval(text: str, tz: str = "UTC", *, name: str = "outage", repeated: str = "first") -> tuple[int, int]:
    """'START/END' to (start_ms, end_ms); `name` labels the errors."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise InputError(f"{text!r} is not an interval; write it like {_EXAMPLE}/2026-11-30T10:00:00Z", name)
    start_text, end_text = (part.strip() for part in text.split("/"))
    start = parse_instant(start_text, tz, repeated=repeated)
    end = parse_instant(end_text, tz, repeated=repeated)
    if end < start:
        raise InputError(f"{name} ends at {end_text} before it starts at {start_text}; put the earlier time first", name)
    return start, end


def _datetime(ms: int, tz: str) -> datetime:
    if isinstance(ms, bool) or not isinstance(ms, numbers.Integral):  # numpy ints are welcome
        raise InputError(f"time {ms!r} is not Unix ms; give a whole number of milliseconds", "time")
    try:
        return (_EPOCH + int(ms) * _MS).astimezone(zone(tz))
    except OverflowError:
        raise InputError(f"time {ms!r} is out of range; give Unix ms within years 1 to 9999", "time") from None


def iso(ms: int, tz: str = "UTC") -> str:
    """ISO 8601 text for Unix ms: 'Z' in UTC, a numeric offset elsewhere, ms only when nonzero."""
    dt = _datetime(ms, tz)
    text = dt.isoformat(timespec="milliseconds" if dt.microsecond else "seconds")
    return text[:-6] + "Z" if tz == "UTC" else text


def hms(ms: int, tz: str = "UTC") -> str:
    """Wall-clock 'HH:MM:SS' in `tz`, for compact logs."""
    return _datetime(ms, tz).strftime("%H:%M:%S")


def hm(ms: int, tz: str = "UTC") -> str:
    """Wall-clock 'HH:MM' in `tz`."""
    return _datetime(ms, tz).strftime("%H:%M")


# -- a zone's offsets and its changes ------------------------------------------------------------

def offset(ms: int, tz: str) -> int:
    """The zone's UTC offset at instant `ms`, in ms (New York in winter: -18000000)."""
    return _datetime(ms, tz).utcoffset() // _MS


def abbreviation(ms: int, tz: str) -> str:
    """The zone's name for its offset at `ms`: EDT, EST, BST, GMT, AEDT, UTC..."""
    return _datetime(ms, tz).tzname()


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


def changes(tz: str, start: int, end: int, *, step: int = _SAMPLE) -> list[Change]:
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


def _naive(wall_ms: int) -> datetime:
    return _NAIVE_EPOCH + wall_ms * _MS


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
    """'2026-11-01' (or a date) to a date; anything else is an InputError naming it."""
    if isinstance(day, date) and not isinstance(day, datetime):
        return day
    try:
        return date.fromisoformat(day)
    except (TypeError, ValueError):
        raise InputError(f"day {day!r} is not a date; write it like '2026-11-01'", "day") from None


def day_bounds(tz: str, day) -> tuple[int, int]:
    """[start, end) of a local calendar day as Unix ms: 23, 24 or 25 hours long."""
    d = parse_day(day)

    def midnight(x: date) -> int:
        w = resolve(_utc_ms(datetime(x.year, x.month, x.day)), tz)
        return w.instants[0] if w.instants else w.change

    return midnight(d), midnight(d + timedelta(days=1))


# -- short texts ------------------------------------------------------------------------------------

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
