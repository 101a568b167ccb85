"""Lesson 04's `snap` lane, BullMQ 6.7.0's, computed by BullMQ's own scripts (`snap_lane`, through
`bullmq_lane`), held to the model scripts of that design the lane falls back to, at the
positions of the figure's sliders: every restart the main slider offers after the default pump
down (what the static site walks), every pump down before the default restart, and a 10-minute
lattice of both. The deadline slider moves only the `deadline` lane."""

from __future__ import annotations

import pytest

from emqsim.engine.bullmq_scripts import package
from emqsim.lessons import bullmq_lane
from emqsim.lessons import missed_slots as mx

pytestmark = pytest.mark.skipif(package.available() is not None, reason=str(package.available()))


def positions() -> list[tuple[int, int]]:
    m = mx.MissedModel()
    out = {(mx.DOWN, up) for _, up in m.positions("up", m.defaults())}
    out |= {(down, mx.UP) for down in mx.TIMES if down <= mx.UP}
    out |= {(down, up) for down in mx.TIMES[::10] for up in mx.restarts(down)[::10]}
    return sorted(out)


def test_the_positions_cover_both_sliders():
    p = positions()
    assert len(p) > 200
    assert {d for d, _ in p} >= set(mx.TIMES[::10]) and {u for _, u in p} >= set(mx.restarts(mx.DOWN))
    assert any(d == u for d, u in p)          # an outage of no length: nothing missed


def test_the_snap_lane_is_bullmqs_own_scripts_and_the_models_equal_them_at_every_position():
    assert bullmq_lane.missing() is None
    for down, up in positions():
        real = mx.snap_lane(down, up)
        assert real and real == mx.snap_lane(down, up, real=False), (mx.hm(down), mx.hm(up))


def test_the_pump_policy_snap_differs_from_bullmqs_design_by_one_tick_at_one_restart():
    """The reference model's pump policy `snap` (what the lane drew before it was BullMQ's design)
    against the scripts: equal but where the restart falls on the slot after the first one missed
    (09:30 to 09:52): the snap makes that slot's job due at once, and BullMQ's worker takes it in
    the same ms as the collapsed one, where a pump releases it one pump tick (1 s) later. Found
    when the lane was first computed by the scripts (2026-12-04)."""
    ticked = []
    for down, up in positions():
        real = mx.snap_lane(down, up)
        r = mx.reference(mx.lane_schedule("snap"), start=mx.FIRST, until=mx.HORIZON, pump=mx.PUMP,
                         outage=(down, up), ids=None)
        model = tuple(zip(r.slot.tolist(), r.released.tolist()))
        assert len(real) == len(model), (mx.hm(down), mx.hm(up))
        for mine, theirs in zip(real, model):
            if mine != theirs:
                assert mine == (up, up) and theirs == (up, up + mx.PUMP.tick), (mx.hm(down), mx.hm(up))
                ticked.append((down, up))
    assert ticked == [(mx.DOWN, mx.on_day("09:52"))]


def test_the_frame_uses_the_scripts_and_without_them_draws_the_same(monkeypatch):
    calls = []
    lane = bullmq_lane.lane
    monkeypatch.setattr(bullmq_lane, "lane", lambda *a, **k: calls.append(k) or lane(*a, **k))
    with_scripts = mx.MissedModel().frame(up=mx.on_day("10:40"))
    assert [k["outage"] for k in calls] == [(mx.DOWN, mx.on_day("10:40"))]
    monkeypatch.setattr(bullmq_lane, "_DRIVER", [False])                   # as when the package is missing
    monkeypatch.setattr(bullmq_lane, "_WHY", [f"no package: {package.INSTALL}"])
    without = mx.MissedModel().frame(up=mx.on_day("10:40"))
    assert with_scripts == without
    assert with_scripts.runs[0].fires[2] == (mx.on_day("09:37"), mx.on_day("10:40"))
