"""Questions and challenges of a lesson's figure: the reader commits to a guess, the engine answers.

A `Question` belongs to the model of the figure it is about. It holds a prompt, the options
a reader picks from (the right answer and the wrong ones people really give, each with one
sentence on why), and `answer`: a function of a frame that returns the key of the right
option. The key is never typed: `right(model)` asks the model for the frame at `show_me`
(the control values that make the figure show the answer) and reads it off that frame, so
the answer follows the engine, and a frame whose key no option holds is an error.

A `Challenge` is a goal in one sentence, a predicate on a frame (`met`) and the explanation
shown once a frame meets it. The notebook's panel checks it on every move; the static site
checks it at build time for every frame it renders.

Both places word the feedback with `feedback` and the challenge line with `challenge_line`,
so a reader sees the same sentences in JupyterLab, in Voila and on the site.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine.errors import InputError


@dataclass(frozen=True)
class Option:
    """One answer a reader can pick: `key` is what `Question.answer` returns for it."""

    key: str
    text: str
    why: str


@dataclass(frozen=True)
class Question:
    """A prompt, its options, and how to read the right option's key off a frame."""

    id: str
    prompt: str
    options: tuple[Option, ...]
    answer: Callable[[object], str] = field(compare=False, repr=False)
    show_me: dict = field(default_factory=dict, compare=False)

    def keys(self) -> tuple[str, ...]:
        return tuple(o.key for o in self.options)

    def shown(self) -> tuple[Option, ...]:
        """The options in the order a reader sees them. Authors write the right answer first; shown
        so, it is a pattern a reader learns instead of the rule. The order is a digest of the
        question's id and each key: the same in Lab, in Voila and on the site, run after run."""
        return tuple(sorted(self.options, key=lambda o: hashlib.sha256(f"{self.id}:{o.key}".encode()).digest()))

    def option(self, key: str) -> Option:
        for o in self.options:
            if o.key == key:
                return o
        raise InputError(f"question {self.id!r} has no option {key!r}; its options are {list(self.keys())}",
                         "option")

    def frame(self, model):
        """The frame that shows the answer: the model at `show_me` (the other controls at their defaults)."""
        return model.frame(**self.show_me)

    def right(self, model) -> str:
        """The right option's key, read by `answer` off the model's frame at `show_me`."""
        key = self.answer(self.frame(model))
        if key not in self.keys():
            raise ValueError(f"question {self.id!r}: the engine's answer {key!r} is none of its options "
                             f"{list(self.keys())}")
        return key


def question(id: str, prompt: str, options: Sequence[tuple[str, str, str]], answer: Callable[[object], str],
             show_me: dict | None = None) -> Question:
    """A `Question` from (key, text, why) triples; at least two options, no key twice."""
    opts = tuple(Option(*o) for o in options)
    keys = [o.key for o in opts]
    if len(opts) < 2 or len(set(keys)) != len(keys):
        raise InputError(f"question {id!r} needs two or more options with distinct keys, not {keys}", "options")
    return Question(id, prompt, opts, answer, dict(show_me or {}))


def feedback(q: Question, key: str, right: str) -> str:
    """What a reader reads after Check: whether `key` is right, and why (its option's sentence)."""
    return f"{'Right.' if key == right else 'Not quite.'} {q.option(key).why}"


#: what a panel says when Check is pressed with nothing picked
PICK_FIRST = "Pick an answer first."
#: a met challenge's words: its line's opening, and the site's mark under the controls
MET = "\u2713 Challenge met"


@dataclass(frozen=True)
class Challenge:
    """A goal, a predicate on a frame, and the explanation revealed once the figure meets it."""

    id: str
    goal: str
    met: Callable[[object], bool] = field(compare=False, repr=False)
    explain: str = ""

    def check(self, frame) -> bool:
        return bool(self.met(frame))


def challenge_line(c: Challenge, met: bool) -> str:
    """The challenge's line under the figure: the goal; once met, a tick and the explanation in
    its place. The goal is not said again: the reader has just read it, and said twice it made
    02, 03 and 07 read over 1,500 words a page (issue 30, h73r)."""
    if not met:
        return f"Challenge: {c.goal}"
    return f"{MET}: {c.explain}" if c.explain else f"{MET}."


def as_html(text: str) -> str:
    """A prompt, an option or a sentence as HTML: escaped, with `code` spans as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


__all__ = ["MET", "PICK_FIRST", "Challenge", "Option", "Question", "as_html", "challenge_line", "feedback", "question"]
