"""Lesson 07's view: the plotted runs, the hours and the key, exact; a move redraws; the generic
panel's zone and day controls move the figure, the day choices following the zone. The words and
the frames themselves are tested in test_lesson_cron_time_zones.py."""

from __future__ import annotations

import matplotlib
import pytest

from emqsim import InputError
from emqsim.figures import catalogue
from emqsim.figures import cron_time_zones as view_module
from emqsim.figures.style import PURPLE, ROLE, VERMILLION

matplotlib.use("Agg")

NY = "America/New_York"
TITLE = "07 cron across daylight saving"


@pytest.fixture()
def fig():
    return catalogue.figure(TITLE)


def visible(texts) -> list[tuple[str, float, str]]:
    return [(t.get_text(), round(t.get_position()[0], 6), t.get_ha()) for t in texts if t.get_visible()]


# -- the plotted artists ------------------------------------------------------------------------------------

def test_fall_back_artists(fig):
    view = fig.view
    assert fig.values == {"zone": NY, "day": "back"}
    # croniter: 30 2 at 02:30 EST (3.5 h after midnight EDT), 30 1 at 1.5 h and 2.5 h, hourly 0..24
    cron = view.marks["croniter"]
    assert list(cron.get_xdata()) == [3.5, 1.5, 2.5] + [float(h) for h in range(25)]
    assert list(cron.get_ydata()) == [0.0, -1.0, -1.0] + [-2.0] * 25
    assert list(view.marks["debian"].get_xdata()) == [] and list(view.marks["cron-parser"].get_xdata()) == []
    # Debian cron and cron-parser both skip croniter's second 01:30 (06:30Z)
    assert list(view.skipped.get_xdata()) == [2.5, 2.5] and list(view.skipped.get_ydata()) == [-1.3, -1.56]
    # a text stands `CLEAR` em (0.7) beyond its mark's edge, more than `GAP` here: at 0.4 h a
    # skip's cross read as its sentence's first letter
    gap = view._gap()
    assert gap == pytest.approx(0.5124, abs=1e-4)
    # "05:30Z, 06:30Z" a hair further, its white box past the shading's end (3 h) rather than on it
    assert [visible(r) for r in view.labels] == [
        [("07:30Z", round(3.5 + gap, 6), "left")], [("05:30Z, 06:30Z", 3.021832, "left")], []]
    shown = next(t for t in view.labels[1] if t.get_visible())
    box = shown.get_window_extent(view.ax.figure.canvas.get_renderer())
    assert box.padded(view_module.BOX_PAD * shown.get_fontsize() * view.ax.figure.dpi / 72).x0 == pytest.approx(
        view.ax.transData.transform((3.0, 0))[0])
    assert [t.get_text() for t in view.counts] == ["", "", "25 runs"]
    assert visible(view.lanes["debian"]) == [("", 0, "left"), ("Debian cron skips 06:30Z", round(2.5 + gap, 6), "left"),
                                             ("", 0, "left")]
    assert [t.get_text() for t in view.lanes["cron-parser"]] == ["", "cron-parser (and BullMQ) skips 06:30Z", ""]
    # the change at 06:00Z (2 h after midnight EDT), the 01:00 hour shaded on both passes
    assert view.change.get_visible() and list(view.change.get_xdata()) == [2.0, 2.0]
    assert [(p.get_visible(), p.get_x(), p.get_width()) for p in view.passes] == [(True, 1.0, 1.0), (True, 2.0, 1.0)]
    assert (view.after.get_x(), view.after.get_width()) == (25.0, pytest.approx(0.4))
    assert not view._after_text.get_visible()
    # labelled hours: 00, 06, 12 and 18 on the local clock, the hour before the change and the
    # change's own; local over UTC, 01 twice, the second "01 again"
    assert view.tick_labels() == ["00\n04", "01\n05", "01 again\n06", "06\n11", "12\n17", "18\n23", "00\n05"]
    assert [t.get_position()[0] for t in view.hours if t.get_visible()] == [0, 1, 2, 7, 12 + 1, 18 + 1, 25]
    assert view._title.get_text() == "America/New_York 2026-11-01: clocks go back at 06:00Z, a 25-hour day"
    assert view._tick_rows.get_text() == "local\nUTC"            # what the hours' two lines are
    assert [t.get_text() for t in view.names] == ["30 2 * * *", "30 1 * * *", "0 * * * *"]


def test_spring_forward_artists(fig):
    view = fig.view
    fig.update(day="forward")
    assert list(view.marks["croniter"].get_xdata())[:4] == [2.0, 1.5, 0.0, 1.0]
    assert len(view.marks["croniter"].get_xdata()) == 2 + 23
    assert list(view.marks["cron-parser"].get_xdata()) == [2.5]          # 03:30 EDT, 2.5 h after midnight
    assert list(view.marks["cron-parser"].get_ydata()) == [-0.56]
    assert list(view.skipped.get_xdata()) == [2.0] and list(view.skipped.get_ydata()) == [-0.56]
    assert view.lanes["cron-parser"][0].get_text() == "cron-parser (and BullMQ) runs 07:30Z and skips 07:00Z"
    assert view.lanes["cron-parser"][0].get_position()[0] == pytest.approx(2.5 + view._gap())
    assert [p.get_visible() for p in view.passes] == [False, False]
    assert view.after.get_x() == 23.0 and view._after_text.get_visible()
    assert view.tick_labels()[:3] == ["00\n05", "01\n06", "03 (no 02)\n07"]       # no 02 on the local clock
    # and back: the labels and shading of the fall-back day return
    fig.update(day="back")
    assert [p.get_visible() for p in view.passes] == [True, True]
    assert visible(view.labels[1]) == [("05:30Z, 06:30Z", 3.021832, "left")]


def test_utc_has_no_such_day(fig):
    view = fig.view
    fig.update(day="forward")
    text = fig.update(zone="UTC")                  # the same date, now in UTC
    assert fig.values["day"] == "forward" and fig.frame.day == "2026-03-08"
    assert text.splitlines()[0] == "UTC 2026-03-08: no change, UTC (UTC+00:00) all day (a 24-hour day)"
    assert not view.change.get_visible()
    assert list(view.skipped.get_xdata()) == []
    assert [t.get_text() for t in view.counts] == ["", "", "24 runs"]
    assert view.tick_labels() == ["00\n00", "06\n06", "12\n12", "18\n18", "00\n00"]


def test_zone_change_keeps_the_kind_of_day(fig):
    fig.update(day="forward")                   # New York springs forward
    fig.update(zone="Australia/Sydney")
    assert fig.values["day"] == "forward" and fig.frame.day == "2026-10-04"   # Sydney's spring-forward day
    fig.update(zone="Europe/London")
    assert fig.frame.day == "2026-03-29"


@pytest.mark.parametrize("kw", [{"zone": "Mars/Base"}, {"zone": "Asia/Tokyo"}, {"day": "2026-11-31"},
                                {"day": "2026-12-25"}, {"zone": "UTC", "day": "before forward"}])
def test_bad_moves_leave_the_figure(fig, kw):
    before = fig.png()
    with pytest.raises(InputError, match=repr(next(iter(kw.values()))) if len(kw) == 1 else "before forward"):
        fig.update(**kw)
    assert fig.values == {"zone": NY, "day": "back"}     # nothing moved
    assert fig.png() == before


def test_key_is_laid_out_once(fig):
    view = fig.view
    assert [t.get_text() for _, t in view.key] == ["croniter (emqsim)", "Debian cron (cronsim)", "cron-parser (BullMQ)",
                                                   "skipped", "change"]
    assert [m.get_marker() for m, _ in view.key] == ["o", "D", "s", "x", "None"]
    assert [m.get_color() for m, _ in view.key[:3]] == [ROLE["cron"], VERMILLION, PURPLE]
    xs = [t.get_position()[0] for _, t in view.key]
    assert xs == sorted(xs) and 0 < xs[0] and xs[-1] < 1


def test_a_move_changes_the_png(fig):
    first = fig.png()
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    fig.update(day="forward")
    spring = fig.png()
    assert spring != first
    fig.update(day="back")
    assert fig.png() == first                     # the same frame draws the same picture


def test_the_view_draws_another_models_expressions():
    from emqsim.lessons.cron_time_zones import TimeZonesModel

    model = TimeZonesModel()
    model.expressions = ("*/20 2 * * *", "30 1 * * *", "0 * * * *")
    fig = catalogue.figure(TITLE, model)
    assert fig.view.names[0].get_text() == "*/20 2 * * *"
    fig.update(day="forward")
    assert list(fig.view.marks["cron-parser"].get_xdata()) == pytest.approx([2 + 1 / 3, 2 + 2 / 3])   # 03:20, 03:40 EDT
    assert fig.view.lanes["cron-parser"][0].get_text() == "cron-parser (not BullMQ) runs 07:20Z, 07:40Z"


# -- the panel -----------------------------------------------------------------------------------------------

def test_panel_moves_the_figure(fig):
    p = fig.panel()
    zone, day = p.widgets["zone"], p.widgets["day"]
    assert zone.value == NY and day.value == "back"
    assert f'id="{fig.model.readout_id}"' in p.readout.value and fig.model.readout_id == "time-zones-readout"
    assert [v for _, v in day.options] == ["before forward", "forward", "after forward", "ordinary",
                                           "before back", "back", "after back"]
    day.value = "forward"
    assert "America/New_York 2026-03-08: at 07:00Z clocks go forward" in p.readout.value
    zone.value = "Europe/London"
    assert fig.values == {"zone": "Europe/London", "day": "forward"} and day.value == "forward"
    assert day.options[0] == ("2026-03-28 \u00b7 the day before clocks go forward", "before forward")
    assert "Europe/London 2026-03-29: at 01:00Z clocks go forward" in p.readout.value
    # the zone's swap of the day choices does not move the figure a second time
    zone.value = "UTC"
    assert fig.values == {"zone": "UTC", "day": "forward"} and day.value == "forward"
    assert "UTC 2026-03-08" in p.readout.value
    assert [v for _, v in day.options] == ["forward", "ordinary", "back"]
    day.value = "ordinary"
    assert fig.values["day"] == "ordinary" and "UTC 2026-06-15" in p.readout.value


def test_the_module_is_a_view_only():
    assert not hasattr(view_module, "time_zones_panel") and not hasattr(view_module, "readout")


def test_on_a_phone_the_hours_stand_on_one_line_and_the_sentences_in_the_plot():
    """Issue 30: on a phone the hour labels around a change were staggered into two tiers
    ("00 03" over "05 07"), and a lane's sentence ran off the plot. At every position: every
    hour label on one line, the ones at the change kept, and each sentence inside the plot."""
    from tests.figure_walk import positions

    title = "07 cron across daylight saving"
    fig = catalogue.figure(title, layout="narrow")
    f, v = fig.view.ax.figure, fig.view
    tiers, outside, lost = set(), [], []
    for values in positions(title, 24):
        fig.update(**values)
        fig.png()
        renderer = f.canvas.get_renderer()
        tiers |= {round(t.get_window_extent(renderer).y1) for t in v.hours if t.get_visible()}
        plot = v.ax.bbox
        for texts in v.lanes.values():
            for t in texts:
                box = t.get_window_extent(renderer)
                if t.get_text() and (box.x1 > plot.x1 + 1 or box.x0 < plot.x0 - 1):
                    outside.append((t.get_text(), values))
        if fig.frame.change is not None:
            xs = [t.get_position()[0] for t in v.hours if t.get_visible()]
            if not any(abs(x - fig.frame.change) < 0.01 for x in xs):
                lost.append(values)
    assert len(tiers) == 1
    assert outside == [] and lost == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_time_runs_across_the_axis_and_the_key_is_clear_of_its_marks(layout):
    """The last read (2026-12-04): a time written left of a run near midnight ran into the
    expression's name across the axis ("30 1 * * *05:30Z" on the desktop; on a phone, moved
    above its run, the change's line or the axis struck it through). It now joins the row's
    time on the right. And the key, laid out before `legible` raised its type, had each label
    running under the next entry's mark. At every position, in both layouts."""
    from tests.figure_walk import positions

    fig = catalogue.figure(TITLE, layout=layout)
    v = fig.view
    across, joined = [], set()
    for values in positions(TITLE, 24):
        fig.update(**values)
        fig.png()
        renderer = v.ax.figure.canvas.get_renderer()
        for pair in v.labels:
            for t in pair:
                if t.get_visible() and t.get_text():
                    if t.get_window_extent(renderer).x0 < v.ax.bbox.x0:
                        across.append((t.get_text(), values))
                    if ", " in t.get_text():
                        joined.add(t.get_text())
    assert across == []
    assert "05:30Z, 06:30Z" in joined          # New York's fall-back day, the case that crossed
    texts = [t.get_window_extent(renderer) for _, t in v.key]
    marks = [m.get_window_extent(renderer) for m, _ in v.key]
    for i, box in enumerate(texts):
        assert not any(box.overlaps(m) for m in marks), f"a key mark on {v.key[i][1].get_text()!r}"
        assert not any(box.overlaps(o) for j, o in enumerate(texts) if j != i)


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_two_hour_labels_touch(layout):
    """Issue 30: on the desktop the two-line hour labels crowded around a clock change, one
    label crowding the next ("02 02 03" read as one group, 0.9 em apart). At every zone and
    day, in both layouts, two labelled hours stand apart by at least an em of their text, and
    the hour at the change keeps its label."""
    from tests.figure_walk import every_frame

    touching = []
    for values, v, renderer in every_frame(TITLE, layout):
        shown = sorted(((t.get_window_extent(renderer), t) for t in v.hours if t.get_visible() and t.get_text()),
                       key=lambda bt: bt[0].x0)
        for (a, ta), (b, tb) in zip(shown, shown[1:]):
            em = tb.get_fontsize() * v.ax.figure.dpi / 72
            if b.x0 - a.x1 < em:
                touching.append((ta.get_text(), tb.get_text(), round((b.x0 - a.x1) / em, 2), values))
        frame = catalogue.model(TITLE).frame_at(values)
        if frame.change is not None:
            assert any(abs(t.get_position()[0] - frame.change) < 0.01 for _, t in shown), values
    assert touching == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_title_and_the_expressions_read_larger_than_the_floor(layout):
    """Issue 30: every text of 07 stood at the 10 CSS px floor, the title and the expressions
    too, and read small. At every stop they stand about 12 CSS px tall where the site shows the
    figure (11.5 at least: the left margin holds the expressions at 11.5), the rest at 10 at
    least."""
    from emqsim.figures import style
    from tests.figure_walk import every_frame

    small = {}
    for values, v, _ in every_frame(TITLE, layout):
        fig = v.ax.figure
        per_pt = style.SHOWN_PX[layout] / (fig.get_figwidth() * 72)
        for t in [v._title, *v.names]:
            if t.get_fontsize() * per_pt < 11.5 - 0.005:
                small.setdefault(t.get_text()[:30], round(t.get_fontsize() * per_pt, 2))
        assert v._title.get_fontsize() * per_pt == pytest.approx(12, abs=0.05), values
    assert small == {}


def test_on_a_phone_the_hours_are_regular():
    """A student read the phone's hours on New York's fall-back day as "local 01 05 11 17 23 /
    UTC 06 10 16 22 04": every sixth real hour reads an hour early on the local clock after a
    repeated hour, and the rest look arbitrary. At every stop each labelled hour but the change's
    is a local multiple of six (00, 06, 12, 18), in order, the UTC hour under each, at least
    three of them, a label `HOUR_GAP` em clear of the next and at the floor's size or more."""
    from emqsim.figures import style
    from emqsim.figures.cron_time_zones import HOUR_GAP
    from tests.figure_walk import positions

    fig = catalogue.figure(TITLE, layout="narrow")
    v = fig.view
    f = v.ax.figure
    odd, few, near, small = [], [], [], []
    for values in positions(TITLE, 24):
        fig.update(**values)
        fig.png()
        renderer = f.canvas.get_renderer()
        shown = sorted((t for t in v.hours if t.get_visible() and t.get_text()), key=lambda t: t.get_position()[0])
        change = fig.frame.change
        regular = [t for t in shown if change is None or abs(t.get_position()[0] - change) > 0.01]
        local = [t.get_text().split("\n")[0] for t in regular]
        if any(int(h[:2]) % 6 or len(h) != 2 for h in local):
            odd.append((values, local))
        if len(regular) < 3:
            few.append((values, local))
        boxes = [t.get_window_extent(renderer) for t in shown]
        em = shown[0].get_fontsize() * f.dpi / 72
        near += [(values, a.x1, b.x0) for a, b in zip(boxes, boxes[1:]) if b.x0 - a.x1 < HOUR_GAP * em]
        small += [values for t in shown if t.get_fontsize() < style.floor_of(f) - 1e-9]
    assert odd == [] and few == [] and near == [] and small == []


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_text_box_touches_a_line(layout):
    """The last read (h66): on a phone, on Sydney's fall-back day, the "14:30Z" label's white box
    lay on the dashed change line, hiding a piece of it (on the desktop too, and New York's
    spring-forward "06:30Z" touched it; and on the desktop the first row's line ran through
    "next day" on every shorter day). At every stop, in both layouts, no text in the plot, its
    box included, comes within a CSS px of the change line, the axis lines or another row's
    line (a time's box hides its own row's faint line behind it, as a label on its line)."""
    from matplotlib.transforms import Bbox

    from emqsim.figures import style
    from tests.figure_walk import every_frame

    touching = []
    for values, v, renderer in every_frame(TITLE, layout):
        fig = v.ax.figure
        css = fig.dpi * fig.get_figwidth() / style.SHOWN_PX[layout]
        plot = v.ax.bbox

        def across(y: float, half: float) -> Bbox:
            return Bbox.from_extents(plot.x0, y - half, plot.x1, y + half)

        def upright(x: float, half: float) -> Bbox:
            return Bbox.from_extents(x - half, plot.y0, x + half, plot.y1)

        spine = v.ax.spines["left"].get_linewidth() * fig.dpi / 72 / 2
        lines = {"left axis": upright(plot.x0, spine), "bottom axis": across(plot.y0, spine)}
        if v.change.get_visible():
            x = v.ax.transData.transform((v.change.get_xdata()[0], 0))[0]
            lines["change"] = upright(x, v.change.get_linewidth() * fig.dpi / 72 / 2)
        rows = {y: across(v.ax.transData.transform((0, y))[1], 0.5) for y in v.rows}
        own = {t: y for y, pair in zip(v.rows, v.labels) for t in pair}
        texts = [*(t for pair in v.labels for t in pair), *(t for ts in v.lanes.values() for t in ts), *v.counts,
                 v._after_text]
        for t in texts:
            if not (t.get_visible() and t.get_text().strip()):
                continue
            patch = t.get_bbox_patch()
            box = patch.get_window_extent(renderer) if patch is not None else t.get_window_extent(renderer)
            near = {**lines, **{f"row {y:g}": b for y, b in rows.items() if own.get(t) != y}}
            for name, line in near.items():
                if not (box.x1 + css <= line.x0 or line.x1 + css <= box.x0 or box.y1 + css <= line.y0
                        or line.y1 + css <= box.y0):
                    touching.append((values["zone"], values["day"], t.get_text(), name))
    assert touching == [], touching


@pytest.mark.parametrize("layout, day, hours", [
    ("normal", "back", ["00\n23", "01\n00", "01 again\n01", "06\n06", "12\n12", "18\n18", "00\n00"]),
    ("normal", "forward", ["00\n00", "02 (no 01)\n01", "06\n05", "12\n11", "18\n17", "00\n23"]),
    ("narrow", "back", ["01 again\n01", "12\n12", "18\n18", "00\n00"]),
    ("narrow", "forward", ["02 (no 01)\n01", "12\n11", "18\n17", "00\n23"]),
])
def test_the_hour_at_a_change_says_what_the_clock_does(layout, day, hours):
    """The last read (h66): London's fall-back day read "local 00 01 01 / UTC 23 00 01", correct
    (01:00-02:00 comes twice) but cryptic, "01" twice with nothing saying why; spring's "00 02"
    left the missing 01 unexplained. The hour at the change says it in words, "01 again" and
    "02 (no 01)", its digits still centred on the change's tick (on a phone "06" gives way to
    the words, an em clear of them)."""
    from matplotlib.text import Text

    fig = catalogue.figure(TITLE, layout=layout)
    fig.update(zone="Europe/London", day=day)
    fig.png()
    view = fig.view
    assert view.tick_labels() == hours
    label = next(t for t in view.hours if t.get_visible() and " " in t.get_text())
    renderer = view.ax.figure.canvas.get_renderer()
    words = label.get_window_extent(renderer)
    digits = label.get_text().split(" ")[0]
    alone = Text(0, 0, digits, fontsize=label.get_fontsize(), figure=view.ax.figure)
    tick = view.ax.transData.transform((fig.frame.change, 0))[0]
    assert label.get_position()[0] == fig.frame.change
    assert words.x0 + alone.get_window_extent(renderer).width / 2 == pytest.approx(tick, abs=0.01)
