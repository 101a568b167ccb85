"""A crash between enqueue and advance: a fresh id repeats the slot; the fire script or a slot id does not."""

from __future__ import annotations

import matplotlib
import pytest

from emqsim.figures import faults as fx
from emqsim.ids import minted_at
from emqsim.timefmt import at, hms

matplotlib.use("Agg")

T0 = at("2026-11-30 09:00")
MIN = 60_000
SLOT = 15 * MIN
TWO_FRESH, TWO_SLOT, ATOM_FRESH, ATOM_SLOT = fx.DESIGNS


@pytest.fixture(scope="module")
def view():
    return fx.faults_view()


# -- the engine's answers ----------------------------------------------------------------------

def test_two_step_fresh_crash_after_fire_3_repeats_the_slot():
    r = fx.crash_run(3, TWO_FRESH, MIN)
    assert (r.duplicates, r.lost) == (1, 0)
    assert len(r.jobs) == 11
    twins = r.twins()
    assert list(twins) == [T0 + 2 * SLOT]                       # 09:30
    (n1, rel1, id1), (n2, rel2, id2) = twins[T0 + 2 * SLOT]
    assert (n1, n2) == (3, 4)
    assert (hms(rel1), hms(rel2)) == ("09:30:00", "09:31:00")
    assert id1 != id2
    assert (minted_at(id1), minted_at(id2)) == (T0 + 2 * SLOT, T0 + 2 * SLOT + MIN)
    assert r.answers == {"enqueue enqueued": 11, "advance advanced": 10}   # the crash skipped one advance


def test_slot_ids_refuse_the_re_fire():
    r = fx.crash_run(3, TWO_SLOT, MIN)
    assert (r.duplicates, r.lost, len(r.jobs)) == (0, 0, 10)
    assert r.refused == ((T0 + 2 * SLOT, T0 + 2 * SLOT + MIN),)
    assert r.jobs[2][3] == f"repeat:reports:{T0 + 2 * SLOT}"
    assert r.answers == {"enqueue enqueued": 10, "enqueue duplicate": 1, "advance advanced": 10}


def test_atomic_fire_leaves_nothing_to_redo():
    r = fx.crash_run(3, ATOM_FRESH, MIN)
    assert (r.duplicates, r.lost) == (0, 0)
    assert [j[1] for j in r.jobs] == [T0 + k * SLOT for k in range(10)]
    assert [j[2] for j in r.jobs] == [T0 + k * SLOT for k in range(10)]
    assert r.answers == {"fire fired": 10}


@pytest.mark.parametrize("crash", fx.CRASHES)
def test_every_crash_point(crash):
    fresh = fx.crash_run(crash, TWO_FRESH, 5 * MIN)
    assert (fresh.duplicates, fresh.lost) == (1, 0)
    assert list(fresh.twins()) == [T0 + (crash - 1) * SLOT]
    for design in (TWO_SLOT, ATOM_FRESH, ATOM_SLOT):
        r = fx.crash_run(crash, design, 5 * MIN)
        assert (r.duplicates, r.lost, len(r.jobs)) == (0, 0, 10)


def test_two_pumps():
    runs = {r.design: r for r in fx.two_pumps(45)}
    assert (runs[TWO_FRESH].duplicates, len(runs[TWO_FRESH].jobs)) == (4, 8)
    assert runs[TWO_FRESH].answers == {"enqueue enqueued": 8, "advance advanced": 8}
    assert (runs[TWO_SLOT].duplicates, len(runs[TWO_SLOT].jobs)) == (0, 4)
    assert runs[TWO_SLOT].answers == {"enqueue enqueued": 4, "enqueue duplicate": 4, "advance advanced": 8}
    for design in (ATOM_FRESH, ATOM_SLOT):
        assert (runs[design].duplicates, len(runs[design].jobs)) == (0, 4)
        assert runs[design].answers == {"fire fired": 4, "fire stale": 4}
    assert fx.two_pumps_text(list(runs.values())).splitlines()[2:] == [
        "two-step, fresh ids       4     8           4  enqueue: enqueued 8 \u00b7 advance: advanced 8",
        "two-step, slot ids        4     4           0  enqueue: duplicate 4, enqueued 4 \u00b7 advance: advanced 8",
        "atomic, fresh ids         4     4           0  fire: fired 4, stale 4",
        "atomic, slot ids          4     4           0  fire: fired 4, stale 4",
    ]


def test_cancel_between_read_and_write():
    two, atom = fx.cancel_race(3)
    assert [j[1] for j in two.jobs] == [T0, T0 + SLOT, T0 + 2 * SLOT]
    assert two.answers == {"enqueue enqueued": 3, "advance advanced": 2, "advance absent": 1}
    assert [j[1] for j in atom.jobs] == [T0, T0 + SLOT]
    assert atom.answers == {"fire fired": 2, "fire absent": 1}
    assert (two.size, two.record, atom.size, atom.record) == (0, False, 0, False)
    assert fx.cancel_text([two, atom]) == "\n".join([
        "two-step, fresh ids: produced 3 (09:00, 09:15, 09:30)",
        "  enqueue: enqueued 3 \u00b7 advance: absent 1, advanced 2",
        "  after: ZCARD 0, record gone",
        "atomic, fresh ids: produced 2 (09:00, 09:15)",
        "  fire: absent 1, fired 2",
        "  after: ZCARD 0, record gone",
    ])


def test_draws_are_seeded():
    d = fx.draws(3)
    assert [(x.seed, x.crash, x.delay, x.jitter) for x in d] == [
        (0, 7, 24 * MIN, 911), (1, 3, 18 * MIN, 867), (2, 1, 2 * MIN, 86)]
    with pytest.raises(ValueError, match="seeds 0"):
        fx.draws(0)


def test_sweep_table():
    rows = fx.sweep(20)
    assert [(r.duplicates, r.lost, r.unserved) for r in rows] == [(20, 0, 11), (0, 0, 11), (0, 0, 1), (0, 0, 1)]
    worst = " (seed 7: crash after fire 6, restart 30 min later)"
    assert fx.sweep_table(rows) == "\n".join([
        "design                runs  duplicates  lost  no job  worst run",
        "---------------------------------------------------------------",
        "two-step, fresh ids     20          20     0      11  1 dup, 0 lost, 2 no job" + worst,
        "two-step, slot ids      20           0     0      11  0 dup, 0 lost, 2 no job" + worst,
        "atomic, fresh ids       20           0     0       1  0 dup, 0 lost, 1 no job" + worst,
        "atomic, slot ids        20           0     0       1  0 dup, 0 lost, 1 no job" + worst,
    ])


def test_a_restart_after_a_whole_gap():
    """Down 20 min from 09:30: the two-step pump spends the catch-up run on 09:30 again, so
    09:45 gets no job; the atomic pump's row already said 09:45 and produces it, late."""
    two = fx.crash_run(3, TWO_FRESH, 20 * MIN)
    assert two.unserved == (T0 + 3 * SLOT,)
    assert [hms(j[2]) for j in two.jobs[2:5]] == ["09:30:00", "09:50:00", "10:00:00"]
    assert fx.crash_run(3, TWO_SLOT, 20 * MIN).unserved == (T0 + 3 * SLOT,)
    atom = fx.crash_run(3, ATOM_FRESH, 20 * MIN)
    assert atom.unserved == ()
    assert [(j[1], j[2]) for j in atom.jobs[2:5]] == [
        (T0 + 2 * SLOT, T0 + 2 * SLOT), (T0 + 3 * SLOT, T0 + 2 * SLOT + 20 * MIN), (T0 + 4 * SLOT, T0 + 4 * SLOT)]


def test_jobs_text_marks_the_repeat():
    lines = fx.jobs_text(fx.crash_run(3, TWO_FRESH, MIN)).splitlines()
    assert lines[4] == "  3  09:30  09:30:00  JOB0SUcTgkt1v6"
    assert lines[5] == "  4  09:30  09:31:00  JOB0SUcY7S3MI4  <- same slot again"


def test_fire_guard_is_the_script():
    guard = fx.fire_guard().splitlines()
    assert guard[0].strip() == "local score = redis.call('ZSCORE', KEYS[1], name)"
    assert guard[4].strip() == "elseif tonumber(score) ~= tonumber(slot) then"
    assert guard[-1].strip() == "result = 1"


def test_bad_design():
    with pytest.raises(ValueError, match="design 'one-step'"):
        fx.crash_run(3, "one-step")


# -- the figure ---------------------------------------------------------------------------------

def test_default_view(view):
    text = view.update(crash=3, design=TWO_FRESH, delay=MIN)
    assert text == ("two-step, fresh ids, crash after fire 3, restart 1 min later: 11 jobs for 10 slots, "
                    "1 duplicate (slot 09:30 as JOB0SUcTgkt1v6 released 09:30:00 and JOB0SUcY7S3MI4 "
                    "released 09:31:00), 0 lost")
    assert view.released.get_offsets()[:5].tolist() == [
        [T0, 1], [T0 + SLOT, 2], [T0 + 2 * SLOT, 3], [T0 + 2 * SLOT + MIN, 4], [T0 + 3 * SLOT, 5]]
    assert view.slots.get_offsets()[3].tolist() == [T0 + 2 * SLOT, 4]
    assert view.twins.get_offsets().tolist() == [[T0 + 2 * SLOT + MIN, 4]]
    assert [s.tolist() for s in view.twin_links.get_segments()] == [[[T0 + 2 * SLOT, 3], [T0 + 2 * SLOT, 4]]]
    assert [s.tolist() for s in view.lag.get_segments()] == [[[T0 + 2 * SLOT, 4], [T0 + 2 * SLOT + MIN, 4]]]
    assert len(view.refused.get_offsets()) == 0
    assert len(view.unserved.get_offsets()) == 0
    assert [t.get_text() for t in view.ids] == ["JOB0SUcTgkt1v6", "JOB0SUcY7S3MI4"]
    assert list(view.crash_line.get_xdata()) == [T0 + 2 * SLOT] * 2
    assert list(view.restart_line.get_xdata()) == [T0 + 2 * SLOT + MIN] * 2
    assert (view.down.get_x(), view.down.get_width()) == (T0 + 2 * SLOT, MIN)
    assert view.restart_text.get_text() == " restart 09:31"
    assert view._title.get_text() == "two-step, fresh ids: crash after fire 3"


def test_slot_ids_view(view):
    text = view.update(crash=5, design=TWO_SLOT, delay=5 * MIN)
    assert text == ("two-step, slot ids, crash after fire 5, restart 5 min later: 10 jobs for 10 slots, "
                    "0 duplicates, 0 lost; the re-fire of slot 10:00 at 10:05:00 found its job id taken "
                    "(enqueue: duplicate)")
    assert view.refused.get_offsets().tolist() == [[T0 + 4 * SLOT + 5 * MIN, 5]]
    assert len(view.twins.get_offsets()) == 0
    assert view.twin_links.get_segments() == []
    assert [t.get_text() for t in view.ids] == ["", ""]


def test_atomic_view(view):
    text = view.update(crash=8, design=ATOM_FRESH, delay=10 * MIN)
    assert text == ("atomic, fresh ids, crash after fire 8, restart 10 min later: 10 jobs for 10 slots, "
                    "0 duplicates, 0 lost")
    assert view.released.get_offsets()[:, 0].tolist() == [T0 + k * SLOT for k in range(10)]
    assert list(view.restart_line.get_xdata()) == [T0 + 7 * SLOT + 10 * MIN] * 2


def test_slot_with_no_job_view(view):
    text = view.update(crash=3, design=TWO_FRESH, delay=20 * MIN)
    assert text.endswith("0 lost; no job at all for 09:45")
    assert view.unserved.get_offsets().tolist() == [[T0 + 3 * SLOT, 0.5]]
    assert (view.down.get_x(), view.down.get_width()) == (T0 + 2 * SLOT, 20 * MIN)
    assert view.update(design=ATOM_FRESH).endswith("10 jobs for 10 slots, 0 duplicates, 0 lost")
    assert len(view.unserved.get_offsets()) == 0


def test_late_duplicate_labels_left(view):
    view.update(crash=8, design=TWO_FRESH, delay=0)
    assert view.ids[1].get_text() == "JOB0SUhpyyNfhh"
    assert view.ids[1].get_position() == (T0 + 7 * SLOT - 3 * MIN, 9)
    assert view.ids[1].get_horizontalalignment() == "right"


def test_bad_moves(view):
    with pytest.raises(ValueError, match="crash \\(fire number\\) 9"):
        view.update(crash=9)
    with pytest.raises(ValueError, match="design 'atomic, slot ids'"):
        view.update(design=ATOM_SLOT)
    with pytest.raises(ValueError, match="restart delay \\(ms\\) 120000"):
        view.update(delay=2 * MIN)


def test_moves(view):
    moves = view.moves()
    assert len(moves) == 20
    assert [m["crash"] for m in moves if "crash" in m] == [1, 2, 3, 4, 5, 6, 7, 8, 7, 6, 5, 4]
    assert [m["delay"] for m in moves if "delay" in m] == list(fx.DELAYS)
    for m in moves:
        assert isinstance(view.update(**m), str)


def test_panel_callbacks(view):
    p = fx.faults_panel(view)
    assert p.on_design({"new": ATOM_FRESH}).startswith("atomic, fresh ids, crash after fire")
    assert p.on_delay({"new": 0}).startswith("atomic, fresh ids, crash after fire")
    text = p.on_crash({"new": 2})
    assert text == ("atomic, fresh ids, crash after fire 2, restart 0 s later: 10 jobs for 10 slots, "
                    "0 duplicates, 0 lost")
    assert 'id="faults-readout"' in p.readout.value
    text = p.on_design({"new": TWO_FRESH})
    assert text.startswith("two-step, fresh ids, crash after fire 2, restart 0 s later: 11 jobs for 10 slots, "
                           "1 duplicate (slot 09:15 as ")
    assert (p.crash.min, p.crash.max) == (1, 8)
    assert [v for _, v in p.delay.options] == list(fx.DELAYS)


def test_long_outages_cost_the_two_step_pump_one_slot_each():
    """In every seeded draw down for a whole gap or more, the two-step pump leaves exactly one
    more slot without a job than the atomic one."""
    from emqsim.faults import Faults

    long = [d for d in fx.draws(20) if d.delay >= SLOT]
    assert [d.seed for d in long] == [0, 1, 3, 6, 7, 9, 11, 14, 16, 19]
    for d in long:
        faults = Faults(crash_after_enqueue=d.crash, restart_after=d.delay)
        two, atom = (fx.run(design, faults, until=T0 + 13 * SLOT, jitter=d.jitter, seed=d.seed)
                     for design in (TWO_FRESH, ATOM_FRESH))
        assert len(two.unserved) == len(atom.unserved) + 1, d


def test_moving_lists_what_a_move_changes(view):
    """Everything `update` touches is in `view.moving`, ready for a blitting `Live`."""
    for artist in (view.down, view.crash_line, view.restart_line, view.lag, view.twin_links, view.slots,
                   view.released, view.twins, view.refused, view.unserved, *view.ids, view.crash_text,
                   view.restart_text, view._title):
        assert any(artist is m for m in view.moving)
    assert view.ax.get_ylim() == (0.3, 12.0)
    view.update(crash=1, design=TWO_FRESH, delay=0)
    assert view.ax.get_ylim() == (0.3, 12.0)   # static: a move never rescales
