"""emqsim: a teaching simulator of a Redis-backed job scheduler, on real Lua and virtual time.

The pieces, in the order a run uses them:
cadence (Every, Cron) -> Schedule (rule, limits) -> Registry (Lua scripts on a Store)
-> Pump and Worker on a VirtualClock -> Simulation -> Trace; BullMQ's own design, where
the next job is made when a worker takes the previous one, is `simulate(..., design="bullmq")`.
"""

from .cadence import Cron, Every, cadence
from .clock import VirtualClock
from .durations import format_duration, parse_duration
from .errors import InputError
from .faults import Faults
from .ids import Minter, minted_at
from .pump import Pump
from .registry import Registry
from .schedule import INF, Schedule
from .sim import Simulation, simulate
from .store import ServerError, Store
from .timefmt import at, hm, hms, iso
from .trace import Fire, Trace
from .worker import Worker


def present(on: bool = True) -> None:
    """Presenter mode for every figure: large fonts, thick marks (imports matplotlib)."""
    from .figures.style import present as _present

    _present(on)


__all__ = [
    "InputError", "Cron", "Every", "cadence", "VirtualClock", "format_duration", "parse_duration", "Faults",
    "present", "Minter", "minted_at", "Pump", "Registry", "INF", "Schedule", "Simulation",
    "simulate", "ServerError", "Store", "at", "hm", "hms", "iso", "Fire", "Trace", "Worker",
]
