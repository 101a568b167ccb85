"""The view of lesson 06: a frame's jobs, twins, refusals and outage drawn on the timeline, and
the panel built from the model's controls."""

from __future__ import annotations

import matplotlib
import pytest

from emqsim.figures import catalogue
from emqsim.figures.faults import ID_CLEAR, FaultsView
from emqsim.lessons import faults as lf
from emqsim.lessons.course import EVERY, MINUTE, START

matplotlib.use("Agg")

T0, MIN, SLOT = START, MINUTE, EVERY   # the course's day, unit and interval
TWO_FRESH, TWO_SLOT, ATOM_FRESH, ATOM_SLOT = lf.SETUPS
TITLE = "06 crash between two writes"


@pytest.fixture(scope="module")
def fig():
    return catalogue.figure(TITLE)


@pytest.fixture(scope="module")
def view(fig):
    return fig.view


def test_the_catalogue_pairs_model_and_view(fig):
    assert isinstance(fig.model, lf.FaultsModel)
    assert isinstance(fig.view, FaultsView)
    assert fig.values == {"setup": "atomic, fresh ids", "crash": 3, "delay": MIN}


def test_default_view(fig, view):
    text = fig.update(crash=3, setup=TWO_FRESH, delay=MIN)
    assert text == ("two-step, fresh ids, crash after fire 3, restart 1 min later: 11 jobs for 10 slots\n"
                    "  1 duplicate: slot 09:30 as JOB0SUcTgkt1v6 released 09:30:00 and JOB0SUcY7S3MI4 "
                    "released 09:31:00\n  0 lost (slots the row held and passed over with no job)")
    released = view.released.get_offsets()[:5].tolist()
    assert [released[i] for i in (0, 1, 2, 4)] == [[T0, 1], [T0 + SLOT, 2], [T0 + 2 * SLOT, 3], [T0 + 3 * SLOT, 5]]
    assert view.slots.get_offsets()[3].tolist() == [T0 + 2 * SLOT, 4]
    # the twin released 09:31 stands at 09:31, raised off its 09:30 ring (touching at a 1 min
    # restart, issue 30; moved right it had told a later time) to a half row, 4.5 or 5.5: on
    # no job's row (raised its two marks' reach it stood level with job 5), its release dot
    # under it
    (x, y), = view.twins.get_offsets().tolist()
    assert x == T0 + 2 * SLOT + MIN and y == pytest.approx(5.5)
    assert released[3] == pytest.approx([x, y])
    assert [s.tolist() for s in view.twin_links.get_segments()] == [[[T0 + 2 * SLOT, 3], [T0 + 2 * SLOT, 4]]]
    # the lag line joins the ring to the diamond where it is drawn
    assert [s.tolist() for s in view.lag.get_segments()] == [[[T0 + 2 * SLOT, 4], pytest.approx([x, y])]]
    assert len(view.refused.get_offsets()) == 0
    assert len(view.unserved.get_offsets()) == 0
    assert [t.get_text() for t in view.ids] == ["JOB0SUcTgkt1v6", "JOB0SUcY7S3MI4"]
    assert set(view.crash_line.get_xdata()) == {T0 + 2 * SLOT}
    assert set(view.restart_line.get_xdata()) == {T0 + 2 * SLOT + MIN}
    assert (view.down.get_x(), view.down.get_width()) == (T0 + 2 * SLOT, MIN)
    assert view.restart_text.get_text() == "restart 09:31"
    assert view.crash_text.get_text() == "crash"
    assert view._title.get_text() == "two-step, fresh ids: crash after fire 3"


def test_slot_ids_view(fig, view):
    text = fig.update(crash=5, setup=TWO_SLOT, delay=5 * MIN)
    assert "the re-fire of slot 10:00 at 10:05:00 found its job id taken (enqueue: duplicate)\n" in text
    assert view.refused.get_offsets().tolist() == [[T0 + 4 * SLOT + 5 * MIN, 5]]
    assert len(view.twins.get_offsets()) == 0
    assert view.twin_links.get_segments() == []
    assert [t.get_text() for t in view.ids] == ["", ""]


def test_atomic_view(fig, view):
    fig.update(crash=8, setup=ATOM_FRESH, delay=10 * MIN)
    assert view.released.get_offsets()[:, 0].tolist() == [T0 + k * SLOT for k in range(10)]
    assert set(view.restart_line.get_xdata()) == {T0 + 7 * SLOT + 10 * MIN}


def test_slot_with_no_job_view(fig, view):
    text = fig.update(crash=3, setup=TWO_FRESH, delay=20 * MIN)
    assert text.endswith("\n  09:45 never runs: the row went from 09:30 straight to 10:00, so no job was made for "
                         "it\n  0\u00a0lost (slots the row held and passed over with no job); 09:45 is not counted: "
                         "the row never held it")
    assert view.unserved.get_offsets().tolist() == [[T0 + 3 * SLOT, 0.0]]   # a row under job 1
    assert (view.down.get_x(), view.down.get_width()) == (T0 + 2 * SLOT, 20 * MIN)
    assert fig.update(setup=ATOM_FRESH).endswith("10 jobs for 10 slots\n  0 duplicates\n  0 lost (slots the row held and passed over with no job)")
    assert len(view.unserved.get_offsets()) == 0


def test_late_duplicate_labels_left(fig, view):
    fig.update(crash=8, setup=TWO_FRESH, delay=0)
    assert view.ids[1].get_text() == "JOB0SUhpyyNfhh"
    assert view.ids[1].get_horizontalalignment() == "right"
    # where the model puts it, 3 min left of its ring, or further left: `ID_CLEAR` em off the ring
    x, y = view.ids[1].get_position()
    assert x <= T0 + 7 * SLOT - 3 * MIN and round(y, 9) == 9
    f = view.ax.figure
    f.canvas.draw()
    box = view.ids[1].get_window_extent(f.canvas.get_renderer())
    beside = [m for m in view.mark_boxes() if m[1] < box.y1 and box.y0 < m[3]]
    assert round(float(min(m[0] for m in beside) - box.x1) / view._em(view.ids[1]), 2) == ID_CLEAR
    assert view.ids[0].get_horizontalalignment() == "right"


def test_a_move_changes_the_picture_and_a_refused_one_does_not(fig):
    fig.update(crash=3, setup=TWO_FRESH, delay=MIN)
    first = fig.png()
    fig.update(crash=6)
    moved = fig.png()
    assert moved != first
    with pytest.raises(ValueError):
        fig.update(crash=9)
    assert fig.values["crash"] == 6
    assert fig.png() == moved
    fig.update(crash=3)
    assert fig.png() == first


def test_moving_lists_what_a_move_changes(fig, view):
    """Everything `draw` touches is tracked, ready for blitting; the axes never rescale."""
    for artist in (view.down, view.crash_line, view.restart_line, view.lag, view.twin_links, view.slots,
                   view.released, view.twins, view.refused, view.unserved, *view.ids, view.crash_text,
                   view.restart_text, view._title):
        assert any(artist is m for m in view.moving)
    assert view.ax.get_ylim() == pytest.approx((-0.7, 12.7))
    assert view.ax.get_xlim() == (T0 - 5 * MIN, T0 + 9 * SLOT + 10 * MIN)
    assert [t.get_text() for t in view.ax.get_xticklabels()] == ["09:00", "09:30", "10:00", "10:30", "11:00"]
    assert (view.crash_text.get_position()[1], view.restart_text.get_position()[1]) == pytest.approx((12.6, 12.6))
    fig.update(crash=1, setup=TWO_FRESH, delay=0)
    assert view.ax.get_ylim() == pytest.approx((-0.7, 12.7))


def test_a_view_on_its_own_axes():
    import matplotlib.pyplot as plt

    f, ax = plt.subplots()
    v = FaultsView(ax)
    v.draw(lf.FaultsModel().frame(setup=ATOM_FRESH))
    assert v.ax is ax and v._title.get_text() == "atomic, fresh ids: crash after fire 3"
    plt.close(f)


def test_panel():
    fig = catalogue.figure(TITLE)
    p = fig.panel()
    assert 'id="faults-readout"' in p.readout.value
    assert [label for label, _ in p.widgets["setup"].options] == list(lf.VIEW_SETUPS)
    assert [v for _, v in p.widgets["crash"].options] == list(lf.CRASHES)
    assert [v for _, v in p.widgets["delay"].options] == list(lf.DELAYS)
    p.widgets["setup"].value = ATOM_FRESH
    p.widgets["delay"].value = 0
    p.widgets["crash"].value = 2
    assert fig.frame.readout == ("atomic, fresh ids, crash after fire 2, restart 0 s later: 10 jobs for 10 slots\n"
                                 "  0 duplicates\n  0 lost (slots the row held and passed over with no job)")
    assert "atomic, fresh ids, crash after fire 2" in p.readout.value
    p.widgets["setup"].value = TWO_FRESH
    assert fig.frame.readout.startswith("two-step, fresh ids, crash after fire 2, restart 0 s later: 11 jobs for "
                                        "10 slots\n  1 duplicate: slot 09:15 as ")


def _mark_boxes(view) -> list:
    """Each mark's box in pixels: its marker path's extent at its size, half its edge around."""
    import numpy as np

    f = view.ax.figure
    out = []
    for coll in (view.slots, view.released, view.twins, view.refused, view.unserved):
        if len(coll.get_offsets()):
            ext = coll.get_paths()[0].get_extents()
            half = (max(abs(ext.x0), abs(ext.x1), abs(ext.y0), abs(ext.y1)) * np.sqrt(coll.get_sizes()[0])
                    + coll.get_linewidths()[0] / 2) * f.dpi / 72
            out += [(x - half, y - half, x + half, y + half) for x, y in view.ax.transData.transform(coll.get_offsets())]
    return out


def _segments(line) -> list:
    """A line's drawn pieces in pixels, ((x, y0), (x, y1)) each: NaN breaks a line."""
    import numpy as np

    xy = line.get_transform().transform(line.get_xydata())
    out, run = [], []
    for x, y in xy:
        if np.isnan(y):
            out += [run] if len(run) > 1 else []
            run = []
        else:
            run.append((x, y))
    return out + ([run] if len(run) > 1 else [])


def _crosses(box, segment, half: float) -> bool:
    (x, y0), (_, y1) = segment[0], segment[-1]
    return box[0] < x + half and x - half < box[2] and box[1] < max(y0, y1) and min(y0, y1) < box[3]


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_label_on_a_mark_and_no_line_through_one(layout):
    """Issue 30: job-id labels started on their markers and the crash and restart lines ran
    through the two 09:30 marks. At every position of the sliders, in both layouts: no id label's
    box reaches into a mark's box (the marker's true extent: a diamond reaches past the circle of
    its size) or onto the crash or restart line, and no piece of either line crosses a mark."""
    from tests.figure_walk import every_frame

    found = []
    for values, v, renderer in every_frame(TITLE, layout):
        f = v.ax.figure
        marks = _mark_boxes(v)
        rules = [(seg, line.get_linewidth() / 2 * f.dpi / 72) for line in (v.crash_line, v.restart_line)
                 for seg in _segments(line)]
        assert rules, values
        for t in v.ids:
            if t.get_text():
                b = t.get_window_extent(renderer)
                box = (b.x0, b.y0, b.x1, b.y1)
                if any(m[0] < box[2] and box[0] < m[2] and m[1] < box[3] and box[1] < m[3] for m in marks):
                    found.append(("label on a mark", t.get_text(), values))
                if any(_crosses(box, seg, half) for seg, half in rules):
                    found.append(("line through a label", t.get_text(), values))
        for seg, half in rules:
            if any(_crosses(m, seg, half) for m in marks):
                found.append(("line through a mark", values))
    assert found == []


#: the least clear space, in CSS px, between the end of a crash or restart line (or of the
#: down time's shaded edges, which run along them) and the raised duplicate it stops for
CLEAR_PX = 4.0


def _pieces(runs, y0: float, y1: float) -> list[tuple[float, float]]:
    """(bottom, top) in pixels of each drawn piece of a vertical line from `runs`, a list of
    points' y (NaN breaks) or, for a clipped span, of (lo, hi) pairs already."""
    return [(max(lo, y0), min(hi, y1)) for lo, hi in runs if min(hi, y1) > max(lo, y0)]


def _span_pieces(span, x: float, y0: float, y1: float) -> list[tuple[float, float]]:
    """Where the shaded span draws at pixel column `x`, from `y0` up to `y1`: its clip path's
    inside as Agg fills it (non-zero winding: a ring drawn the other way round is a hole, which
    `Path.contains_points`, inside any ring, does not see), read at every pixel (the whole
    height without one)."""
    import numpy as np
    from matplotlib.path import Path

    clip = span.get_clip_path()
    if clip is None:
        return [(y0, y1)]
    ys = np.arange(np.floor(y0), np.ceil(y1) + 1)
    points = np.column_stack([np.full(len(ys), x), ys])
    winding = np.zeros(len(ys), dtype=int)
    for ring in clip.get_fully_transformed_path().to_polygons():
        turn = np.sign(np.sum(ring[:-1, 0] * ring[1:, 1] - ring[1:, 0] * ring[:-1, 1]))
        winding += int(turn) * Path(ring).contains_points(points)
    inside = winding != 0
    out, start = [], None
    for y, hit in zip(ys, inside):
        if hit and start is None:
            start = y
        if not hit and start is not None:
            out.append((start, y - 1))
            start = None
    return out + ([(start, ys[-1])] if start is not None else [])


@pytest.mark.parametrize("layout", ["narrow", "normal"])
def test_a_short_restart_leaves_air_round_the_duplicate(layout):
    """Issue 30, a student's read of the built site: on a phone at a 1 min restart the crash and
    restart lines stopped 2 pt (2.4 CSS px) short of the raised duplicate's stem, diamond and
    labels, and the down time's grey edges ran on through the gap along them, so the lines read
    as unbroken through the cramped duplicate. At every crash with a raised mark, each piece of
    either line and of the span's edges ends at least `CLEAR_PX` CSS px from the stem, the raised
    mark and the id labels it passes; on the desktop too, at the site's pixels."""
    import numpy as np

    from emqsim.figures import style
    from emqsim.figures.view import mark_reach

    with style.at_shown_width():
        fig = catalogue.figure(TITLE, layout=layout)
    v = fig.view
    f = v.ax.figure
    css = f.dpi * f.get_figwidth() / style.SHOWN_PX[layout]
    short, seen = [], 0
    for setup in (TWO_FRESH, TWO_SLOT):
        for crash in range(1, 9):
            fig.update(setup=setup, crash=crash, delay=MIN)
            f.canvas.draw()
            renderer = f.canvas.get_renderer()
            to_px = v.ax.transData.transform
            half = v.leaders.get_linewidths()[0] / 2 * f.dpi / 72
            boxes = []
            for seg in v.leaders.get_segments():
                (x0, y0), (x1, y1) = to_px([seg[0], seg[-1]])
                boxes.append((min(x0, x1) - half, min(y0, y1), max(x0, x1) + half, max(y0, y1)))
                reach = max(mark_reach(c) for c in (v.twins, v.refused) if len(c.get_offsets())) * f.dpi / 72
                boxes.append((x1 - reach, y1 - reach, x1 + reach, y1 + reach))
            boxes += [tuple(t.get_window_extent(renderer).extents) for t in v.ids if t.get_text()]
            assert boxes, (setup, crash)
            seen += 1
            bottom, top = v.ax.bbox.y0, v.ax.bbox.y1
            for name, line, x in (("crash", v.crash_line, fig.frame.crashed), ("restart", v.restart_line, fig.frame.restarted)):
                px = to_px((x, 0))[0]
                ys = line.get_transform().transform(line.get_xydata())[:, 1]
                runs, start = [], None
                for y in [*ys, np.nan]:
                    if np.isnan(y):
                        start = None
                    elif start is None:
                        start = y
                        runs.append([y, y])
                    else:
                        runs[-1] = [min(runs[-1][0], y), max(runs[-1][1], y)]
                reach = line.get_linewidth() / 2 * f.dpi / 72
                for what, pieces in ((name, _pieces(runs, bottom, top)),
                                     (f"{name} edge of the span", _span_pieces(v.down, px, bottom, top))):
                    for lo, hi in pieces:
                        for b in boxes:
                            if not (b[0] - reach < px < b[2] + reach):
                                continue
                            gap = max(b[1] - hi, lo - b[3])
                            if gap < CLEAR_PX * css - 0.5:
                                short.append((setup, crash, what, round(gap / css, 1)))
    assert seen == 16 and short == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_nothing_shows_through_a_hollow_ring(layout):
    """h65r (issue 30): at a crash after fire 5 and a 1 min restart, the dotted link joining the
    10:00 slot's two jobs ran into its hollow ring and read with the ring as a "!". Drawn and
    composited on white, as the site serves it, the inside of every ring with no release dot in it
    is the page's ground: nothing under the ring shows through."""
    import io

    import numpy as np
    from PIL import Image

    figure = catalogue.figure(TITLE, layout=layout)
    figure.update(setup=TWO_FRESH, crash=5, delay=MIN)
    png = Image.open(io.BytesIO(figure.png())).convert("RGBA")
    ground = Image.new("RGBA", png.size, "white")
    ground.alpha_composite(png)
    pixels = np.asarray(ground.convert("RGB")).astype(int)
    v = figure.view
    f = v.ax.figure
    scale_ = png.size[0] / (f.get_figwidth() * f.dpi)
    dots = {tuple(np.round(p, 3)) for p in v.released.get_offsets()}
    hollow = [p for p in v.slots.get_offsets() if tuple(np.round(p, 3)) not in dots]
    assert hollow, "the frame has a ring with no release in it"
    radius = (np.sqrt(v.slots.get_sizes()[0]) / 2 - v.slots.get_linewidths()[0]) * f.dpi / 72 * scale_
    seen = []
    for x, y in v.ax.transData.transform(hollow) * scale_:
        cx, cy = x, png.size[1] - y
        r = int(radius * 0.6)
        inside = pixels[int(cy) - r:int(cy) + r + 1, int(cx) - r:int(cx) + r + 1]
        seen.append(int(inside.min()))
    assert min(seen) >= 235, seen


def _gap(a, b) -> float:
    """The clear distance in pixels between two boxes (x0, y0, x1, y1): 0 where they touch."""
    import numpy as np

    return float(np.hypot(max(a[0] - b[2], b[0] - a[2], 0.0), max(a[1] - b[3], b[1] - a[3], 0.0)))


def _strokes(view) -> list[tuple[str, tuple[float, float, float, float]]]:
    """Each drawn piece of the crash and restart lines as a pixel box, its stroke's width wide."""
    f = view.ax.figure
    out = []
    for name, line in (("crash", view.crash_line), ("restart", view.restart_line)):
        half = line.get_linewidth() / 2 * f.dpi / 72
        for seg in _segments(line):
            (x, y0), (_, y1) = seg[0], seg[-1]
            out.append((name, (x - half, min(y0, y1), x + half, max(y0, y1))))
    return out


def _css(view, layout: str) -> float:
    """Pixels of the view's frame to one CSS px where the site shows `layout`'s frames."""
    from emqsim.figures import style

    f = view.ax.figure
    return f.dpi * f.get_figwidth() / style.SHOWN_PX[layout]


#: the least air, in CSS px where the site shows the figure, between "crash" or the restart's
#: label and the stroke of any piece of the crash or restart line
LABEL_AIR_PX = 8.0


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_crash_and_restart_labels_stand_clear_of_the_lines(layout):
    """h66r (issue 30): "crash" ended a few pixels from its dashed line and "restart 10:01" began
    as near its own (0.5 em: 5.5 CSS px on the desktop, 4 on a phone where a label stood under
    "crash"), and a reader of the built site saw each label touch its line. At every slider stop,
    in both layouts, each label's box stands `LABEL_AIR_PX` CSS px from every drawn piece of
    either line, its stroke's width included."""
    from tests.figure_walk import every_frame

    near, seen = [], 0
    for values, v, renderer in every_frame(TITLE, layout):
        css = _css(v, layout)
        strokes = _strokes(v)
        assert strokes, values
        for t in (v.crash_text, v.restart_text):
            box = tuple(t.get_window_extent(renderer).extents)
            seen += 1
            for name, stroke in strokes:
                gap = _gap(box, stroke) / css
                if gap < LABEL_AIR_PX - 0.01:
                    near.append((tuple(values.values()), t.get_text(), name, round(gap, 2)))
    assert seen and near == []


#: the least air, in CSS px where the site shows the figure, between a refused re-fire's cross
#: (or the stem joining it to its ring) and any piece of the crash or restart line
REFUSED_AIR_PX = 8.0


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_line_runs_into_a_refused_cross(layout):
    """h66r (issue 30): the refused re-fire's cross stands at the restart, on the restart line's
    course (and at a short restart on the crash line's), and the two lines stopped 4 CSS px short
    of it and of its stem: they read as running into it. At every slider stop with a refused
    cross, in both layouts, the cross's true extent and its stem stand `REFUSED_AIR_PX` CSS px
    from every drawn piece of either line."""
    from matplotlib.colors import to_rgb

    from emqsim.figures.style import ORANGE
    from tests.figure_walk import every_frame

    near, seen, stems = [], 0, 0
    for values, v, renderer in every_frame(TITLE, layout):
        if not len(v.refused.get_offsets()):
            continue
        css = _css(v, layout)
        px = v.ax.figure.dpi / 72
        own = [("cross", b) for b in _mark_boxes_of(v, v.refused)]
        half = v.leaders.get_linewidths()[0] / 2 * px
        colours = v.leaders.get_colors()
        for k, seg in enumerate(v.leaders.get_segments()):
            if tuple(colours[k % len(colours)][:3]) == to_rgb(ORANGE):
                (x0, y0), (x1, y1) = v.ax.transData.transform([seg[0], seg[-1]])
                own.append(("stem", (min(x0, x1) - half, min(y0, y1), max(x0, x1) + half, max(y0, y1))))
                stems += 1
        seen += 1
        for what, box in own:
            for name, stroke in _strokes(v):
                gap = _gap(box, stroke) / css
                if gap < REFUSED_AIR_PX - 0.01:
                    near.append((tuple(values.values()), what, name, round(gap, 2)))
    assert seen and stems and near == []


def _mark_boxes_of(view, coll) -> list:
    """`_mark_boxes` of one collection: each mark's true extent in pixels, its edge around it."""
    import numpy as np

    f = view.ax.figure
    ext = coll.get_paths()[0].get_extents()
    half = (max(abs(ext.x0), abs(ext.x1), abs(ext.y0), abs(ext.y1)) * np.sqrt(coll.get_sizes()[0])
            + coll.get_linewidths()[0] / 2) * f.dpi / 72
    return [(x - half, y - half, x + half, y + half) for x, y in view.ax.transData.transform(coll.get_offsets())]


def test_no_legend_entry_tells_a_question_its_answer():
    """h66r (issue 30): 06's second question asks what the enqueue does with a re-fire that comes
    with its slot's id, and the figure's key beside it read "refused: id taken": the answer, there
    at the first frame, before any move. No key entry of the figure holds the right option's key
    or a content word of its reason that no wrong option's reason uses too (the question's own
    terms, "id", "key", are in the wrong options as well). The cross keeps a name that decodes
    the figure, and the right option's feedback says what it marks."""
    import re

    from emqsim.figures.faults import REFUSED_NAME

    def content(text: str) -> set[str]:
        small = {"a", "an", "the", "and", "or", "so", "it", "its", "is", "of", "to", "no", "one", "two", "none"}
        words = re.findall(r"[a-z]+", text.lower())
        return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if w not in small}

    figure = catalogue.figure(TITLE)
    names = [t.get_text() for t in figure.view.ax.get_legend().get_texts()]
    assert REFUSED_NAME in names
    told = []
    for q in figure.model.questions:
        right = q.option(q.right(figure.model))
        reason = right.text.split(": ", 1)[-1]
        others = set().union(*(content(o.text.split(": ", 1)[-1]) for o in q.options if o.key != right.key))
        words = (content(reason) | content(right.key)) - others
        told += [(q.id, n, sorted(words & content(n))) for n in names if words & content(n)]
    assert told == []
    slot_ids = next(q for q in figure.model.questions if q.id == "06-slot-ids-refuse")
    assert "the orange cross" in slot_ids.option("refused").why
