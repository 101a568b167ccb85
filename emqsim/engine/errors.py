"""The one error type for bad input, and the checks that raise it.

Every call of the package with a value it cannot use (a wrong type, a number out of range,
a name it does not know) raises `InputError`, a `ValueError`, with one line naming the
argument and what would be accepted. It is raised before anything is stored or written,
so a refused call leaves the object, the figure or the keyspace as it was. `arg` carries
the argument's name, so the command line can name its own flag for it.
"""

from __future__ import annotations

import numbers


class InputError(ValueError):
    """A value emqsim cannot use; `arg` names the argument it was given for (or None)."""

    def __init__(self, message: str, arg: str | None = None):
        super().__init__(message)
        self.arg = arg


#: the one line every cron listing ends with where the calendar does (Python's dates hold years
#: 1 to 9999): `Cron`, each rule of `emqsim.cron.rules` and `emqsim cron` say it the same way
CALENDAR_END = "no slot before 9999-12-31 23:59:59 (in the zone): the calendar ends there"
CALENDAR_START = "no slot after 0001-01-01 00:00:00 (in the zone): the calendar begins there"


class CalendarEnd(InputError):
    """A cron's next (or previous) slot would fall after year 9999 (or before year 1); `line`
    is CALENDAR_END or CALENDAR_START."""

    def __init__(self, expr, line: str):
        super().__init__(f"cron {expr!r}: {line}", "cron")
        self.line = line


def whole(value, name: str, *, low: int | None = None, high: int | None = None,
          what: str = "a whole number") -> int:
    """`value` as an int in [low, high]; bools, floats and text are refused, naming `name`.
    numpy integers are welcome (they are whole numbers). `what` says what is accepted."""
    if type(value) is int and (low is None or value >= low) and (high is None or value <= high):
        return value   # the common case, as the test below takes it
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if ok:
        value = int(value)
        ok = (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        raise InputError(f"{name} {value!r} must be {what}{_range(low, high)}", name)
    return value


#: every time, duration or score the package takes is a whole number of Unix ms below this: past
#: 2**53 a number of ms is no longer exact in a Redis score or a float
MAX_MS = 2**53


def whole_ms(value, name: str, *, low: int = 0, what: str = "a whole number of ms") -> int:
    """`value` as whole milliseconds in [low, MAX_MS): the one check of a time or a duration."""
    return whole(value, name, low=low, high=MAX_MS - 1, what=what)


def queue_name(value, name: str = "queue") -> str:
    """A queue name: non-empty text without braces (the braces are the cluster's hash tag that
    keeps every key of a queue in one slot)."""
    if not isinstance(value, str) or not value or any(c in value for c in "{}"):
        raise InputError(f"{name} {value!r} must be non-empty text without braces, like 'demo'", name)
    return value


def _range(low, high) -> str:
    if low is not None and high is not None:
        return f", {low:,} to {high:,}"
    if low is not None:
        return f", {low:,} or more"
    if high is not None:
        return f", at most {high:,}"
    return ""


def one_of(value, allowed, name: str):
    """`value` if it is one of `allowed` (same type: True is not 1, 1.0 is not 1), else InputError."""
    for a in allowed:
        if type(value) is type(a) and value == a:
            return value
        if isinstance(a, numbers.Integral) and not isinstance(a, bool) and not isinstance(value, bool) \
                and isinstance(value, numbers.Integral) and value == a:
            return int(value)
    raise InputError(f"{name} {value!r} is not one of {', '.join(str(a) for a in allowed)}", name)
