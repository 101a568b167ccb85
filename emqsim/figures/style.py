"""One look for every figure: colour-blind-safe colours, labelled marks, readable when projected.

Colours are Okabe and Ito's palette (matplotlib's 'okabe_ito' sequence), which stays
distinct under the common forms of colour blindness. Marks may use its light tones; text
uses `ink(colour)`, the same hue darkened until it reads at WCAG's 4.5:1 on white, and
also on JupyterLab's dark background once `DARK_CSS` has turned the picture (figures are
transparent, so the page's own background shows through). `present()` scales fonts and
line widths up for a projector, and so does the environment variable EMQSIM_PRESENT=1
(what `make present` sets for Voila's kernels).
"""

from __future__ import annotations

import os
import weakref
from contextlib import contextmanager

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import to_hex, to_rgb

from ..engine.errors import InputError

# Okabe-Ito, in matplotlib's order, and a neutral grey for what is background
BLACK, ORANGE, SKY, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = (
    to_hex(c).upper() for c in mpl.color_sequences["okabe_ito"])
GREY = "#999999"

#: WCAG 2 minimum contrast for text (1.4.3), and the backgrounds a figure is read on:
#: JupyterLab's light and dark layout colours (--jp-layout-color0)
MIN_CONTRAST = 4.5
#: what `ink` aims its text at: MIN_CONTRAST with room for a glyph's antialiased strokes, which
#: at one pixel per CSS px never reach their full colour (issue 30: 02's axis numbers, inked at
#: 4.58:1, read 4.4:1 on their darkest pixel in the browser; inked at 5:1, 03's finish times
#: still read 4.44:1 there)
TEXT_CONTRAST = 5.5
LIGHT_BG = "#FFFFFF"
DARK_BG = "#111111"
#: the class every figure image carries, and the rule that turns it for a dark page: the
#: inversion makes the dark text light, the half turn of hue gives each colour back its hue
FIGURE_CLASS = "emqsim-figure"
DARK_FILTER = "invert(1) hue-rotate(180deg)"
DARK_CSS = (f"body[data-jp-theme-light='false'] .{FIGURE_CLASS} img, "
            f"body[data-jp-theme-light='false'] img.{FIGURE_CLASS} {{ filter: {DARK_FILTER}; }}")
#: the colours of a right answer, a wrong one and plain feedback in a panel (emqsim.figures.ask),
#: each at least `MIN_CONTRAST` on `LIGHT_BG` and, under Lab's dark theme, on `DARK_BG`: a fixed
#: green or grey read on one background only (#333 on Lab's dark one was 1.5:1)
ANSWER_COLOURS = {"light": {"right": "#1a7f37", "wrong": "#8a4600", "plain": "#333333"},
                  "dark": {"right": "#3fb950", "wrong": "#f0a35e", "plain": "#dddddd"}}
ANSWER_CSS = ("body[data-jp-theme-light='false'] { "
              + " ".join(f"--emqsim-{k}: {v};" for k, v in ANSWER_COLOURS["dark"].items()) + " }")


def answer_colour(kind: str) -> str:
    """The CSS colour of feedback of `kind` ("right", "wrong", "plain"): the dark theme's rule
    (`ANSWER_CSS`) sets the variable, the light colour is its fallback."""
    return f"var(--emqsim-{kind}, {ANSWER_COLOURS['light'][kind]})"


def luminance(colour) -> float:
    """WCAG's relative luminance of a colour."""
    rgb = np.array(to_rgb(colour))
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(lin @ [0.2126, 0.7152, 0.0722])


def contrast(a, b) -> float:
    """WCAG's contrast ratio of two colours, 1 to 21."""
    la, lb = sorted((luminance(a), luminance(b)))
    return (lb + 0.05) / (la + 0.05)


def dark(colour) -> str:
    """What `DARK_FILTER` makes of a colour: CSS's invert(1), then hue-rotate(180deg), both on
    sRGB values as the Filter Effects spec defines them."""
    rgb = 1.0 - np.array(to_rgb(colour))
    c, s = np.cos(np.pi), np.sin(np.pi)
    m = (np.array([[0.213, 0.715, 0.072]] * 3)
         + c * np.array([[0.787, -0.715, -0.072], [-0.213, 0.285, -0.072], [-0.213, -0.715, 0.928]])
         + s * np.array([[-0.213, -0.715, 0.928], [0.143, 0.140, -0.283], [-0.787, 0.715, 0.072]]))
    return to_hex(np.clip(m @ rgb, 0.0, 1.0))


def ink(colour, ground: str = LIGHT_BG) -> str:
    """`colour` darkened (mixed with black, its hue kept) just enough for text: at least
    TEXT_CONTRAST on the light background and, turned by the dark filter, on the dark one; and on
    `ground`, where the text stands on a fill of its own (02's and 05's boxes: the grey of their
    key names read 4.2:1 on their #F4F4F4), light and turned."""
    rgb = np.array(to_rgb(colour))
    for k in range(101):
        c = to_hex(rgb * (1 - k / 100))
        if min(contrast(c, LIGHT_BG), contrast(dark(c), DARK_BG),
               contrast(c, ground), contrast(dark(c), dark(ground))) >= TEXT_CONTRAST:
            return c.upper()
    raise InputError(f"ink({colour!r}): no shade of it reads on both backgrounds", "colour")  # pragma: no cover


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
#: and on a phone (the narrow layout): the normal font, finer marks for the smaller figure
NARROW = {"font": 11.0, "line": 1.5, "marker": 5.0}
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


#: the layouts a figure is drawn in: "normal" for a notebook column and a desktop page, "narrow"
#: for a phone. A phone shows a figure `SHOWN_PX["narrow"]` CSS px wide, so the narrow layout
#: draws the view `NARROW_WIDTH` inches wide, its texts at least `min_font` (10 CSS px there).
#: Its pixels are drawn for a phone's screen: `NARROW_DPI` gives at least 3 device pixels per CSS
#: px (device pixel ratio 3, most phones), so the picture is never stretched and text stays crisp.
LAYOUTS = ("normal", "narrow")
DPI = 90
NARROW_WIDTH = 4.0
NARROW_DPI = 270
_LAYOUT = ["normal"]

#: the smallest text a figure shows, in CSS px, on a desktop and on a phone (issue 30)
MIN_TEXT_PX = 10.0
#: the text of a figure a reader reads numbers off, in CSS px on the desktop: a pixel over the
#: floor. At the floor, one pixel per CSS px, a time's digits paint 7 px tall and read as 8 px
#: text (issue 30); a phone's frame, 3 pixels per CSS px, paints the floor 7.7 px tall
READ_PX = 11.0
#: how wide the static site shows a figure, in CSS px: the book's column at 1366x900 (normal
#: frames) and on a 390x844 phone (narrow ones), measured in Chromium (tests/browser/
#: test_site_book.py measures it again on the built site)
SHOWN_PX = {"normal": 727.0, "narrow": 345.0}
#: while the innermost entry is True (`at_shown_width`), normal figures are drawn `SHOWN_PX["normal"]` px wide
_AT_SHOWN = [False]


@contextmanager
def at_shown_width():
    """Draw the normal-layout figures made inside the block at the width the site shows them, one
    pixel per CSS px (their dpi `SHOWN_PX["normal"]` / width in inches): a frame drawn wider at
    `DPI` is resampled down by the browser, which softens its text. The layout in inches, and so
    every font's share of the width, stays the notebook's; Lab keeps drawing at `DPI`."""
    _AT_SHOWN.append(True)
    try:
        yield
    finally:
        _AT_SHOWN.pop()


def dpi_for(width: float) -> float:
    """The dpi a figure `width` inches wide is made at now: `NARROW_DPI` on a phone, the site's
    shown width in pixels (`at_shown_width`), else `DPI`. Nudged up a hair so the canvas, whose
    size matplotlib truncates to whole pixels, is not one pixel short."""
    if narrow():
        return NARROW_DPI
    if _AT_SHOWN[-1] and not presenting():
        return SHOWN_PX["normal"] * (1 + 1e-9) / width
    return DPI


def min_font(width_in: float, layout: str | None = None, px: float = MIN_TEXT_PX) -> float:
    """The font size, in points, that stands `px` CSS px tall (the floor by default) in a figure
    `width_in` inches wide shown where the site shows `layout`'s frames (the current layout's
    by default). A figure wider in inches is shown at the same width, so it needs larger type."""
    layout = layout or ("narrow" if narrow() else "normal")
    return px * width_in * 72 / SHOWN_PX[layout]


#: each figure `new_figure` made -> the layout it was made in (None in presenter mode)
_LAYOUT_OF: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def floor_of(fig, px: float = MIN_TEXT_PX) -> float:
    """The font size, in points, at which `fig` shows `px` CSS px (the smallest it may show by
    default): `min_font` of its width and layout; none in presenter mode, whose type is larger
    and which the site never shows."""
    layout = _LAYOUT_OF.get(fig)
    if layout is None:
        return 0.0
    return min_font(fig.get_figwidth(), layout, px)


def legible(fig, px: float = MIN_TEXT_PX) -> None:
    """Raise every text of `fig` smaller than `floor_of(fig)` to it: tick labels (those an axis
    makes later too), axis labels, legends, annotations. Views size their texts as shares of
    the font; this holds the floor whatever share a view picked. A view whose text paints small
    at the floor asks for `READ_PX` instead (05's overlap)."""
    from matplotlib.text import Text

    floor = floor_of(fig, px)
    if not floor:
        return
    for ax in fig.axes:
        for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
            ticks = axis.get_major_ticks()
            if ticks and ticks[0].label1.get_fontsize() < floor - 1e-6:
                ax.tick_params(axis=which, which="both", labelsize=floor)
    for t in fig.findobj(Text):
        if t.get_fontsize() < floor - 1e-6:
            t.set_fontsize(floor)


def narrow() -> bool:
    """True while figures are built for a phone (`laid_out("narrow")`)."""
    return _LAYOUT[-1] == "narrow"


@contextmanager
def laid_out(name: str):
    """Build the figures made inside the block in layout `name` (one of `LAYOUTS`)."""
    if name not in LAYOUTS:
        raise InputError(f"layout {name!r}: give one of {', '.join(map(repr, LAYOUTS))}", "layout")
    _LAYOUT.append(name)
    before = dict(_SCALE)
    if name == "narrow":
        _SCALE.update(NARROW)
    try:
        yield
    finally:
        _LAYOUT.pop()
        _SCALE.clear()
        _SCALE.update(before)


def new_figure(width: float = 9.0, height: float = 3.2, nrows: int = 1, **kw):
    """A figure sized for a notebook column (and for a projector in presenter mode), its
    background transparent: the page's own (light, or dark under `DARK_CSS`) shows through.
    In the narrow layout the caller gives the phone's size (`View.size`), drawn denser."""
    factor = PRESENTER_FIGSIZE if presenting() else 1.0
    fig, axes = plt.subplots(nrows, 1, figsize=(width * factor, height * factor),
                             dpi=dpi_for(width * factor), **kw)
    # what `legible` reads: a presenter's figure (larger type, never on the site) has no floor
    _LAYOUT_OF[fig] = None if presenting() else "narrow" if narrow() else "normal"
    for patch in (fig.patch, *(ax.patch for ax in fig.axes)):
        patch.set_alpha(0.0)
    return fig, axes


def asked_for(value: str | None) -> bool:
    """Whether a value of EMQSIM_PRESENT asks for presenter mode: anything but unset, empty,
    0, no, false or off (in any case, with spaces around)."""
    return (value or "").strip().lower() not in ("", "0", "no", "false", "off")


present(asked_for(os.environ.get(ENV)))


def figure_title(ax, fontsize: float, y: float = 0.98):
    """A title at the figure's left edge, for the narrow layout: an Axes' left-aligned title
    starts past the tick labels, which on a phone leaves it little room. An Axes' child placed
    in figure coordinates, so it may move (a figure's own animated artists are not saved)."""
    return ax.text(0.02, y, "", transform=ax.figure.transFigure, fontsize=fontsize, va="top", ha="left",
                   clip_on=False)


def narrow_axes(ax, fontsize: float, ticks: float = 0.7, ylabel: float = 0.8, xlabel: float = 0.8) -> None:
    """Tick labels and axis labels set smaller for the narrow layout, each a share of the font."""
    ax.tick_params(labelsize=fontsize * ticks)
    ax.yaxis.label.set_fontsize(fontsize * ylabel)
    ax.xaxis.label.set_fontsize(fontsize * xlabel)


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


#: a fitted text's own size, before `fit_width` set it smaller
_FULL_SIZE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def fit_width(text, *, seps: tuple[str, ...] = (" \u00b7 ", ", "), smallest: float = 0.8, lines: int = 2) -> None:
    """Keep a title inside the figure: break it (into at most `lines` lines) at the last
    separator that lets the line before it fit the width (and, at the last break, the rest
    too), then, if the lines still leave the figure, set it smaller (down to `smallest` of
    its size). Measured, so it holds at presenter and
    narrow sizes alike."""
    fig = text.figure
    renderer = fig.canvas.get_renderer()
    size = _FULL_SIZE.setdefault(text, text.get_fontsize())   # each frame starts from the full size
    text.set_fontsize(size)
    smallest = max(smallest, floor_of(fig) / size)              # never below the legible floor

    def inside() -> bool:
        box = text.get_window_extent(renderer)
        return box.x1 <= fig.bbox.x1 - 2 and box.y1 <= fig.bbox.y1 - 1 and box.x0 >= 1

    def wide(candidate: str) -> bool:
        text.set_text(candidate)
        return text.get_window_extent(renderer).x1 > fig.bbox.x1 - 2

    whole = text.get_text()
    if inside():
        return
    if "\n" not in whole:
        done: list[str] = []
        rest = whole
        while len(done) < lines - 1 and wide("\n".join([*done, rest])):
            for sep in seps:
                cuts = [i for i in range(len(rest)) if rest.startswith(sep, i)]
                last = len(done) == lines - 2     # the last break: the rest must fit too

                def fits(i: int) -> bool:
                    head = [*done, rest[:i] + sep.rstrip()]
                    return not wide("\n".join([*head, rest[i + len(sep):]] if last else head))

                fit = next((i for i in reversed(cuts) if fits(i)), None)
                if fit is not None:
                    done.append(rest[:fit] + sep.rstrip())
                    rest = rest[fit + len(sep):]
                    break
            else:
                break
        text.set_text("\n".join([*done, rest]))
    step = size
    while not inside() and step > size * smallest:
        step *= 0.95
        text.set_fontsize(step)


def spread(texts, *, pad: float = 2.0) -> None:
    """Move labels that share a column apart vertically, in the order they stand, so no two
    overlap (lines labelled at their ends that end close together)."""
    shown = [t for t in texts if t.get_visible() and t.get_text()]
    if len(shown) < 2:
        return
    renderer = shown[0].figure.canvas.get_renderer()
    boxes = sorted(((t.get_window_extent(renderer), t) for t in shown), key=lambda bt: bt[0].y0)
    floor = None
    for box, t in boxes:
        if floor is not None and box.y0 < floor + pad:
            lift = floor + pad - box.y0
            to_data = t.get_transform().inverted()
            x_pix, y_pix = t.get_transform().transform(t.get_position())
            t.set_y(to_data.transform((x_pix, y_pix + lift))[1])
            box = t.get_window_extent(renderer)
        floor = box.y1
