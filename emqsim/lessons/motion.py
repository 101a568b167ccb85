"""Jobs as tokens: where each job of a lesson's run is at each moment, for a "watch it move" strip.

A static chart shows a run's outcome; a first-time reader also wants to see the path: a row in
the registry becomes a job in the wait list, a worker takes it, it is done. This module turns an
engine trace into that path. Every token's place at every moment comes from the trace's own
times (a job's release, start and finish; in BullMQ's design the pickup that made it; a skip's
instant), never from a hand-made table.

Several things happen at one instant (at 09:00 the pump releases the job and an idle worker
takes it in the same millisecond), so a moment is an instant and a phase: what happens first at
that instant comes first (`PHASES`). The slider walks only the moments where a token moves or
changes, each labelled with its own time: clock steps between them held the picture still for
half of Play's run (issue 30), so each press of Play is one small move.

Two strips: lesson 02's (`JourneyModel`), the course's schedule in the pump design and in
BullMQ's, each place named after the key that holds it in the recorded walks of
`script_steps` (the keys step by step); lesson 05's (`PileUpModel`), runs of 20 min every
15 min under each overlap policy, four workers a lane, as the page's first figure runs them.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..engine.cadence import Every
from ..engine.pump import Pump
from ..engine.schedule import Schedule
from ..engine.sim import PumpDesign
from ..engine.timefmt import hm
from ..engine.worker import Worker
from .course import EVERY, MINUTE, NAME, START
from .designs import compare
from .model import Model, Play, slider
from .questions import Challenge

#: what happens first at one instant: the schedule is registered, a run ends (freeing its
#: worker), a job that waited is taken, a release makes a job (or is refused), a worker takes the
#: job just released, and in BullMQ's design that take makes the next job. A waiting job taken
#: before the release at the same instant: a policy that holds one job (`buffer-one`) never
#: shows two waiting. A run cancelled by a release (`replace`) is cancelled after it, which is
#: its cause, and before the new job is taken (it showed as "end", before the release, h64r)
PHASES = ("register", "end", "take (waited)", "release", "cancel", "take", "make")
REGISTER, FINISH, TAKE_WAITED, RELEASE, CANCEL, TAKE, MAKE = range(len(PHASES))

#: the places a token can be, and how the readout says a token is there
WHERE = {
    "registry": "next in the registry",
    "delayed": "in the delayed set",
    "wait": "in the wait list",
    "worker": "at a worker",
    "done": "done",
    "dropped": "dropped",
}
#: how the alt text counts the tokens in a place
SHORT = {"delayed": "delayed", "wait": "waiting", "worker": "at workers", "done": "done", "dropped": "dropped"}
#: the verb of a move into a place, for the moment's title
MOVE = {"registry": "is next in the registry", "delayed": "is made, in the delayed set", "wait": "enters the wait list",
        "worker": "is taken by a worker", "done": "is done", "dropped": "is dropped"}


@dataclass(frozen=True, order=True)
class Moment:
    """An instant (Unix ms) and a phase (`PHASES` index)."""

    at: int
    phase: int

    def label(self) -> str:
        return f"{hm(self.at)} {PHASES[self.phase]}"


@dataclass(frozen=True)
class Move:
    """A token enters `place` at `moment`; `note` says why where the place alone does not
    ("refused", "skipped", "cancelled")."""

    moment: Moment
    slot: int
    place: str
    note: str = ""


@dataclass(frozen=True)
class Token:
    """A job (or the registry's next run) at one moment: its slot, its label, where it is, its
    rank there (its row: oldest first, at a worker its worker's, `SEATED`), where it came from if
    it just moved, and a note.
    A token that moved also says its rank in the place it left and how many were there then
    (`came_rank`, `came_among`): the view starts its arrow where it was drawn."""

    slot: int
    label: str
    place: str
    rank: int
    came_from: str | None
    note: str = ""
    came_rank: int = 0
    came_among: int = 0

    def state(self) -> tuple:
        """What a reader sees of the token, its move aside: two moments alike in every token's
        state show the same picture but for the rings."""
        return self.slot, self.label, self.place, self.rank, self.note


@dataclass(frozen=True)
class LaneFrame:
    """One lane at one moment: its name, its places (place, key or heading), the tokens, and
    one line saying where each job is."""

    name: str
    places: tuple[tuple[str, str], ...]
    tokens: tuple[Token, ...]
    line: str

    def at(self, slot: int) -> Token | None:
        """The token of `slot`, if it exists at this moment."""
        return next((t for t in self.tokens if t.slot == slot), None)

    def count(self, place: str) -> int:
        return sum(t.place == place for t in self.tokens)


@dataclass(frozen=True)
class MotionFrame:
    step: int
    total: int
    moment: Moment
    headings: tuple[str, ...]    # each column's heading
    subtitle: str                # what the strip runs (the same at every moment)
    lanes: tuple[LaneFrame, ...]
    title: str
    readout: str


# -- the moves, from the traces ---------------------------------------------------------------

def _taken(fire) -> Moment:
    """When a worker takes the fire's job: at its release (after it) or later (a job that waited)."""
    return Moment(fire.started, TAKE if fire.started == fire.released else TAKE_WAITED)


def pump_moves(fires, skips=(), *, start: int = START, every: int = EVERY, end: int | None = None) -> list[Move]:
    """A pump-design lane's moves: the row's next run sits in the registry from the moment the
    run before it left; a release moves it to the wait list, a take to a worker, the end of the
    run to done (or to dropped, cancelled). A refused release leaves the row due (noted
    "refused"); a slot refused for good is dropped at its refusal ("skipped"). `fires` are the
    trace's fires, `skips` its skip records (slot, at, why)."""
    produced = {f.slot for f in fires}
    moves = []
    left = []   # (moment the token leaves the registry, slot)
    for f in fires:
        left.append((Moment(f.released, RELEASE), f.slot))
        moves += [Move(Moment(f.released, RELEASE), f.slot, "wait"),
                  Move(_taken(f), f.slot, "worker"),
                  Move(Moment(f.finished, CANCEL if f.cancelled else FINISH), f.slot, "dropped" if f.cancelled else "done",
                       "cancelled" if f.cancelled else "")]
    for s in skips:
        slot, at = s[0], s[1]
        if slot in produced:
            moves.append(Move(Moment(at, RELEASE), slot, "registry", "refused"))
        else:
            moves.append(Move(Moment(at, RELEASE), slot, "dropped", "skipped"))
            left.append((Moment(at, RELEASE), slot))
    # the row: each slot is next in the registry from the moment the one before it left
    left.sort(key=lambda x: x[1])
    entered = Moment(start, REGISTER)
    for leaving, slot in left:
        moves.append(Move(entered, slot, "registry"))
        entered = leaving
    if left:
        following = left[-1][1] + every
        if end is None or following < end:
            moves.append(Move(entered, following, "registry"))
    return sorted(moves, key=lambda m: (m.moment, m.slot))


def bullmq_moves(fires, *, start: int = START) -> list[Move]:
    """A BullMQ-design lane's moves: the upsert makes the first job (due now: straight to the
    wait list); each take makes the next job, which waits in the delayed set until its slot,
    then enters the wait list and is taken; the run's end moves it to done."""
    moves = []
    made = Moment(start, REGISTER)
    for f in fires:
        if made.at < f.released:
            moves.append(Move(made, f.slot, "delayed"))
            moves.append(Move(Moment(f.released, RELEASE), f.slot, "wait"))
        else:
            moves.append(Move(made, f.slot, "wait"))
        moves += [Move(_taken(f), f.slot, "worker"), Move(Moment(f.finished, FINISH), f.slot, "done")]
        made = Moment(f.started, MAKE)
    return sorted(moves, key=lambda m: (m.moment, m.slot))


def moments(lanes, *, start: int, end: int) -> tuple[Moment, ...]:
    """Every moment a token moves, from `start` to `end`: no clock step between them (a
    picture where nothing moves, about 3 s of stillness in 02's Play, issue 30)."""
    return tuple(sorted({m.moment for moves in lanes for m in moves if start <= m.moment.at <= end}))


#: the places whose rows are things that stay put, a worker each: a job keeps the row of the
#: worker that took it until it leaves, and the next job taken gets the topmost free one. With
#: a box stacked oldest first, the job left at a worker slid up into the row of the one that
#: finished, under the arrow leaving that row: 05's allow read as 09:15 finishing (issue 30)
SEATED = ("worker",)


def _seats(moves: list[Move], upto: Moment) -> dict[int, int]:
    """The worker row of each job at a `SEATED` place at `upto`: the moves replayed in order,
    each job taken into the topmost row free then."""
    seat: dict[int, int] = {}
    for m in sorted(moves, key=lambda m: (m.moment, m.slot)):
        if m.moment > upto:
            break
        seat.pop(m.slot, None)
        if m.place in SEATED:
            seat[m.slot] = min(set(range(len(seat) + 1)) - set(seat.values()))
    return seat


def lane_at(name: str, places, moves: list[Move], at: Moment, before: Moment | None, *,
            labels=None) -> LaneFrame:
    """Where each token of a lane is at moment `at` (and was at `before`, to show its move). A
    token's rank is its row in its box: oldest first, but at a worker the row of its worker
    (`SEATED`)."""
    now, then, note = {}, {}, {}
    for m in moves:
        if m.moment <= at:
            now[m.slot] = m.place
            note[m.slot] = m.note
        if before is not None and m.moment <= before:
            then[m.slot] = m.place
    seat_now = _seats(moves, at)
    seat_then = _seats(moves, before) if before is not None else {}
    order = {p: i for i, (p, _) in enumerate(places)}
    tokens = []
    for place, _ in places:
        here = sorted(s for s, p in now.items() if p == place)
        for rank, slot in enumerate(here):
            was = then.get(slot)
            moved = was if was != place else None
            if before is not None and slot not in then:
                moved = "new"
            label = (labels or {}).get(slot, hm(slot))
            left = sorted(s for s, p in then.items() if p == was) if moved not in (None, "new") else []
            came = (seat_then[slot] if was in SEATED else left.index(slot)) if left else 0
            tokens.append(Token(slot, label, place, seat_now[slot] if place in SEATED else rank, moved, note[slot],
                                came, len(left)))
    tokens.sort(key=lambda t: (order[t.place], t.rank))
    return LaneFrame(name, tuple(places), tuple(tokens), _line(name, tokens))


def _lane(frame: MotionFrame, name: str) -> LaneFrame:
    return next(lane for lane in frame.lanes if lane.name == name)


def _line(name: str, tokens) -> str:
    """'pump: 09:00 done; 09:15 at a worker; 09:30 in the registry (...)': done and dropped
    tokens counted once more than two have piled up."""
    parts = []
    for place in WHERE:
        here = [t for t in tokens if t.place == place]
        if not here:
            continue
        if place in ("done", "dropped") and len(here) > 2:
            parts.append(f"{len(here)} {place} ({', '.join(t.label for t in here)})")
            continue
        for t in here:
            note = f" ({t.note})" if t.note else ""
            where = "in the registry, due" if place == "registry" and t.note == "refused" else WHERE[place]
            parts.append(f"{t.label} {where}{note}")
    return f"{name}: " + ("; ".join(parts) if parts else "nothing yet")


def _title(at: Moment, lanes: tuple[LaneFrame, ...]) -> str:
    """What moved at this moment, in a few words ('09:15: the 09:15 job is taken by a worker'),
    each move said once with the lanes it happened in: 05's five lanes, each naming the same
    move, ran to 187 characters, and the readout kept room for its longest (issue 30: a blank
    under the picture that looked like a part not loaded)."""
    moved: dict[str, list[str]] = {}
    for lane in lanes:
        for t in lane.tokens:
            if t.came_from is not None and t.place != "registry":
                what = MOVE[t.place] if not t.note else f"is {t.note}"
                moved.setdefault(f"{t.label} {what}", []).append(lane.name)
            elif t.came_from is None and t.note == "refused" and at.phase == RELEASE and t.slot == at.at:
                moved.setdefault(f"{t.label} refused, kept due", []).append(lane.name)
    head = hm(at.at)
    if not moved:
        return head
    every = len(lanes) > 2
    return f"{head}: " + "; ".join(
        f"{'every lane' if every and len(names) == len(lanes) else ', '.join(dict.fromkeys(names))}: {what}"
        for what, names in moved.items())


class MotionModel(Model):
    """A minute slider (with Play) over the moments of a few lanes of tokens. A subclass gives
    `headings` and `lanes()`: (name, places, moves) per lane; positions come from the moves."""

    readout_id = "motion-readout"
    headings: tuple[str, ...] = ()
    start, end = START, START + 20 * MINUTE
    title = ""

    def __init__(self):
        super().__init__()
        self._moments = self._changes(moments([moves for _, _, moves in self.lanes()], start=self.start,
                                              end=self.end))
        n = len(self._moments)
        self.controls = (
            slider("step", range(n), 0, label="time", fmt=lambda k: self._moments[k].label(), main=True,
                   play=Play(step=1, max_step=3, interval=700, label="moves per step")),
        )

    def lanes(self) -> tuple:  # pragma: no cover - every strip defines it
        raise NotImplementedError

    def _changes(self, every: tuple[Moment, ...]) -> tuple[Moment, ...]:
        """`every` without the moments at which no token of any lane moves or changes (a move
        that leaves all as it was: a release refused again): Play would show the same picture."""
        kept, seen = [], None
        for at in every:
            state = tuple(t.state() for name, places, moves in self.lanes()
                          for t in lane_at(name, places, moves, at, None, labels=self.labels(name)).tokens)
            if state != seen:
                kept.append(at)
            seen = state
        return tuple(kept)

    @property
    def moments(self) -> tuple[Moment, ...]:
        return self._moments

    def step_of(self, moment: Moment) -> int:
        """The slider's position at `moment` (a test names the moments it checks)."""
        return self._moments.index(moment)

    def compute(self, step: int) -> MotionFrame:
        at = self._moments[step]
        before = self._moments[step - 1] if step else None
        lanes = tuple(lane_at(name, places, moves, at, before, labels=self.labels(name))
                      for name, places, moves in self.lanes())
        title = _title(at, lanes)
        readout = "\n".join([title] + [lane.line for lane in lanes])
        return MotionFrame(step, len(self._moments), at, self.headings, self.title, lanes, title, readout)

    def labels(self, lane: str) -> dict[int, str]:
        """A token's label by slot ({} for the slot's time): the jobs' own names where shown."""
        return {}

    #: the alt text counts the tokens of each place instead of naming them (many lanes)
    counted = False

    def describe(self, frame: MotionFrame) -> str:
        """'At 09:00 make: pump 09:15 next in the registry, 09:00 at a worker; BullMQ ...': where
        each job is, one clause a lane (with many lanes, how many are in each place)."""
        told = []
        for lane in frame.lanes:
            if self.counted:
                parts = [f"{lane.count(p)} {SHORT[p]}" for p in WHERE if p != "registry" and lane.count(p)]
            else:
                parts = [f"{t.label} {WHERE[t.place]}" for t in lane.tokens]
            told.append(f"{lane.name} " + (", ".join(parts) if parts else "no job yet"))
        return f"At {frame.moment.label()}: " + "; ".join(told) + "."


# -- lesson 02: one job's journey, in both designs --------------------------------------------

#: the course's run length in the walks (`script_steps.RUN`): 4 minutes
JOURNEY_RUN = "4m"
#: the key that holds each place in each design's recorded walk (by the end of its name)
KEY_OF = {"pump": {"registry": ":repeat", "wait": ":pending"},
          "bullmq": {"delayed": ":delayed", "wait": ":wait", "worker": ":active", "done": ":completed"}}


@functools.lru_cache(maxsize=2)
def key_names(design: str) -> dict[str, str]:
    """Each place's key in `design`'s recorded walk (`script_steps.frames`), its queue prefix
    taken off: the names the keys step by step show. A place held by no key of its own (the
    pump design's worker and done: fields of the job's hash) is left out."""
    from .script_steps import frames

    keys = {k.key for f in frames(design) for k in f.keys}
    out = {}
    for place, suffix in KEY_OF[design].items():
        found = sorted(k for k in keys if k.endswith(suffix))
        if found:
            out[place] = found[0].rsplit(":", 1)[-1]
    return out


@functools.lru_cache(maxsize=1)
def journey_traces(fires: int = 3):
    """`reports` (every 15 min from 09:00, runs of 4 min, one worker) in both designs: the
    engine's traces (`designs.compare`)."""
    c = compare(Schedule(NAME, Every(EVERY)), start=START, fires=fires, worker=Worker(run=JOURNEY_RUN))
    return tuple(c.pump), tuple(c.bullmq)


class JourneyModel(MotionModel):
    """Lesson 02: the course's schedule from 09:00 to 09:20, in the pump design (a row in the
    registry becomes a job at its release) and in BullMQ's (the next job is made at each take and
    waits in the delayed set)."""

    readout_id = "journey-readout"
    headings = ("next run", "wait list", "worker", "done")
    start, end = START, START + 20 * MINUTE
    title = "reports, every 15 min, runs of 4 min, one worker"
    challenge = Challenge(
        "02-pump-job-exists",
        "Stop Play (or step) where the pump design makes its 09:15 job (the diamond is a row, not a job).",
        # met at the making only: the new job sits in the wait list until a worker takes it
        met=lambda f: (t := _lane(f, "pump").at(START + EVERY)) is not None and t.place == "wait",
        explain="The pump makes its 09:15 job at 09:15, when it releases the row; BullMQ made its 09:15 job at 09:00, "
                "when the 09:00 one was taken.")

    def lanes(self):
        pump, bull = journey_traces()
        keys = {d: key_names(d) for d in ("pump", "bullmq")}
        pump_places = (("registry", keys["pump"].get("registry", "")), ("wait", keys["pump"].get("wait", "")),
                       ("worker", ""), ("done", ""))
        bull_places = (("delayed", keys["bullmq"].get("delayed", "")), ("wait", keys["bullmq"].get("wait", "")),
                       ("worker", keys["bullmq"].get("worker", "")), ("done", keys["bullmq"].get("done", "")))
        return (("pump", pump_places, pump_moves(pump, start=START, end=None)),
                ("BullMQ", bull_places, bullmq_moves(bull, start=START)))


# -- lesson 05: runs that outlast the period pile up -------------------------------------------

#: the strip's run length (the page's first figure's default) and its workers a lane
PILE_RUN = 20
PILE_WORKERS = 4


@functools.lru_cache(maxsize=8)
def pile_trace(policy: str, run: int = PILE_RUN, until: int = START + 8 * EVERY):
    """One overlap lane as lesson 05's figure runs it (`overlap.policy_runs`' schedule, pump and
    workers): its fires and its skip records (slot, at, why)."""
    from .overlap import lane

    worker = Worker(run=run * MINUTE, concurrency=PILE_WORKERS)
    with PumpDesign(Schedule(NAME, Every(EVERY), **lane(policy)), start=START, pump=Pump(mode="atomic"),
                    worker=worker) as sim:
        trace = sim.run(until=until)
    return tuple(trace), tuple(tuple(s) for s in trace.skip_records())


class PileUpModel(MotionModel):
    """Lesson 05: a release every 15 min, runs of 20 min, from 09:00 to 10:00, one lane per
    overlap policy: `allow` keeps two workers busy, `buffer-one` holds a job in the wait list,
    `skip` drops the release, `replace` cancels the running one, `forbid` keeps the row due
    in the registry and makes its job when the running one ends."""

    readout_id = "pile-up-readout"
    headings = ("registry", "wait list", "workers", "done", "dropped")
    start, end = START, START + 60 * MINUTE
    title = f"a release every 15 min, each run takes {PILE_RUN} min, {PILE_WORKERS} workers a lane"
    counted = True
    challenge = Challenge(
        "05-two-workers-busy",
        "Stop Play (or step) at the first moment `allow` keeps two workers busy.",
        # the first only: the last step has two busy too, and Play ended there (h69r)
        met=lambda f: _lane(f, "allow").count("worker") >= 2 and f.moment.at <= START + EVERY,
        explain="The 09:00 run takes 20 min, so at the 09:15 release `allow` starts a second worker; "
                "`skip` drops that release, `replace` cancels the old run.")

    def lanes(self):
        from .overlap import POLICIES

        places = tuple((p, "") for p in ("registry", "wait", "worker", "done", "dropped"))
        out = []
        for policy in POLICIES:
            fires, skips = pile_trace(policy)
            out.append((policy, places, pump_moves(fires, skips, start=START, end=START + 8 * EVERY)))
        return tuple(out)


__all__ = ["JourneyModel", "LaneFrame", "Moment", "MotionFrame", "MotionModel", "Move", "PHASES", "PileUpModel",
           "Token", "bullmq_moves", "key_names", "lane_at", "moments", "pump_moves"]
