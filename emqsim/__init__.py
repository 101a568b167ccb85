"""emqsim: a teaching simulator of a Redis-backed job scheduler, on real Lua and virtual time.

The pieces, in the order a run uses them:
cadence (Every, Cron) -> Schedule (rule, limits) -> Registry (Lua scripts on a Store)
-> Pump and Worker on a VirtualClock -> Simulation -> Trace; BullMQ's own design, where
the next job is made when a worker takes the previous one, is `simulate(..., design="bullmq")`.
"""

from .engine.cadence import Cron, Every, cadence
from .engine.clock import VirtualClock
from .engine.durations import format_duration, parse_duration
from .engine.errors import InputError
from .engine.faults import Faults
from .engine.ids import Minter, minted_at
from .engine.pump import Pump
from .engine.registry import Registry
from .engine.schedule import INF, Schedule
from .engine.sim import Simulation, simulate
from .engine.store import ServerError, Store
from .engine.timefmt import at, hm, hms, iso
from .engine.trace import Fire, Trace
from .engine.worker import Worker
from . import _moved

_moved.install()


def present(on: bool = True) -> None:
    """Presenter mode for every figure: large fonts, thick marks (imports matplotlib)."""
    from .figures.style import present as _present

    _present(on)


__all__ = [
    "InputError", "Cron", "Every", "cadence", "VirtualClock", "format_duration", "parse_duration", "Faults",
    "present", "Minter", "minted_at", "Pump", "Registry", "INF", "Schedule", "Simulation",
    "simulate", "ServerError", "Store", "at", "hm", "hms", "iso", "Fire", "Trace", "Worker",
]
