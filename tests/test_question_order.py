"""The right answer does not give itself away by where it stands (issue 30, "better asking"):
authors write it first, and until `Question.shown` every question on every page showed it first,
so a reader could answer all of them without reading one. Held on the models, for every
question the catalogue's figures ask, where Lab, Voila and the site all read their order."""

from __future__ import annotations

from collections import Counter

import pytest
from figure_walk import model

from emqsim.figures import catalogue
from emqsim.lessons.questions import question


def every_question():
    for title in catalogue.SOURCES:
        m = model(title)
        for q in m.questions:
            yield m, q


def test_no_one_place_holds_more_than_half_the_right_answers():
    places = [[o.key for o in q.shown()].index(q.right(m)) for m, q in every_question()]
    assert len(places) >= 20
    place, most = Counter(places).most_common(1)[0]
    assert 2 * most <= len(places), f"{most} of {len(places)} right answers stand at place {place}: {places}"


@pytest.mark.parametrize("q", [q for _, q in every_question()], ids=lambda q: q.id)
def test_a_question_shows_each_of_its_options_once(q):
    assert sorted(o.key for o in q.shown()) == sorted(q.keys())


def test_the_order_is_the_questions_own_and_the_same_every_run():
    """A digest of id and key, not Python's salted hash(): the site built today and the notebook
    run tomorrow show one order. The exact order here is this project's digest, computed once."""
    opts = [("a", "A", "why a"), ("b", "B", "why b"), ("c", "C", "why c")]
    one = question("order-check", "?", opts, lambda f: "a")
    other = question("order-check-2", "?", opts, lambda f: "a")
    assert [o.key for o in one.shown()] == [o.key for o in question("order-check", "?", opts[::-1],
                                                                          lambda f: "a").shown()]
    assert [o.key for o in one.shown()] == ["b", "a", "c"]
    assert [o.key for o in other.shown()] == ["a", "b", "c"]
