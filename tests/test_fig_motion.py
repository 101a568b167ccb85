"""The "watch it move" strips drawn: a mark per token in its place's box, its label off the mark,
an arrow for each token that just moved, the clock, a count for what a full box hides."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402
from emqsim.figures.motion import CAP, kind  # noqa: E402

TITLES = ["02 watch a job move", "05 watch the runs pile up"]


def drawn(fig):
    f = fig.view.ax.figure
    f.canvas.draw()
    return f, f.canvas.get_renderer()


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_every_token_is_a_mark_with_its_label_beside_it(title, layout):
    fig = catalogue.figure(title, layout=layout)
    view = fig.view
    for step in range(0, len(fig.model.moments), 3):
        fig.update(step=step)
        f, renderer = drawn(fig)
        frame = fig.frame
        shown = [t for lane in frame.lanes for p, _ in lane.places
                 for t in [x for x in lane.tokens if x.place == p][-(CAP - 1) if lane.count(p) > CAP else 0:]]
        marks = sum(len(line.get_xdata()) for line in view.marks.values())
        assert marks == len(shown)
        for k, line in view.marks.items():
            assert len(line.get_xdata()) == sum(kind(t) == k for t in shown)
        texts = [t for t in view.labels if t.get_text()]
        assert sorted(t.get_text().split()[0] for t in texts) == sorted(t.label for t in shown)
        # off the mark: each label starts right of the mark (and of the ring a moved token gets)
        ring = view.rings.get_markersize() / 2 / 72 * f.dpi
        for label in texts:
            x, y = label.get_position()
            px, _ = view.ax.transData.transform((x, y))
            mark_x = px - view.fs * view.gap / 72 * f.dpi
            assert label.get_window_extent(renderer).x0 >= mark_x + ring + view.rings.get_markeredgewidth() / 2 / 72 * f.dpi
        assert view.clock.get_text() == frame.moment.label()


@pytest.mark.parametrize("title", TITLES)
def test_each_move_gets_an_arrow_and_a_ring(title):
    fig = catalogue.figure(title)
    for step in range(1, len(fig.model.moments)):
        fig.update(step=step)
        moved = [t for lane in fig.frame.lanes for t in lane.tokens if t.came_from not in (None, "new")]
        rings = [t for lane in fig.frame.lanes for t in lane.tokens if t.came_from is not None]
        assert sum(a.get_visible() for a in fig.view.arrows) == len(moved), step
        assert len(fig.view.rings.get_xdata()) == len(rings)


def test_a_full_box_counts_what_it_hides():
    fig = catalogue.figure("05 watch the runs pile up")
    fig.update(step=len(fig.model.moments) - 1)     # 10:00: replace has dropped four runs
    replace = next(lane for lane in fig.frame.lanes if lane.name == "replace")
    assert replace.count("dropped") == 4 > CAP
    assert [t.get_text() for t in fig.view.more if t.get_text()] == ["+2 earlier"]


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_every_text_reads_on_its_box_in_both_themes(title, layout):
    """A reader's read (issue 30, item 8): the grey key names in the boxes ("repeat", "pending")
    and the subtitle read 4.1-4.4:1 in the light theme, as their grey was chosen against white,
    not against the boxes' #F4F4F4. Every text of the strip reads at least 4.5:1 on the box's
    fill, as drawn and as the dark page's filter turns both."""
    from matplotlib.colors import to_hex
    from matplotlib.text import Text

    from emqsim.figures.motion import BOX
    from emqsim.figures.style import MIN_CONTRAST, contrast, dark

    fig = catalogue.figure(title, layout=layout)
    fig.update(step=len(fig.model.moments) - 1)
    drawn(fig)
    low = set()
    for t in fig.view.ax.findobj(Text):
        if not t.get_text().strip() or not t.get_visible():
            continue
        c = to_hex(t.get_color())
        if min(contrast(c, BOX), contrast(dark(c), dark(BOX))) < MIN_CONTRAST:
            low.add((t.get_text(), c))
    assert sorted(low) == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_every_text_in_a_box_keeps_the_key_names_inset(title, layout):
    """Every text inside a strip's box (a key name, a token's label, a count) stands at least
    `INSET`, the key name's own inset from its box's left edge, from each edge of its box, at
    the pixels the site shows, every step, both layouts: on a phone 05's "09:00" stood 2.04 CSS
    px from its box's right edge, read as running out of it (issue 30)."""
    from matplotlib.patches import FancyBboxPatch

    from emqsim.figures.motion import INSET
    from tests.test_fig_crowding import _css_px, site_frames

    out, inside = [], 0
    for values, view, renderer in site_frames(title, layout):
        fig = view.ax.figure
        least = round(INSET * fig.dpi, 2)
        boxes = [p.get_window_extent(renderer) for p in view.ax.patches if isinstance(p, FancyBboxPatch)]
        for t in view.ax.texts:
            if not (t.get_visible() and t.get_text().strip()):
                continue
            b = t.get_window_extent(renderer)
            x, y = (b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2
            for box in boxes:
                if box.x0 <= x <= box.x1 and box.y0 <= y <= box.y1:
                    inside += 1
                    edge = min(b.x0 - box.x0, box.x1 - b.x1, b.y0 - box.y0, box.y1 - b.y1)
                    if round(float(edge), 2) < least:
                        out.append((values["step"], t.get_text(), round(float(edge) / _css_px(fig, layout), 2)))
    assert inside, (title, layout)
    assert out == []


def _reach(line) -> float:
    """How far a Line2D's marker reaches from its centre, in pixels: its path at its size (a
    diamond's tips reach past the circle of its size) and half its edge."""
    import numpy as np
    from matplotlib.markers import MarkerStyle

    m = MarkerStyle(line.get_marker())
    tips = np.abs(m.get_transform().transform(m.get_path().vertices)).max()
    return (tips * line.get_markersize() + line.get_markeredgewidth() / 2) * line.figure.dpi / 72


def _centres(line) -> list:
    import numpy as np

    if not len(line.get_xdata()):
        return []
    return list(line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()])))


#: CSS px of air, at the least, between the ring round a token that moved and another token's
#: mark or its box's edge
RING_CLEAR = 1.5


@pytest.mark.parametrize("layout", ["normal", "narrow"])
@pytest.mark.parametrize("title", TITLES)
def test_a_moved_tokens_ring_touches_no_token_and_stays_in_its_box(title, layout):
    """The ring round a token that just moved stands `RING_CLEAR` CSS px clear of every other
    token's mark and inside each edge of its box, at the pixels the site shows, every step,
    both layouts: on a phone 05's "09:15 take" ring touched the 09:00 disc above it in allow's
    workers box, and 02's "09:00 make" ring crossed its box's left edge (issue 30)."""
    from matplotlib.patches import FancyBboxPatch

    from tests.test_fig_crowding import _css_px, site_frames

    out, rings = [], 0
    for values, view, renderer in site_frames(title, layout):
        css = _css_px(view.ax.figure, layout)
        reach = _reach(view.rings)
        boxes = [p.get_window_extent(renderer) for p in view.ax.patches if isinstance(p, FancyBboxPatch)]
        tokens = [(k, c, _reach(line)) for k, line in view.marks.items() for c in _centres(line)]
        for x, y in _centres(view.rings):
            rings += 1
            for k, (tx, ty), r in tokens:
                if (tx, ty) == (x, y):
                    continue        # the token the ring is round
                gap = max(abs(tx - x), abs(ty - y)) - reach - r
                if gap < RING_CLEAR * css:
                    out.append((values["step"], "touches", k, round(float(gap / css), 2)))
            box = next(b for b in boxes if b.x0 <= x <= b.x1 and b.y0 <= y <= b.y1)
            edge = min(x - reach - box.x0, box.x1 - x - reach, y - reach - box.y0, box.y1 - y - reach)
            if edge < RING_CLEAR * css:
                out.append((values["step"], "edge", round(float(edge / css), 2)))
    assert rings, (title, layout)
    assert out == []
