"""A question's answer is predicted from the idea, not read off a number the readout prints beside
the slider under the same name: 02 asked "after 50 fires, how many jobs?" where the readout said
"jobs 50" at the Show me position (issue 30)."""

from __future__ import annotations

import re

import pytest
from figure_walk import model

from emqsim.figures import catalogue


def asked():
    return [(t, q) for t in catalogue.SOURCES for q in catalogue.model(t).questions]


def printed(key: str, readout: str) -> bool:
    """Does the readout print a key such as "50 jobs" as "jobs 50" or "50 jobs"?"""
    m = re.fullmatch(r"(\d+) ([a-z]+?)s?", key)
    if not m:
        return False
    n, noun = m[1], m[2]
    return re.search(rf"\b{noun}s?:? {n}\b|\b{n} {noun}s?\b", readout) is not None


def test_a_printed_count_is_found():
    assert printed("50 jobs", "after 50 fires · ZCARD 1 · jobs 50 · row reports -> 21:30")
    assert not printed("50 jobs", "after 100 fires · ZCARD 1 · jobs 100 · row reports -> 10:00")
    assert not printed("2", "2 skipped")


@pytest.mark.parametrize("title,q", asked(), ids=[q.id for _, q in asked()])
def test_the_readout_at_show_me_does_not_print_the_answer_by_its_name(title, q):
    m = model(title)
    right = q.right(m)
    assert not printed(right, q.frame(m).readout), f"{q.id}: the readout prints {right!r}"
