"""Every live figure of the course, by title: its lesson model and its view.

The benchmark, the presenter and browser tests and the static site walk this one table,
so a figure added to a notebook is added here too. A notebook marks the cell that shows a
figure's panel with the cell metadata ``{"emqsim": {"figure": TITLE}}``; the static site
puts the pre-rendered slider there.
"""

from __future__ import annotations

from ..lessons import (cron_time_zones, cron_vs_interval, faults, missed_slots, motion, one_row_rewritten,
                       overlap, script_steps, start_to_start)
from . import cron_time_zones as cron_time_zones_view
from . import cron_vs_interval as cron_vs_interval_view
from . import faults as faults_view
from . import missed_slots as missed_slots_view
from . import motion as motion_view
from . import one_row_rewritten as one_row_rewritten_view
from . import overlap as overlap_view
from . import script_steps as script_steps_view
from . import start_to_start as start_to_start_view
from .style import laid_out
from .view import Figure
from ..engine.errors import InputError

#: title -> (its model class, in the lesson module named after its notebook; its view class).
#: The two step-by-step figures share `script_steps`, the walk through a script's calls.
SOURCES: dict[str, tuple[type, type]] = {
    "01 cron vs interval": (cron_vs_interval.CronIntervalModel, cron_vs_interval_view.CronIntervalView),
    "02 one row rewritten": (one_row_rewritten.RegistryRowsModel, one_row_rewritten_view.RegistryRowsView),
    "02 watch a job move": (motion.JourneyModel, motion_view.JourneyView),
    "02 the keys, step by step": (script_steps.StepsModel, script_steps_view.ScriptStepsView),
    "03 start-to-start": (start_to_start.CadenceModel, start_to_start_view.CadenceView),
    "03 slip over cycles": (start_to_start.SlipModel, start_to_start_view.SlipView),
    "03 wake latency": (start_to_start.WakeModel, start_to_start_view.WakeView),
    "03 the marker, step by step": (script_steps.MarkerStepsModel, script_steps_view.ScriptStepsView),
    "04 missed slots": (missed_slots.MissedModel, missed_slots_view.MissedView),
    "05 an overlapping run": (overlap.OverlapModel, overlap_view.OverlapView),
    "05 watch the runs pile up": (motion.PileUpModel, motion_view.PileUpView),
    "06 crash between two writes": (faults.FaultsModel, faults_view.FaultsView),
    "07 cron across daylight saving": (cron_time_zones.TimeZonesModel, cron_time_zones_view.TimeZonesView),
}

#: the metadata key a notebook cell carries to say which figure's panel it shows
CELL_KEY = "emqsim"


def _source(title: str) -> tuple[type, type]:
    """The table's row for `title`, or InputError listing the titles there are."""
    try:
        return SOURCES[title]
    except (KeyError, TypeError):
        raise InputError(f"figure {title!r} is not one of the course's: {', '.join(map(repr, SOURCES))}",
                         "title") from None


def model(title: str):
    """A fresh model of the figure `title` (its frames computed lazily)."""
    return _source(title)[0]()


def figure(title: str, model_=None, layout: str = "normal"):
    """The figure `title`: its model (a fresh one unless given) drawn by its view at the
    defaults, in `layout` ("normal", or "narrow" for a phone: `style.LAYOUTS`)."""
    with laid_out(layout):
        view = _source(title)[1]()
    return Figure(model(title) if model_ is None else model_, view)
