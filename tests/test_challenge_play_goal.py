"""A notebook's panel (ipywidgets, no browser; h71r): a "met" challenge line left up while Play ran
read met at frames that are not. Play started, the line is the plain goal; it is judged again where
Play stops, as on the static site."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from figure_walk import model as shared_model  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402

TITLE = "02 watch a job move"


def strip():
    fig = catalogue.figure(TITLE, shared_model(TITLE))
    panel = fig.panel()
    return fig, panel.players["step"].play, panel.widgets["step"], panel.ask


def test_play_started_on_the_met_step_shows_the_goal_until_it_stops():
    fig, play, slider, ask = strip()
    goal = ask.line.value
    assert 'data-met="0"' in goal and "Challenge: " in goal
    slider.index = 5        # met by hand
    met = ask.line.value
    assert 'data-met="1"' in met and "\u2713 Challenge met: " in met
    play.playing = True     # pressed there: the goal at once
    assert ask.line.value == goal
    for k in (6, 7):        # Play's ticks past the moment
        slider.index = play.value = k
        assert ask.line.value == goal
    play.playing = False    # paused at 7: judged there, not met
    assert ask.line.value == goal
    slider.index = 5        # back by hand: met again
    assert ask.line.value == met


def test_play_paused_where_it_started_on_the_met_step_ticks_again():
    fig, play, slider, ask = strip()
    slider.index = 5
    met = ask.line.value
    play.playing = True
    assert 'data-met="0"' in ask.line.value
    play.playing = False    # paused before its first tick: the reader stopped on the moment
    assert ask.line.value == met
    assert ask.on_figure(fig) is True
