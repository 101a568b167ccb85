"""Lesson 06: a crash between enqueue and advance repeats the slot under a fresh id; a slot id
or the fire script does not. The engine's answers, the model's frames, its laziness, and the
text the notebook prints."""

from __future__ import annotations

import re

import pytest

from emqsim.engine.errors import InputError
from emqsim.engine.faults import Faults
from emqsim.figures.catalogue import figure
from emqsim.engine.ids import minted_at
from emqsim.lessons import faults as lf
from emqsim.lessons.course import EVERY, MINUTE, START
from emqsim.engine.timefmt import hm, hms

T0, MIN, SLOT = START, MINUTE, EVERY   # the course's day, unit and interval
TWO_FRESH, TWO_SLOT, ATOM_FRESH, ATOM_SLOT = lf.SETUPS
TITLE = "06 crash between two writes"


@pytest.fixture(scope="module")
def model():
    return lf.FaultsModel()


def facts(frame, crash: int = 3, delay: int = MIN) -> dict:
    """The facts the frame's readout states (`crash_facts`, from the frame's own run)."""
    return lf.crash_facts(frame.run, crash, delay)


# -- the engine's answers ----------------------------------------------------------------------

def test_two_step_fresh_crash_after_fire_3_repeats_the_slot():
    r = lf.crash_run(3, TWO_FRESH, MIN)
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
    r = lf.crash_run(3, TWO_SLOT, MIN)
    assert (r.duplicates, r.lost, len(r.jobs)) == (0, 0, 10)
    assert r.refused == ((T0 + 2 * SLOT, T0 + 2 * SLOT + MIN),)
    assert r.jobs[2][3] == f"repeat:reports:{T0 + 2 * SLOT}"
    assert r.answers == {"enqueue enqueued": 10, "enqueue duplicate": 1, "advance advanced": 10}


def test_atomic_fire_leaves_nothing_to_redo():
    r = lf.crash_run(3, ATOM_FRESH, MIN)
    assert (r.duplicates, r.lost) == (0, 0)
    assert [j[1] for j in r.jobs] == [T0 + k * SLOT for k in range(10)]
    assert [j[2] for j in r.jobs] == [T0 + k * SLOT for k in range(10)]
    assert r.answers == {"fire fired": 10}


@pytest.mark.parametrize("crash", lf.CRASHES)
def test_every_crash_point(crash):
    fresh = lf.crash_run(crash, TWO_FRESH, 5 * MIN)
    assert (fresh.duplicates, fresh.lost) == (1, 0)
    assert list(fresh.twins()) == [T0 + (crash - 1) * SLOT]
    for setup in (TWO_SLOT, ATOM_FRESH, ATOM_SLOT):
        r = lf.crash_run(crash, setup, 5 * MIN)
        assert (r.duplicates, r.lost, len(r.jobs)) == (0, 0, 10)


def test_a_restart_after_a_whole_gap():
    """Down 20 min from 09:30: the two-step pump spends the catch-up run on 09:30 again, so
    09:45 gets no job; the atomic pump's row already said 09:45 and produces it, late."""
    two = lf.crash_run(3, TWO_FRESH, 20 * MIN)
    assert two.unserved == (T0 + 3 * SLOT,)
    assert [hms(j[2]) for j in two.jobs[2:5]] == ["09:30:00", "09:50:00", "10:00:00"]
    assert lf.crash_run(3, TWO_SLOT, 20 * MIN).unserved == (T0 + 3 * SLOT,)
    atom = lf.crash_run(3, ATOM_FRESH, 20 * MIN)
    assert atom.unserved == ()
    assert [(j[1], j[2]) for j in atom.jobs[2:5]] == [
        (T0 + 2 * SLOT, T0 + 2 * SLOT), (T0 + 3 * SLOT, T0 + 2 * SLOT + 20 * MIN), (T0 + 4 * SLOT, T0 + 4 * SLOT)]


def test_two_pumps():
    runs = {r.setup: r for r in lf.two_pumps(45)}
    assert (runs[TWO_FRESH].duplicates, len(runs[TWO_FRESH].jobs)) == (4, 8)
    assert runs[TWO_FRESH].answers == {"enqueue enqueued": 8, "advance advanced": 8}
    assert (runs[TWO_SLOT].duplicates, len(runs[TWO_SLOT].jobs)) == (0, 4)
    assert runs[TWO_SLOT].answers == {"enqueue enqueued": 4, "enqueue duplicate": 4, "advance advanced": 8}
    for setup in (ATOM_FRESH, ATOM_SLOT):
        assert (runs[setup].duplicates, len(runs[setup].jobs)) == (0, 4)
        assert runs[setup].answers == {"fire fired": 4, "fire stale": 4}
    assert {len({j[1] for j in r.jobs}) for r in runs.values()} == {4}          # four slots, whoever makes them
    # the text's rows carry those facts: slots, jobs, duplicates, then the scripts' answers
    for line, r in zip(lf.two_pumps_text(list(runs.values())).splitlines()[2:], runs.values()):
        assert line.startswith(r.setup) and line[len(r.setup):].split()[:3] == [
            str(len({j[1] for j in r.jobs})), str(len(r.jobs)), str(r.duplicates)]
        assert line.endswith(lf.answers_text(r.answers))


def test_cancel_between_read_and_write():
    two, atom = lf.cancel_race(3)
    assert [j[1] for j in two.jobs] == [T0, T0 + SLOT, T0 + 2 * SLOT]
    assert two.answers == {"enqueue enqueued": 3, "advance advanced": 2, "advance absent": 1}
    assert [j[1] for j in atom.jobs] == [T0, T0 + SLOT]
    assert atom.answers == {"fire fired": 2, "fire absent": 1}
    assert (two.size, two.record, atom.size, atom.record) == (0, False, 0, False)
    # the text prints those facts, three lines a setup
    text = lf.cancel_text([two, atom]).splitlines()
    for k, r in enumerate((two, atom)):
        head, answers, after = text[3 * k:3 * k + 3]
        assert head.startswith(f"{r.setup}: produced {len(r.jobs)} (") and all(hm(j[1]) in head for j in r.jobs)
        assert answers.strip() == lf.answers_text(r.answers)
        assert after == "  after: ZCARD 0, record gone"


def test_a_run_without_faults_keeps_its_record():
    r = lf.run_setup(TWO_FRESH, Faults(), until=T0 + 2 * SLOT)
    assert (r.size, r.record, r.unserved, len(r.jobs)) == (1, True, (), 3)


def test_answers_text():
    assert lf.answers_text({}) == "no script ran"
    assert lf.answers_text({"fire stale": 1, "enqueue enqueued": 2}) == "enqueue: enqueued 2 \u00b7 fire: stale 1"


# -- the seeded sweep ------------------------------------------------------------------------------

def test_draws_are_seeded():
    d = lf.draws(3)
    assert [(x.seed, x.crash, x.delay, x.jitter) for x in d] == [
        (0, 7, 24 * MIN, 911), (1, 3, 18 * MIN, 867), (2, 1, 2 * MIN, 86)]
    with pytest.raises(InputError, match="seeds 0"):
        lf.draws(0)


def test_sweep_table():
    rows = lf.sweep(20)
    assert [(r.duplicates, r.lost, r.unserved) for r in rows] == [(20, 0, 11), (0, 0, 11), (0, 0, 1), (0, 0, 1)]
    seed7 = lf.draws(20)[7]
    assert (seed7.crash, seed7.delay) == (6, 30 * MIN)
    assert [(r.setup, r.runs, r.worst) for r in rows] == [
        (TWO_FRESH, 20, (1, 0, 2, seed7)), (TWO_SLOT, 20, (0, 0, 2, seed7)), (ATOM_FRESH, 20, (0, 0, 1, seed7)),
        (ATOM_SLOT, 20, (0, 0, 1, seed7))]
    table = lf.sweep_table(rows).splitlines()
    assert len(table) == 2 + len(rows)
    for line, r in zip(table[2:], rows):
        dup, lost, none, d = r.worst
        assert line.startswith(r.setup) and line[len(r.setup):].split()[:4] == [
            str(r.runs), str(r.duplicates), str(r.lost), str(r.unserved)]
        assert line.endswith(f"{dup} dup, {lost} lost, {none} no job (seed {d.seed}: crash after fire {d.crash}, "
                             f"restart {lf.format_duration(d.delay)} later)")
    assert lf.sweep_table([lf.SweepRow(ATOM_FRESH, 1, 0, 0, 0, None)]).splitlines()[2].endswith("  none")


def test_sweep_horizon_changes_no_count():
    """Each sweep run stops two gaps after its restart; run to the longest horizon instead,
    every setup counts the same duplicates, lost slots and slots without a job."""
    longest = T0 + 13 * SLOT
    plan = lf.draws(20)
    assert [lf.horizon(d) for d in plan[:3]] == [T0 + 8 * SLOT + 24 * MIN, T0 + 4 * SLOT + 18 * MIN,
                                                  T0 + 2 * SLOT + 2 * MIN]
    assert max(lf.horizon(d) for d in plan) <= longest
    for setup in lf.SETUPS:
        for d in plan:
            short = lf.sweep_run(setup, d, until=lf.horizon(d))
            full = lf.sweep_run(setup, d, until=longest)
            counts = (short.duplicates, short.lost, short.unserved)
            assert counts == (full.duplicates, full.lost, full.unserved), (setup, d)
            assert short.jobs == full.jobs[:len(short.jobs)]


def test_long_outages_cost_the_two_step_pump_one_slot_each():
    """In every seeded draw down for a whole gap or more, the two-step pump leaves exactly one
    more slot without a job than the atomic one."""
    long = [d for d in lf.draws(20) if d.delay >= SLOT]
    assert [d.seed for d in long] == [0, 1, 3, 6, 7, 9, 11, 14, 16, 19]
    for d in long:
        two, atom = (lf.sweep_run(setup, d, until=T0 + 13 * SLOT) for setup in (TWO_FRESH, ATOM_FRESH))
        assert len(two.unserved) == len(atom.unserved) + 1, d


# -- text the notebook prints ----------------------------------------------------------------------

def test_jobs_text_marks_the_repeat():
    r = lf.crash_run(3, TWO_FRESH, MIN)
    lines = lf.jobs_text(r).splitlines()
    assert lines[0].split() == ["n", "slot", "released", "job", "id"] and len(lines) == 2 + len(r.jobs)
    for line, (n, slot, released, job_id) in zip(lines[2:], r.jobs):
        assert line.split()[:4] == [str(n), hm(slot), hms(released), job_id]
    # the second job of a slot, and only it, is marked
    assert [line.split()[0] for line in lines[2:] if line.endswith("<- same slot again")] == ["4"]


def test_minted_text_names_the_twins():
    r = lf.crash_run(3, TWO_FRESH, MIN)
    twins = [(n, job_id) for js in r.twins().values() for n, _, job_id in js]
    assert twins == [(3, "JOB0SUcTgkt1v6"), (4, "JOB0SUcY7S3MI4")]
    assert [minted_at(j) for _, j in twins] == [T0 + 2 * SLOT, T0 + 2 * SLOT + MIN]
    assert lf.minted_text(r).splitlines() == [f"job {n}: {j} minted at {hms(minted_at(j))}" for n, j in twins]
    assert lf.minted_text(lf.crash_run(3, ATOM_FRESH, MIN)) == ""


def test_fire_guard_is_the_script():
    guard = lf.fire_guard().splitlines()
    assert guard[0] == "local function rowState(repeatKey, name, slot)"
    assert guard[1].strip() == "local score = redis.call('ZSCORE', repeatKey, name)"
    assert guard[3].strip() == "if tonumber(score) ~= tonumber(slot) then return 2 end"
    assert guard[-1] == "end"
    # the shipped fire script calls it before it writes anything
    from importlib.resources import files
    fire = files("emqsim.engine").joinpath("lua/fire-3.lua").read_text()
    assert '--- @include "row"' in fire and "local result = rowState(KEYS[1], name, slot)" in fire


def test_bullmq_retry_writes_nothing():
    f = lf.retry_facts()
    assert f == {"job_id": f"repeat:reports:{T0}", "pickup": ("chained", T0 + SLOT), "again": ("stale", float("inf")),
                 "score": T0 + SLOT, "ic": 2, "delayed": [[f"repeat:reports:{T0 + SLOT}", T0 + SLOT]]}
    text = lf.bullmq_retry()
    assert f"pickup of {f['job_id']}: chained, next run 09:15" in text
    assert "again: stale, next run inf" in text and "ic 2" in text and f"repeat:reports:{T0 + SLOT}" in text


def test_bad_design():
    with pytest.raises(InputError, match="setup 'one-step'"):
        lf.crash_run(3, "one-step")
    with pytest.raises(InputError, match="setup 'one-step'"):
        lf.sweep(1, setups=("one-step",))


# -- the model -------------------------------------------------------------------------------------

def test_controls(model):
    assert [c.name for c in model.controls] == ["setup", "crash", "delay"]
    assert model.main().name == "crash"
    assert model.readout_id == "faults-readout"
    # the atomic pump first: a default of EchoMQ's two-step pump showed the duplicate 06's first
    # question asks about (issue 30, no giveaway question)
    assert model.defaults() == {"setup": "atomic, fresh ids", "crash": 3, "delay": MIN}
    assert [label for label, _ in model.positions("delay", {})] == ["0 s", "1 min", "5 min", "10 min", "20 min"]
    combos, held = model.reachable()
    assert (len(combos), held) == (8 * 3 * 5, [])


def test_default_frame(model):
    assert facts(model.frame())["duplicates"] == 0       # the atomic pump: nothing to see until a setup moves
    f = model.frame(setup=TWO_FRESH)
    assert facts(f) == {"setup": TWO_FRESH, "crash": 3, "delay": MIN, "jobs": 11, "slots": 10, "duplicates": 1,
                        "twins": {T0 + 2 * SLOT: (("JOB0SUcTgkt1v6", T0 + 2 * SLOT),
                                                  ("JOB0SUcY7S3MI4", T0 + 2 * SLOT + MIN))},
                        "refused": (), "lost": 0, "unserved": ()}
    assert f.title == "two-step, fresh ids: crash after fire 3"
    assert f.released[:5] == ((T0, 1), (T0 + SLOT, 2), (T0 + 2 * SLOT, 3), (T0 + 2 * SLOT + MIN, 4),
                              (T0 + 3 * SLOT, 5))
    assert f.slots[3] == (T0 + 2 * SLOT, 4)
    assert f.twins == ((T0 + 2 * SLOT + MIN, 4),)
    assert f.twin_links == (((T0 + 2 * SLOT, 3), (T0 + 2 * SLOT, 4)),)
    assert f.lag == (((T0 + 2 * SLOT, 4), (T0 + 2 * SLOT + MIN, 4)),)
    assert (f.refused, f.unserved) == ((), ())
    assert f.ids == (("JOB0SUcTgkt1v6", T0 + 2 * SLOT + 3 * MIN, 3, "left"),
                     ("JOB0SUcY7S3MI4", T0 + 2 * SLOT + MIN + 3 * MIN, 4, "left"))
    assert (f.crashed, f.restarted, f.restart_text) == (T0 + 2 * SLOT, T0 + 2 * SLOT + MIN, " restart 09:31")
    assert f.layout.window == (T0 - 5 * MIN, T0 + 9 * SLOT + 10 * MIN)
    assert f.layout.grid == tuple(T0 + k * SLOT for k in range(10))
    assert (f.layout.tick, f.layout.rows) == (2 * SLOT, 11)


def test_readouts_the_notebook_prints(model):
    """The facts of the five readouts the notebook prints: (jobs, slots, duplicates, refused
    re-fires, lost, slots with no job) per setup, restart 1 min and 20 min after fire 3."""
    def counts(setup, delay):
        f = facts(model.frame(crash=3, setup=setup, delay=delay), 3, delay)
        return f["jobs"], f["slots"], f["duplicates"], f["refused"], f["lost"], f["unserved"]
    at_0930, at_0945 = T0 + 2 * SLOT, T0 + 3 * SLOT
    assert [counts(d, MIN) for d in lf.VIEW_SETUPS][1:] == [
        (10, 10, 0, ((at_0930, at_0930 + MIN),), 0, ()),
        (10, 10, 0, (), 0, ())]
    assert [counts(d, 20 * MIN) for d in lf.VIEW_SETUPS] == [
        (10, 9, 1, (), 0, (at_0945,)),
        (9, 9, 0, ((at_0930, at_0930 + 20 * MIN),), 0, (at_0945,)),
        (10, 10, 0, (), 0, ())]
    twins = facts(model.frame(crash=3, setup=lf.VIEW_SETUPS[0], delay=20 * MIN))["twins"]
    assert twins == {at_0930: (("JOB0SUcTgkt1v6", at_0930), ("JOB0SUduIgDbKS", at_0930 + 20 * MIN))}


@pytest.mark.parametrize("setup, crash, delay", [(TWO_FRESH, 3, MIN), (TWO_FRESH, 3, 20 * MIN),
                                                 (TWO_SLOT, 5, 5 * MIN), (ATOM_FRESH, 8, 10 * MIN)])
def test_the_readout_states_its_facts(model, setup, crash, delay):
    """The one test of the readout's words: every fact `crash_facts` holds is in the text."""
    f = model.frame(crash=crash, setup=setup, delay=delay)
    got, text = facts(f, crash, delay), f.readout
    assert text.startswith(f"{setup}, crash after fire {crash}, restart {lf.format_duration(delay)} later: "
                           f"{got['jobs']} jobs for {got['slots']} slots")
    assert f"  {got['duplicates']} duplicate" in text and re.search(rf"\s{got['lost']}\slost \(", text)
    for slot, ids in got["twins"].items():
        assert f"slot {hm(slot)} as " in text and all(f"{j} released {hms(t)}" in text for j, t in ids)
    for slot, t in got["refused"]:
        assert f"the re-fire of slot {hm(slot)} at {hms(t)} found its job id taken" in text
    assert all(f"{hm(s)} never runs" in text for s in got["unserved"])
    assert text.count("\n") == 2 + len(got["refused"]) + bool(got["unserved"])


def test_the_duplicate_sits_under_the_count_it_explains(model):
    """Issue 28: "10 jobs for 9 slots ... 0 lost; no job at all for 09:45" on one line read as a
    contradiction. The duplicate sits under the count it explains (the slot with no job: see
    `test_a_count_of_nothing_lost_names_the_slot_that_got_no_job`)."""
    lines = model.frame(crash=3, setup=lf.VIEW_SETUPS[0], delay=20 * MIN).readout.splitlines()
    assert lines[0].endswith("10 jobs for 9 slots") and lines[1].startswith("  1 duplicate: slot 09:30")


def test_slot_ids_frame(model):
    f = model.frame(crash=5, setup=TWO_SLOT, delay=5 * MIN)
    assert {k: facts(f, 5, 5 * MIN)[k] for k in ("jobs", "slots", "duplicates", "refused", "lost")} == {
        "jobs": 10, "slots": 10, "duplicates": 0, "refused": ((T0 + 4 * SLOT, T0 + 4 * SLOT + 5 * MIN),), "lost": 0}
    assert f.refused == ((T0 + 4 * SLOT + 5 * MIN, 5),)
    assert (f.twins, f.twin_links) == ((), ())
    assert [label for label, *_ in f.ids] == ["", ""]


def test_atomic_frame(model):
    f = model.frame(crash=8, setup=ATOM_FRESH, delay=10 * MIN)
    assert {k: facts(f, 8, 10 * MIN)[k] for k in ("jobs", "slots", "duplicates", "refused", "lost", "unserved")} == {
        "jobs": 10, "slots": 10, "duplicates": 0, "refused": (), "lost": 0, "unserved": ()}
    assert [x for x, _ in f.released] == [T0 + k * SLOT for k in range(10)]
    assert f.restarted == T0 + 7 * SLOT + 10 * MIN


def test_slot_with_no_job_frame(model):
    f = model.frame(crash=3, setup=TWO_FRESH, delay=20 * MIN)
    assert (facts(f)["unserved"], facts(f)["lost"]) == ((T0 + 3 * SLOT,), 0)   # the row never held 09:45
    assert f.readout.endswith("\n  09:45 never runs: the row went from 09:30 straight to 10:00, so no job was made "
                              "for it\n  0\u00a0lost (slots the row held and passed over with no job); 09:45 is "
                              "not counted: the row never held it")
    assert f.unserved == ((T0 + 3 * SLOT, 0.5),)
    assert (f.crashed, f.restarted - f.crashed) == (T0 + 2 * SLOT, 20 * MIN)


def test_a_late_duplicate_is_labelled_to_its_left(model):
    f = model.frame(crash=8, setup=TWO_FRESH, delay=0)
    assert f.ids[1] == ("JOB0SUhpyyNfhh", T0 + 7 * SLOT - 3 * MIN, 9, "right")
    assert f.readout.startswith("two-step, fresh ids, crash after fire 8, restart 0 s later: 11 jobs for 10 slots\n")


def test_the_model_is_lazy(monkeypatch):
    """Building the model runs nothing; a frame is one engine run, made once."""
    calls = []
    real = lf.crash_run
    monkeypatch.setattr(lf, "crash_run", lambda *a, **kw: calls.append(a) or real(*a, **kw))
    m = lf.FaultsModel()
    assert calls == []
    m.frame()
    m.frame(crash=3)
    assert calls == [(3, "atomic, fresh ids", MIN)]
    m.frame(delay=0)
    assert calls[1:] == [(3, "atomic, fresh ids", 0)]


@pytest.mark.parametrize("bad, names", [
    ({"crash": 9}, ["crash", "9", "1, 2, 3, 4, 5, 6, 7, 8"]),
    ({"crash": 3.0}, ["crash", "3.0", "1, 2, 3, 4, 5, 6, 7, 8"]),
    ({"setup": ATOM_SLOT}, ["setup", "'atomic, slot ids'", "two-step, fresh ids", "atomic, fresh ids"]),
    ({"delay": 2 * MIN}, ["restart after", "120000", "0", "60000", "300000", "600000", "1200000"]),
    ({"speed": 1}, ["no control 'speed'"]),
])
def test_bad_values_leave_the_figure_as_it_was(bad, names):
    """One InputError naming the value and what is accepted; a good value given with it is not kept."""
    import matplotlib

    matplotlib.use("Agg")
    fig = figure(TITLE)
    fig.update(crash=5)
    before, frame = dict(fig.values), fig.frame
    with pytest.raises(InputError) as err:
        fig.update(crash=2, **bad) if "crash" not in bad else fig.update(delay=0, **bad)
    assert all(name in str(err.value) for name in names), str(err.value)
    assert (fig.values, fig.frame) == (before, frame)


def test_every_reachable_frame_fits_the_layout(model):
    """At most one job more than the slots shown: the rows the view sets aside are enough."""
    combos, _ = model.reachable()
    frames = [model.frame(**values) for values in combos]
    assert max(len(f.released) for f in frames) == model.layout.rows == 11
    assert all(max(x for x, _ in f.released) <= model.layout.window[1] for f in frames)


def test_bullmq_logs_duplicated_only_for_the_current_job():
    """Notebook 06: bullmq 6.7.0's dist/cjs/commands/updateJobScheduler-12.lua XADDs the
    `duplicated` event only inside `if producerId == currentDelayedJobId`, in the branch where
    the next job's key exists already; a producer that is not the row's current job gets no
    write and no event. Read from the pinned package (tests/oracles/package.json)."""
    import json
    from pathlib import Path

    bullmq = Path(__file__).resolve().parent / "oracles" / "node_modules" / "bullmq"
    if not bullmq.exists():
        pytest.skip("tests/oracles/node_modules not installed (npm ci in tests/oracles)")
    assert json.loads((bullmq / "package.json").read_text())["version"] == "6.7.0"
    lines = (bullmq / "dist" / "cjs" / "commands" / "updateJobScheduler-12.lua").read_text().splitlines()

    def block(opener: str) -> list[str]:
        """The lines of the if-block opened by `opener`, to its `end` at the same indent."""
        i = next(n for n, line in enumerate(lines) if line.strip() == opener)
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        j = next(n for n in range(i + 1, len(lines)) if lines[n] == indent + "end")
        return lines[i:j + 1]

    events = [n for n, line in enumerate(lines) if '"duplicated"' in line]
    assert len(events) == 1
    producer = block("if producerId == currentDelayedJobId then")
    assert lines[events[0]] in producer
    exists = block('if rcall("EXISTS", nextDelayedJobKey) ~= 1 then')
    assert set(exists) <= set(producer)
    branch = exists[exists.index(next(x for x in exists if x.strip() == "else")):]
    assert lines[events[0]] in branch


def test_apscheduler_fixed_id_with_replace_existing_keeps_one_job():
    """Notebook 06's table: APScheduler 3 (live, the installed 3.x) keeps one job per fixed id
    when it is added again with replace_existing=True, and refuses the id without it: the
    schedule is unique, not the run."""
    apscheduler = pytest.importorskip("apscheduler")
    from apscheduler.jobstores.base import ConflictingIdError
    from apscheduler.schedulers.background import BackgroundScheduler

    assert apscheduler.__version__.startswith("3.")
    sched = BackgroundScheduler(timezone="UTC")
    sched.start(paused=True)  # paused: nothing runs, the job store answers
    try:
        sched.add_job(print, "interval", minutes=15, id="reports", replace_existing=True)
        sched.add_job(print, "interval", minutes=5, id="reports", replace_existing=True)
        jobs = sched.get_jobs()
        assert [(j.id, j.trigger.interval.total_seconds()) for j in jobs] == [("reports", 300.0)]
        with pytest.raises(ConflictingIdError):
            sched.add_job(print, "interval", minutes=5, id="reports")
    finally:
        sched.shutdown(wait=False)


def test_two_pumps_duplicate_a_slot_only_inside_the_window():
    """Issue 28: two two-step pumps with fresh ids duplicate a slot only when one's due read falls
    between the other's read and its advance; outside that window the second sees the row moved."""
    from emqsim.lessons.faults import two_pump_window
    lines = two_pump_window(latency=20, gaps=(0, 19, 20, 500)).splitlines()[1:]
    assert [line.rsplit(": ", 1)[1] for line in lines] == [
        "2 jobs for the 09:00 slot", "2 jobs for the 09:00 slot", "1 job for the 09:00 slot", "1 job for the 09:00 slot"]
    assert two_pump_window(latency=100, gaps=(99,)).splitlines()[1].endswith("2 jobs for the 09:00 slot")
    import json
    from pathlib import Path
    cells = json.loads((Path(__file__).resolve().parents[1] / "notebooks" / "06_faults.ipynb").read_text())["cells"]
    text = " ".join("".join(next(c for c in cells if c["id"] == "b95a304a")["source"]).split())
    assert "without any crash, on every slot" not in text and "lockstep" in text


def test_q3_feedback_says_which_rule_moves_the_row(model):
    """Issue 28: 06's third question credited "the snap" to the lane labelled EchoMQ's pump. The
    lane runs the slot rule (prev + every, snapped); EchoMQ's own release rule gives 10:35 next.
    Both leave 10:15 without a job, which the engine shows for each rule."""
    from emqsim.engine.cadence import Every
    from emqsim.engine.faults import Faults
    from emqsim.engine.pump import Pump
    from emqsim.engine.schedule import Schedule
    from emqsim.engine.sim import PumpDesign
    from emqsim.engine.timefmt import hm
    q = next(q for q in lf.FaultsModel.questions if q.id == "06-fresh-ids-long-down")
    said = q.option("0").why
    nexts = {}
    for rule in ("schedule", "release"):
        with PumpDesign(Schedule(lf.NAME, Every("15m"), rule=rule), start=lf.START,
                        faults=Faults(crash_after_enqueue=5, restart_after=20 * MIN),
                        pump=Pump(mode="two-step", ids="fresh")) as sim:
            slots = [hm(f.slot) for f in sim.run(until=lf.START + 120 * MIN)]
        assert "10:15" not in slots
        nexts[rule] = slots[slots.index("10:00") + 2]
    assert nexts == {"schedule": "10:30", "release": "10:35"}
    assert "moves on past 10:15 to 10:30" in said and "now + every would move it to 10:35" in said


def test_a_count_of_nothing_lost_names_the_slot_that_got_no_job(model):
    """Student review: 06's third Show me (fresh ids, down 20 min after fire 5) read "0 lost" on one
    line and the 10:15 slot with no job on another: a first-time reader took it for a
    contradiction. Wherever a slot gets no job, the line that counts what was lost names that slot
    and says it never runs; the Show me frame says so in these words."""
    combos, _ = model.reachable()
    with_gap = []
    for values in combos:
        f = model.frame(**values)
        if not f.run.unserved:
            continue
        with_gap.append((values["setup"], values["delay"]))
        said = [line for line in f.readout.splitlines() if re.search(r"\slost\b", line)]
        # one slot each time (down 20 min of a 15 min cadence), named as the one the count leaves out
        (slot,) = f.run.unserved
        assert said == [f"  0\u00a0lost (slots the row held and passed over with no job); {hm(slot)} is not counted: "
                        "the row never held it"], values
    # both two-step setups, down 20 min, at every crash point
    assert sorted(with_gap) == [(TWO_FRESH, 20 * MIN)] * 8 + [(TWO_SLOT, 20 * MIN)] * 8
    q = next(q for q in model.questions if q.id == "06-fresh-ids-long-down")
    assert q.frame(model).readout.splitlines()[-2:] == [
        "  10:15 never runs: the row went from 10:00 straight to 10:30, so no job was made for it",
        "  0\u00a0lost (slots the row held and passed over with no job); 10:15 is not counted: the row never held it"]


def test_a_slot_with_no_job_is_said_before_the_count_of_nothing_lost(model):
    """h66r (issue 30): "0 lost, but 10:30 never runs: the row went from 10:15 straight to
    10:45 ..." opened with a seeming contradiction, nothing lost and then a slot that never runs.
    Wherever a slot gets no job, the readout's line and the figure's description say first what
    happened to it, then the lost count, and the line says what the count counts, in the words of
    the line with no such slot."""
    combos, _ = model.reachable()
    seen = 0
    for values in combos:
        f = model.frame(**values)
        if not f.run.unserved:
            continue
        seen += 1
        lines = f.readout.splitlines()
        at = next(i for i, line in enumerate(lines) if re.search(r"\slost\b", line))
        first = min(lines[at - 1].index(f"{hm(s)} never run") for s in f.run.unserved)
        assert first == 2, (values, lines[at - 1])
        # h71r: "no job was made for it" and then "0 lost" still read as a contradiction; the count's
        # line names the slot it leaves out and why
        assert lines[at].startswith(f"  {f.run.lost}\u00a0lost (slots the row held and passed over with no job); "), values
        assert all(f"{hm(s)} is not counted: the row never held it" in lines[at] for s in f.run.unserved), values
        said = model.describe(f)
        gap = f.run.unserved[0]
        assert " lost, but " not in said and said.index("never run") < said.index(
            f"; {f.run.lost} lost (the row never held {hm(gap)}, so it is not counted)."), values
    assert seen == 16
