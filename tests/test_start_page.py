"""What 00 tells a reader about pages without a kernel is what the site does (issue 30): the site's
figures are players of frames drawn in advance (emqsim/site/player.py), not pictures."""

from __future__ import annotations

import json
from pathlib import Path

from emqsim.site import player

ROOT = Path(__file__).resolve().parent.parent


def _text() -> str:
    cells = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text())["cells"]
    return " ".join(" ".join("".join(c["source"]).split()) for c in cells if c["cell_type"] == "markdown")


def test_00_says_the_sites_figures_move_without_a_kernel():
    text = _text()
    assert "without a running kernel shows each figure as a picture" not in text
    assert "On the course's website the figures move without a kernel" in text
    # what the sentence rests on: the site's player swaps frames drawn at build time
    assert "rendered in advance, swapped by a script" in player.__doc__


def test_the_learning_goals_come_before_the_two_systems_are_described():
    """A reader's read (issue 30, item 4): on a phone 00 opened with 13 lines on EchoMQ, Elixir,
    Valkey and a commit before its learning goals, one screen down. The opening now says what the
    course is about in at most 100 words; the goals follow it, and the systems' details after."""
    cells = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text())["cells"]
    text = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    goals = next(i for i, t in enumerate(text) if t.startswith("## What you will learn"))
    assert sum(len(t.split()) for t in text[:goals]) <= 100
    details = next(i for i, t in enumerate(text) if "Elixir" in t)
    assert goals < details
