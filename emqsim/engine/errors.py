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


def whole(value, name: str, *, low: int | None = None, high: int | None = None,
          what: str = "a whole number") -> int:
    """`value` as an int in [low, high]; bools, floats and text are refused, naming `name`.
    numpy integers are welcome (they are whole numbers). `what` says what is accepted."""
    ok = not isinstance(value, bool) and isinstance(value, numbers.Integral)
    if ok:
        value = int(value)
        ok = (low is None or value >= low) and (high is None or value <= high)
    if not ok:
        raise InputError(f"{name} {value!r} must be {what}{_range(low, high)}", name)
    return value


def _range(low, high) -> str:
    if low is not None and high is not None:
        return f", {low:,} to {high:,}"
    if low is not None:
        return f", {low:,} or more"
    if high is not None:
        return f", at most {high:,}"
    return ""


def instant(value, name: str) -> int:
    """Whole Unix ms inside the span the branded ids cover (the only times a run can mint at)."""
    from .ids import EPOCH_MS, MAX_OFFSET_MS

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name} {value!r} is not whole Unix ms; give an integer such as 1796029200000", name)
    value = int(value)
    if not EPOCH_MS <= value <= EPOCH_MS + MAX_OFFSET_MS:
        raise InputError(f"{name} {value!r} is outside the times job ids can carry; {span()}", name)
    return value


def span() -> str:
    """The dates the branded ids cover, for messages."""
    from .ids import EPOCH_MS, MAX_OFFSET_MS
    from .timefmt import iso

    return f"give a time from {iso(EPOCH_MS)} to {iso(EPOCH_MS + MAX_OFFSET_MS)}"


def one_of(value, allowed, name: str):
    """`value` if it is one of `allowed` (same type: True is not 1, 1.0 is not 1), else InputError."""
    for a in allowed:
        if type(value) is type(a) and value == a:
            return value
        if isinstance(a, numbers.Integral) and not isinstance(a, bool) and not isinstance(value, bool) \
                and isinstance(value, numbers.Integral) and value == a:
            return int(value)
    raise InputError(f"{name} {value!r} is not one of {', '.join(str(a) for a in allowed)}", name)


#: the most fires one run may be asked for (the command line's --fires cap too)
MAX_FIRES = 1_000_000
#: the most records a trace keeps
MAX_RETAIN = 10_000_000


def check_run(*, start=None, fires=None, until=None, need_end: bool = True, low_fires: int = 0) -> None:
    """The checks every way of running shares (simulate, Simulation.run, reference):
    `start` and `until` whole Unix ms the ids can carry, `fires` a count up to MAX_FIRES."""
    if start is not None:
        instant(start, "start")
    if need_end and fires is None and until is None:
        raise InputError("give fires=N or until=<Unix ms> so the run ends", "fires")
    if fires is not None:
        whole(fires, "fires", low=low_fires, high=MAX_FIRES, what="a whole number of fires")
    if until is not None:
        instant(until, "until")
        if start is not None and until < start:
            raise InputError(f"until {until} ms is before start {start} ms; give a later time", "until")


def check_parts(schedules, *, start, pump=None, worker=None, faults=None, retain=10_000, store=None) -> list:
    """The pieces of a run: Schedule(s) with distinct names, Pump/Worker/Faults objects (or
    None), a retain count and a Store; returns the schedules as a list."""
    from .faults import Faults
    from .pump import Pump
    from .schedule import Schedule
    from .store import Store
    from .worker import Worker

    if isinstance(schedules, Schedule):
        schedules = [schedules]
    elif isinstance(schedules, (str, bytes, dict)) or not hasattr(schedules, "__iter__"):
        raise InputError(f"schedules {schedules!r} must be a Schedule or a list of them", "schedules")
    schedules = list(schedules)
    if not schedules or not all(isinstance(s, Schedule) for s in schedules):
        raise InputError(f"schedules {schedules!r} must be one or more Schedule(...) objects", "schedules")
    names = [s.name for s in schedules]
    if len(set(names)) != len(names):
        raise InputError(f"schedules share a name ({', '.join(sorted({n for n in names if names.count(n) > 1}))}); "
                         "give each its own", "schedules")
    instant(start, "start")
    for value, kind, name in ((pump, Pump, "pump"), (worker, Worker, "worker"), (faults, Faults, "faults"),
                              (store, Store, "store")):
        if value is not None and not isinstance(value, kind):
            raise InputError(f"{name} {value!r} must be a {kind.__name__}(...) or None", name)
    whole(retain, "retain", low=1, high=MAX_RETAIN, what="a number of records to keep")
    if faults is not None and faults.outage is not None and faults.outage[0] < start:
        raise InputError(f"outage begins at {faults.outage[0]}, before the start {start}; "
                         "give an outage from the start on", "outage")
    return schedules
