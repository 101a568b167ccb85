"""One look for every figure: colour-blind-safe colours, labelled marks, readable when projected.

Colours are Okabe and Ito's palette, which stays distinct under the common forms of
colour blindness. `present()` scales fonts and line widths up for a projector.
"""

from __future__ import annotations

import matplotlib.pyplot as plt

# Okabe-Ito
BLACK = "#000000"
ORANGE = "#E69F00"
SKY = "#56B4E9"
GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
PURPLE = "#CC79A7"
GREY = "#999999"

#: what each idea is drawn in, everywhere in the course
ROLE = {
    "cron": BLUE,
    "interval": ORANGE,
    "schedule": BLUE,        # start-to-start from the scheduled time
    "release": PURPLE,       # EchoMQ's now + every
    "finish": VERMILLION,    # start-to-finish
    "now": BLACK,
    "marker": GREEN,
    "poll": GREY,
    "run": SKY,
}

_SCALE = {"font": 11.0, "line": 2.0, "marker": 7.0}


def scale() -> dict[str, float]:
    """Current font size, line width and marker size (bigger in presenter mode)."""
    return dict(_SCALE)


def present(on: bool = True) -> None:
    """Presenter mode: large fonts and thick marks for a projector (call before drawing)."""
    _SCALE.update(font=18.0, line=4.0, marker=12.0) if on else _SCALE.update(font=11.0, line=2.0, marker=7.0)
    plt.rcParams.update({"font.size": _SCALE["font"], "lines.linewidth": _SCALE["line"],
                         "lines.markersize": _SCALE["marker"]})


def new_figure(width: float = 9.0, height: float = 3.2, nrows: int = 1, **kw):
    """A figure sized for a notebook column (and for a projector in presenter mode)."""
    factor = 1.35 if _SCALE["font"] > 11 else 1.0
    fig, axes = plt.subplots(nrows, 1, figsize=(width * factor, height * factor), dpi=90, **kw)
    return fig, axes


present(False)


def time_axis(ax, start: int, end: int, *, step: int = 900_000, tz: str = "UTC", label: str = "time") -> None:
    """An x axis in Unix ms labelled HH:MM in `tz`, a tick every `step` ms."""
    from ..timefmt import hm

    first = start - start % step + (step if start % step else 0)
    ticks = list(range(first, end + 1, step))
    ax.set_xlim(start, end)
    ax.set_xticks(ticks, [hm(t, tz) for t in ticks])
    ax.set_xlabel(f"{label} ({tz})")
    ax.grid(axis="x", color=GREY, alpha=0.3)
