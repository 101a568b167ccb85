"""A live figure's questions and challenge as widgets: pick, Check, read why, Show me; a goal that ticks.

The questions and the challenge are declared on the figure's lesson model
(`emqsim.lessons.questions`); this module only lays them out around the panel, questions
above the figure and the challenge under it. Each question is a row of radio buttons (arrow
keys move between them), a Check button, a Show me button that sets the figure's controls
to the question's `show_me`, the others to their defaults (the panel's widgets follow, as
after any `fig.update`), and a
feedback line worded by `feedback`, so it says what the static site says. The challenge line
is checked against the figure's frame after every move and ticks itself when the frame
meets it, except while Play runs: a goal is met where the reader stops (pauses Play, or Play
reaches its end, or a control is moved by hand), not at a frame Play shows on its way past
(issue 30: on 02's watch strip, pressing Play alone met "find the moment ..." at step 5 of 9).
Play started, the line says the plain goal again: a tick left up while Play ran read met at
frames that are not (h71r).

Nothing is picked when the panel is made and the feedback is empty, so a notebook's stored
widget state is the same on every run. The right answer is computed only when Check is
pressed (a question's `show_me` frame may take the engine a moment).
"""

from __future__ import annotations

from ..lessons.questions import PICK_FIRST, as_html, challenge_line, feedback
from .style import answer_colour

#: CSS classes a browser test finds the parts by
QUESTION_CLASS = "emqsim-question"
CHECK_CLASS = "emqsim-check"
SHOW_CLASS = "emqsim-show-me"
FEEDBACK_CLASS = "emqsim-feedback"
CHALLENGE_CLASS = "emqsim-challenge"
#: the widgets' HTML is set a line a widget high (28 px); sentences read better closer
LINE = "line-height:1.4;padding:0.2em 0"


def _feedback_html(text: str, right: bool | None) -> str:
    """The feedback line; `role="status"` so a screen reader says it when it changes."""
    if not text:
        return '<div role="status" aria-live="polite"></div>'
    mark = "\u2713 " if right else "\u2717 " if right is False else ""
    colour = answer_colour("right" if right else "wrong" if right is False else "plain")
    return f'<div role="status" aria-live="polite" style="color:{colour};{LINE}">{mark}{as_html(text)}</div>'


def challenge_html(challenge, met: bool) -> str:
    """The challenge line under the figure: the goal, then a tick and the explanation once met."""
    style = f"color:{answer_colour('right' if met else 'plain')};{LINE}"
    return (f'<div role="status" aria-live="polite" data-met="{int(met)}" style="{style}">'
            f'{as_html(challenge_line(challenge, met))}</div>')


class QuestionBox:
    """One question's widgets, wired to `figure` (a `emqsim.figures.view.Figure`)."""

    def __init__(self, figure, q, number: int):
        import ipywidgets as w

        self.figure, self.q = figure, q
        self.prompt = w.HTML(f'<div style="{LINE}"><b>Question {number}.</b> {as_html(q.prompt)}</div>')
        self.choices = w.RadioButtons(options=[(o.text.replace("`", ""), o.key) for o in q.shown()], value=None,
                                      layout=w.Layout(width="auto"))
        self.check_button = w.Button(description="Check", tooltip="Check your answer", layout=w.Layout(width="auto"))
        self.check_button.add_class(CHECK_CLASS)
        self.show_button = w.Button(description="Show me", tooltip="Move the figure to where it shows the answer",
                                    layout=w.Layout(width="auto"))
        self.show_button.add_class(SHOW_CLASS)
        self.feedback = w.HTML(_feedback_html("", None))
        self.feedback.add_class(FEEDBACK_CLASS)
        self.check_button.on_click(lambda _: self.check())
        self.show_button.on_click(lambda _: self.show_me())
        self.box = w.VBox([self.prompt, self.choices, w.HBox([self.check_button, self.show_button]), self.feedback])
        self.box.add_class(QUESTION_CLASS)

    def check(self) -> str:
        """Check the picked option: the feedback line says whether it is right, and why."""
        key = self.choices.value
        if key is None:
            self.feedback.value = _feedback_html(PICK_FIRST, None)
            return PICK_FIRST
        right = self.q.right(self.figure.model)
        text = feedback(self.q, key, right)
        self.feedback.value = _feedback_html(text, key == right)
        return text

    def show_me(self) -> str:
        """Move the figure to the question's `show_me` values, every other control at its default
        (the frame the answer is read from, and the one the static site moves to); returns the
        readout there."""
        return self.figure.update(**self.figure.model.values(None, **self.q.show_me))


class Ask:
    """The questions (`above`) and the challenge line (`below`) of one figure's panel; `plays`
    are the panel's Play widgets, whose `playing` holds the line still while it is true."""

    def __init__(self, figure, plays=()):
        import ipywidgets as w

        model = figure.model
        self.figure = figure
        self.plays = tuple(plays)
        self.questions = [QuestionBox(figure, q, n) for n, q in enumerate(model.questions, 1)]
        self.challenge = model.challenge
        self.line = None
        self._met: bool | None = None
        if self.challenge is not None:
            self.line = w.HTML()
            self.line.add_class(CHALLENGE_CLASS)
            self.on_figure(figure)
            figure.watch(self.on_figure)
            for p in self.plays:
                p.observe(self.on_playing, names="playing")

    @property
    def above(self) -> list:
        return [q.box for q in self.questions]

    @property
    def below(self) -> list:
        return [] if self.line is None else [self.line]

    def playing(self) -> bool:
        """Whether one of the panel's Play buttons is running."""
        return any(p.playing for p in self.plays)

    def on_figure(self, figure) -> bool:
        """The figure moved: tick the challenge if its frame meets it (the line changes only then).
        While Play runs the line stays as it is (returns what it says): Play stopping judges it."""
        if self.playing():
            return bool(self._met)
        met = self.challenge.check(figure.frame)
        if met != self._met:
            self._met = met
            self.line.value = challenge_html(self.challenge, met)
        return met

    def on_playing(self, change) -> bool | None:
        """A Play button started or stopped: started, the line is the plain goal until Play stops;
        stopped, it is judged at the frame shown (no challenge is met at the last one, so Play run
        to its end alone meets none)."""
        if change["new"]:
            if self._met:
                self._met = False
                self.line.value = challenge_html(self.challenge, False)
            return None
        if self.playing():
            return None
        return self.on_figure(self.figure)


def ask(figure, plays=()) -> Ask:
    """The questions and challenge of `figure`'s model as widgets (see `Ask`); `plays`, the
    panel's Play widgets."""
    return Ask(figure, plays)
