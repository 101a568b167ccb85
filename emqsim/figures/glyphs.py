"""Text whose glyphs are rasterised once: a figure of many text lines moves in well under 100 ms.

Measured when this was written (matplotlib 3.11, issue 29's "every figure move at most 100 ms
p95"): about 90% of a move of the step-by-step figures went to Agg drawing ~25 lines of text,
each glyph rasterised by FreeType anew (~850 a frame), each line laid out anew; from one step to
the next most lines and all glyphs are ones drawn before. `CachedText` draws exactly what
`matplotlib.text.Text` draws (a test compares the pixels), but keeps each line's layout and
each glyph's bitmap, keyed by what decides them: the font file, size, resolution, glyph, hinting
and the glyph's position within its pixel (a whole-pixel shift moves a bitmap, never changes it).

It leans on Agg's own steps (`RendererAgg.draw_text` of 3.11); on any other renderer, a
rotation or math text it draws the ordinary way.
"""

from __future__ import annotations

import weakref

import numpy as np
from matplotlib.backends.backend_agg import RendererAgg, get_hinting_flag
from matplotlib.text import Text

try:  # the names Agg's draw_text uses; absent in another matplotlib, where the cache stands aside
    from matplotlib.ft2font import RenderMode
except ImportError:  # pragma: no cover - the lock pins matplotlib 3.11
    RenderMode = None

#: beyond this many entries a cache starts again (a course figure needs a few thousand)
LIMIT = 50_000
_LAYOUTS: dict = {}
_GLYPHS: dict = {}
_LEVEL = np.array([[0x10000, 0], [0, 0x10000]])
#: glyphs rasterised since the module was loaded: what a test counts
stats = {"rasterised": 0}


def _layout(font, prop, dpi, s: str, flags, mtext):
    features = mtext.get_fontfeatures() if mtext is not None else None
    language = mtext.get_language() if mtext is not None else None
    key = (font.fname, hash(prop), dpi, s, flags, tuple(features) if features else None, language)
    items = _LAYOUTS.get(key)
    if items is None:
        if len(_LAYOUTS) > LIMIT:
            _LAYOUTS.clear()
        items = [(item.ft_object, item.glyph_index, item.x, item.y)
                 for item in font._layout(s, flags=flags, features=features, language=language)]
        _LAYOUTS[key] = items
    return items


def _glyph(ft, size, dpi, index, fx: int, fy: int, flags):
    """(alpha bitmap, left, top) of glyph `index` placed `fx`, `fy` 64ths of a pixel into its pixel."""
    key = (ft.fname, size, dpi, index, fx, fy, flags)
    got = _GLYPHS.get(key)
    if got is None:
        if len(_GLYPHS) > LIMIT:
            _GLYPHS.clear()
        ft.set_size(size, dpi)
        ft._set_transform(_LEVEL, [fx, fy])
        bitmap = ft._render_glyph(index, flags, RenderMode.NORMAL)
        got = (bitmap.buffer.copy(), bitmap.left, bitmap.top)
        _GLYPHS[key] = got
        stats["rasterised"] += 1
    return got


def _draw_text(renderer: RendererAgg, gc, x, y, s, prop, angle, ismath=False, mtext=None):
    """RendererAgg.draw_text for plain, level, antialiased text, from the two caches."""
    if ismath or angle or not gc.get_antialiased() or RenderMode is None:
        return RendererAgg.draw_text(renderer, gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)
    font = renderer._prepare_font(prop)
    flags = get_hinting_flag()
    size = prop.get_size_in_points()
    dpi = renderer.dpi
    height = renderer.height
    for ft, index, dx, dy in _layout(font, prop, dpi, s, flags, mtext):
        tx = round(0x40 * (x + dx))
        ty = round(0x40 * (height - y + dy))   # FreeType's y is upwards
        buffer, left, top = _glyph(ft, size, dpi, index, tx & 63, ty & 63, flags)
        left += tx >> 6
        top += ty >> 6
        renderer._renderer.draw_text_image(buffer, left, int(height) - top + buffer.shape[0], 0, gc)


class _Cached:
    """A renderer as `Text.draw` sees it: the Agg renderer's own, draw_text from the caches.
    One per renderer, so matplotlib's text-metrics cache (keyed by the renderer) keeps its hits."""

    def __init__(self, renderer: RendererAgg):
        self._agg = weakref.proxy(renderer)   # weak: the table of proxies must not keep it alive

    def __getattr__(self, name):
        return getattr(self._agg, name)

    def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
        return _draw_text(self._agg, gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)


_PROXIES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class CachedText(Text):
    """A `Text` drawn from cached layouts and glyph bitmaps on Agg; the same pixels."""

    def draw(self, renderer):
        if (not isinstance(renderer, RendererAgg) or self.get_rotation() % 360 or self.get_usetex()
                or "draw_text" in vars(renderer)):   # e.g. draw_without_rendering's no-op: left alone
            return super().draw(renderer)
        proxy = _PROXIES.get(renderer)
        if proxy is None:
            proxy = _PROXIES[renderer] = _Cached(renderer)
        return super().draw(proxy)


def text(ax, x, y, s: str = "", **kw) -> CachedText:
    """`ax.text` making a `CachedText`: the same defaults (left, baseline, data coordinates)."""
    kw = {"verticalalignment": "baseline", "horizontalalignment": "left", "transform": ax.transData,
          "clip_on": False, **kw}
    t = CachedText(x, y, text=s, **kw)
    ax.add_artist(t)
    return t

