"""No overlapping or clipped text: every figure, at the positions the static site renders
(`model.reachable()`, evenly sampled to `SAMPLE` frames a figure: the walks are 6 to 242
positions long), in normal and presenter sizes; no two texts' boxes overlap and none leaves
the figure."""

from __future__ import annotations

import itertools

import pytest
from figure_walk import drawn_texts, positions, render

from emqsim.figures import catalogue

SAMPLE = 12
#: pixels two boxes may share (antialiasing), and a box may stand past the edge
SLACK = 1.0


def problems(fig, renderer) -> list[tuple]:
    """('clipped', text) for a text leaving the figure, ('overlap', a, b) for two that overlap."""
    bbox = fig.bbox
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in drawn_texts(fig)]
    out = []
    for text, b in boxes:
        if b.x0 < -SLACK or b.y0 < -SLACK or b.x1 > bbox.width + SLACK or b.y1 > bbox.height + SLACK:
            out.append(("clipped", text))
    for (ta, a), (tb, b) in itertools.combinations(boxes, 2):
        if a.x0 < b.x1 - SLACK and b.x0 < a.x1 - SLACK and a.y0 < b.y1 - SLACK and b.y0 < a.y1 - SLACK:
            out.append(("overlap", ta, tb))
    return out


@pytest.mark.parametrize("presenter", [False, True], ids=["normal", "presenter"])
@pytest.mark.parametrize("title", list(catalogue.SOURCES))
def test_no_text_overlaps_or_leaves_the_figure(title, presenter):
    found = {}
    for values in positions(title, SAMPLE):
        fig, renderer = render(title, values, presenter=presenter)
        for p in problems(fig.view.ax.figure, renderer):
            found.setdefault(p, values)
    assert found == {}


def test_the_check_sees_an_overlap_and_a_clipped_text():
    fig, renderer = render("03 start-to-start", {})
    f = fig.view.ax.figure
    assert problems(f, renderer) == []
    f.text(0.5, 0.97, "one")
    f.text(0.5, 0.97, "two")
    f.text(0.995, 0.97, "past the edge")
    found = problems(f, renderer)
    assert ("clipped", "past the edge") in found and ("overlap", "one", "two") in found
