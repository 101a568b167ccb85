"""The parts and bounds of a run, checked before anything is written.

Every way of running (the pump's `PumpDesign`, BullMQ's `Chain`, the reference model) checks
its schedules, its pieces and its end the same way, here: a refused run has touched no store.
"""

from __future__ import annotations

from .errors import InputError, whole
from .faults import Faults
from .ids import EPOCH_MS, MAX_OFFSET_MS, id_time
from .pump import Pump
from .schedule import MAX_FIRES as _MAX_FIRES, Schedule
from .timefmt import iso
from .store import Store
from .worker import Worker


#: what can make the jobs: EchoMQ's pump (sim.py) or BullMQ's job schedulers (chain.py)
DESIGNS = ("pump", "bullmq")
#: the most fires one run may be asked for (the command line's --fires cap too): schedule.py's,
#: whose `on_time_runs` lists no more
MAX_FIRES = _MAX_FIRES
#: the most records a trace keeps
MAX_RETAIN = 10_000_000


def check_run(*, start=None, fires=None, until=None, need_end: bool = True, low_fires: int = 0) -> None:
    """The checks every way of running shares (simulate, PumpDesign.run, reference):
    `start` and `until` whole Unix ms the ids can carry, `fires` a count up to MAX_FIRES."""
    if start is not None:
        id_time(start, "start")
    if need_end and fires is None and until is None:
        raise InputError("give fires=N or until=<Unix ms> so the run ends", "fires")
    if fires is not None:
        whole(fires, "fires", low=low_fires, high=MAX_FIRES, what="a whole number of fires")
    if until is not None:
        id_time(until, "until")
        if start is not None and until < start:
            raise InputError(f"until {until} ms is before start {start} ms; give a later time", "until")


def check_reach(schedules, *, start: int, fires: int | None, pump=None, worker=None, faults=None,
                design: str = "pump", **_others) -> None:
    """A run of `fires` fires mints its ids inside the span they can carry, or is refused before
    anything is written, naming what pushed it past: an upper bound on the last release, summed
    term by term (the gaps, then what each gap is chained to under the rule, then one beat and
    one restart). Only interval schedules are bounded here (a cron's gaps are its own); a run
    ended by `until` is bounded by `until` itself."""
    if fires is None or not isinstance(schedules, (list, tuple, Schedule)) or start is None:
        return  # nothing to bound, or check_parts refuses the pieces by name
    id_time(start, "start")
    from .cadence import Every

    end = EPOCH_MS + MAX_OFFSET_MS
    pump = pump if isinstance(pump, Pump) and design == "pump" else Pump(tick=0)
    worker = worker if isinstance(worker, Worker) else Worker()
    faults = faults if isinstance(faults, Faults) else Faults()
    sizes = {"tick": pump.tick, "latency": pump.latency, "poll": worker.poll, "run": worker.run,
             "restart_after": faults.restart_after}
    chained = {"schedule": (), "release": ("tick", "latency"), "finish": ("tick", "latency", "poll", "run")}
    for s in [schedules] if isinstance(schedules, Schedule) else schedules:
        if not isinstance(s, Schedule) or not isinstance(s.cadence, Every):
            continue
        sizes["every"] = s.cadence.ms
        # a row is read at most once a beat: the gaps are the interval's or the tick's, the longer
        terms = [("every" if s.cadence.ms >= pump.tick or s.rule != "schedule" else "tick", fires - 1)]
        terms += [(name, fires - 1) for name in chained[s.rule]]
        terms += [("tick", 1), ("latency", 1)] + [("restart_after", 1)] * (faults.crash_after_enqueue is not None)
        t = s.first_run(start)
        for name, times in terms:
            t += times * sizes[name]
            if t > end:
                raise InputError(f"{name} {sizes[name]} ms takes {fires:,} fires of {s.name!r} past {iso(end)}, the "
                                 f"last time job ids can carry; give fewer fires or a shorter "
                                 f"{name.replace('_', ' ')}", name)


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
    id_time(start, "start")
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
