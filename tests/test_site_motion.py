"""The "watch it move" strips on the static site (issue 30, item 9): each page's strip is a player
with Play over every moment of its model, a distinct picture per moment in both frame sets (so
Play visibly moves the tokens), the model's readout and alt text for each, and the frames kept
small (the site's size budget, tests/test_site.py)."""

from __future__ import annotations

import json
import re

import pytest

import site_build
from emqsim.figures import catalogue

STRIPS = {"02_one_row_rewritten": "02 watch a job move", "05_overlap": "05 watch the runs pile up"}
DATA = re.compile(r'<script (?=[^>]*class="emqsim-data")[^>]*>(.*?)</script>', re.S)
#: the strips' frames together, both sets, at most (about 1.3 MB when written)
STRIPS_BUDGET = 1_600_000

pytestmark = pytest.mark.sphinx


@pytest.fixture(scope="module")
def built():
    return site_build.site()[0]


def table_of(out, stem: str) -> dict:
    page = (out / f"{stem}.html").read_text()
    tables = [json.loads(m) for m in DATA.findall(page)]
    return next(t for t in tables if t["title"] == STRIPS[stem])


@pytest.mark.parametrize("stem", STRIPS)
def test_the_strip_is_played_over_every_moment_with_a_picture_each(built, stem):
    out = built
    t = table_of(out, stem)
    model = catalogue.model(STRIPS[stem])
    (control,) = t["controls"]
    assert control["name"] == "step" and control["play"] is not None and not control["held"]
    assert [label for label, _ in control["positions"]] == [m.label() for m in model.moments]
    assert len(t["frames"]) == len(model.moments) and t["start"] == 0
    # Play moves something at every step: each moment has a picture of its own, in both sets
    for key in ("images", "narrow"):
        pictures = [t[key][f[0]] for f in t["frames"]]
        assert len(set(pictures)) == len(pictures)
        sub = "" if key == "images" else "narrow/"
        assert all((out / "_static" / "frames" / sub / name).is_file() for name in pictures)
    for n, f in enumerate(t["frames"]):
        frame = model.frame(step=f[2][0])
        assert t["readouts"][f[1]] == frame.readout
        alt = t["alts"][f[3]] if len(f) > 3 else frame.readout
        assert alt == model.describe(frame)


def test_the_strips_frames_stay_small(built):
    out = built
    total = 0
    for stem in STRIPS:
        t = table_of(out, stem)
        for key, sub in (("images", ""), ("narrow", "narrow/")):
            total += sum((out / "_static" / "frames" / sub / name).stat().st_size for name in set(t[key]))
    assert 0 < total <= STRIPS_BUDGET
