"""emqsim: a teaching simulator of a Redis-backed job scheduler, on Lua scripts and virtual time.

The pieces, in the order a run uses them:
cadence (Every, Cron) -> Schedule (rule, limits) -> Registry (Lua scripts on a Store)
-> Pump and Worker on a VirtualClock -> PumpDesign -> Trace; BullMQ's own design, where
the next job is made when a worker takes the previous one, is `simulate(..., design="bullmq")`.

Importing the package loads none of it: each public name is looked up in `PUBLIC` on first
use (a module `__getattr__`), so `python -m emqsim` can set up its Ctrl-C handling before
the engine (redis, croniter, numpy) loads, and a Ctrl-C then is one line, not a traceback.
"""

from __future__ import annotations

import importlib as _importlib

#: the one place the version is written (pyproject.toml reads it; CHANGELOG.md names it)
__version__ = "0.2.0"

#: every public name -> the module that defines it (the one place they are re-exported from)
PUBLIC = {
    "InputError": "engine.errors", "Cron": "engine.cadence", "Every": "engine.cadence",
    "cadence": "engine.cadence", "VirtualClock": "engine.clock", "format_duration": "engine.durations",
    "parse_duration": "engine.durations", "Faults": "engine.faults", "Minter": "engine.ids",
    "minted_at": "engine.ids", "Pump": "engine.pump", "Registry": "engine.registry", "INF": "engine.schedule",
    "Schedule": "engine.schedule", "PumpDesign": "engine.sim", "simulate": "engine.sim",
    "ServerError": "engine.store", "Store": "engine.store", "at": "engine.timefmt", "hm": "engine.timefmt",
    "hms": "engine.timefmt", "iso": "engine.timefmt", "Fire": "engine.trace", "Trace": "engine.trace",
    "Worker": "engine.worker",
}


def present(on: bool = True) -> None:
    """Presenter mode for every figure: large fonts, thick marks (imports matplotlib)."""
    from .figures.style import present as _present

    _present(on)


def __getattr__(name: str):
    where = PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module 'emqsim' has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))


__all__ = [
    "InputError", "Cron", "Every", "cadence", "VirtualClock", "format_duration", "parse_duration", "Faults",
    "present", "Minter", "minted_at", "Pump", "Registry", "INF", "Schedule", "PumpDesign",
    "simulate", "ServerError", "Store", "at", "hm", "hms", "iso", "Fire", "Trace", "Worker",
]
