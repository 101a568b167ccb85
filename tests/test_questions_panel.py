"""The questions and the challenge in a figure's notebook panel (ipywidgets, no browser): they sit
above and under the figure, start the same on every run, Check says right or wrong in the
model's words, Show me moves the figure to the frame the answer is read from, and the
challenge line ticks as soon as a move meets it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from figure_walk import model as shared_model  # noqa: E402

from emqsim.figures import ask as ask_mod  # noqa: E402
from emqsim.figures import catalogue  # noqa: E402
from emqsim.lessons.questions import PICK_FIRST, feedback  # noqa: E402

TITLES = list(catalogue.SOURCES)


def first_met(model):
    """The first value set the static site renders that meets the model's challenge."""
    values, _ = model.reachable()
    return next(v for v in values if model.challenge.check(model.frame(**v)))


@pytest.mark.parametrize("title", TITLES)
def test_the_panel_asks_above_the_figure_and_sets_its_goal_under_it(title):
    fig = catalogue.figure(title)
    panel = fig.panel()
    model = fig.model
    a = panel.ask
    children = list(panel.box.children)
    assert children[:len(model.questions)] == [q.box for q in a.questions]
    assert children[-3:] == [fig.live.image, a.line, panel.readout]   # the readout under the goal
    # nothing picked, nothing said: the state a notebook stores is the same on every run
    for box in a.questions:
        assert box.choices.value is None and box.choices.index is None
        assert box.feedback.value == '<div role="status" aria-live="polite"></div>'
        assert [k for _, k in box.choices.options] == [o.key for o in box.q.shown()]
        assert "emqsim-check" in box.check_button._dom_classes and "emqsim-show-me" in box.show_button._dom_classes
    again = catalogue.figure(title).panel().ask
    assert [b.prompt.value for b in again.questions] == [b.prompt.value for b in a.questions]
    assert again.line.value == a.line.value
    assert 'data-met="0"' in a.line.value and "Challenge: " in a.line.value


@pytest.mark.parametrize("title", TITLES)
def test_check_show_me_and_the_tick(title):
    fig = catalogue.figure(title, shared_model(title))   # its frames computed once per process
    panel = fig.panel()
    model = fig.model
    for box in panel.ask.questions:
        q = box.q
        assert box.check() == PICK_FIRST and PICK_FIRST in box.feedback.value
        right = q.right(model)
        wrong = next(k for k in q.keys() if k != right)
        box.choices.value = wrong
        assert box.check() == feedback(q, wrong, right) and box.check().startswith("Not quite. ")
        assert "\u2717 Not quite." in box.feedback.value
        box.choices.value = right
        assert box.check().startswith("Right. ") and "\u2713 Right." in box.feedback.value
        readout = box.show_me()
        assert fig.values == model.values(None, **q.show_me)
        assert readout == q.frame(model).readout == fig.frame.readout
        assert all(panel.widgets[c.name].value == fig.values[c.name] for c in model.controls)
    fig.update(**model.defaults())
    assert 'data-met="0"' in panel.ask.line.value
    fig.update(**first_met(model))
    assert 'data-met="1"' in panel.ask.line.value and "\u2713 Challenge met:" in panel.ask.line.value
    assert model.challenge.explain.split()[-1].replace("`", "") in panel.ask.line.value
    fig.update(**model.defaults())
    assert 'data-met="0"' in panel.ask.line.value


def test_show_me_puts_the_other_controls_back_at_their_defaults():
    fig = catalogue.figure("01 cron vs interval")
    panel = fig.panel()
    fig.update(expr="30 8 * * *")
    box = panel.ask.questions[1]                # read with the default cron, 0 9 * * *
    assert set(box.q.show_me) == {"now", "mode"}
    box.show_me()
    assert fig.values["expr"] == "0 9 * * *" and panel.widgets["expr"].value == "0 9 * * *"
    assert fig.frame.readout == box.q.frame(fig.model).readout


def test_a_figure_without_questions_gets_none():
    from emqsim.figures.view import Figure
    from test_site import ToyModel, ToyView

    a = ask_mod.ask(Figure(ToyModel(), ToyView()))
    assert a.above == [] and a.below == []
