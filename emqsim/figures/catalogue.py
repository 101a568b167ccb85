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
    "03 start-to-start": ("cadence_drift", "CadenceModel", "CadenceView"),
    "03 slip over cycles": ("cadence_drift", "SlipModel", "SlipView"),
    "03 wake latency": ("marker", "WakeModel", "WakeView"),
    "04 missed slots": ("missed", "MissedModel", "MissedView"),
    "05 an overlapping run": ("overlap", "OverlapModel", "OverlapView"),
    "06 crash between two writes": ("faults", "FaultsModel", "FaultsView"),
    "07 cron across daylight saving": ("time_zones", "TimeZonesModel", "TimeZonesView"),
}

#: the metadata key a notebook cell carries to say which figure's panel it shows
CELL_KEY = "emqsim"


def model(title: str):
    """A fresh model of the figure `title` (its frames computed lazily)."""
    module, model_class, _ = SOURCES[title]
    return getattr(import_module(f"emqsim.lessons.{module}"), model_class)()


def figure(title: str, model_=None):
    """The figure `title`: its model (a fresh one unless given) drawn by its view at the defaults."""
    from .view import Figure

    module, _, view_class = SOURCES[title]
    view = getattr(import_module(f"{__package__}.{module}"), view_class)()
    return Figure(model(title) if model_ is None else model_, view)
