"""The one-row figure: readouts and artist data from a real engine run, and the re-registration demo."""

from __future__ import annotations

import pytest

from emqsim import Store, at, minted_at
from emqsim.figures import registry_rows as rr
from emqsim.figures.style import new_figure

START = at("2026-11-30 09:00")
EVERY = 900_000


@pytest.fixture(scope="module")
def view():
    """100 fires of every 15 min from 09:00 UTC, default Pump."""
    fig, ax = new_figure()
    sim = rr.reports()
    v = rr.RegistryRowsView(ax, sim, 100)
    sim.close()
    return v


def test_registration_state_at_zero_fires(view):
    assert view.update(0) == "after 0 fires · ZCARD 1 · jobs 0 · row reports -> 09:00 on 2026-11-30 · no job yet"
    st = view.state(0)
    assert (st.size, st.jobs, st.score, st.job_id, st.minted) == (1, 0, START, None, None)
    assert view.row_box.get_text() == "cursor at 0 fires: row reports -> 09:00 on 2026-11-30\nlatest job none yet"


def test_four_fires(view):
    text = view.update(4)
    assert text == ("after 4 fires · ZCARD 1 · jobs 4 · row reports -> 10:00 on 2026-11-30 · "
                    "last job JOB0SUdY9CNxTc minted 09:45:00 on 2026-11-30")
    st = view.state(4)
    assert st.score == START + 4 * EVERY
    assert minted_at(st.job_id) == at("2026-11-30 09:45") == st.minted
    assert view.row_box.get_text() == ("cursor at 4 fires: row reports -> 10:00 on 2026-11-30\n"
                                       "latest job JOB0SUdY9CNxTc (09:45:00)")


def test_first_fire_gets_the_first_id(view):
    assert view.update(1) == ("after 1 fire · ZCARD 1 · jobs 1 · row reports -> 09:15 on 2026-11-30 · "
                              "last job JOB0SUaKlrtAo4 minted 09:00:00 on 2026-11-30")


def test_hundred_fires_score_is_exact(view):
    assert view.update(100).startswith("after 100 fires · ZCARD 1 · jobs 100 · row reports -> 10:00 on 2026-12-01")
    assert view.state(100).score == START + 100 * EVERY == at("2026-12-01 10:00")
    assert view.state(100).minted == at("2026-12-01 09:45")


def test_every_fire_leaves_one_row_and_one_more_job(view):
    assert view.sizes.tolist() == [1] * 101
    assert view.jobs.tolist() == list(range(101))
    assert view.scores.tolist() == [START + k * EVERY for k in range(101)]
    assert len(set(view.job_ids[1:])) == 100  # a fresh id per occurrence
    assert [minted_at(j) for j in view.job_ids[1:]] == [START + k * EVERY for k in range(100)]


def test_artist_data(view):
    view.update(4)
    assert view.cursor.get_xdata() == [4, 4]
    assert view.jobs_line.get_xdata().tolist() == [0, 1, 2, 3, 4]
    assert view.jobs_line.get_ydata().tolist() == [0, 1, 2, 3, 4]
    assert view.rows_line.get_xdata().tolist() == [0, 1, 2, 3, 4]
    assert view.rows_line.get_ydata().tolist() == [1, 1, 1, 1, 1]
    assert view.jobs_dot.get_data() == ([4], [4])
    assert view.rows_dot.get_data() == ([4], [1])
    assert view.jobs_all.get_xdata().tolist() == list(range(101))
    assert view.jobs_all.get_ydata().tolist() == list(range(101))
    assert view.rows_all.get_ydata().tolist() == [1] * 101
    assert view.ax.get_xlim() == (0.0, 100.0)
    assert view.ax_rows.get_ylim() == (0.0, 2.0)
    view.update(100)
    assert view.cursor.get_xdata() == [100, 100]
    assert len(view.jobs_line.get_xdata()) == 101


def test_only_the_moving_marks_are_redrawn(view):
    assert set(view.live.moving) == set(view.moving)
    assert all(a.get_animated() for a in view.moving)
    assert view.live.refresh()[:8] == b"\x89PNG\r\n\x1a\n"


def test_live_registry_after_the_run(view):
    assert view.final_size == 1
    assert view.final_rows == [("reports", START + 100 * EVERY)]
    assert (view.final_record["every_ms"], view.final_record["ic"]) == ("900000", "100")
    assert view.summary() == ("after 100 fires the registry holds ZCARD 1: reports -> 10:00 on 2026-12-01\n"
                              "its record: every_ms 900000, runs so far (ic) 100")


def test_moves(view):
    moves = view.moves()
    assert len(moves) == 20
    assert moves[0] == {"fires": 0} and moves[-1] == {"fires": 100}
    for kw in moves:
        assert view.update(**kw).startswith(f"after {kw['fires']} fire")


@pytest.mark.parametrize("bad", [-1, 101, 2.5, True, "4"])
def test_update_out_of_range(view, bad):
    with pytest.raises(ValueError, match=r"out of range; use a whole number 0\.\.100"):
        view.update(bad)


def test_bad_construction():
    fig, ax = new_figure()
    with rr.reports() as sim:
        with pytest.raises(ValueError, match="fires 0 must be a whole number"):
            rr.RegistryRowsView(ax, sim, 0)
        with pytest.raises(ValueError, match="retain"):
            rr.RegistryRowsView(ax, sim, 20_000)
        sim.run(fires=1)
        with pytest.raises(ValueError, match="already produced 1 fires"):
            rr.RegistryRowsView(ax, sim, 5)


def test_the_notebooks_run_keeps_one_row():
    """The notebook's run (rr.FIRES fires): ZCARD 1 and the exact final score, read from Redis."""
    view = rr.build()
    n = rr.FIRES
    assert view.final_size == 1
    assert view.final_rows == [("reports", START + n * EVERY)]
    assert view.final_rows == [("reports", at("2027-03-14 13:00"))]
    text = view.update(n)
    assert text.startswith("after 10000 fires · ZCARD 1 · jobs 10000 · row reports -> 13:00 on 2027-03-14 · ")
    assert text.endswith(" minted 12:45:00 on 2027-03-14")
    assert minted_at(view.state(n).job_id) == at("2027-03-14 12:45")


def test_panel_callbacks(view):
    p = rr.RowsPanel(view)
    assert (p.slider.min, p.slider.max, p.play.max, p.play.step, p.speed.value) == (0, 100, 100, 1, 1)
    p.slider.value = 4  # the observer runs on_fires
    assert p.readout.value == ("<code>after 4 fires · ZCARD 1 · jobs 4 · row reports -&gt; 10:00 on 2026-11-30 · "
                               "last job JOB0SUdY9CNxTc minted 09:45:00 on 2026-11-30</code>")
    p.on_fires({"new": 0})
    assert p.readout.value == ("<code>after 0 fires · ZCARD 1 · jobs 0 · row reports -&gt; 09:00 on 2026-11-30 · "
                               "no job yet</code>")
    assert view.cursor.get_xdata() == [0, 0]
    p.speed.value = 7  # the observer runs on_speed
    assert p.play.step == 7
    p.on_speed({"new": 3})
    assert p.play.step == 3
    box = rr.panel(view)
    assert box.children[-1] is view.live.image


def test_reregister_demo():
    with Store() as store:
        steps = rr.reregister_demo(store, START)
    assert [(s.call, s.answer, s.size) for s in steps] == [
        ("register every 15 min", "registered", 1),
        ("after 4 fires", "-", 1),
        ("register every 5 min", "exists", 1),
        ("upsert every 5 min", "rewritten", 1),
        ("upsert every 5 min", "kept", 1),
    ]
    ten, nine_fifty = at("2026-11-30 10:00"), at("2026-11-30 09:50")
    assert [s.rows for s in steps] == [[("reports", START)], [("reports", ten)], [("reports", ten)],
                                       [("reports", nine_fifty)], [("reports", nine_fifty)]]
    # "exists": nothing changed, the record still says every 15 min
    assert steps[2].record == steps[1].record
    assert steps[2].record["every_ms"] == "900000"
    # "rewritten": a changed cadence is a first run, so the score is reset; the count is
    # carried over, as bullmq 6.7.0's storeJobScheduler does (tests/test_oracle_bullmq.py)
    assert steps[3].record["every_ms"] == "300000" and steps[3].record["ic"] == "4"
    assert steps[4].record == steps[3].record
    assert [s.at for s in steps] == [START, at("2026-11-30 09:45"), nine_fifty, nine_fifty, nine_fifty]


def test_steps_table():
    with Store() as store:
        text = rr.steps_table(rr.reregister_demo(store, START))
    assert text.splitlines() == [
        "time      call                    answer      ZCARD  row (member -> score)           every_ms  ic",
        "-------------------------------------------------------------------------------------------------",
        "09:00:00  register every 15 min   registered      1  reports -> 09:00 on 2026-11-30    900000  -",
        "09:45:00  after 4 fires           -               1  reports -> 10:00 on 2026-11-30    900000  4",
        "09:50:00  register every 5 min    exists          1  reports -> 10:00 on 2026-11-30    900000  4",
        "09:50:00  upsert every 5 min      rewritten       1  reports -> 09:50 on 2026-11-30    300000  4",
        "09:50:00  upsert every 5 min      kept            1  reports -> 09:50 on 2026-11-30    300000  4",
    ]


@pytest.mark.parametrize("kw, match", [({"fires": 0}, "fires 0 must be"), ({"later": 0}, "later")])
def test_reregister_demo_bad_input(kw, match):
    with Store() as store, pytest.raises(ValueError, match=match):
        rr.reregister_demo(store, START, **kw)
