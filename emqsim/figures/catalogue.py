"""Every live figure of the course, by name: how to build it with its default data.

The benchmark times each one's slider moves; presenter-mode and browser tests walk the
same list, so a figure added to a notebook is added here too.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

#: figure -> (module in emqsim.figures, its factory)
SOURCES: dict[str, tuple[str, str]] = {
    "01 cron vs interval": ("cron_interval", "view"),
    "02 one row rewritten": ("registry_rows", "build"),
    "03 start-to-start": ("cadence_drift", "cadence_view"),
    "03 slip over cycles": ("cadence_drift", "slip_view"),
    "03 wake latency": ("marker", "wake_view"),
    "04 missed slots": ("missed", "missed_view"),
    "05 an overlapping run": ("overlap", "overlap_view"),
    "06 crash between two writes": ("faults", "faults_view"),
    "07 cron across daylight saving": ("time_zones", "time_zones_view"),
}


def _factory(module: str, name: str) -> Callable:
    def make():
        return getattr(import_module(f"{__package__}.{module}"), name)()

    make.__name__ = name
    return make


#: name -> factory returning a view with `update(**kw) -> str`, `moves()` and `live`
FIGURES: dict[str, Callable] = {title: _factory(*source) for title, source in SOURCES.items()}
