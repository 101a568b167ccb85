"""The lesson-model framework: declared controls, checked values, cached frames, the value sets
the static site renders, and the generic panel built from the declarations."""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from emqsim import InputError  # noqa: E402
from emqsim.figures import catalogue  # noqa: E402
from emqsim.figures.controls import Panel  # noqa: E402
from emqsim.figures.view import Figure, View  # noqa: E402
from emqsim.lessons import model as lessons_model  # noqa: E402
from emqsim.lessons.model import Model, Play, choice, slider, text  # noqa: E402
from emqsim.site import player  # noqa: E402


@dataclass(frozen=True)
class ToyFrame:
    x: int
    mode: str
    day: str
    expr: str
    readout: str


class Toy(Model):
    readout_id = "toy-readout"
    controls = (
        slider("x", range(10), 3, fmt=lambda v: f"{v} min", play=Play(step=2)),
        choice("mode", ["a", "b"]),
        choice("day", [], depends=lambda x, mode: [(f"{mode}{i}", f"{mode}{i}") for i in range(3)]),
        text("expr", "0 9 * * *", ["*/5 * * * *"]),
    )

    def __init__(self):
        super().__init__()
        self.computed = 0

    def compute(self, **v):
        self.computed += 1
        return ToyFrame(**v, readout=f"x={v['x']} {v['mode']} {v['day']} {v['expr']}")


class ToyView(View):
    width, height = 3.0, 2.0

    def __init__(self, ax=None):
        super().__init__(ax)
        self.line, = self.ax.plot([], [])
        self.ax.set_xlim(0, 10)
        self.track(self.line)

    def draw(self, frame):
        self.line.set_data([0, frame.x], [0, 1])


def test_defaults_fill_every_control_and_a_dependent_choice_gets_its_first_position():
    assert Toy().defaults() == {"x": 3, "mode": "a", "day": "a0", "expr": "0 9 * * *"}


def test_frames_are_computed_once_and_cached():
    m = Toy()
    assert m.computed == 0            # building a model computes nothing
    first = m.frame(x=5)
    assert m.frame(x=5) is first and m.computed == 1
    assert m.frame(x=5, mode="b").day == "b0" and m.computed == 2


@pytest.mark.parametrize("bad, message", [
    ({"x": 11}, "x 11 is refused; give one of the 10 positions from 0 (0 min) to 9 (9 min)"),
    ({"x": 3.0}, "x 3.0 is refused; give one of the 10 positions from 0 (0 min) to 9 (9 min)"),
    ({"x": True}, "x True is refused; give one of the 10 positions from 0 (0 min) to 9 (9 min)"),
    ({"mode": "c"}, "mode 'c' is refused; give one of 'a', 'b'"),
    ({"day": "b1"}, "day 'b1' is refused; give one of 'a0', 'a1', 'a2'"),
    ({"expr": 5}, "expr 5 is not text; e.g. '0 9 * * *'"),
    ({"speed": 1}, "no control 'speed'; this figure has ['x', 'mode', 'day', 'expr']"),
])
def test_a_bad_value_is_one_error_naming_it_and_what_is_accepted(bad, message):
    with pytest.raises(InputError) as info:
        Toy().frame(**bad)
    assert str(info.value) == message


def test_reachable_walks_every_position_and_holds_the_largest_control_when_too_many():
    m = Toy()
    combos, held = m.reachable()
    assert held == [] and len(combos) == 10 * 2 * 3 * 2
    assert {"x": 9, "mode": "b", "day": "b2", "expr": "*/5 * * * *"} in combos
    combos, held = m.reachable(limit=40)
    assert held == ["day"] and len(combos) == 10 * 2 * 2   # day held at its first position
    assert all(c["day"] == c["mode"] + "0" for c in combos)
    combos, held = m.reachable(limit=10)
    assert sorted(held) == ["day", "expr", "mode"] and [c["x"] for c in combos] == list(range(10))


def test_a_figure_keeps_its_state_when_a_value_is_refused():
    fig = Figure(Toy(), ToyView())
    assert fig.update(x=7) == "x=7 a a0 0 9 * * *"
    png = fig.png()
    with pytest.raises(InputError):
        fig.update(mode="b", x=99)      # a good value beside a bad one is not kept either
    assert fig.values["mode"] == "a" and fig.frame.x == 7 and fig.png() == png
    assert fig.update(mode="b") == "x=7 b b0 0 9 * * *"
    assert fig.png() != fig.update(x=1) and fig.png() != png


def test_the_panel_is_built_from_the_declarations_and_moves_the_figure():
    import ipywidgets as w

    fig = Figure(Toy(), ToyView())
    panel = Panel(fig)
    assert isinstance(panel.widgets["x"], w.SelectionSlider) and panel.widgets["x"].label == "3 min"
    assert isinstance(panel.widgets["mode"], w.ToggleButtons)
    assert isinstance(panel.widgets["expr"], w.Text)
    assert panel.players["x"].play.step == 2
    assert 'id="toy-readout"' in panel.readout.value
    image = fig.live.image.value
    panel.widgets["x"].value = 8
    assert "x=8 a a0" in panel.readout.value and fig.live.image.value != image
    panel.widgets["mode"].value = "b"   # the dependent day list follows
    assert [v for _, v in panel.widgets["day"].options] == ["b0", "b1", "b2"]
    assert panel.widgets["day"].value == "b0" and "x=8 b b0" in panel.readout.value
    panel.widgets["expr"].value = "  */5 * * * *  "
    assert fig.values["expr"] == "*/5 * * * *"


def test_a_cell_that_updates_the_figure_moves_the_panel_too():
    """After the panel cell, a notebook cell prints fig.update(...): the widgets must show those
    values, or the next drag would combine what the widgets show with what the cell set."""
    fig = Figure(Toy(), ToyView())
    panel = Panel(fig)
    fig.update(x=9, mode="b")
    assert panel.widgets["x"].value == 9 and panel.widgets["mode"].value == "b"
    assert [v for _, v in panel.widgets["day"].options] == ["b0", "b1", "b2"]
    assert "x=9 b b0" in panel.readout.value
    panel.widgets["x"].value = 2          # the next drag keeps the cell's mode
    assert fig.values == {"x": 2, "mode": "b", "day": "b0", "expr": "0 9 * * *"}
    assert "x=2 b b0" in panel.readout.value


#: a Play pass, first position to last at the default speed, in real ms at most: a first-time
#: reader sees the whole idea in one pass (02's first figure took 46 s, 154 ticks of 300 ms)
PASS_MS = 20_000
#: the figures with Play
PLAYED = [t for t in catalogue.SOURCES if any(c.play for c in catalogue.model(t).controls)]


def _pass_ms(count: int, step: int, interval: int) -> int:
    """A pass's real ms: its ticks (positions after the first, `step` a tick) times `interval`."""
    return -(-(count - 1) // step) * interval


@pytest.mark.parametrize("title", PLAYED)
def test_a_play_pass_takes_20_s_at_most_on_the_site_and_in_lab(title):
    """The site's player walks the positions its frames give the slider with the controls before it
    set (02's keys: one design's calls); Lab's Play the positions its slider offers: both at one
    interval per tick (Play.tick), a pass at the default speed within PASS_MS at every setting, and
    each tick at least the floor that keeps its frame seen."""
    model = catalogue.model(title)
    sets, _ = model.reachable()
    fig = catalogue.figure(title)
    panel = Panel(fig)
    floor = lessons_model.TICK_FLOOR_MS
    for k, c in enumerate(model.controls):
        if c.play is None:
            continue
        before = [b.name for b in model.controls[:k]]
        offered: dict = {}
        for values in sets:
            offered.setdefault(tuple(repr(values[n]) for n in before), {})[repr(values[c.name])] = values
        walked = max(map(len, offered.values()))
        site = player._play(c, len({repr(values[c.name]) for values in sets}), walked)
        if c.play.pass_ms is None:        # a script call a tick: paced for reading, not for the pass
            assert (site["interval"], panel.players[c.name].play.interval) == (c.play.interval,) * 2, title
            continue
        assert _pass_ms(walked, site["step"], site["interval"]) <= PASS_MS, (title, walked, site)
        assert floor <= site["interval"] <= c.play.interval, (title, site)
        for setting in offered.values():
            fig.update(**{n: next(iter(setting.values()))[n] for n in before})
            lab = panel.players[c.name].play
            assert _pass_ms(lab.max - lab.min + 1, lab.step, lab.interval) <= PASS_MS, (title, lab.max, lab.interval)
            assert floor <= lab.interval <= c.play.interval, (title, lab.interval)


def test_02_s_first_figure_plays_through_in_20_s():
    """155 positions at 300 ms a tick took 46 s: each tick is now 129 ms, the pass 19.9 s."""
    c = catalogue.model("02 one row rewritten").controls[0]
    assert (player._play(c, 155)["interval"], _pass_ms(155, 1, 129)) == (129, 19_866)
    keys = catalogue.model("02 the keys, step by step").controls[1]     # a call a tick: read, not capped
    assert (keys.play.interval, player._play(keys, 56, 20)["interval"]) == (2000, 2000)


def test_a_script_call_a_tick_is_paced_for_reading():
    """03's marker walk, 56 calls, went to 363 ms a call under the 20 s pass, and at its old 900 ms
    a reader could not read a listing before the next: figures whose ticks are script calls
    take 2 s a call, however many calls."""
    marker = catalogue.model("03 the marker, step by step").controls[1]
    assert (marker.play.pass_ms, player._play(marker, 56)["interval"]) == (None, 2000)


def test_every_play_speed_is_said_per_step():
    """A Play's speed label names what one step moves, "per step" on every figure: the step
    figures said "calls per tick", and a tick is the glossary's word for the pump's wait (h63r)."""
    from emqsim.figures import catalogue

    labels = {title: [c.play.label for c in catalogue.model(title).controls if c.play is not None]
              for title in catalogue.SOURCES}
    assert {t: ls for t, ls in labels.items() if any(not l.endswith(" per step") for l in ls)} == {}
