"""A figure that a slider moves: drawn once, its artists updated in place, shown as PNG.

Measured when this was written: a slider callback that clears and re-shows an
Output widget breaks strict nbval, while PNG bytes assigned to an `ipywidgets.Image`
pass; so every live figure is an Image fed with PNG bytes. Its panel's output carries the
same picture as PNG beside the widget (`controls.Panel`), for readers without a kernel, so
a notebook shows each figure once.

A move redraws only what moves: the artists passed as `moving` are drawn over a cached
rendering of everything else (matplotlib's blitting), then the canvas is encoded as PNG.
A view that changes something static (axis limits, tick labels) calls `invalidate()`.
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
from matplotlib.backends.backend_agg import FigureCanvasAgg

from .style import ANSWER_CSS, DARK_CSS, FIGURE_CLASS


def png(fig) -> bytes:
    """The whole figure as PNG bytes (no tight bbox: it doubles the cost of a redraw)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _encode(canvas: FigureCanvasAgg, level: int = 1) -> bytes:
    """The canvas as PNG; level 1 while a slider moves (fast), higher for what is kept."""
    from PIL import Image

    w, h = canvas.get_width_height(physical=True)
    buf = io.BytesIO()
    Image.frombuffer("RGBA", (w, h), canvas.buffer_rgba(), "raw", "RGBA", 0, 1).save(
        buf, format="png", compress_level=level)
    return buf.getvalue()


#: the image's largest height on the page: with a panel's controls above it, a 1280x720 projector
#: shows both and the figure's x-axis
MAX_HEIGHT = "72vh"


class Live:
    """Pairs a matplotlib figure with an `ipywidgets.Image` that shows its latest state."""

    def __init__(self, fig, moving=()):
        self.fig = fig
        plt.close(fig)  # never let pyplot show it a second time on its own
        if not isinstance(fig.canvas, FigureCanvasAgg):
            FigureCanvasAgg(fig)
        self.moving = list(moving)
        for artist in self.moving:
            artist.set_animated(True)
        self._background = None
        self._image = None

    @property
    def image(self):
        """The widget, created on first use so tests and the CLI never import ipywidgets."""
        if self._image is None:
            import ipywidgets as w

            first = self.refresh()  # also caches the static layer, so the first move only blits
            # never taller than most of the window, so the controls above it stay in view; not
            # stretched across its box (a flex column), so a smaller height keeps its proportions;
            # no side margins: the widgets' 2 px beside a column-wide picture made the panel 4 px
            # wider than its box, which then scrolled sideways on a phone
            self._image = w.Image(value=first, format="png",
                                  layout=w.Layout(width="auto", height="auto", max_width="100%", max_height=MAX_HEIGHT,
                                                  align_self="flex-start", margin="2px 0px"))
            self._image.add_class(FIGURE_CLASS)  # what the dark theme's rule turns (style.DARK_CSS)
        return self._image

    @staticmethod
    def theme():
        """A widget holding the rule that turns every figure for JupyterLab's dark theme, and
        the one that lightens the questions' feedback there (it shows nothing): a PNG cannot
        change its own colours, the page's style can."""
        import ipywidgets as w

        return w.HTML(f"<style>{DARK_CSS} {ANSWER_CSS}</style>", layout=w.Layout(height="0px", margin="0px"))

    def invalidate(self) -> None:
        """Something that does not move changed: the next refresh redraws everything."""
        self._background = None

    def refresh(self, level: int = 1) -> bytes:
        """Re-render after the artists changed, and push the bytes to the widget."""
        if not self.moving:
            data = png(self.fig)
        else:
            canvas = self.fig.canvas
            if self._background is None:
                canvas.draw()  # skips animated artists: this is the static layer
                self._background = canvas.copy_from_bbox(self.fig.bbox)
            else:
                canvas.restore_region(self._background)
            for artist in self.moving:
                if artist.get_visible():
                    self.fig.draw_artist(artist)
            data = _encode(canvas, level)
        if self._image is not None:
            self._image.value = data
        return data

    def static(self):
        """The current rendering as an ordinary output (a test compares it with a move's). Drawn
        the way a move draws it (the static layer, then the moving artists), so the two never
        differ."""
        from IPython.display import Image

        return Image(data=self.refresh(level=6), format="png")
