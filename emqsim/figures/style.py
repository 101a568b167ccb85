"""One look for every figure: colour-blind-safe colours, labelled marks, readable when projected.

Colours are Okabe and Ito's palette, which stays distinct under the common forms of
colour blindness. `present()` scales fonts and line widths up for a projector, and so does
the environment variable EMQSIM_PRESENT=1 (what `make present` sets for Voila's kernels).
"""

from __future__ import annotations

import os

import matplotlib.pyplot as plt

from ..engine.errors import InputError

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

#: sizes read by every figure when it draws (`scale()`), normal and for a projector
NORMAL = {"font": 11.0, "line": 2.0, "marker": 7.0}
PRESENTER = {"font": 18.0, "line": 4.0, "marker": 12.0}
#: figures grow by this much in presenter mode, so the larger text keeps its room
PRESENTER_FIGSIZE = 1.35
#: `EMQSIM_PRESENT=1` starts every kernel in presenter mode (`make present` sets it)
ENV = "EMQSIM_PRESENT"

# Sizes matplotlib draws on its own (tick labels, axis lines, ticks, grid, legend): the
# presenter values, and the values found at import to put back. Title, label, tick and
# legend font sizes are relative ("large", "medium") in matplotlib's defaults, so they
# follow font.size; the rest are absolute and listed here.
_RC_PRESENTER = {
    "axes.linewidth": 1.6,
    "xtick.major.width": 1.6, "ytick.major.width": 1.6,
    "xtick.minor.width": 1.2, "ytick.minor.width": 1.2,
    "xtick.major.size": 7.0, "ytick.major.size": 7.0,
    "grid.linewidth": 1.4,
    "patch.linewidth": 2.0,
    "hatch.linewidth": 2.0,
}
_RC_NORMAL = {k: plt.rcParams[k] for k in _RC_PRESENTER}

_SCALE = dict(NORMAL)


def scale() -> dict[str, float]:
    """Current font size, line width and marker size (bigger in presenter mode)."""
    return dict(_SCALE)


def presenting() -> bool:
    """True while presenter mode is on."""
    return _SCALE == PRESENTER


def present(on: bool = True) -> None:
    """Presenter mode for a projector: large fonts and thick marks in every figure built
    afterwards (a figure already drawn keeps its sizes); `present(False)` puts back the
    normal sizes."""
    if not isinstance(on, bool):
        raise InputError(f"present({on!r}): give True (presenter mode) or False (normal sizes)")
    _SCALE.clear()
    _SCALE.update(PRESENTER if on else NORMAL)
    plt.rcParams.update({"font.size": _SCALE["font"], "lines.linewidth": _SCALE["line"],
                         "lines.markersize": _SCALE["marker"]})
    plt.rcParams.update(_RC_PRESENTER if on else _RC_NORMAL)


def new_figure(width: float = 9.0, height: float = 3.2, nrows: int = 1, **kw):
    """A figure sized for a notebook column (and for a projector in presenter mode)."""
    factor = PRESENTER_FIGSIZE if presenting() else 1.0
    fig, axes = plt.subplots(nrows, 1, figsize=(width * factor, height * factor), dpi=90, **kw)
    return fig, axes


present(os.environ.get(ENV, "").strip().lower() not in ("", "0", "no", "false", "off"))


def time_axis(ax, start: int, end: int, *, step: int = 900_000, tz: str = "UTC", label: str = "time") -> None:
    """An x axis in Unix ms labelled HH:MM in `tz`, a tick every `step` ms."""
    from ..engine.timefmt import hm

    first = start - start % step + (step if start % step else 0)
    ticks = list(range(first, end + 1, step))
    ax.set_xlim(start, end)
    ax.set_xticks(ticks, [hm(t, tz) for t in ticks])
    ax.set_xlabel(f"{label} ({tz})")
    ax.grid(axis="x", color=GREY, alpha=0.3)


def freeze_labels(ax) -> None:
    """Place the axis labels once, where matplotlib's automatic layout puts them, and keep
    them there: the ticks never change on a move, and the automatic placement measures every
    tick label again on each redraw, a good part of a move's cost."""
    ax.figure.canvas.draw()
    to_axes = ax.transAxes.inverted()
    x_pix = ax.xaxis.label.get_position()[1]
    y_pix = ax.yaxis.label.get_position()[0]
    ax.xaxis.set_label_coords(0.5, to_axes.transform((0, x_pix))[1])
    if ax.yaxis.label.get_text():
        ax.yaxis.set_label_coords(to_axes.transform((y_pix, 0))[0], 0.5)
