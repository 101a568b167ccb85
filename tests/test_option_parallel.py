"""No option's wording points at the right one (issue 30, a first-time reader's read of the site):
01's two questions and 03's first were answered without the figure, from the options alone. The
right option was longer than the wrong ones, or alone repeated a word of the question (08:00,
the registration time, in "counted on from 08:00"). Held here for every question the figures ask.

Two cues a reader uses when unsure, each measured on the model's own options:
- length: the right option is at most 30% longer than the wrong ones on average;
- echo: every word of the question the right option repeats, a wrong option repeats too.

A third, from a later read (issue 30, h65r): 03's options showed their working ("09:54, 3 × 18 min
after 09:00"), and the one whose sum used the stem's own formula was the right one. So
- working: no option carries arithmetic (×, +, "plus", "times"); its sentence after Check does.

A fourth, from h67r and h68r (issue 30): 03's options then read "09:54, three runs late", "09:57,
four runs late", and a question about the fourth run pointed at the option that counted three. So
- counting: the right option does not count runs, cycles or gaps ("three runs late"); its
  sentence after Check does. A wrong one may: "six gaps after 09:15" is the slip it names.
"""

from __future__ import annotations

import re

import pytest
from figure_walk import model

from emqsim.figures import catalogue

#: words too common to be a cue
COMMON = set("a an the of to and or is it its at on in by for as with that this be are was what when how "
             "many does do which from one two".split())

#: how much longer than the wrong options' mean length the right option may be
LONGER = 1.3
#: an option that shows its working: a product or a sum
WORKING = re.compile(r"[×+]|\bplus\b|\btimes\b|\d\s*x\s*\d", re.I)
#: an option that counts the runs or cycles between the start and the answer
COUNTING = re.compile(r"\b(no|one|two|three|four|five|six|\d+) (runs?|cycles?|gaps?)\b", re.I)


def words(text: str) -> set[str]:
    """The words and numbers a reader would match by eye: lower case, `code` unwrapped, a plural's s off."""
    found = re.findall(r"\d\d:\d\d|\d+|[a-z]+", text.lower().replace("`", "").replace("'s", ""))
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in found if w not in COMMON}


def cues(m, q) -> list[str]:
    right = q.option(q.right(m))
    wrong = [o for o in q.options if o is not right]
    out = []
    mean = sum(len(o.text) for o in wrong) / len(wrong)
    if len(right.text) > LONGER * mean:
        out.append(f"the right option is {len(right.text)} characters, the wrong ones {mean:.1f} on average")
    asked = words(q.prompt)
    alone = (words(right.text) & asked) - set().union(*(words(o.text) for o in wrong))
    if alone:
        out.append(f"only the right option repeats {sorted(alone)} of the question")
    out += [f"an option shows its working: {o.text!r}" for o in q.options if WORKING.search(o.text)]
    if COUNTING.search(right.text):
        out.append(f"the right option counts runs: {right.text!r}")
    return out


def every_question():
    return [(t, q) for t in catalogue.SOURCES for q in catalogue.model(t).questions]


@pytest.mark.parametrize("title,q", every_question(), ids=[q.id for _, q in every_question()])
def test_no_option_stands_out_by_its_wording(title, q):
    found = cues(model(title), q)
    assert not found, f"{q.id}: {'; '.join(found)}"


def test_the_cues_catch_what_the_reader_saw():
    """The two cues on the options 01 had before (issue 30): each is caught."""
    from emqsim.lessons.questions import question

    stem = "It is 09:16 and the rule is the interval (every 15 min, registered at 08:00). When is the next run?"
    echo = question("echo", stem, [("a", "09:30, counted on from 08:00", ""), ("b", "09:31, a gap after now", ""),
                                   ("c", "09:00 tomorrow, as 09:00 is gone", "")], lambda f: "a")
    long = question("long", "It is 09:01. When is the next run?",
                    [("a", "09:00 tomorrow, the only time it names", ""), ("b", "09:16, 15 minutes on", ""),
                     ("c", "09:01, at once", "")], lambda f: "a")

    class Any:
        def frame(self, **_):
            return None

    assert cues(Any(), echo) == ["only the right option repeats ['08:00'] of the question"]
    working = question("working", "Under start-to-finish, when does the fourth run start?",
                       [("a", "09:54, 3 × 18 min after 09:00", ""), ("b", "09:45, 09:30 plus 15 minutes", ""),
                        ("c", "09:48, one run late, not three", "")], lambda f: "a")
    assert cues(Any(), working) == ["an option shows its working: '09:54, 3 × 18 min after 09:00'",
                                    "an option shows its working: '09:45, 09:30 plus 15 minutes'"]
    counting = question("counting", "Under start-to-finish, when does the fourth run start?",
                        [("a", "09:54, three runs late", ""), ("b", "09:45, no run late", ""),
                         ("c", "09:57, four runs late", "")], lambda f: "a")
    assert cues(Any(), counting) == ["the right option counts runs: '09:54, three runs late'"]
    assert cues(Any(), long) == ["the right option is 38 characters, the wrong ones 17.0 on average"]
