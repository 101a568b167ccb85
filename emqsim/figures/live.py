"""A figure that a slider moves: drawn once, its artists updated in place, shown as PNG.

Measured here (../shared/TOOLING.md): a slider callback that clears and re-shows an
Output widget breaks strict nbval, while PNG bytes assigned to an `ipywidgets.Image`
pass; so every live figure is an Image fed with `savefig` bytes, and its first
rendering is also shown once as an ordinary output, for readers without a kernel.
"""

from __future__ import annotations

import io

import matplotlib.pyplot as plt


def png(fig) -> bytes:
    """The figure as PNG bytes (no tight bbox: it doubles the cost of a redraw)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


class Live:
    """Pairs a matplotlib figure with an `ipywidgets.Image` that shows its latest state."""

    def __init__(self, fig):
        self.fig = fig
        plt.close(fig)  # never let pyplot show it a second time on its own
        self._image = None

    @property
    def image(self):
        """The widget, created on first use so tests and the CLI never import ipywidgets."""
        if self._image is None:
            import ipywidgets as w

            self._image = w.Image(value=png(self.fig), format="png")
        return self._image

    def refresh(self) -> bytes:
        """Re-render after the artists changed, and push the bytes to the widget."""
        data = png(self.fig)
        if self._image is not None:
            self._image.value = data
        return data

    def static(self):
        """The current rendering as an ordinary output (seen without a kernel)."""
        from IPython.display import Image

        return Image(data=png(self.fig), format="png")
