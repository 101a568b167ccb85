"""Every live figure of the course, by name: how to build it with its default data.

The benchmark times each one's slider moves; presenter-mode and browser tests walk the
same list, so a figure added to a notebook is added here too.
"""

from __future__ import annotations

from collections.abc import Callable


def _cron_interval():
    from .cron_interval import view

    return view()


def _registry_rows():
    from .registry_rows import build

    return build()


def _cadence():
    from .cadence_drift import cadence_view

    return cadence_view()


def _slip():
    from .cadence_drift import slip_view

    return slip_view()


def _wake():
    from .marker import wake_view

    return wake_view()


def _missed():
    from .missed import missed_view

    return missed_view()


def _overlap():
    from .overlap import overlap_view

    return overlap_view()


def _faults():
    from .faults import faults_view

    return faults_view()


def _time_zones():
    from .time_zones import time_zones_view

    return time_zones_view()


#: name -> factory returning a view with `update(**kw) -> str`, `moves()` and `live`
FIGURES: dict[str, Callable] = {
    "01 cron vs interval": _cron_interval,
    "02 one row rewritten": _registry_rows,
    "03 start-to-start": _cadence,
    "03 slip over cycles": _slip,
    "03 wake latency": _wake,
    "04 missed slots": _missed,
    "05 an overlapping run": _overlap,
    "06 crash between two writes": _faults,
    "07 cron across daylight saving": _time_zones,
}
