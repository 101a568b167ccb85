"""The parts and bounds of a run, checked before anything is written.

Every way of running (the pump's `Simulation`, BullMQ's `Chain`, the reference model) checks
its schedules, its pieces and its end the same way, here: a refused run has touched no store.
"""

from __future__ import annotations

from .errors import InputError, whole
from .faults import Faults
from .ids import instant
from .pump import Pump
from .schedule import Schedule
from .store import Store
from .worker import Worker


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
    for name in ("outage", "workers_down"):
        span = getattr(faults, name) if faults is not None else None
        if span is not None and span[0] < start:
            raise InputError(f"{name} begins at {span[0]}, before the start {start}; "
                             f"give {'an' if name == 'outage' else 'a'} {name} from the start on", name)
    return schedules
