"""The cadence and slip views: each move redraws the marks from the model's frame, the lit
lane in its colour and the other grey, and the generic panel moves them."""

from __future__ import annotations

import re

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from emqsim import InputError  # noqa: E402
from emqsim.figures import catalogue  # noqa: E402
from emqsim.figures.start_to_start import DIM_TEXT  # noqa: E402
from emqsim.figures.style import GREY, ROLE, ink  # noqa: E402
from emqsim.lessons import start_to_start as lesson  # noqa: E402
from emqsim.engine.timefmt import at  # noqa: E402

MIN = 60_000


def hhmm(*times):
    return [at(f"2026-11-30 {t}") for t in times]


@pytest.fixture(scope="module")
def cadence():
    return catalogue.figure("03 start-to-start")


@pytest.fixture(scope="module")
def slip():
    return catalogue.figure("03 slip over cycles")


# -- the cadence view ----------------------------------------------------------------------

def test_run_4_marks(cadence):
    view = cadence.view
    assert cadence.update(run=4, measure="both").startswith("start-to-start: 09:00, 09:15")
    assert [b.get_x() for b in view.bars["schedule"]] == hhmm("09:00", "09:15", "09:30", "09:45")
    assert [b.get_x() for b in view.bars["finish"]] == hhmm("09:00", "09:19", "09:38", "09:57")
    assert [b.get_width() for b in view.bars["schedule"] + view.bars["finish"]] == [4 * MIN] * 8
    assert [t.get_text() for t in view.labels["finish"]] == ["09:00", "09:19", "09:38", "09:57"]
    assert list(view.starts["finish"].get_xdata()) == hhmm("09:00", "09:19", "09:38", "09:57")
    # the finish lane's gaps run from each finish to the next start
    segs = [[tuple(p) for p in s] for s in view.gaps["finish"].get_segments()]
    assert [(a[0], b[0]) for a, b in segs] == list(zip(hhmm("09:04", "09:23", "09:42"),
                                                       hhmm("09:19", "09:38", "09:57")))
    segs = [[tuple(p) for p in s] for s in view.gaps["schedule"].get_segments()]
    assert [(a[0], b[0]) for a, b in segs] == list(zip(hhmm("09:00", "09:15", "09:30"),
                                                       hhmm("09:15", "09:30", "09:45")))
    assert view.gap_text["finish"].get_text() == "15 min from the finish"
    assert view._title.get_text() == "every 15 min from 09:00, each run takes 4 min \u00b7 lit: both"


def test_the_axis_is_laid_out_once(cadence):
    assert cadence.view.ax.get_xlim() == (at("2026-11-30 08:55"), at("2026-11-30 10:45"))
    labels = [t.get_text() for t in cadence.view.ax.get_yticklabels()]
    assert labels == ["start-to-start\nnext = start + 15 min", "start-to-finish\nnext = finish + 15 min"]
    cadence.update(run=9)
    assert cadence.view.ax.get_xlim() == (at("2026-11-30 08:55"), at("2026-11-30 10:45"))


def test_measure_selector_lights_one_lane(cadence):
    view = cadence.view
    assert cadence.update(run=4, measure="start-to-start") == \
        "start-to-start: 09:00, 09:15, 09:30, 09:45 \u2014 holds at :00, :15, :30, :45"
    assert view.bars["schedule"][0].get_facecolor() == to_rgba(ROLE["schedule"])
    assert view.bars["finish"][0].get_facecolor() == to_rgba(GREY, 0.35)
    # a greyed lane's text is whole, in a grey that reads at 5.5:1 (faded text did not)
    assert view.gap_text["finish"].get_alpha() is None
    assert view.gap_text["finish"].get_color() == DIM_TEXT == "#686868"
    assert view.gap_text["schedule"].get_color() == ink(ROLE["schedule"])
    assert cadence.update(measure="start-to-finish") == \
        "start-to-finish: 09:00, 09:19, 09:38, 09:57 \u2014 drifts 4 min later each cycle"
    assert view.bars["finish"][2].get_facecolor() == to_rgba(ROLE["finish"])
    assert view.bars["schedule"][2].get_facecolor() == to_rgba(GREY, 0.35)


def test_run_0_and_14(cadence):
    cadence.update(run=0, measure="both")
    assert [b.get_width() for b in cadence.view.bars["finish"]] == [0] * 4
    assert cadence.update(run=14, measure="start-to-finish") == \
        "start-to-finish: 09:00, 09:29, 09:58, 10:27 \u2014 drifts 14 min later each cycle"
    assert [b.get_x() for b in cadence.view.bars["finish"]] == hhmm("09:00", "09:29", "09:58", "10:27")
    assert [b.get_x() for b in cadence.view.bars["schedule"]] == hhmm("09:00", "09:15", "09:30", "09:45")
    assert [b.get_width() for b in cadence.view.bars["finish"]] == [14 * MIN] * 4


def test_a_move_changes_the_picture_and_a_refused_one_does_not(cadence):
    cadence.update(run=4, measure="both")
    before = cadence.png()
    cadence.update(run=10)
    moved = cadence.png()
    assert moved != before
    with pytest.raises(InputError):
        cadence.update(run=10, measure="finish")
    assert cadence.values == {"run": 10, "measure": "both"} and cadence.png() == moved
    cadence.update(run=4)
    assert cadence.png() == before


def test_cadence_panel_moves_the_figure():
    fig = catalogue.figure("03 start-to-start")
    p = fig.panel()
    assert p.widgets["run"].description == "run (min)"
    p.widgets["run"].value = 14
    assert fig.values["run"] == 14
    assert "10:27" in p.readout.value and 'id="cadence-verdict"' in p.readout.value
    p.widgets["measure"].value = "start-to-start"
    shown = p.readout.value.split(">", 1)[1]   # the readout's text (its alt text still names the greyed lane)
    assert "10:27" not in shown and "holds at :00, :15, :30, :45" in shown
    assert fig.live.image.value[:4] == b"\x89PNG"


# -- the slip over a day ------------------------------------------------------------------

def test_slip_lines_follow_the_frame(slip):
    slip.update(tick=1000)
    release = [20 * n for n in range(1, 97)]
    assert list(slip.view.lines["release"].get_ydata()) == release
    assert list(slip.view.lines["release"].get_xdata()) == list(range(1, 97))
    assert slip.view.ends["finish"].get_text() == "finish: run's end + 15 min\nrun 96: 6 h 20 min 1.92 s late"
    # labelled at its end, lifted clear of the schedule line's label that ends just below it
    assert slip.view.ends["schedule"].get_position() == (97.5, 920)
    x, y = slip.view.ends["release"].get_position()
    assert x == 97.5 and 1920 < y < 13_000      # 11 CSS px labels lift it a little past 10 s
    assert slip.view._title.get_text().startswith("EchoMQ's pump wakes every 1 s (its tick),")


#: words 03 defines only below the slip figure (re-arm, sweep) or that a title need not use
LATER_WORDS = ("re-arm", "sweep", "latency", "score", "enqueue")


def test_slip_title_uses_only_words_defined_above_it():
    """The slip figure's title speaks the page's words so far (pump, tick), at every stop: it
    said "re-armed a tick after each sweep ... enqueue latency", terms the page defines after the
    figure or not in plain words, then "an enqueue takes 20 ms", jargon to a first-time reader
    (issue 30)."""
    from emqsim.figures import catalogue

    model = catalogue.model("03 slip over cycles")
    every, _ = model.reachable()
    titles = {model.frame(**values).title for values in every}
    assert len(titles) == len(every) > 1
    for title in titles:
        assert not [w for w in LATER_WORDS if w in title.lower()], title


def test_slip_axes(slip):
    top = 3 * int(slip.model.slips("finish", 1000).max())
    assert slip.view.ax.get_ylim() == (0.6, top)
    assert slip.view.ax.get_xlim() == (0, 97)
    assert slip.view.ax.get_xlabel() == "run number (every 15 min, from 09:00)"
    assert slip.view.ax.get_ylabel() == "how late each run is released"


def test_slip_move_changes_the_picture(slip):
    slip.update(tick=1000)
    before = slip.png()
    assert slip.update(tick=0).startswith("by run 96, pump tick 0 (woken at the score): schedule +20 ms (flat)")
    assert list(slip.view.lines["schedule"].get_ydata()) == [20] * 96
    assert slip.png() != before
    with pytest.raises(InputError):
        slip.update(tick=700)
    assert slip.values == {"tick": 0}


def test_a_short_day_lays_out_its_own_axis():
    fig = catalogue.figure("03 slip over cycles", lesson.SlipModel(cycles=8))
    assert fig.view.ax.get_xlim() == (0, 9)
    x, y = fig.view.ends["release"].get_position()
    assert x == 9.5 and y >= 160


def test_slip_panel_moves_the_figure():
    fig = catalogue.figure("03 slip over cycles", lesson.SlipModel(cycles=8))
    p = fig.panel()
    assert p.widgets["tick"].description == "pump tick"
    assert [label for label, _ in p.widgets["tick"].options][:4] == ["0 s", "250 ms", "500 ms", "1 s"]
    p.widgets["tick"].value = 0
    assert p.readout.value.startswith('<pre id="slip-readout"')
    assert fig.frame.readout == (
        "by run 8, pump tick 0 (woken at the score): schedule +20 ms (flat) \u00b7 release +160 ms (+20 ms a run)"
        " \u00b7 finish +28 min 0.16 s (+4 min 0.02 s a run)")
    assert "+160 ms" in p.readout.value


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_no_text_stands_on_the_y_axis(layout):
    """Issue 30: on a phone the y axis ran through "15 min from the start". At every slider
    position, in both layouts, no text's box reaches across the y axis' spine (with its width)
    or onto the ticks at its left: the lane names end left of them, the rest starts right."""
    from tests.figure_walk import drawn_texts, every_frame

    title = "03 start-to-start"
    crossed = []
    for values, v, renderer in every_frame(title, layout):
        ax = v.ax
        f = ax.figure
        spine = ax.spines["left"]
        half = spine.get_linewidth() / 2 * f.dpi / 72
        tick = ax.yaxis.get_major_ticks()[0].tick1line.get_markersize() * f.dpi / 72
        x = ax.bbox.x0
        for t in drawn_texts(f):
            b = t.get_window_extent(renderer)
            if b.x0 < x + half and x - half - tick < b.x1 and b.y0 < ax.bbox.y1 and ax.bbox.y0 < b.y1:
                crossed.append((t.get_text(), values))
    assert crossed == []


#: what each slip line's end says the next run is counted from, in words (issue 30: the pink
#: line's "release: release + 15 min" repeated itself to a first-time reader)
SLIP_RULE_WORDS = {"schedule": "slot + 15 min", "release": "15 min after the last", "finish": "run's end + 15 min"}


def test_slip_line_ends_say_in_words_what_they_show():
    """A line's end said "finish: finish + every" over "+6 h 20 min 1.92 s" (issue 30): a first-time
    reader could not tell a formula's name from a number's meaning. At every stop each end names its
    rule, what the next run is counted from (the release rule in plain words: each run released 15
    min after the last, where "release: release + 15 min" repeated itself), and how late the last
    run is, with the word "late"; on a phone too, where it breaks over lines no wider than the
    margin holds, in as many lines as before (the rule, its words, the lateness)."""
    for layout in ("normal", "narrow"):
        fig = catalogue.figure("03 slip over cycles", layout=layout)
        for values in fig.model.reachable()[0]:
            fig.update(**values)
            for rule, end in fig.view.ends.items():
                text = " ".join(end.get_text().split())
                words = SLIP_RULE_WORDS[rule]
                assert re.fullmatch(rf"{rule}: {re.escape(words)} run 96: \d[\w .]* late", text), text
                assert len(re.findall(rf"\b{rule}\b", text)) == 1, text
                if layout == "narrow":
                    assert end.get_text().splitlines()[1] == words, end.get_text()
                assert "every" not in text and not re.search(r"(?m)^\+", end.get_text()), text
                if layout == "narrow":
                    assert max(map(len, end.get_text().splitlines())) <= 22, end.get_text()
