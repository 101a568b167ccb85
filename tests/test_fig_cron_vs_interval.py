"""The cron-vs-interval view: its artists follow the model's frames, and the generic panel drives it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest

from emqsim.figures import catalogue
from emqsim.figures.cron_vs_interval import CronIntervalView
from emqsim.figures.style import BLUE, ORANGE, new_figure
from emqsim.figures.view import Figure
from emqsim.lessons.cron_vs_interval import CronIntervalModel, next_run
from emqsim.engine.timefmt import at

MIN = 60_000
NOV30_9 = at("2026-11-30 09:00")
NOV30_0848 = at("2026-11-30 08:48")
NOV30_0901 = at("2026-11-30 09:01")
NOV30_0915 = at("2026-11-30 09:15")
DEC01_9 = at("2026-12-01 09:00")
BAD = "61 * * * *"
BAD_MSG = ("invalid cron '61 * * * *'; write five fields such as '0 9 * * *' "
           "(minute hour day-of-month month day-of-week) or a macro like @hourly")


@pytest.fixture
def fig():
    return catalogue.figure("01 cron vs interval")


def _x(line):
    return [int(x) for x in line.get_xdata()]


def test_first_drawing(fig):
    v = fig.view
    assert isinstance(v, CronIntervalView) and isinstance(fig.model, CronIntervalModel)
    assert _x(v._now) == [NOV30_0848, NOV30_0848]
    assert _x(v._ring) == [NOV30_9] and list(v._ring.get_ydata()) == [1]
    assert _x(v._cron) == [NOV30_9]
    assert _x(v._interval) == list(range(at("2026-11-30 08:00"), at("2026-11-30 10:00") + 1, 15 * MIN))
    assert v._title.get_text() == "now 08:48 | cron 0 9 * * * -> next run 09:00:00"
    assert v._next_text.get_text() == "next 09:00:00\nin 12 min"
    assert v._now_text.get_text() == "now 08:48 "
    assert [t.get_text() for t in v.ax.get_yticklabels()] == ["every 15 min\nfrom 08:00", "cron 0 9 * * *"]
    assert (v.live.fig.get_figwidth(), v.live.fig.get_figheight()) == (9.0, 3.4)


def test_update_moves_now_and_ring(fig):
    v = fig.view
    assert fig.update(now=NOV30_9) == "now 09:00 | cron 0 9 * * * -> next run 09:00:00"
    assert _x(v._now) == [NOV30_9, NOV30_9] and _x(v._ring) == [NOV30_9]
    assert v._next_text.get_text() == "next 09:00:00\ndue now"

    text = fig.update(now=NOV30_0901)
    assert text == "now 09:01 | cron 0 9 * * * -> next run 09:00:00 (tomorrow, 2026-12-01)"
    assert _x(v._ring) == [DEC01_9]  # off the axis: the edge label says where it went
    assert _x(v._wait) == [NOV30_0901, DEC01_9]
    assert v._next_text.get_text() == "next 09:00:00 (tomorrow, 2026-12-01) \u2192\nin 23 h 59 min"
    assert v._next_text.get_position() == (at("2026-11-30 10:00"), 1.3)
    assert v._next_text.get_horizontalalignment() == "right"


def test_update_switches_rule(fig):
    v = fig.view
    assert fig.update(now=NOV30_0901, mode="interval") == "now 09:01 | every 15 min -> next run 09:15:00"
    assert _x(v._ring) == [NOV30_0915] and list(v._ring.get_ydata()) == [0]
    assert (v._interval.get_markerfacecolor(), v._cron.get_markerfacecolor()) == (ORANGE, "none")
    assert v._next_text.get_text() == "next 09:15:00\nin 14 min"
    assert v._next_text.get_horizontalalignment() == "center"
    assert fig.update(mode="cron") == "now 09:01 | cron 0 9 * * * -> next run 09:00:00 (tomorrow, 2026-12-01)"
    assert (v._interval.get_markerfacecolor(), v._cron.get_markerfacecolor()) == ("none", BLUE)
    assert (v._interval.get_markeredgecolor(), v._cron.get_markeredgecolor()) == ("#C38700", BLUE)


def test_update_new_expression_redraws_slots_and_row_label(fig):
    v = fig.view
    before = fig.png()
    text = fig.update(expr="*/20 8-9 * * *")
    assert text == "now 08:48 | cron */20 8-9 * * * -> next run 09:00:00"
    assert _x(v._cron) == [at("2026-11-30 08:00") + k * 20 * MIN for k in range(6)]
    assert v.ax.get_yticklabels()[1].get_text() == "cron */20 8-9 * * *"
    assert v._note.get_text() == ""
    assert fig.png() != before


def test_update_invalid_expression(fig):
    v = fig.view
    assert fig.update(expr=BAD) == f"now 08:48 | {BAD_MSG}"
    assert (fig.frame.next, fig.frame.error) == (None, BAD_MSG)
    assert _x(v._cron) == [] and _x(v._ring) == [] and _x(v._wait) == []
    assert v._next_text.get_text() == ""
    assert v._note.get_text() == "invalid cron: see the readout"
    assert v._title.get_text() == "now 08:48 | invalid cron '61 * * * *'"
    # the interval still answers, and a good expression brings the slots back
    assert fig.update(mode="interval") == "now 08:48 | every 15 min -> next run 09:00:00"
    assert fig.update(mode="cron", expr="0 9 * * *") == "now 08:48 | cron 0 9 * * * -> next run 09:00:00"
    assert _x(v._cron) == [NOV30_9] and v._note.get_text() == ""


def test_window_without_slots_says_so(fig):
    fig.update(expr="0 12 * * *")
    assert fig.view._note.get_text() == "no cron slot in this window"
    assert _x(fig.view._ring) == [at("2026-11-30 12:00")]


def test_view_on_given_axes_and_another_anchor():
    f, ax = new_figure()
    v = CronIntervalView(ax)
    fig = Figure(CronIntervalModel(anchor=at("2026-11-30 08:07")), v)
    assert v.live.fig is f
    assert fig.update(now=NOV30_0901, mode="interval") == "now 09:01 | every 15 min -> next run 09:07:00"
    assert _x(v._interval)[:2] == [at("2026-11-30 08:07"), at("2026-11-30 08:22")]
    assert v.ax.get_yticklabels()[0].get_text() == "every 15 min\nfrom 08:07"


def test_the_view_draws_the_engines_first_run():
    fig = Figure(CronIntervalModel(offset="7m"), CronIntervalView())
    fig.update(mode="interval")
    assert _x(fig.view._interval)[:2] == [at("2026-11-30 08:07"), at("2026-11-30 08:22")]
    assert fig.update(now=NOV30_0848) == "now 08:48 | every 15 min -> next run 08:52:00"


def test_a_sweep_moves_only_the_tracked_artists(fig):
    v = fig.view
    assert set(v.live.moving) == {v._cron, v._interval, v._wait, v._ring, v._now, v._now_text, v._next_text,
                                  v._note, v._title}
    seen = set()
    for k in range(20):  # now from 08:30 to 09:27 in 3-minute steps, the rule switched every 5 moves
        now, mode = at("2026-11-30 08:30") + 3 * k * MIN, ("cron", "interval")[(k // 5) % 2]
        fig.update(now=now, mode=mode)
        assert _x(v._now) == [now] * 2
        assert _x(v._ring) == [next_run(now, mode)]
        seen.add(fig.png())
    assert len(seen) == 20
    assert next(iter(seen))[:8] == b"\x89PNG\r\n\x1a\n"


# -- the generic panel ------------------------------------------------------------------------


def test_panel_plays_its_now_slider(fig):
    p = fig.panel()
    now = p.widgets["now"]
    player = p.players["now"]
    assert player.link.target == (now, "index")
    assert player.play.value == now.index == 48  # 08:48 on a 08:00-10:00 minute axis
    assert now.label == "08:48" and now.value == NOV30_0848 and now.continuous_update is True
    assert (player.play.max, player.speed.description) == (120, "min per step")
    assert [lab for lab, _ in p.widgets["mode"].options] == ["cron", "interval"]
    assert p.widgets["expr"].value == "0 9 * * *"
    assert 'id="cron-interval-readout"' in p.readout.value
    assert "now 08:48 | cron 0 9 * * * -&gt; next run 09:00:00" in p.readout.value
    assert p.box.children[-3:] == (fig.live.image, p.ask.line, p.readout)  # the challenge under the figure


def test_panel_widgets_drive_the_figure(fig):
    p = fig.panel()
    p.widgets["now"].value = NOV30_0901
    assert fig.values["now"] == NOV30_0901 and _x(fig.view._now) == [NOV30_0901] * 2
    assert "next run 09:00:00 (tomorrow, 2026-12-01)</pre>" in p.readout.value
    p.widgets["mode"].value = "interval"
    assert fig.values["mode"] == "interval" and _x(fig.view._ring) == [NOV30_0915]
    assert "every 15 min -&gt; next run 09:15:00</pre>" in p.readout.value
    p.widgets["expr"].value = " */20 8-9 * * * "  # the panel trims it; the rule stays as chosen
    assert fig.values["expr"] == "*/20 8-9 * * *"
    assert fig.view.ax.get_yticklabels()[1].get_text() == "cron */20 8-9 * * *"
    p.widgets["mode"].value = "cron"
    assert "cron */20 8-9 * * * -&gt; next run 09:20:00</pre>" in p.readout.value
    p.widgets["expr"].value = BAD
    assert BAD_MSG.replace("'", "&#x27;") in p.readout.value


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
def test_the_next_run_box_never_crosses_the_now_line(presenter):
    # a run due now (08:00 on the interval row) was labelled across the now line, and the
    # box of a run due at the right edge stood past the figure. One drawn figure per mode, moved
    # as a slider moves it: a text's box needs the renderer, not a redraw (the boxes are the
    # ones a fresh rendering at each position gives)
    from figure_walk import render
    from emqsim.figures import style
    from emqsim.lessons.course import MINUTE
    from emqsim.lessons.cron_vs_interval import AXIS_END, AXIS_START

    crossed, seen = [], 0
    for mode in ("cron", "interval"):
        fig, renderer = render("01 cron vs interval", {"mode": mode}, presenter=presenter)
        view = fig.view
        style.present(presenter)
        try:
            for now in range(AXIS_START, AXIS_END + 1, 5 * MINUTE):
                fig.update(now=now, mode=mode)
                box = view._next_text.get_window_extent(renderer)
                at = view.ax.transData.transform((now, 0))[0]
                seen += 1
                if box.x0 <= at <= box.x1 or box.x1 > view.ax.figure.bbox.x1:
                    crossed.append((mode, now, view._next_text.get_text()))
        finally:
            style.present(False)
    assert (seen, crossed) == (50, [])


@pytest.mark.parametrize("presenter_on", [False, True])
def test_the_now_label_stays_on_the_plot(presenter_on):
    # a reader's read (issue 30): at now 08:00 "now 08:00" stood left of the y axis, beside
    # the row labels, as the label sits left of its line; near the left edge it goes right of it
    from figure_walk import render
    from emqsim.figures import style
    from emqsim.lessons.course import MINUTE
    from emqsim.lessons.cron_vs_interval import AXIS_END, AXIS_START

    off, seen = [], 0
    fig, renderer = render("01 cron vs interval", {}, presenter=presenter_on)
    view = fig.view
    style.present(presenter_on)
    try:
        for now in range(AXIS_START, AXIS_END + 1, 5 * MINUTE):
            fig.update(now=now)
            box = view._now_text.get_window_extent(renderer)
            at = view.ax.transData.transform((now, 0))[0]
            seen += 1
            if box.x0 < view.ax.bbox.x0 or box.x1 > view.ax.figure.bbox.x1 or box.x0 < at < box.x1:
                off.append((now, view._now_text.get_text()))
    finally:
        style.present(False)
    assert (seen, off) == (25, [])


# -- issue 30: the faded row in the dark theme -----------------------------------------------

#: the least contrast a faded mark keeps against the figure's ground (WCAG 1.4.11, graphics)
FADED_MIN = 3.0


def _drawn(line, which: str) -> tuple[str, float]:
    """The colour and alpha `line` paints its `which` part in ("marker" or "line"): a hollow
    marker paints only its edge."""
    from matplotlib.colors import to_rgba

    alpha = 1.0 if line.get_alpha() is None else line.get_alpha()
    if which == "line":
        c = to_rgba(line.get_color())
    else:
        face = to_rgba(line.get_markerfacecolor())
        c = face if face[3] > 0 else to_rgba(line.get_markeredgecolor())
    return c[:3], alpha * c[3]


def _contrasts(colour, alpha) -> dict[str, float]:
    """The mark's contrast with the ground it is read on: the site's light page (white), the
    site's dark page (its white frame turned by the filter: the composite turned, against
    black) and Lab's dark theme (the transparent figure's mark turned, over Lab's #111)."""
    import numpy as np
    from matplotlib.colors import to_rgb

    from emqsim.figures import style

    def over(c, bg):
        return tuple(alpha * np.array(c) + (1 - alpha) * np.array(to_rgb(bg)))

    light = over(colour, style.LIGHT_BG)
    return {"site light": style.contrast(light, style.LIGHT_BG),
            "site dark": style.contrast(style.dark(light), style.dark(style.LIGHT_BG)),
            "lab dark": style.contrast(over(to_rgb(style.dark(colour)), style.DARK_BG), style.DARK_BG)}


def test_the_faded_row_and_the_wait_read_in_both_themes():
    """Issue 30: under the dark theme the row of the rule switched off (drawn at 0.3 alpha over
    white, turned near black by the filter) was nearly invisible on the dark page, and the grey
    dotted wait was 2.85:1 on white. At every stop, both modes, the faded row's marks and the
    wait line keep 3:1 against the ground in the light theme and under the dark filter, and the
    faded row still looks unlike the one in force (hollow where that one is filled)."""
    from figure_walk import every_frame
    from matplotlib.colors import to_rgba

    low, seen = [], 0
    for values, v, _ in every_frame("01 cron vs interval"):
        off, on = (v._interval, v._cron) if values["mode"] == "cron" else (v._cron, v._interval)
        checks = [("off row", off, "marker")]
        if len(v._wait.get_xdata()):
            checks.append(("wait", v._wait, "line"))
        for name, line, which in checks:
            seen += 1
            for ground, ratio in _contrasts(*_drawn(line, which)).items():
                if ratio < FADED_MIN:
                    low.append((name, ground, round(ratio, 2), values["mode"]))
        if not (to_rgba(off.get_markerfacecolor())[3] == 0 < to_rgba(on.get_markerfacecolor())[3]):
            low.append(("off row not hollow", values["mode"]))
    assert seen and sorted(set(low)) == []


#: CSS px, where the site shows the figure, between the next run's text and the now line's stroke
NEXT_AIR_PX = 6.0


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_next_run_text_stands_clear_of_the_now_line(layout):
    """Issue 30 (h66r): on a phone, Show me's "next 09:00:00 (tomorrow, ...) ->" ran into the now
    line: 3 pt of air from the box's face left about 4 CSS px from its arrow, and the face does
    not show on the dark page. Measured from the text's ink, at every stop, in both layouts."""
    from figure_walk import every_frame
    from emqsim.figures.style import SHOWN_PX

    near = []
    for values, view, renderer in every_frame("01 cron vs interval", layout):
        text = view._next_text
        if not text.get_text():
            continue
        fig = view.ax.figure
        css = SHOWN_PX[layout] / fig.bbox.width
        box = text.get_window_extent(renderer)
        if box.y0 >= view.ax.bbox.y1:
            continue
        at = view.ax.transData.transform((view._now.get_xdata()[0], 0))[0]
        half = view._now.get_linewidth() / 2 * fig.dpi / 72
        air = max(box.x0 - (at + half), (at - half) - box.x1)
        if air * css < NEXT_AIR_PX:
            near.append((values, round(air * css, 1)))
    assert near == []
