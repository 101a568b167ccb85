"""A challenge is met where the reader stops, in a notebook's panel (ipywidgets, no browser; issue 30,
item 10): while the panel's Play runs (its synced `playing` is true) the challenge line keeps its
words whatever frames Play shows; when Play stops the line is judged at the frame shown. On 02's
watch strip, whose only control is a step slider with Play, a line that ticked at each frame Play
showed was met by pressing Play alone (no goal is met where Play ends: test_challenge_positions)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

from figure_walk import model as shared_model  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402

TITLE = "02 watch a job move"


def strip():
    fig = catalogue.figure(TITLE, shared_model(TITLE))
    panel = fig.panel()
    return fig, panel, panel.players["step"].play, panel.widgets["step"], panel.ask.line


def test_the_strip_meets_its_challenge_at_step_5_only():
    model = shared_model(TITLE)
    assert [k for k in range(len(model.moments)) if model.challenge.check(model.frame(step=k))] == [5]
    assert len(model.moments) == 9


def test_play_passing_the_moment_leaves_the_line_and_stopping_there_ticks_it():
    fig, panel, play, slider, line = strip()
    goal = line.value
    assert 'data-met="0"' in goal and "Challenge: " in goal
    play.playing = True
    for k in range(1, 9):   # Play's ticks, as the slider's moves reach the kernel
        slider.index = play.value = k
        assert fig.values["step"] == slider.value and line.value == goal
    play.playing = False    # at its end (step 8): judged there, not met
    assert line.value == goal
    play.playing = True
    for k in range(0, 6):   # pressed again from the start: paused at step 5
        slider.index = play.value = k
        assert line.value == goal
    play.playing = False
    assert 'data-met="1"' in line.value and "\u2713 Challenge met: " in line.value
    slider.index = 6        # a step by hand off the moment: the goal again
    assert line.value == goal
    slider.index = 5        # and back onto it: met
    assert 'data-met="1"' in line.value


def test_a_cells_update_while_play_runs_waits_for_play_to_stop():
    fig, panel, play, slider, line = strip()
    goal = line.value
    play.playing = True
    fig.update(step=5)
    play.value = 5
    assert slider.index == 5 and line.value == goal
    play.playing = False
    assert 'data-met="1"' in line.value

