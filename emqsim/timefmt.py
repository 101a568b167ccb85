"""Time zones and ISO 8601 instants, converted to and from integer Unix ms.

Pure functions of their arguments: nothing here looks at the wall clock.
"""

from __future__ import annotations

import numbers

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

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
        raise ValueError(
            f"unknown time zone {name!r}; use an IANA name such as 'UTC', 'Europe/London' or 'America/New_York'"
        ) from None


def parse_instant(text: str, tz: str = "UTC") -> int:
    """ISO 8601 text to Unix ms; times without an offset are wall-clock times in `tz`."""
    where = zone(tz)
    try:
        if not isinstance(text, str):
            raise ValueError(text)
        dt = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO 8601 time; write it like {_EXAMPLE}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=where)
    return (dt - _EPOCH) // _MS


def at(date_time_text: str, tz: str = "UTC") -> int:
    """Short alias of parse_instant for tests and notebooks: at("2026-11-30 09:00")."""
    return parse_instant(date_time_text, tz)


def parse_interval(text: str, tz: str = "UTC", *, name: str = "outage") -> tuple[int, int]:
    """'START/END' to (start_ms, end_ms); `name` labels the error for an inverted interval."""
    if not isinstance(text, str) or text.count("/") != 1:
        raise ValueError(f"{text!r} is not an interval; write it like {_EXAMPLE}/2026-11-30T10:00:00Z")
    start_text, end_text = (part.strip() for part in text.split("/"))
    start, end = parse_instant(start_text, tz), parse_instant(end_text, tz)
    if end < start:
        raise ValueError(f"{name} ends at {end_text} before it starts at {start_text}; put the earlier time first")
    return start, end


def _local(ms: int, tz: str) -> datetime:
    if isinstance(ms, bool) or not isinstance(ms, numbers.Integral):  # numpy ints are welcome
        raise ValueError(f"time {ms!r} is not Unix ms; give a whole number of milliseconds")
    return (_EPOCH + int(ms) * _MS).astimezone(zone(tz))


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
