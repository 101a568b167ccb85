"""Every live figure of the course, by title: its lesson model and its view.

The benchmark, the presenter and browser tests and the static site walk this one table,
so a figure added to a notebook is added here too. A notebook marks the cell that shows a
figure's panel with the cell metadata ``{"emqsim": {"figure": TITLE}}``; the static site
puts the pre-rendered slider there.
"""

from __future__ import annotations

from importlib import import_module

#: title -> (module, in both emqsim.lessons and emqsim.figures; model class; view class)
SOURCES: dict[str, tuple[str, str, str]] = {
    "01 cron vs interval": ("cron_interval", "CronIntervalModel", "CronIntervalView"),
    "02 one row rewritten": ("registry_rows", "RegistryRowsModel", "RegistryRowsView"),
    "02 the keys, step by step": ("script_steps", "StepsModel", "ScriptStepsView"),
    "03 start-to-start": ("cadence_drift", "CadenceModel", "CadenceView"),
    "03 slip over cycles": ("cadence_drift", "SlipModel", "SlipView"),
    "03 wake latency": ("marker", "WakeModel", "WakeView"),
    "03 the marker, step by step": ("script_steps", "MarkerStepsModel", "ScriptStepsView"),
    "04 missed slots": ("missed", "MissedModel", "MissedView"),
    "05 an overlapping run": ("overlap", "OverlapModel", "OverlapView"),
    "06 crash between two writes": ("faults", "FaultsModel", "FaultsView"),
    "07 cron across daylight saving": ("time_zones", "TimeZonesModel", "TimeZonesView"),
}

#: the metadata key a notebook cell carries to say which figure's panel it shows
CELL_KEY = "emqsim"


def _source(title: str) -> tuple[str, str, str]:
    """The table's row for `title`, or InputError listing the titles there are."""
    from ..engine.errors import InputError

    try:
        return SOURCES[title]
    except (KeyError, TypeError):
        raise InputError(f"figure {title!r} is not one of the course's: {', '.join(map(repr, SOURCES))}",
                         "title") from None


def model(title: str):
    """A fresh model of the figure `title` (its frames computed lazily)."""
    module, model_class, _ = _source(title)
    return getattr(import_module(f"emqsim.lessons.{module}"), model_class)()


def figure(title: str, model_=None, layout: str = "normal"):
    """The figure `title`: its model (a fresh one unless given) drawn by its view at the
    defaults, in `layout` ("normal", or "narrow" for a phone: `style.LAYOUTS`)."""
    from .style import laid_out
    from .view import Figure

    module, _, view_class = _source(title)
    with laid_out(layout):
        view = getattr(import_module(f"{__package__}.{module}"), view_class)()
    return Figure(model(title) if model_ is None else model_, view)
