"""What a phone reader saw crowd in 02, 03 and 06 (issue 30, "Legible figures"), held at every
slider stop in both layouts: no two texts touch, no line runs through a text, no mark sits on
another mark or on the axis line, and the keys figure's first frame is not an empty box.

Each check reads the laid-out artists' boxes in pixels (`figure_walk.every_frame`), so it
fails on the frame a reader would have seen, whichever stop that is."""

from __future__ import annotations

import itertools

import pytest
from matplotlib.colors import to_rgba
from matplotlib.transforms import Bbox

from emqsim.figures.view import drawn_texts
from emqsim.figures import catalogue
from tests.figure_walk import every_frame


LAYOUTS = ("normal", "narrow")


def _boxes(texts, renderer) -> list[tuple[object, Bbox]]:
    return [(t, t.get_window_extent(renderer)) for t in texts]


def _apart(a: Bbox, b: Bbox, gap: float) -> bool:
    """True when `a` and `b` stand at least `gap` pixels apart on one axis."""
    return a.x1 + gap <= b.x0 or b.x1 + gap <= a.x0 or a.y1 + gap <= b.y0 or b.y1 + gap <= a.y0


def _lines_through(line, box: Bbox, renderer) -> bool:
    """True when the drawn path of `line` crosses `box` (its inside, not just its edge)."""
    if not line.get_visible() or len(line.get_xdata()) == 0:
        return False
    path = line.get_transform().transform_path(line.get_path())
    inner = Bbox.from_extents(box.x0 + 1, box.y0 + 1, box.x1 - 1, box.y1 - 1)
    return path.intersects_bbox(inner, filled=False)


def _boxed_in_face(text) -> bool:
    """A text drawn on an opaque white box, the colour the site lays every figure on (the
    figures are transparent): a line behind it is hidden there."""
    patch = text.get_bbox_patch()
    if patch is None:
        return False
    return to_rgba(patch.get_facecolor()) == to_rgba("white")


# -- 1. 03's start-time labels on a phone ----------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("title", ["03 start-to-start", "03 slip over cycles", "03 wake latency"])
def test_03_texts_keep_a_gap(title, layout):
    """No two texts of 03's figures touch: each stands 0.3 em of the smaller from the next
    (on a phone the four start times read "09:0009:1509:3009:45")."""
    for values, view, renderer in every_frame(title, layout):
        fig = view.ax.figure
        boxes = _boxes(drawn_texts(fig), renderer)
        for (t, a), (u, b) in itertools.combinations(boxes, 2):
            gap = 0.3 * min(t.get_fontsize(), u.get_fontsize()) * fig.dpi / 72
            assert _apart(a, b, gap), (values, t.get_text(), u.get_text())


# -- 5. grid lines behind 03's labels --------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("title", ["03 start-to-start", "03 slip over cycles", "03 wake latency"])
def test_03_grid_lines_do_not_run_through_labels(title, layout):
    """A grid line crosses no label drawn inside the axes unless the label stands on a white
    box drawn over the grid."""
    for values, view, renderer in every_frame(title, layout):
        ax = view.ax
        grid = [g for g in ax.xaxis.get_gridlines() + ax.yaxis.get_gridlines() if g.get_visible()]
        inside = [t for t in ax.texts if t.get_visible() and t.get_text().strip()]
        for t, box in _boxes(inside, renderer):
            if _boxed_in_face(t) and t.get_zorder() > max((g.get_zorder() for g in grid), default=0):
                continue
            for g in grid:
                assert not _lines_through(g, box, renderer), (values, t.get_text())


# -- 2. 02's cursor through its line names ---------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_02_cursor_and_lines_miss_the_texts(layout):
    """The cursor and the two data lines cross none of the figure's texts (at 50 fires on a
    phone the cursor ran through "registry rows (ZCARD)")."""
    for values, view, renderer in every_frame("02 one row rewritten", layout):
        texts = [t for t in drawn_texts(view.ax.figure) if t.axes is not None]
        for t, box in _boxes(texts, renderer):
            for line in (view.cursor, view.jobs_line, view.rows_line):
                if _boxed_in_face(t) and view.moving.index(t) > view.moving.index(line):
                    continue     # the row's box, drawn over the line: the line stops at its edge
                assert not _lines_through(line, box, renderer), (values, t.get_text(), line.get_label())


@pytest.mark.parametrize("layout", LAYOUTS)
def test_02_line_names_keep_clear_of_dots_and_each_other(layout):
    for values, view, renderer in every_frame("02 one row rewritten", layout):
        # the jobs line's name, and the rows' count beside its square (which names the dashed line)
        names = [*view.names, view.rows_value]
        a, b = (t.get_window_extent(renderer) for t in names)
        assert _apart(a, b, 2), values
        box = view.row_box.get_window_extent(renderer)
        for t in names:
            own = t.get_window_extent(renderer)
            assert _apart(own, box, 2), (values, t.get_text())
            for d in (view.jobs_dot, view.rows_dot):
                assert _apart(own, d.get_window_extent(renderer), 1), (values, t.get_text())
            assert own.x0 >= view.ax.bbox.x0 and own.x1 <= view.ax.bbox.x1, (values, t.get_text())



def _edges(ax, renderer) -> list[Bbox]:
    """The drawn spines of `ax` (their line's width around the axes' edge) and its tick labels,
    in pixels: what no label of the figure may touch."""
    out = []
    for side, spine in ax.spines.items():
        if not spine.get_visible():
            continue
        half = spine.get_linewidth() / 2 * ax.figure.dpi / 72
        b = ax.bbox
        x0, y0, x1, y1 = {"left": (b.x0, b.y0, b.x0, b.y1), "right": (b.x1, b.y0, b.x1, b.y1),
                          "bottom": (b.x0, b.y0, b.x1, b.y0), "top": (b.x0, b.y1, b.x1, b.y1)}[side]
        out.append(Bbox.from_extents(x0 - half, y0 - half, x1 + half, y1 + half))
    for t in ax.get_xticklabels() + ax.get_yticklabels():
        if t.get_visible() and t.get_text().strip():
            out.append(t.get_window_extent(renderer))
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_02_marks_apart_and_labels_off_the_axes(layout):
    """The jobs' dot and the rows' square stand a pixel apart at every stop (at 50 fires on a
    phone the dot sat on the square), and no label touches a spine or a tick label of either
    axis (there "1 row (ZCARD)" ran into the right axis, issue 30)."""
    for values, view, renderer in every_frame("02 one row rewritten", layout):
        air = max(1.0, view.ax.figure.dpi / 72)      # a point: about a CSS px as the site shows it
        dot, square = (d.get_window_extent(renderer) for d in (view.jobs_dot, view.rows_dot))
        assert _apart(dot, square, air), (values, dot, square)
        edges = _edges(view.ax, renderer) + _edges(view.ax_rows, renderer)
        for t in (*view.names, view.rows_value, view.row_box):
            own = t.get_window_extent(renderer)
            for e in edges:
                assert _apart(own, e, air), (values, t.get_text(), e)


# -- 3. 06's marks ---------------------------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_marks_clear_of_each_other_and_the_axis(layout):
    """No two marks of different jobs or kinds overlap (a twin's diamond stood on the ring of
    its slot), and none touches the axis lines (the cross of a slot with no job sat on the x
    axis). A job's own ring and dot are one glyph: the dot inside its ring."""
    for values, view, renderer in every_frame("06 crash between two writes", layout):
        ax = view.ax
        spine = ax.spines["bottom"].get_linewidth() * ax.figure.dpi / 72
        kinds = []
        for kind, coll in (("slot", view.slots), ("release", view.released), ("twin", view.twins),
                           ("refused", view.refused), ("unserved", view.unserved)):
            kinds += [(kind, tuple(p)) for p in coll.get_offsets()]
        boxes = view.mark_boxes()
        assert len(boxes) == len(kinds)
        for (k, b) in zip(kinds, boxes):
            assert b[1] > ax.bbox.y0 + spine, (values, k)
            assert b[0] > ax.bbox.x0 + spine, (values, k)
        pairs = itertools.combinations(list(zip(kinds, boxes)), 2)
        for ((k1, p1), a), ((k2, p2), b) in pairs:
            if {k1, k2} == {"slot", "release"}:
                continue     # a ring and the dot of its release: the legend's one glyph
            if {k1, k2} == {"twin", "release"} and p1 == p2:
                continue     # a twin's release dot, under its diamond
            a, b = Bbox.from_extents(*a), Bbox.from_extents(*b)
            # a point of air (a pixel at 72 dpi, near three on a phone's frame, which the site
            # shows at about a CSS px): touching is overlap (at a 1 min restart the 10:01
            # diamond touched its 10:00 ring on a phone, issue 30)
            assert _apart(a, b, max(1.0, ax.figure.dpi / 72)), (values, k1, p1, k2, p2)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_marks_keep_their_time(layout):
    """A diamond or cross moved off a ring moves up or down, never along the time axis: each
    stands at the instant the model gives it (moving the 09:31 diamond right had drawn it
    minutes late)."""
    import numpy as np
    model = catalogue.model("06 crash between two writes")
    for values, view, renderer in every_frame("06 crash between two writes", layout):
        frame = model.frame(**values)
        for coll, data in ((view.twins, frame.twins), (view.refused, frame.refused)):
            drawn = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
            want = np.asarray(data, dtype=float).reshape(-1, 2)
            assert drawn[:, 0].tolist() == want[:, 0].tolist(), values
            assert np.all(np.abs(drawn[:, 1] - want[:, 1]) < 2), values     # within two rows


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_a_raised_mark_is_joined_to_its_ring(layout):
    """A diamond or cross raised or lowered off its ring's row has a line from that ring to it,
    drawn over the ring and no thinner than its edge, so it is seen (at a 1 min restart the
    raised 10:01 diamond, joined only by the blue lag line under the ring, stood level with job
    7 and read as a seventh job). The line's ends lie within a mark's reach of both centres."""
    import numpy as np
    from matplotlib.collections import LineCollection
    model = catalogue.model("06 crash between two writes")
    raised = 0
    for values, view, renderer in every_frame("06 crash between two writes", layout):
        ax = view.ax
        to_px = ax.transData.transform
        frame = model.frame(**values)
        ring_edge = view.slots.get_linewidths()[0]
        lines = [seg for c in ax.collections if isinstance(c, LineCollection) and c.get_visible()
                 and c.get_zorder() > view.slots.get_zorder() and min(c.get_linewidths()) >= ring_edge
                 for seg in c.get_segments() if len(seg) >= 2]
        reach = max(b[2] - b[0] for b in view.mark_boxes()) / 2
        rings = {float(n): (x, n) for x, n in frame.slots}
        for coll, data in ((view.twins, frame.twins), (view.refused, frame.refused)):
            drawn = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
            for (_, y), mark in zip(data, drawn):
                if mark[1] == y:
                    continue
                raised += 1
                ring, at = to_px(rings[float(y)]), to_px(mark)
                joined = [s for s in lines for a, b in ((to_px(s[0]), to_px(s[-1])), (to_px(s[-1]), to_px(s[0])))
                          if np.hypot(*(a - ring)) <= reach and np.hypot(*(b - at)) <= reach]
                assert joined, (values, tuple(mark))
    assert raised, layout     # the walk reaches a raised mark: the check is not empty


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_texts_clear_of_marks(layout):
    for values, view, renderer in every_frame("06 crash between two writes", layout):
        texts = [t for t in view.ax.texts if t.get_visible() and t.get_text().strip()]
        for t, box in _boxes(texts, renderer):
            for m in view.mark_boxes():
                assert _apart(box, Bbox.from_extents(*m), 0), (values, t.get_text())


#: ems of a job-id label's font between it and the edge of a mark level with it (its own job's
#: ring, stroke included, beside it): at 2 pt the ids stood one or two pixels off their ring on
#: the site (issue 30); and between it and a mark a row up or down, whose rows stand about a
#: label's height apart
ID_EM, ID_EM_ROW = 0.4, 0.2


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_id_labels_stand_clear_of_every_mark(layout):
    """Each job-id label of 06 stands `ID_EM` of its font clear of every mark level with it,
    its own job's ring included, and `ID_EM_ROW` clear of every mark over or under it, at
    every stop, both layouts."""
    out, seen = [], 0
    for values, view, renderer in every_frame("06 crash between two writes", layout):
        marks = [Bbox.from_extents(*m) for m in view.mark_boxes()]
        for t in view.ids:
            if not t.get_text():
                continue
            seen += 1
            box = t.get_window_extent(renderer)
            em = t.get_fontsize() * view.ax.figure.dpi / 72
            for m in marks:
                level = m.y0 < box.y1 and box.y0 < m.y1
                gap = _gap_em(box, m, em)
                if gap < (ID_EM if level else ID_EM_ROW):
                    out.append((tuple(values.values()), t.get_text(), "level" if level else "row", round(float(gap), 2)))
    assert seen, layout
    assert out == []


# -- 4. the keys figure's first frame --------------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("title", ["02 the keys, step by step", "03 the marker, step by step"])
def test_steps_first_frame_says_what_comes(title, layout):
    """At step 0 the keys column says what stands before the first call and what a step will
    show, in a few lines, not one line in an empty box."""
    for values, view, renderer in every_frame(title, layout):
        if values["step"]:
            continue
        rows = [t.get_text() for t in (view.key_lines or view.src_lines) if t.get_text().strip()]
        text = " ".join(rows)
        assert "before the first call" in text, (values, rows)
        assert "step" in text.split("before the first call", 1)[1], (values, rows)
        keys = [t for t in (view.key_lines if view.key_lines else view.src_lines) if t.get_text().strip()]
        boxes = [t.get_window_extent(renderer) for t in keys]
        tall = max(b.y1 for b in boxes) - min(b.y0 for b in boxes)
        assert tall > view.ax.figure.bbox.height * (0.2 if layout == "normal" else 0.6), values


# -- 6. 05's marks ---------------------------------------------------------------------------

def _overlap_boxes(view):
    """05's marks and bars in pixels, each named by kind: what no skip cross may touch."""
    out = [("bar", Bbox.from_extents(*b)) for b in view.bar_boxes()]
    out += [(kind, Bbox.from_extents(*b)) for kind, b in view.mark_boxes()]
    return out


def site_frames(title: str, layout: str):
    """Every stop of `title` drawn at the pixels the site shows (`every_frame` draws the normal
    layout at the notebook's 90 dpi; the site draws it one pixel per CSS px, 727 px wide, so a
    10.5 in figure at 69 dpi, where each gap in pixels is a quarter smaller): (values, view,
    renderer) per stop."""
    from emqsim.figures import style

    with style.at_shown_width():
        fig = catalogue.figure(title, layout=layout)
    for artist in fig.live.moving:
        artist.set_animated(False)
    every, _ = fig.model.reachable()
    for values in every:
        fig.update(**values)
        f = fig.view.ax.figure
        f.draw_without_rendering()
        yield values, fig.view, f.canvas.get_renderer()


def _css_px(fig, layout: str) -> float:
    """Pixels of `fig`'s frame to one CSS px where the site shows `layout`'s frames."""
    from emqsim.figures import style

    return fig.dpi * fig.get_figwidth() / style.SHOWN_PX[layout]


#: pixels a mark's box must stand from a bar's: one clear pixel, and one the antialiased edges
#: of the two take between them (boxes 1.1 px apart at 90 dpi painted touching on the site)
MARK_CLEAR = 2.0


@pytest.mark.parametrize("layout", LAYOUTS)
def test_05_marks_clear_of_bars_and_the_axis(layout):
    """A skipped slot's cross touches no bar, no other mark and not the axis line under the
    lanes (the forbid lane's crosses sat on it and touched the bar above, issue 30), at the
    pixels the site shows: on the desktop forbid's crosses painted touching the bar above."""
    for values, view, renderer in site_frames("05 an overlapping run", layout):
        ax = view.ax
        spine = ax.spines["bottom"].get_linewidth() * ax.figure.dpi / 72
        clear = _css_px(ax.figure, layout) + MARK_CLEAR - 1     # a phone's frame has 3 pixels a CSS px
        boxes = _overlap_boxes(view)
        skips = [(i, b) for i, (k, b) in enumerate(boxes) if k == "skip"]
        assert skips or values["run"] <= 15, values      # a run longer than the period skips
        for i, a in skips:
            assert a.y0 > ax.bbox.y0 + spine + clear, (values, a)
            for j, (k, b) in enumerate(boxes):
                if j != i:
                    assert _apart(a, b, clear), (values, k, a, b)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_05_lane_names_stop_before_the_shaded_span(layout):
    """No lane name or count runs into the shaded span past the last release, nor onto a bar
    or a mark, at every stop (on a phone "Temporal Skip · APScheduler max_instances=1" ran
    into it, issue 30). A lane's count ("8 of 8 completed") has nothing under it: its box,
    any face drawn round it included, stands a pixel clear of the shade and of every bar and
    mark (on a phone the counts stood on the shade, on white boxes, issue 30)."""
    counted = 0
    for values, view, renderer in site_frames("05 an overlapping run", layout):
        ax = view.ax
        shade = [p for p in ax.patches if p in view._static][0].get_window_extent(renderer)
        marks = [b for _, b in _overlap_boxes(view)]
        legend = set(ax.get_legend().get_texts())
        counts = set(view.labels.values())
        for t in drawn_texts(ax.figure):
            if t in legend:
                continue
            if t in counts:
                patch = t.get_bbox_patch()
                box = (patch if patch is not None else t).get_window_extent(renderer)
                counted += 1
                assert _apart(box, shade, 1), (values, t.get_text(), box, shade)
                for m in marks:
                    assert _apart(box, m, 1), (values, t.get_text(), m)
                continue
            box = t.get_window_extent(renderer)
            if box.y1 < ax.bbox.y0 or box.x1 < ax.bbox.x0 or box.y0 > ax.bbox.y1:
                continue                       # ticks under the lanes, names left of them, the title
            assert box.x1 + 1 <= shade.x0, (values, t.get_text(), box.x1, shade.x0)
            for m in marks:
                assert _apart(box, m, 1), (values, t.get_text(), m)
    assert counted, layout


# -- 01's next-run box and the now line ----------------------------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_01_next_box_stands_clear_of_the_now_line(layout):
    """The "next 09:00:00 in 12 min" box, its drawn face included, stands at least 1 CSS px
    clear of the now line's stroke at every stop (on a phone the box began on the line: the
    check read the text's extent, not the face padded round it, issue 30)."""
    for values, view, renderer in site_frames("01 cron vs interval", layout):
        text = view._next_text
        if not text.get_text():
            continue
        fig = view.ax.figure
        css = _css_px(fig, layout)
        box = text.get_bbox_patch().get_window_extent(renderer)
        x = view.ax.transData.transform((view._now.get_xdata()[0], 0))[0]
        half = view._now.get_linewidth() * fig.dpi / 72 / 2
        assert box.x1 + css <= x - half or box.x0 - css >= x + half, (values, box.x0, box.x1, x)


# -- 7. the shaded spans in both themes -------------------------------------------------------

#: each figure's shaded span, as its view holds it
SPANS = {"04 missed slots": lambda v: [v.band],
         "05 an overlapping run": lambda v: [p for p in v.ax.patches if p in v._static],
         "06 crash between two writes": lambda v: [v.down]}


def _over_white(colour) -> tuple:
    import numpy as np
    r, g, b, a = to_rgba(colour)
    return tuple(a * np.array([r, g, b]) + (1 - a))


@pytest.mark.parametrize("title", SPANS)
def test_shaded_spans_read_in_both_themes(title):
    """A span's edges stand out from the page in the light theme and under the dark filter (a
    grey face alone became near-black on the dark page, issue 30), and its key shows them."""
    from emqsim.figures import style

    fig = catalogue.figure(title, layout="narrow")
    spans = SPANS[title](fig.view)
    assert spans
    legend = fig.view.ax.get_legend()
    keys = [p for p in legend.get_patches() if p.get_linewidth() > 0 and p.get_facecolor()[3] < 1]
    keys = [p for p in keys if p.get_facecolor()[:3] == spans[0].get_facecolor()[:3]]
    assert keys or title == "05 an overlapping run", title      # 05 names its span under the axis
    for p in spans + keys:
        assert p.get_linewidth() >= 0.5, title
        lines = _over_white(p.get_edgecolor())
        assert style.contrast(lines, style.LIGHT_BG) >= 1.8, title
        assert style.contrast(style.dark(lines), style.DARK_BG) >= 1.8, title


@pytest.mark.parametrize("title", SPANS)
def test_shaded_spans_survive_the_sites_palette(title):
    """The site stores each frame in a few colours (`player.compress`): a near-white face was
    merged into white there, so 05's "(shaded)" part showed no shade (issue 30)."""
    import io

    import numpy as np
    from PIL import Image

    from emqsim.site.player import compress

    fig = catalogue.figure(title, layout="narrow")
    values = {"04 missed slots": {}, "05 an overlapping run": {"run": 25}, "06 crash between two writes": {}}[title]
    if values:
        fig.update(**values)
    pixels = np.asarray(Image.open(io.BytesIO(compress(fig.png()))).convert("L"), dtype=float)
    span = SPANS[title](fig.view)[0]
    renderer = fig.view.ax.figure.canvas.get_renderer()
    box = span.get_window_extent(renderer)
    h = pixels.shape[0]
    inside = pixels[int(h - box.y1) + 2:int(h - box.y0) - 2, int(box.x0) + 2:int(box.x1) - 2]
    assert inside.size, title
    assert (inside < 215).mean() > 0.03, title


# -- 8. 04's marks in a lane ------------------------------------------------------------------

def _missed_marks(view):
    """04's marks in pixels, each named by kind and its point in data."""
    import numpy as np
    fig = view.ax.figure
    out = []
    for kind, coll in (("release", view.released), ("slot", view.slots), ("skip", view.skipped),
                       ("missed", view.collapsed)):
        offsets = coll.get_offsets()
        if not len(offsets):
            continue
        half = (np.abs(coll.get_paths()[0].vertices).max() * np.sqrt(coll.get_sizes()[0])
                + coll.get_linewidths()[0] / 2) * fig.dpi / 72
        for p, (x, y) in zip(offsets, view.ax.transData.transform(offsets)):
            out.append((kind, tuple(map(float, p)), Bbox.from_extents(x - half, y - half, x + half, y + half)))
    return out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_04_marks_in_a_lane_keep_apart(layout):
    """No mark (dot, ring, cross, square) overlaps or touches another, at every stop in both
    layouts: on a phone the 10:07 ring and the 10:10 dot of the once lanes were one blot, and
    two release dots a minute apart (09:51 and 09:52) touched (issue 30); a catch-up burst, a
    second apart, is one dot with its count. No count stands on a mark."""
    for values, view, renderer in every_frame("04 missed slots", layout):
        marks = _missed_marks(view)
        for (k1, p1, a), (k2, p2, b) in itertools.combinations(marks, 2):
            assert _apart(a, b, 1), (values, k1, p1, k2, p2)
        for t in view.counts:
            if t.get_text():
                box = t.get_window_extent(renderer)
                for k, p, m in marks:
                    assert _apart(box, m, 0), (values, t.get_text(), k, p)


# -- 9. 07's hour rows and its times beside their dots ----------------------------------------

TZ = "07 cron across daylight saving"


def _mark_boxes(line, renderer) -> list[Bbox]:
    """Each mark a Line2D draws, as a box in pixels: its marker size and edge width."""
    import numpy as np

    if not line.get_visible() or len(line.get_xdata()) == 0:
        return []
    fig = line.figure
    half = (line.get_markersize() + line.get_markeredgewidth()) / 2 * fig.dpi / 72
    points = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
    return [Bbox.from_extents(x - half, y - half, x + half, y + half) for x, y in points]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_07_no_text_touches_a_mark(layout):
    """No text in 07's plot touches or overlaps a run's mark (on Sydney's fall-back day "14:30Z"
    touched its dot on a phone, and a lane's sentence moved inside the plot sat on its cross,
    issue 30): every stop, both layouts."""
    touching = []
    for values, view, renderer in every_frame(TZ, layout):
        marks = [b for line in (*view.marks.values(), view.skipped) for b in _mark_boxes(line, renderer)]
        assert marks, values
        for t in view.ax.texts:
            if t.get_visible() and t.get_text().strip():
                box = t.get_window_extent(renderer)
                if any(not _apart(box, m, 1) for m in marks):
                    touching.append((t.get_text(), values))
    assert touching == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_07_marks_keep_apart(layout):
    """No two marks of 07 (dots, diamonds, squares, crosses) overlap or touch: each stands a
    CSS px clear of the next at the pixels the site shows, every zone and day, both layouts (on
    a phone New York's spring-forward drew the 07:00Z cross 2.35 CSS px into cron-parser's
    07:30Z square: the check above reads texts against marks, never two marks)."""
    out = []
    for values, view, renderer in site_frames(TZ, layout):
        css = _css_px(view.ax.figure, layout)
        marks = [(name, b) for name, line in (*view.marks.items(), ("skipped", view.skipped))
                 for b in _mark_boxes(line, renderer)]
        for (k1, a), (k2, b) in itertools.combinations(marks, 2):
            if not _apart(a, b, css):
                out.append((values["zone"], values["day"], k1, k2, round(float(_gap_em(a, b, css)), 2)))
    assert out == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_07_each_hour_row_says_what_it_is(layout):
    """The hour labels' two lines (local over UTC, "00" over "04") each start with what they
    are: "local" and "UTC" beside the first label, on its lines, at least an em clear of it
    (issue 30: the pairs were cryptic to a first reader). Every stop, both layouts."""
    for values, view, renderer in every_frame(TZ, layout):
        fig = view.ax.figure
        named = [t for t in view.ax.texts if t.get_visible() and t.get_text().split("\n") == ["local", "UTC"]]
        assert len(named) == 1, values
        rows = named[0].get_window_extent(renderer)
        hours = [t for t in view.hours if t.get_visible() and t.get_text()]
        first = min(hours, key=lambda t: t.get_window_extent(renderer).x0)
        box = first.get_window_extent(renderer)
        em = first.get_fontsize() * fig.dpi / 72
        assert named[0].get_fontsize() == first.get_fontsize(), values
        assert abs(rows.y1 - box.y1) < 1 and abs(rows.y0 - box.y0) < 0.15 * em, values   # on the same two lines
        assert box.x0 - rows.x1 >= em - 0.5, (values, round((box.x0 - rows.x1) / em, 2))
        assert rows.x0 >= 0, values


@pytest.mark.parametrize("layout", LAYOUTS)
def test_07_the_change_line_runs_through_no_text(layout):
    """The dashed clock-change line crosses no text in 07's plot unless the text stands on a
    white box drawn over it (on Sydney's fall-back day it ran through "14:30Z" on a phone)."""
    crossed = []
    for values, view, renderer in every_frame(TZ, layout):
        for t in view.ax.texts:
            if not (t.get_visible() and t.get_text().strip()):
                continue
            if _boxed_in_face(t) and t.get_zorder() > view.change.get_zorder():
                continue
            if _lines_through(view.change, t.get_window_extent(renderer), renderer):
                crossed.append((t.get_text(), values))
    assert crossed == []


# -- 10. every text inside the frame ---------------------------------------------------------

#: CSS px of air a text keeps from the frame's edge where the site shows it (on a phone 07's
#: "25 runs" touched the right edge, "30 2 * * *" the left, issue 30)
EDGE = 2.0


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("title", [TZ, "03 slip over cycles", "01 cron vs interval", "06 crash between two writes"])
def test_texts_stand_inside_the_frame(title, layout):
    """Every text of 07's, 03's slip figure, 01 and 06 (its crash and restart labels, set
    farther from their lines), tick labels and key included, stands `EDGE`
    CSS px inside the frame at the pixels the site shows, every stop, both layouts (on a phone
    01's "next 09:00:00 (tomorrow, …) →" ran past the left edge in 21 of 242 frames, issue 30)."""
    out = []
    for values, view, renderer in site_frames(title, layout):
        fig = view.ax.figure
        edge = EDGE * _css_px(fig, layout)
        for t in drawn_texts(fig):
            b = t.get_window_extent(renderer)
            if b.x0 < edge or b.y0 < edge or b.x1 > fig.bbox.width - edge or b.y1 > fig.bbox.height - edge:
                out.append((t.get_text(), values, round(b.x0), round(b.x1), round(fig.bbox.width)))
    assert out == []


# -- 11. 06's duplicate and its labels at the site's pixels ----------------------------------

FAULTS = "06 crash between two writes"


def _stems(view):
    """Each stem from a ring to its raised diamond or cross, as (ring, mark) pixel points."""
    to_px = view.ax.transData.transform
    return [(to_px(seg[0]), to_px(seg[-1])) for seg in view.leaders.get_segments() if len(seg) >= 2]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_a_stem_stays_out_of_every_rings_hole(layout):
    """A stem from a ring to its raised diamond or cross starts on the ring's stroke and
    crosses no ring's inside: from the centre it ran across a hollow ring (its release dot
    moved up with the diamond) and read as a line through the ring (issue 30). Every stop,
    both layouts; the walk reaches a stem."""
    import numpy as np
    from emqsim.figures.view import mark_reach

    out, stems = [], 0
    for values, view, renderer in every_frame(FAULTS, layout):
        px = view.ax.figure.dpi / 72
        hole = (mark_reach(view.slots) - view.slots.get_linewidths()[0]) * px     # the stroke's inner edge
        rings = view.ax.transData.transform(view.slots.get_offsets()) if len(view.slots.get_offsets()) else []
        for a, b in _stems(view):
            stems += 1
            d = b - a
            for c in rings:
                t = min(max(float(np.dot(c - a, d) / np.dot(d, d)), 0.0), 1.0)
                near = float(np.hypot(*(a + t * d - c)))
                if near < hole:
                    out.append((tuple(values.values()), round(near / px, 2), round(hole / px, 2)))
    assert stems, layout
    assert out == []


def _pieces_through(line, box: Bbox) -> bool:
    """True when a piece of `line` (a path broken by NaNs into pieces) crosses `box`'s inside:
    `_lines_through` reads a broken path as whole."""
    import numpy as np

    points = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
    half = line.get_linewidth() / 2 * line.figure.dpi / 72
    for p, q in zip(points[:-1], points[1:]):
        if np.isnan(p).any() or np.isnan(q).any():
            continue
        lo, hi = np.minimum(p, q), np.maximum(p, q)
        if lo[0] - half < box.x1 - 1 and box.x0 + 1 < hi[0] + half and lo[1] < box.y1 - 1 and box.y0 + 1 < hi[1]:
            return True
    return False


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_a_duplicate_stands_on_no_job_row(layout):
    """A diamond or cross raised off its ring's row stands between two job rows, its centre
    farther than its own half size from every other job's ring (at a 1 min restart the raised
    10:01 diamond stood level with job 7 and read as a seventh job, issue 30), and no crash or
    restart line runs along or across the stem that joins it to its ring (the two lines hid
    it). Every stop, both layouts, at the site's pixels."""
    from emqsim.figures.view import mark_reach

    raised = 0
    for values, view, renderer in site_frames(FAULTS, layout):
        ax = view.ax
        px = ax.figure.dpi / 72
        to_px = ax.transData.transform
        frame = catalogue.model(FAULTS).frame(**values)
        rows = [to_px(p)[1] for p in view.slots.get_offsets()] if len(view.slots.get_offsets()) else []
        for coll, data in ((view.twins, frame.twins), (view.refused, frame.refused)):
            reach = mark_reach(coll) * px
            for (_, y), mark in zip(data, coll.get_offsets()):
                if mark[1] == y:
                    continue
                raised += 1
                at = to_px(mark)[1]
                own = to_px((0, y))[1]
                near = [r for r in rows if abs(r - own) > 0.5 and abs(r - at) <= reach]
                assert near == [], (values, tuple(mark), near)
        half = view.leaders.get_linewidths()[0] / 2 * px
        for a, b in _stems(view):
            box = Bbox.from_extents(min(a[0], b[0]) - half, min(a[1], b[1]), max(a[0], b[0]) + half, max(a[1], b[1]))
            for line in (view.crash_line, view.restart_line):
                assert not _pieces_through(line, box), (values, "crash" if line is view.crash_line else "restart")
    assert raised, layout


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_texts_keep_a_gap(layout):
    """No two texts of 06 touch: each stands 0.3 em of the smaller from the next ("crash" and
    "restart 10:01" touched at a short restart, issue 30). Every stop, both layouts, at the
    site's pixels."""
    out = []
    for values, view, renderer in site_frames(FAULTS, layout):
        fig = view.ax.figure
        boxes = _boxes(drawn_texts(fig), renderer)
        for (t, a), (u, b) in itertools.combinations(boxes, 2):
            gap = 0.3 * min(t.get_fontsize(), u.get_fontsize()) * fig.dpi / 72
            if not _apart(a, b, gap):
                out.append((values, t.get_text(), u.get_text()))
    assert out == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_crash_and_restart_lines_miss_the_texts(layout):
    """Neither the crash line nor the restart line runs through a text of the plot (on a phone
    a late restart's label, moved left of its line under "crash", was struck through by the
    crash line, issue 30). Every stop, both layouts, at the site's pixels."""
    out = []
    for values, view, renderer in site_frames(FAULTS, layout):
        for t in view.ax.texts:
            if t.get_visible() and t.get_text().strip():
                box = t.get_window_extent(renderer)
                for line in (view.crash_line, view.restart_line):
                    if _pieces_through(line, box):
                        out.append((values, t.get_text(), "crash" if line is view.crash_line else "restart"))
    assert out == []


#: ems of a label's own size between it and the stroke of a crash or restart line beside it:
#: at 0.25 em "crash" and "restart 10:01", the two lines between them, read as one word
BESIDE_EM = 0.5


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_labels_stand_clear_of_the_lines_beside_them(layout):
    """"crash" and the restart's label each stand `BESIDE_EM` of their size clear of every
    crash or restart line that runs beside them (a piece of it level with the label), their
    own and the other: at a 1 min restart the two lines stood 0.25 em from each label, between
    them, and "crash¦¦restart 10:01" read as touching though the boxes were 5 px apart (issue
    30). Every stop, both layouts, at the site's pixels."""
    import numpy as np

    out = []
    for values, view, renderer in site_frames(FAULTS, layout):
        fig = view.ax.figure
        for t in (view.crash_text, view.restart_text):
            if not (t.get_visible() and t.get_text().strip()):
                continue
            box = t.get_window_extent(renderer)
            em = t.get_fontsize() * fig.dpi / 72
            for line in (view.crash_line, view.restart_line):
                points = line.get_transform().transform(np.column_stack([line.get_xdata(), line.get_ydata()]))
                half = line.get_linewidth() / 2 * fig.dpi / 72
                level = any(min(p[1], q[1]) < box.y1 and box.y0 < max(p[1], q[1])
                            for p, q in zip(points[:-1], points[1:]) if not (np.isnan(p).any() or np.isnan(q).any()))
                if not level:
                    continue
                x = points[~np.isnan(points).any(axis=1)][0][0]
                clear = max(box.x0 - (x + half), (x - half) - box.x1) / em
                if round(float(clear), 3) < BESIDE_EM:
                    out.append((values, t.get_text(), "crash" if line is view.crash_line else "restart",
                                round(float(clear), 2)))
    assert out == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_06_labels_stand_inside_the_plot(layout):
    """"crash" stood left of its line: with the crash at the plot's first fire, 09:00, its left
    edge, the y axis ran through the word (15 of 120 frames a layout). Each label stands
    `BESIDE_EM` clear of the y axis, every stop, both layouts."""
    out = []
    for values, view, renderer in site_frames(FAULTS, layout):
        fig, frame = view.ax.figure, view.ax.bbox
        for t in (view.crash_text, view.restart_text):
            if not (t.get_visible() and t.get_text().strip()):
                continue
            box = t.get_window_extent(renderer)
            em = t.get_fontsize() * fig.dpi / 72
            clear = (box.x0 - frame.x0) / em
            if round(float(clear), 3) < BESIDE_EM:
                out.append((values, t.get_text(), round(float(clear), 2)))
    assert out == []


@pytest.mark.parametrize("layout", LAYOUTS)
def test_04_a_count_stands_with_its_own_lane(layout):
    """A catch-up count ("x3") stands nearer its own lane's dots than any other lane's marks
    (its dots, or its rings a `DROP` under them), by a dot's half size at least: midway between
    the release lane's rings and the all lane's dots it read as the release lane's (issue 30).
    Every stop, both layouts, at the site's pixels."""
    from emqsim.figures import missed_slots
    from emqsim.figures.view import mark_reach

    out, counted = [], 0
    for values, view, renderer in site_frames("04 missed slots", layout):
        ax = view.ax
        to_y = lambda y: ax.transData.transform((0, y))[1]     # noqa: E731
        reach = mark_reach(view.released) * ax.figure.dpi / 72
        for policy, t in zip(missed_slots.POLICIES, view.counts):
            if not t.get_text():
                continue
            counted += 1
            box = t.get_window_extent(renderer)
            middle = (box.y0 + box.y1) / 2
            own = abs(middle - to_y(missed_slots.ROW[policy]))
            other = min(abs(middle - to_y(missed_slots.ROW[p] - drop)) for p in missed_slots.POLICIES
                        if p != policy for drop in (0, missed_slots.DROP))
            if own + reach > other:
                out.append((values, policy, round(own, 1), round(other, 1)))
    assert counted, layout
    assert out == []


# -- 12. the student's read of 04 and 07 at the site's pixels --------------------------------

@pytest.mark.parametrize("layout", LAYOUTS)
def test_04_a_count_and_its_face_clear_of_every_mark(layout):
    """A catch-up count ("x3"), the white face painted round it included, stands at least a CSS
    px clear of every mark at the pixels the site shows: the check above reads the text's
    extent at 90 dpi, and the face padded round it touched the 10:07 ring on the site."""
    out = []
    for values, view, renderer in site_frames("04 missed slots", layout):
        css = _css_px(view.ax.figure, layout)
        for t in view.counts:
            if not t.get_text():
                continue
            patch = t.get_bbox_patch()
            box = patch.get_window_extent(renderer) if patch is not None else t.get_window_extent(renderer)
            for k, p, m in _missed_marks(view):
                if not _apart(box, m, css):
                    out.append((values, t.get_text(), k, p))
    assert out == []


def _gap_em(a: Bbox, b: Bbox, em: float) -> float:
    """The clear space between two boxes side by side, in ems of `em` pixels (negative when
    they overlap): what a failure reports."""
    return max(b.x0 - a.x1, a.x0 - b.x1, b.y0 - a.y1, a.y0 - b.y1) / em


#: ems of a text's own size that stand between a time or a sentence and a mark beside it: at
#: 0.35-0.5 em (a word space) a skip's cross read as the first letter of its sentence
#: ("xDebian cron skips"), though a pixel clear
MARK_EM = 0.6


@pytest.mark.parametrize("layout", LAYOUTS)
def test_07_times_and_sentences_stand_clear_of_marks(layout):
    """Each time and each lane's sentence in 07's plot stands `MARK_EM` of its size clear of
    every mark, crosses included, at the pixels the site shows: the check above asks a pixel at
    90 dpi, which a cross a word space from its sentence passes. No sentence is moved nearer
    its cross to stay in a phone's plot (Sydney's fall-back day had its cron-parser sentence
    0.35 em from its cross, issue 30). Every stop, both layouts."""
    out = []
    for values, view, renderer in site_frames(TZ, layout):
        fig = view.ax.figure
        marks = [(name, b) for name, line in (*view.marks.items(), ("skipped", view.skipped))
                 for b in _mark_boxes(line, renderer)]
        lanes = {t for texts in view.lanes.values() for t in texts}
        texts = [*lanes, *(t for pair in view.labels for t in pair)]
        for t in texts:
            if not (t.get_visible() and t.get_text().strip()):
                continue
            box = t.get_window_extent(renderer)
            em = t.get_fontsize() * fig.dpi / 72
            for name, m in marks:
                if not _apart(box, m, MARK_EM * em):
                    out.append((values["zone"], values["day"], t.get_text(), name,
                                round(float(_gap_em(box, m, em)), 2)))
    assert out == []
