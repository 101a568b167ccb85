"""Durations as people write them ("15m", "1h30m", "90s") turned into integer milliseconds.

Everything in emqsim counts whole ms, so text is parsed once, at the edge.
"""

from __future__ import annotations

import numbers
import re
from decimal import Decimal

from .errors import InputError
from .ids import MAX_OFFSET_MS, years

#: the longest duration: the span the branded ids cover (ids.years()); past it no run
#: could mint an id, and Redis scores stay exact integers
MAX_MS = MAX_OFFSET_MS
MAX_TEXT = 64  # characters of duration text read at all: a 5,000-digit number is refused up front
EXAMPLES = "give a length like 15m, 90s, 1h30m or 900000ms"

# Longest spellings first so "min"/"ms" win over "m".
_UNITS = {"d": 86_400_000, "h": 3_600_000, "min": 60_000, "m": 60_000, "s": 1000, "ms": 1}
_PART = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|min|d|h|m|s)", re.ASCII)  # ASCII digits only


def _text_to_ms(text: str) -> int | None:
    """Sum the unit parts, or None if the text is not a well-formed duration."""
    if not text.isascii():
        return None  # fullwidth or Arabic-Indic digits are not read as numbers
    if re.fullmatch(r"[0-9]+", text):
        return int(text)  # bare digits are ms, matching the int form
    total, pos, last_size = Decimal(0), 0, None
    while pos < len(text):
        m = _PART.match(text, pos)
        if not m:
            return None
        size = _UNITS[m.group(2)]
        if last_size is not None and size >= last_size:
            return None  # units must go from largest to smallest, each once
        total += Decimal(m.group(1)) * size
        pos, last_size = m.end(), size
    if last_size is None or total != total.to_integral_value():
        return None
    return int(total)


def parse_duration(value: int | str, *, name: str = "duration", allow_zero: bool = True) -> int:
    """Return `value` as whole ms, 0 to MAX_MS; `name` labels errors so callers can say 'every',
    'run', ... Text is read with ASCII digits only; bad input raises InputError naming `name`."""
    if isinstance(value, bool):
        ms = None
    elif isinstance(value, numbers.Integral):  # numpy integers too
        ms = int(value)
    elif isinstance(value, float):
        ms = int(value) if value.is_integer() else None
    elif isinstance(value, str) and len(value) > MAX_TEXT:
        raise InputError(f"{name} of {len(value):,} characters is too long to be a duration; {EXAMPLES}", name)
    elif isinstance(value, str):
        text = value.strip().lower()
        negative = text.startswith("-")
        ms = _text_to_ms(text[1:].lstrip() if negative else text)
        if ms is not None and negative and ms != 0:
            ms = -ms
    else:
        ms = None
    if ms is None:
        raise InputError(f"{name} {value!r} is not a duration; {EXAMPLES}", name)
    if ms < 0:
        raise InputError(f"{name} {value!r} is negative; {EXAMPLES}", name)
    if ms == 0 and not allow_zero:
        raise InputError(f"{name} {value!r} must be positive; {EXAMPLES}", name)
    if ms > MAX_MS:
        raise InputError(f"{name} {value!r} is too long; give at most {MAX_MS:,} ms ({years()})", name)
    return ms


def format_duration(ms: int) -> str:
    """Short human text for log lines: 90000 -> '1 min 30 s', 250 -> '250 ms'."""
    if isinstance(ms, bool) or not isinstance(ms, numbers.Integral) or ms < 0:
        raise InputError(f"cannot format duration {ms!r}; give a whole number of ms, 0 or more", "ms")
    ms = int(ms)
    if ms == 0:
        return "0 s"
    if ms < 1000:
        return f"{ms} ms"
    parts = []
    rest = ms
    for label, size in (("d", 86_400_000), ("h", 3_600_000), ("min", 60_000)):
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count} {label}")
    if rest:
        seconds, millis = divmod(rest, 1000)
        text = f"{seconds}.{millis:03d}".rstrip("0").rstrip(".")
        parts.append(f"{text} s")
    return " ".join(parts)
