"""The "watch it move" strips as data (issue 30, item 9): where each job is at named moments, read
off the engine's own traces (release, start, finish, the take that makes BullMQ's next job, a
skip's instant), and the words that say it."""

from __future__ import annotations

import pytest

from emqsim.engine.trace import Fire
from emqsim.lessons import motion
from emqsim.lessons.course import EVERY, MINUTE, START
from emqsim.lessons.motion import (CANCEL, FINISH, MAKE, REGISTER, RELEASE, TAKE, TAKE_WAITED, Moment, bullmq_moves,
                                   lane_at, pump_moves)
from emqsim.lessons.overlap import POLICIES


@pytest.fixture(scope="module")
def journey():
    return motion.JourneyModel()


@pytest.fixture(scope="module")
def pile():
    return motion.PileUpModel()


def at(model, moment: Moment):
    return model.frame(step=model.step_of(moment))


def where(frame, lane: str) -> dict[str, str]:
    """{job's label: its place} in one lane."""
    return {t.label: t.place for t in next(x for x in frame.lanes if x.name == lane).tokens}


# -- 02: one job's journey in both designs ---------------------------------------------------

def test_the_journey_follows_the_traces_times(journey):
    pump, bull = motion.journey_traces()
    first = pump[0]
    assert (first.released, first.started, first.finished) == (START, START, START + 4 * MINUTE)
    # 09:00 registered: the pump's row says 09:00 (no job yet); BullMQ's upsert made the job, due now
    f = at(journey, Moment(START, REGISTER))
    assert where(f, "pump") == {"09:00": "registry"} and where(f, "BullMQ") == {"09:00": "wait"}
    # the release: the pump's job enters the wait list, the row moves on to 09:15
    f = at(journey, Moment(first.released, RELEASE))
    assert where(f, "pump") == {"09:15": "registry", "09:00": "wait"}
    assert next(t for t in f.lanes[0].tokens if t.label == "09:00").came_from == "registry"
    # an idle worker takes it in the same millisecond, one step later
    f = at(journey, Moment(first.started, TAKE))
    assert where(f, "pump")["09:00"] == where(f, "BullMQ")["09:00"] == "worker"
    # BullMQ's take makes the next job, delayed until 09:15; the pump has only its row
    f = at(journey, Moment(bull[0].started, MAKE))
    assert where(f, "BullMQ") == {"09:15": "delayed", "09:00": "worker"}
    assert where(f, "pump") == {"09:15": "registry", "09:00": "worker"}
    # the run ends 4 min later: done in both
    f = at(journey, Moment(first.finished, FINISH))
    assert where(f, "pump")["09:00"] == where(f, "BullMQ")["09:00"] == "done"
    # 09:15: the delayed job enters the wait list; the pump makes its job now
    f = at(journey, Moment(bull[1].released, RELEASE))
    assert where(f, "BullMQ")["09:15"] == "wait" and where(f, "pump")["09:15"] == "wait"
    assert where(f, "pump")["09:30"] == "registry" and "09:30" not in where(f, "BullMQ")


def test_the_journey_moments_and_slider(journey):
    labels = [m.label() for m in journey.moments]
    assert labels == ["09:00 register", "09:00 release", "09:00 take", "09:00 make", "09:04 end", "09:15 release",
                      "09:15 take", "09:15 make", "09:19 end"]
    assert journey.controls[0].play is not None and journey.main().name == "step"


def test_the_places_are_named_after_the_recorded_walks_keys():
    from emqsim.lessons.script_steps import frames

    assert motion.key_names("pump") == {"registry": "repeat", "wait": "pending"}
    assert motion.key_names("bullmq") == {"delayed": "delayed", "wait": "wait", "worker": "active",
                                          "done": "completed"}
    for design in ("pump", "bullmq"):
        keys = {k.key.rsplit(":", 1)[-1] for f in frames(design) for k in f.keys}
        assert set(motion.key_names(design).values()) <= keys


def test_the_readout_says_where_each_job_is_in_one_line_a_lane(journey):
    f = journey.frame(step=3)
    assert f.readout.splitlines() == [
        "09:00: BullMQ: 09:15 is made, in the delayed set",
        "pump: 09:15 next in the registry; 09:00 at a worker",
        "BullMQ: 09:15 in the delayed set; 09:00 at a worker"]
    assert journey.describe(f) == ("At 09:00 make: pump 09:15 next in the registry, 09:00 at a worker; "
                                   "BullMQ 09:15 in the delayed set, 09:00 at a worker.")



def test_the_readout_says_each_move_once_with_its_lanes(pile):
    """05's five lanes each named the same move ("allow: 09:00 enters the wait list; skip: 09:00
    enters the wait list; ..."), 187 characters, and the readout kept room for the longest: a
    blank under the picture (issue 30). A move is said once, with the lanes it happened in, and
    "every lane" when all five share it."""
    first = pile.frame(step=1).readout.splitlines()[0]
    assert first == "09:00: every lane: 09:00 enters the wait list"
    for step in range(len(pile.moments)):
        clauses = pile.frame(step=step).readout.splitlines()[0].split(": ", 1)[1:]
        moves = [c.split(": ", 1)[-1] for c in "".join(clauses).split("; ")] if clauses else []
        assert len(moves) == len(set(moves)), (step, moves)

# -- 05: runs that outlast the period ----------------------------------------------------------

def test_at_the_second_release_each_policy_does_its_own_thing(pile):
    slot = START + EVERY     # 09:15, while the 20-min run of 09:00 is going
    f = at(pile, Moment(slot, RELEASE))
    assert where(f, "allow")["09:15"] == "wait"
    assert where(f, "buffer-one")["09:15"] == "wait"
    assert where(f, "skip")["09:15"] == "dropped"
    assert where(f, "forbid")["09:15"] == "registry"         # refused: the row stays due
    forbid = next(x for x in f.lanes if x.name == "forbid")
    assert forbid.at(slot).note == "refused" and "09:15 in the registry, due (refused)" in forbid.line
    # replace's release comes first, its cancel of the running 09:00 after it (h64r: the cancel
    # showed as an "end" before the release that caused it)
    assert where(f, "replace") == {"09:30": "registry", "09:15": "wait", "09:00": "worker"}
    f = at(pile, Moment(slot, CANCEL))
    assert where(f, "replace") == {"09:30": "registry", "09:15": "wait", "09:00": "dropped"}
    f = at(pile, Moment(slot, TAKE))
    assert next(x for x in f.lanes if x.name == "allow").count("worker") == 2
    assert where(f, "buffer-one")["09:15"] == "wait" and where(f, "buffer-one")["09:00"] == "worker"
    # 09:20, the 09:00 run ends: buffer-one's waiting job is taken, forbid makes its job then
    f = at(pile, Moment(slot + 5 * MINUTE, TAKE_WAITED))
    assert where(f, "buffer-one")["09:15"] == "worker" and where(f, "forbid")["09:15"] == "registry"
    f = at(pile, Moment(slot + 5 * MINUTE, TAKE))
    assert where(f, "forbid")["09:15"] == "worker"


def test_every_token_is_where_its_trace_puts_it(pile):
    for policy in POLICIES:
        fires, skips = motion.pile_trace(policy)
        for fire in fires:
            if fire.started > pile.end:
                continue
            taken = TAKE if fire.started == fire.released else TAKE_WAITED
            assert where(at(pile, Moment(fire.started, taken)), policy)[motion.hm(fire.slot)] == "worker"
            if fire.finished <= pile.end:
                end = where(at(pile, Moment(fire.finished, CANCEL if fire.cancelled else FINISH)),
                            policy)[motion.hm(fire.slot)]
                assert end == ("dropped" if fire.cancelled else "done"), (policy, fire)
        for slot, when, _ in skips:
            if when <= pile.end and slot not in {f.slot for f in fires}:
                assert where(at(pile, Moment(when, RELEASE)), policy)[motion.hm(slot)] == "dropped"


def test_buffer_one_never_shows_two_jobs_waiting(pile):
    """A waiting job is taken before the release of the same instant is made (at 10:00 the 09:45
    job leaves the wait list as the 10:00 one enters): with the release first, buffer-one showed
    two waiting, which it never holds."""
    counts = [next(x for x in pile.frame(step=k).lanes if x.name == "buffer-one").count("wait")
              for k in range(len(pile.moments))]
    assert max(counts) == 1 and counts.count(1) > 3


def test_the_challenges_hold_at_the_moments_they_name(journey, pile):
    assert [m.label() for m, k in zip(journey.moments, range(99))
            if journey.challenge.check(journey.frame(step=k))][0] == "09:15 release"
    met = [pile.moments[k].label() for k in range(len(pile.moments)) if pile.challenge.check(pile.frame(step=k))]
    assert met[0] == "09:15 take"


# -- the moves, without the engine -------------------------------------------------------------

def _fire(n, slot, released, started, finished, cancelled=False):
    return Fire(n, "r", slot, released, started, finished, f"J{n}", cancelled=cancelled)


def test_pump_moves_from_a_made_up_trace():
    fires = [_fire(1, 0, 0, 0, 10), _fire(2, 15, 20, 30, 35, cancelled=True)]
    moves = pump_moves(fires, [(15, 15, "overlap")], start=0, every=15, end=100)
    assert [(m.moment.at, m.moment.phase, m.slot, m.place, m.note) for m in moves] == [
        (0, REGISTER, 0, "registry", ""), (0, RELEASE, 0, "wait", ""), (0, RELEASE, 15, "registry", ""),
        (0, TAKE, 0, "worker", ""), (10, FINISH, 0, "done", ""), (15, RELEASE, 15, "registry", "refused"),
        (20, RELEASE, 15, "wait", ""), (20, RELEASE, 30, "registry", ""), (30, TAKE_WAITED, 15, "worker", ""),
        (35, CANCEL, 15, "dropped", "cancelled")]
    lane = lane_at("p", (("registry", ""), ("wait", ""), ("worker", ""), ("done", ""), ("dropped", "")), moves,
                   Moment(20, RELEASE), Moment(15, RELEASE))
    # at 20 the row's 30 is new in the registry, 15 has just left it for the wait list, 0 is done
    assert [(t.slot, t.place, t.came_from, t.note) for t in lane.tokens] == [
        (30, "registry", "new", ""), (15, "wait", "registry", ""), (0, "done", None, "")]


def test_bullmq_moves_from_a_made_up_trace():
    fires = [_fire(1, 0, 0, 0, 4), _fire(2, 15, 15, 16, 20)]
    moves = bullmq_moves(fires, start=0)
    assert [(m.moment.at, m.moment.phase, m.slot, m.place) for m in moves] == [
        (0, REGISTER, 0, "wait"), (0, TAKE, 0, "worker"), (0, MAKE, 15, "delayed"), (4, FINISH, 0, "done"),
        (15, RELEASE, 15, "wait"), (16, TAKE_WAITED, 15, "worker"), (20, FINISH, 15, "done")]


@pytest.mark.parametrize("strip", ["journey", "pile"])
def test_every_step_moves_or_changes_a_token(strip, request):
    """No two neighbouring moments show the same tokens in the same places (a ring aside): 02's
    Play spent about half its time on clock steps where nothing moved, 09:02 to 09:14 still
    (issue 30). Each moment's label still says its own time."""
    model = request.getfixturevalue(strip)
    shown = [tuple((lane.name, t.slot, t.label, t.place, t.rank, t.note) for lane in model.frame(step=k).lanes
                   for t in lane.tokens) for k in range(len(model.moments))]
    assert all(a != b for a, b in zip(shown, shown[1:])), [model.moments[k].label() for k in range(1, len(shown))
                                                           if shown[k] == shown[k - 1]]
    assert all(model.frame(step=k).title.startswith(motion.hm(m.at)) for k, m in enumerate(model.moments))


def test_a_job_keeps_its_workers_row(pile):
    """A job at a worker keeps its worker's row until it leaves, and the next job taken gets the
    topmost free row; the arrow of a job leaving starts at the row it had: in allow's workers box
    the 09:15 job slid up into the row the 09:00 job left at '09:20 end', under the arrow leaving
    it, and read as 09:15 finishing (issue 30)."""
    def workers(label: str) -> list[tuple[str, int]]:
        step = next(k for k, m in enumerate(pile.moments) if m.label() == label)
        lane = next(x for x in pile.frame(step=step).lanes if x.name == "allow")
        return [(t.label, t.rank) for t in lane.tokens if t.place == "worker"]

    assert workers("09:15 take") == [("09:00", 0), ("09:15", 1)]
    assert workers("09:20 end") == [("09:15", 1)]
    assert workers("09:30 take") == [("09:30", 0), ("09:15", 1)]
    assert workers("09:35 end") == [("09:30", 0)]
    step = next(k for k, m in enumerate(pile.moments) if m.label() == "09:35 end")
    done = next(t for x in pile.frame(step=step).lanes if x.name == "allow" for t in x.tokens if t.label == "09:15")
    assert (done.place, done.came_from, done.came_rank, done.came_among) == ("done", "worker", 1, 2)
