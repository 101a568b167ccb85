"""Time zones and ISO 8601 instants, converted to and from integer Unix ms.

Pure functions of their arguments: nothing here looks at the wall clock.
"""

from __future__ import annotations

import numbers

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import InputError

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)
_EXAMPLE = "2026-11-30T09:00:00Z"


def zone(name: str) -> ZoneInfo:
    """Look up an IANA zone, turning the library's several failure types into one ValueError."""
    try:
        if not isinstance(name, str) or not name:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise InputError(
            f"unknown time zone {name!r}; use an IANA name such as 'UTC', 'Europe/London' or 'America/New_York'",
            "tz",
        ) from None


def parse_instant(text: str, tz: str = "UTC", *, name: str | None = None, repeated: str = "first") -> int:
    """ISO 8601 text to Unix ms; times without an offset are wall-clock times in `tz`.

    A local time that does not exist in `tz` (inside a spring-forward gap) is refused, naming
    the gap, rather than moved. One that happens twice (a fall-back hour) is the first of the
    two, the offset before the change, with `repeated="first"`; `repeated="refuse"` asks for
    an explicit offset instead. Only ASCII digits are read. `name` labels the errors."""
    where = zone(tz)
    try:
        if not isinstance(text, str) or not text.isascii():
            raise ValueError(text)
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"{_label(name)}{text!r} is not an ISO 8601 time; write it like {_EXAMPLE}", name) from None
    if dt.tzinfo is None:
        first, second = dt.replace(tzinfo=where, fold=0), dt.replace(tzinfo=where, fold=1)
        if _wall(first) != dt:  # the clocks jumped over this wall time
            raise InputError(
                f"{_label(name)}{text!r} does not exist in {tz}: the clocks skip from {_offset(first)} to "
                f"{_offset(second)} that day; give a time outside the gap or an explicit offset", name)
        if first.utcoffset() != second.utcoffset():
            if repeated == "refuse":
                raise InputError(
                    f"{_label(name)}{text!r} happens twice in {tz} ({_offset(first)}, then {_offset(second)}); "
                    f"add the offset you mean, like {text.strip()}{_offset(first)}", name)
        dt = first
    try:
        return (dt - _EPOCH) // _MS
    except OverflowError:
        raise InputError(f"{_label(name)}{text!r} is out of range; write it like {_EXAMPLE}", name) from None


def _label(name: str | None) -> str:
    return "" if name is None else f"{name} "


def _wall(dt: datetime) -> datetime:
    """The local wall time `dt` really reads after a round trip through UTC."""
    return dt.astimezone(timezone.utc).astimezone(dt.tzinfo).replace(tzinfo=None)


def _offset(dt: datetime) -> str:
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


def _local(ms: int, tz: str) -> datetime:
    if isinstance(ms, bool) or not isinstance(ms, numbers.Integral):  # numpy ints are welcome
        raise InputError(f"time {ms!r} is not Unix ms; give a whole number of milliseconds", "time")
    try:
        return (_EPOCH + int(ms) * _MS).astimezone(zone(tz))
    except OverflowError:
        raise InputError(f"time {ms!r} is out of range; give Unix ms within years 1 to 9999", "time") from None


def iso(ms: int, tz: str = "UTC") -> str:
    """ISO 8601 text for Unix ms: 'Z' in UTC, a numeric offset elsewhere, ms only when nonzero."""
    dt = _local(ms, tz)
    text = dt.isoformat(timespec="milliseconds" if dt.microsecond else "seconds")
    return text[:-6] + "Z" if tz == "UTC" else text


def hms(ms: int, tz: str = "UTC") -> str:
    """Wall-clock 'HH:MM:SS' in `tz`, for compact logs."""
    return _local(ms, tz).strftime("%H:%M:%S")


def hm(ms: int, tz: str = "UTC") -> str:
    """Wall-clock 'HH:MM' in `tz`."""
    return _local(ms, tz).strftime("%H:%M")
