"""The missed-slots figure: seven lanes drawn from the lesson's frames, and its panel."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pytest
from PIL import Image, ImageChops

from emqsim.engine.errors import InputError
from emqsim.figures import catalogue
from emqsim.figures import missed_slots as fv
from emqsim.figures.missed_slots import DROP
from emqsim.figures.style import new_figure
from emqsim.figures.view import Figure, mark_reach
from emqsim.lessons import missed_slots as mx
from emqsim.engine.timefmt import at

matplotlib.use("Agg")

TITLE = "04 missed slots"
MIN = 60_000


def t(hhmm: str) -> int:
    return at(f"2026-11-30 {hhmm}")


def ts(*hhmm: str) -> list[float]:
    return [float(t(x)) for x in hhmm]


def pixels(data: bytes) -> Image.Image:
    return Image.open(io.BytesIO(data)).convert("RGB")


@pytest.fixture()
def fig():
    return catalogue.figure(TITLE)


def test_the_catalogue_pairs_model_and_view(fig):
    assert isinstance(fig.view, fv.MissedView) and isinstance(fig.model, mx.MissedModel)
    assert fig.values == {"down": t("09:30"), "up": t("10:10"), "deadline": 5 * MIN}
    assert fig.frame.readout.splitlines()[0] == \
        "pump down 09:30 \u2192 10:10 (40 min): slots 09:37, 09:52, 10:07 missed"
    assert (fv.MissedView.width, fv.MissedView.height) == (10.0, 5.4)


def test_artists_after_the_default(fig):
    view = fig.view
    assert [tk.get_text() for tk in view.ax.get_yticklabels()] == [mx.LABELS[p] for p in mx.POLICIES]
    assert [tk.get_position()[1] for tk in view.ax.get_yticklabels()] == [6, 5, 4, 3, 2, 1, 0]
    lo, hi = view.ax.get_xlim()   # the view, and a mark's half width of air past its end
    assert lo == t("09:00") and t("11:15") < hi < t("11:15") + 3 * MIN
    rel = view.released.get_offsets()
    deadline_lane = sorted(x for x, yy in rel.tolist() if yy == 0)
    assert deadline_lane == ts("09:07", "09:22", "10:10", "10:22", "10:37", "10:52", "11:07")   # to 11:15
    all_lane = sorted(x for x, yy in rel.tolist() if yy == 2)   # the burst of three: one dot, "×3"
    assert all_lane == ts("09:07", "09:22", "10:10", "10:22", "10:37", "10:52", "11:07")
    # each of the burst's links ends at that dot's height, at its own instant
    assert [s.tolist()[-1] for s in view.links.get_segments()][4:7] == [
        [t("10:10"), 2], [t("10:10") + 1000, 2], [t("10:10") + 2000, 2]]
    # a slot's mark stands DROP rows under its lane, its release on the lane's line
    d = DROP
    assert view.slots.get_offsets().tolist() == [
        [t("09:37"), 6 - d], [t("09:37"), 5 - d], [t("09:37"), 4 - d], [t("09:37"), 3 - d], [t("09:37"), 2 - d],
        [t("09:52"), 2 - d], [t("10:07"), 2 - d], [t("10:07"), 1 - d], [t("10:07"), -d]]
    # it rises fv.TURN points short of its release (off the band's edge), then runs into the dot
    back = t("10:10") - view._turn()
    # 4 pt, at the notebook's size: 60 s (58 before the lane labels took `READ_PX` and the axes
    # gave them room)
    assert round((t("10:10") - back) / MIN * 60) == 60
    assert [s.tolist() for s in view.links.get_segments()][-1] == [
        [t("10:07"), -d], [back, -d], [back, 0], [t("10:10"), 0]]
    assert view.skipped.get_offsets().shape == (0, 2) and view.skip_links.get_segments() == []
    assert view.collapsed.get_offsets().tolist() == [
        [t("09:52"), 6 - d], [t("10:07"), 6 - d], [t("09:52"), 5 - d], [t("10:07"), 5 - d], [t("09:52"), 4 - d],
        [t("10:07"), 4 - d], [t("09:52"), 3 - d], [t("10:07"), 3 - d], [t("09:37"), 1 - d], [t("09:52"), 1 - d],
        [t("09:37"), -d], [t("09:52"), -d]]
    assert (view.band.get_x(), view.band.get_width()) == (t("09:30"), 40 * MIN)
    assert [c.get_text() for c in view.counts] == ["", "", "", "", "\u00d73", "", ""]
    assert view.counts[4].get_position()[0] == t("10:10")
    assert view.title.get_text() == "pump down 09:30 \u2192 10:10 \u00b7 deadline 5 min"
    # the :07 slots on the axis are dotted verticals, drawn once
    grid = sorted(ln.get_xdata()[0] for ln in view.ax.get_lines() if ln.get_linestyle() == ":")
    assert grid == ts("09:07", "09:22", "09:37", "09:52", "10:07", "10:22", "10:37", "10:52", "11:07")


def test_moving_the_restart_and_the_deadline(fig):
    view = fig.view
    text = fig.update(up=t("10:07"))
    assert text.splitlines()[1] == "snap:     10:07 (slot 09:37), then 10:22, 10:37 \u00b7 phase :07 kept"
    assert (view.band.get_x(), view.band.get_width()) == (t("09:30"), 37 * MIN)
    text = fig.update(up=t("10:10"), deadline=1000)    # APScheduler's default grace
    assert text.splitlines()[7] == \
        "deadline: 10:07 skipped at 10:10 (3 min late > 1 s), then 10:22, 10:37 \u00b7 phase :07 kept" \
        " \u00b7 misfire_grace_time 1 s"
    assert view.skipped.get_offsets().tolist() == [[t("10:07"), -DROP]]
    back = t("10:10") - view._turn()     # the leg rises short of the release, off the band's edge
    assert [s.tolist() for s in view.skip_links.get_segments()] == [
        [[t("10:07"), -DROP], [back, -DROP], [back, 0], [t("10:10"), 0]]]
    assert view.title.get_text().endswith("deadline 1 s")
    assert fig.values == {"down": t("09:30"), "up": t("10:10"), "deadline": 1000}


def test_pump_down_past_pump_up_takes_it_along(fig):
    fig.update(up=t("10:10"))
    assert fig.update(down=t("10:30")).splitlines()[0] == "pump down 10:30 \u2192 10:30 (0 s): no slot missed"
    assert fig.view.band.get_width() == 0
    assert fig.update(up=t("10:40")).splitlines()[0] == "pump down 10:30 \u2192 10:40 (10 min): slot 10:37 missed"
    assert (fig.view.band.get_x(), fig.view.band.get_width()) == (t("10:30"), 10 * MIN)


def test_a_refused_value_leaves_the_picture_as_it_was(fig):
    fig.update(up=t("10:07"))
    before = (dict(fig.values), fig.frame, fig.png(), view_state(fig.view))
    for name, bad in (("down", t("09:05")), ("up", "10:10"), ("deadline", 90_000), ("deadline", 5.0 * MIN)):
        with pytest.raises(InputError):
            fig.update(**{name: bad})
    assert (fig.values, fig.frame, fig.png(), view_state(fig.view)) == before


def view_state(view):
    return (view.released.get_offsets().tolist(), view.band.get_width(), view.title.get_text())


def test_a_move_changes_the_picture_and_coming_back_restores_it(fig):
    first = fig.png()
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    fig.update(up=t("10:34"))
    moved = fig.png()
    assert ImageChops.difference(pixels(first), pixels(moved)).getbbox() is not None
    fig.update(up=t("10:10"))
    assert ImageChops.difference(pixels(first), pixels(fig.png())).getbbox() is None


def test_the_static_output_is_the_live_picture(fig):
    fig.update(up=t("10:22"), deadline=20 * MIN)
    assert ImageChops.difference(pixels(fig.static().data), pixels(fig.png())).getbbox() is None


def test_a_drag_of_the_restart_refreshes(fig):
    for up in mx.restarts(mx.DOWN)[::7]:   # the restarts pump up offers
        assert fig.update(up=up).startswith("pump ")
        assert fig.png()[:8] == b"\x89PNG\r\n\x1a\n"
    assert fig.update(down=t("09:30"), up=t("10:10"), deadline=5 * MIN) == mx.MissedModel().frame().readout


def test_a_view_on_its_own_axes():
    _, ax = new_figure(8, 4)
    view = fv.MissedView(ax)
    f = Figure(mx.MissedModel(), view)
    assert view.ax is ax
    assert f.update(up=t("10:05")).splitlines()[1] == \
        "snap:     10:05 (slot 09:37), then 10:07, 10:22 \u00b7 phase :07 kept"
    assert f.png()[:4] == b"\x89PNG"


def test_presenter_mode_builds():
    from emqsim.figures.style import present

    present(True)
    try:
        f = catalogue.figure(TITLE)
        assert f.frame.readout == mx.MissedModel().frame().readout
        assert np.asarray(f.view.released.get_sizes())[0] == 12.0 ** 2
    finally:
        present(False)


# -- the panel ---------------------------------------------------------------------------------

def test_panel_moves_the_figure(fig):
    pytest.importorskip("ipywidgets")
    panel = fig.panel()
    assert 'id="missed-readout"' in panel.readout.value
    assert panel.players["up"].play.max == len(mx.TIMES) - 21   # the restarts from pump down, 09:30
    assert panel.players["up"].speed.max == 15
    assert [o[1] for o in panel.widgets["up"].options] == list(mx.TIMES[20:])
    assert panel.widgets["up"].options[0] == ("09:30", t("09:30"))
    assert panel.widgets["deadline"].options[5] == ("5 min", 5 * MIN)
    first = fig.live.image.value
    panel.widgets["up"].value = t("10:07")
    assert fig.values["up"] == t("10:07")
    assert "10:07 (slot 09:37)" in panel.readout.value
    assert fig.live.image.value[:4] == b"\x89PNG" and fig.live.image.value != first
    panel.widgets["deadline"].value = 1000
    assert fig.frame.readout.splitlines()[7].startswith("deadline: 10:07 (slot 10:07, 0 s late \u2264 1 s)")
    panel.widgets["down"].value = t("10:30")   # pump up follows: it offers only 10:30 on, Play too
    assert (fig.values["up"], panel.widgets["up"].value, panel.players["up"].play.max) == (t("10:30"), t("10:30"), 30)
    assert "10:30 (0 s): no slot missed" in panel.readout.value
    panel.widgets["down"].value = t("09:30")
    panel.widgets["up"].value = t("10:07")
    assert fig.frame.readout.splitlines()[0] == \
        "pump down 09:30 \u2192 10:07 (37 min): slots 09:37, 09:52, 10:07 missed"


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_mark_is_cut_by_the_axes_edge(layout):
    """Issue 30: the epoch lane's last dot (11:15, on the view's edge) was cut in half at some
    positions. At every slider position, in both layouts, each mark drawn (its marker's extent at
    its size, half its edge around) stands wholly inside the plot: a release past the view's time
    window is not drawn."""
    import numpy as np

    from tests.figure_walk import every_frame

    cut = []
    for values, v, _ in every_frame(TITLE, layout):
        f, box = v.ax.figure, v.ax.bbox
        for coll in (v.collapsed, v.slots, v.released, v.skipped):
            if not len(coll.get_offsets()):
                continue
            half = (np.abs(coll.get_paths()[0].vertices).max() * np.sqrt(coll.get_sizes()[0])
                    + coll.get_linewidths()[0] / 2) * f.dpi / 72
            for x, y in v.ax.transData.transform(coll.get_offsets()):
                inside = box.x0 <= x - half and x + half <= box.x1 and box.y0 <= y - half and y + half <= box.y1
                if not inside:
                    cut.append((round(float(v.ax.transData.inverted().transform((x, y))[0])), values))
    assert cut == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_each_lane_label_stands_apart_from_the_next(layout):
    """Issue 30: on a phone the lane labels, wrapped to three lines, touched the next lane's
    (one label read on into the other). At every slider position, in both layouts, the labels
    of two neighbouring lanes are apart by at least half a line of their own text, and each
    sits beside its own lane: its box spans the lane's y."""
    from tests.figure_walk import every_frame

    close = []
    for values, v, renderer in every_frame(TITLE, layout):
        ax = v.ax
        labels = [t for t in ax.get_yticklabels() if t.get_text()]
        assert len(labels) == len(mx.POLICIES)
        boxes = sorted(((t.get_window_extent(renderer), t) for t in labels), key=lambda bt: bt[0].y0)
        for (low, a), (high, b) in zip(boxes, boxes[1:]):
            half_line = 0.5 * b.get_fontsize() * ax.figure.dpi / 72
            if high.y0 - low.y1 < half_line:
                close.append((a.get_text(), b.get_text(), round(high.y0 - low.y1, 1), values))
        for t in labels:
            box, y = t.get_window_extent(renderer), ax.transData.transform((0, t.get_position()[1]))[1]
            assert box.y0 <= y <= box.y1, t.get_text()
    assert close == []


# -- issue 30: release dots that touched, a link lost in the band's edge --------------------------

def test_a_burst_is_one_dot_and_a_near_dot_stands_a_level_up():
    """`placed`: releases a second apart are one dot at the first; a dot nearer than `reach` to
    the last one of its level goes one `step` up, its x kept; levels are reused when clear."""
    m = MIN
    released = [(0, 2), (1000, 2), (2000, 2), (m, 2), (2 * m, 2), (20 * m, 2), (m, 5)]
    dots, where = fv.placed(released, reach=1.5 * m, step=0.25)
    assert dots == [(0, 2), (m, 2.25), (2 * m, 2), (20 * m, 2), (m, 5)]
    assert where[(2000, 2)] == 2 and where[(m, 2)] == 2.25 and where[(m, 5)] == 5


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_a_minute_apart_two_dots_stand_one_over_the_other(layout):
    """The reviewer's case: pump up at 09:51, a late job then and the 09:52 slot's job a
    minute later. Both dots keep their instants; the later one stands higher, clear of the
    first by `GAP`, and the late job's link ends at its own dot."""
    f = catalogue.figure(TITLE, layout=layout)
    f.update(up=t("09:51"))
    view = f.view
    snap = sorted(p for p in view.released.get_offsets().tolist() if 6 <= p[1] < 6.5 and p[0] < t("10:00"))
    assert [p[0] for p in snap] == ts("09:07", "09:22", "09:51", "09:52")
    low, high = view.ax.transData.transform(snap[2:])
    width = 2 * mark_reach(view.released) * view.ax.figure.dpi / 72
    assert low[1] == view.ax.transData.transform((0, 6))[1] and high[1] - low[1] >= width
    assert [t("09:51"), 6] in [s.tolist()[-1] for s in view.links.get_segments()]


def test_the_link_reads_apart_from_the_band_edge():
    """At the default stop the late jobs are released at pump up, 10:10, on the band's right
    edge, where each link ends: at half alpha its blue over the grey edge read grey (issue 30).
    It is drawn above the band, and its colour as drawn over the edge differs from the edge by
    a contrast of 1.7 or more in the light theme and under the dark filter (its rising leg
    stands off the edge: `test_no_link_rises_along_the_band_edge`)."""
    from matplotlib.colors import to_rgb, to_rgba

    from emqsim.figures import style

    fig = catalogue.figure(TITLE, layout="narrow")
    view = fig.view
    on_edge = [s for s in view.links.get_segments() if s[-1][0] == view.band.get_x() + view.band.get_width()]
    assert on_edge                        # the case the check is about: a leg along the edge
    assert view.links.get_zorder() > view.band.get_zorder()
    edge = np.array(to_rgb(view.band.get_edgecolor()))
    r, g, b, a = to_rgba(view.links.get_color()[0], view.links.get_alpha())
    drawn = tuple(a * np.array([r, g, b]) + (1 - a) * edge)
    assert style.contrast(drawn, tuple(edge)) >= 1.7
    assert style.contrast(style.dark(drawn), style.dark(tuple(edge))) >= 1.7


#: the least air, in CSS px at the site's size, between a link's rising leg and the band's edge
EDGE_AIR = 2.0


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_link_rises_along_the_band_edge(layout):
    """Issue 30: a late job released at pump up was joined to its slot by a leg rising exactly
    on the band's right edge (10:10 at the default stop), so the link read as the band's border.
    At every stop, in both layouts, drawn at the pixels the site shows, each link's rising leg
    (solid or dotted) stands at least `EDGE_AIR` CSS px clear of either edge of the band, stroke
    to stroke, and still ends at its release."""
    from tests.test_fig_crowding import _css_px, site_frames

    near, legs = [], 0
    for values, v, _ in site_frames(TITLE, layout):
        fig = v.ax.figure
        css = _css_px(fig, layout)
        to_px = v.ax.transData.transform
        edges = [to_px((x, 0))[0] for x in (v.band.get_x(), v.band.get_x() + v.band.get_width())]
        half_edge = v.band.get_linewidth() * fig.dpi / 72 / 2
        for coll in (v.links, v.skip_links):
            half = coll.get_linewidths()[0] * fig.dpi / 72 / 2
            for seg in coll.get_segments():
                pts = to_px(np.asarray(seg, dtype=float))
                for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
                    if abs(x1 - x0) > 0.01 or abs(y1 - y0) < 0.01:
                        continue                       # not a rising leg
                    legs += 1
                    for e in edges:
                        air = (abs(x0 - e) - half - half_edge) / css
                        if air < EDGE_AIR:
                            near.append((round(air, 2), values))
    assert legs and near == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_cronjob_lane_says_kubernetes(layout):
    """The page says "Kubernetes CronJob"; the lane's label said "K8s", which a first-time
    student does not connect to it. It names Kubernetes, and every lane label stands inside
    the frame, clear of the axes, in both layouts at the site's pixels."""
    from emqsim.figures import style

    with style.at_shown_width():
        f = catalogue.figure(TITLE, layout=layout)
    view = f.view
    labels = {tk.get_text(): tk for tk in view.ax.get_yticklabels()}
    assert "once\nKubernetes, no deadline" in labels
    fig = view.ax.figure
    renderer = fig.canvas.get_renderer()
    for tk in labels.values():
        box = tk.get_window_extent(renderer)
        assert box.x0 >= fig.bbox.width / style.SHOWN_PX[layout], tk.get_text()     # a CSS px in
        assert box.x1 < view.ax.bbox.x0, tk.get_text()
