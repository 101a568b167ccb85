"""A pump that dies between its two writes: which designs repeat a slot, and which skip one.

EchoMQ's pump enqueues an occurrence and then advances the registry row, in two round
trips. A crash between them leaves the row on the slot it just produced, so the pump
that restarts reads that slot due again and, minting a fresh id, produces it twice; if
it was down for a whole gap, that re-fire also takes the one catch-up run the snap
allows, so the slot the outage missed gets no job. `FaultsView` shows one crash on a
timeline for three designs; `sweep` runs seeded crashes for four; `two_pumps` and
`cancel_race` show the fire script's guards. Every number comes from the engine
(`Simulation` with `Faults`), run when a view is built.

The trace records what was produced, not what each script answered, so the runs here
read the registry through `Tally`, which counts the answers ("stale", "absent",
"duplicate") as the scripts return them.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from matplotlib.collections import LineCollection

from ..cadence import Every
from ..durations import format_duration
from ..errors import InputError
from ..faults import Faults
from ..pump import Pump
from ..registry import Registry
from ..schedule import Schedule
from ..sim import Simulation
from ..timefmt import at, hm, hms
from .controls import Panel, choice, drag_path
from .live import Live
from .style import BLACK, BLUE, GREEN, GREY, ORANGE, VERMILLION, freeze_labels, new_figure, scale, time_axis

START = at("2026-11-30 09:00")
MINUTE = 60_000
EVERY = 15 * MINUTE
NAME = "reports"

#: design -> (pump mode, job ids)
DESIGNS = {
    "two-step, fresh ids": ("two-step", "fresh"),   # EchoMQ.Pump
    "two-step, slot ids": ("two-step", "slot"),     # BullMQ's repeat:<id>:<ms> ids
    "atomic, fresh ids": ("atomic", "fresh"),       # the fire script
    "atomic, slot ids": ("atomic", "slot"),
}
VIEW_DESIGNS = ("two-step, fresh ids", "two-step, slot ids", "atomic, fresh ids")
CRASHES = tuple(range(1, 9))                        # crash after the enqueue of fire N
DELAYS = (0, MINUTE, 5 * MINUTE, 10 * MINUTE, 20 * MINUTE)   # restart delay slider, ms (20 min: a slot missed)
SLOTS = 10                                          # the timeline's slots: 09:00 .. 11:15


def _design(name: str) -> tuple[str, str]:
    return DESIGNS[choice(name, tuple(DESIGNS), "design")]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- what the scripts answered ----------------------------------------------------------------

class Tally(Registry):
    """The registry, counting each script's answers: "enqueue duplicate", "fire stale", ..."""

    def __init__(self, store):
        super().__init__(store)
        self.answers: Counter = Counter()
        self.refused: list[tuple[int, int]] = []   # (slot, now) of each enqueue that found its id taken

    def enqueue(self, job_id: str, name: str, slot: int, now: int, template: str = "{}") -> str:
        out = super().enqueue(job_id, name, slot, now, template)
        self.answers[f"enqueue {out}"] += 1
        if out == "duplicate":
            self.refused.append((slot, now))
        return out

    def advance(self, *args, **kw) -> str:
        out = super().advance(*args, **kw)
        self.answers[f"advance {out}"] += 1
        return out

    def fire(self, *args, **kw):
        size, head, results = super().fire(*args, **kw)
        self.answers.update(f"fire {r.result}" for r in results)
        return size, head, results


def answers_text(answers: Counter) -> str:
    """'enqueue: enqueued 3 · advance: advanced 2, absent 1', verbs in pump order."""
    parts = []
    for verb in ("enqueue", "advance", "fire"):
        got = [(k.split(" ", 1)[1], n) for k, n in sorted(answers.items()) if k.startswith(verb + " ")]
        if got:
            parts.append(f"{verb}: " + ", ".join(f"{a} {n}" for a, n in got))
    return " \u00b7 ".join(parts) or "no script ran"


@dataclass(frozen=True)
class Run:
    """One engine run: the jobs produced, the trace's counts and the scripts' answers."""

    design: str
    jobs: tuple           # (n, slot, released, job id), in production order
    duplicates: int
    lost: int
    answers: Counter = field(compare=False)
    refused: tuple = ()   # (slot, now) of each enqueue refused because the slot's job id existed
    unserved: tuple = ()  # slots of the grid, up to the last one produced, that got no job at all
    size: int = 1         # ZCARD after the run
    record: bool = True   # the registration's hash still exists

    def twins(self) -> dict[int, list[tuple[int, int, str]]]:
        """slot -> [(n, released, job id)] for every slot produced more than once."""
        by_slot: dict[int, list] = {}
        for n, slot, released, job_id in self.jobs:
            by_slot.setdefault(slot, []).append((n, released, job_id))
        return {s: js for s, js in by_slot.items() if len(js) > 1}


def run(design: str, faults: Faults, *, until: int, start: int = START, every: int | str = "15m",
        jitter: int = 0, seed: int = 0) -> Run:
    """Run one registration under `design` with `faults` until `until` (Unix ms)."""
    mode, ids = _design(design)
    with Simulation(Schedule(NAME, Every(every)), start=start, faults=faults,
                    pump=Pump(mode=mode, ids=ids, jitter=jitter, seed=seed)) as sim:
        sim.registry = tally = Tally(sim.store)
        trace = sim.run(until=until)
        jobs = tuple((f.n, f.slot, f.released, f.job_id) for f in trace)
        made = {j[1] for j in jobs}
        grid = range(start, max(made, default=start - 1) + 1, Every(every).ms)
        return Run(design, jobs, trace.duplicates, trace.lost, tally.answers, tuple(tally.refused),
                   tuple(s for s in grid if s not in made), tally.size(), bool(tally.record(NAME)))


def crash_run(crash: int, design: str, delay: int = MINUTE, *, start: int = START, slots: int = SLOTS) -> Run:
    """The pump dies right after the enqueue of fire `crash` and restarts `delay` ms later."""
    return run(design, Faults(crash_after_enqueue=crash, restart_after=delay),
               until=start + (slots - 1) * EVERY, start=start)


def jobs_text(r: Run) -> str:
    """The jobs of a run, one a line: where each came from and under which id."""
    twins = r.twins()
    lines = [f"{'n':>3}  {'slot':5}  {'released':8}  job id", "-" * 46]
    for n, slot, released, job_id in r.jobs:
        mark = "  <- same slot again" if slot in twins and twins[slot][0][0] != n else ""
        lines.append(f"{n:>3}  {hm(slot)}  {hms(released)}  {job_id}{mark}")
    return "\n".join(lines)


def fire_guard() -> str:
    """The guard of the `fire` script, as shipped: a row is written only while its score
    still equals the slot the pump read (0 absent, 2 stale, 1 go on)."""
    from importlib.resources import files

    src = files("emqsim").joinpath("lua/fire-3.lua").read_text().splitlines()
    first = next(i for i, line in enumerate(src) if "local score = redis.call('ZSCORE'" in line)
    last = next(i for i, line in enumerate(src) if i > first and line.strip() == "result = 1")
    return "\n".join(src[first:last + 1])


# -- 1. the timeline: one crash, three designs ------------------------------------------------

class FaultsView:
    """Jobs in production order against time: each job's slot (ring) and release (dot).

    A slot produced twice shows as two rows with rings at the same time, joined by a
    vermillion line; the crash and the restart are vertical lines, the pump's down time shaded.
    """

    def __init__(self, ax, *, crash: int = 3, design: str = VIEW_DESIGNS[0], delay: int = MINUTE,
                 designs=VIEW_DESIGNS, crashes=CRASHES, delays=DELAYS, start: int = START, slots: int = SLOTS):
        self.ax, self.start = ax, start
        self.designs, self.crashes, self.delays = tuple(designs), tuple(crashes), tuple(delays)
        for d in self.designs:
            _design(d)
        self.crash = choice(crash, self.crashes, "crash (fire number)")
        self.design = choice(design, self.designs, "design")
        self.delay = choice(delay, self.delays, "restart delay (ms)")
        if max(self.crashes) > slots or min(self.crashes) < 1:
            raise InputError(f"crash points {self.crashes} must be fire numbers within the {slots} slots shown")
        # the engine, once per slider position
        self.runs = {(c, d, t): crash_run(c, d, t, start=start, slots=slots)
                     for c in self.crashes for d in self.designs for t in self.delays}
        rows = max(len(r.jobs) for r in self.runs.values())
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        end = start + (slots - 1) * EVERY
        self.down = ax.axvspan(start, start, color=GREY, alpha=0.25, lw=0)
        self.crash_line = ax.axvline(start, color=BLACK, ls="--", lw=lw * 0.7)
        self.restart_line = ax.axvline(start, color=GREEN, ls="-.", lw=lw * 0.7)
        self.lag = LineCollection([], colors=BLUE, linewidths=lw * 0.6)
        ax.add_collection(self.lag)
        self.twin_links = LineCollection([], colors=VERMILLION, linewidths=lw, linestyles=":")
        ax.add_collection(self.twin_links)
        self.slots = ax.scatter([], [], s=(ms * 1.6) ** 2, facecolors="none", edgecolors=BLUE,
                                linewidths=lw * 0.6, zorder=3)
        self.released = ax.scatter([], [], s=ms ** 2, color=BLUE, zorder=4)
        self.twins = ax.scatter([], [], s=(ms * 1.2) ** 2, color=VERMILLION, marker="D", zorder=5)
        self.refused = ax.scatter([], [], s=(ms * 1.3) ** 2, color=ORANGE, marker="X", zorder=5)
        self.unserved = ax.scatter([], [], s=(ms * 1.3) ** 2, color=BLACK, marker="x", zorder=5, clip_on=False)
        self.ids = [ax.text(start, 0, "", fontsize=fs * 0.75, color=VERMILLION, va="center", zorder=6)
                    for _ in range(2)]
        self.crash_text = ax.text(start, rows + 0.9, "", fontsize=fs * 0.75, color=BLACK, ha="right", va="top")
        self.restart_text = ax.text(start, rows + 0.9, "", fontsize=fs * 0.75, color=GREEN, ha="left", va="top")
        time_axis(ax, start - 5 * MINUTE, end + 10 * MINUTE, step=2 * EVERY, label="time")
        ax.set_xticks(range(start, end + 1, EVERY), minor=True)
        ax.grid(axis="x", which="minor", color=GREY, alpha=0.3)
        ax.set_ylim(0.3, rows + 1.0)   # a slot with no job is marked on the floor, y = 0.5
        ax.set_yticks([1, 5, 10])
        ax.set_ylabel("job, in the order produced")
        ax.spines[["top", "right"]].set_visible(False)
        # a short legend: every glyph is drawn again on each move, and text is most of a move's cost
        ax.legend([(self.slots, self.released), self.twins, self.refused, self.unserved, self.down],
                  ["slot (ring), release (dot)", "same slot, new id", "refused: id taken", "slot with no job",
                   "pump down"],
                  loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=fs * 0.75, frameon=False)
        self._title = ax.set_title("", fontsize=fs, loc="left")
        ax.figure.subplots_adjust(left=0.07, right=0.76, top=0.9, bottom=0.15)
        freeze_labels(ax)
        #: every artist a move changes (all else is static: a blitting `Live` could cache it)
        self.moving = [self.down, self.crash_line, self.restart_line, self.lag, self.twin_links, self.slots,
                       self.released, self.twins, self.refused, self.unserved, *self.ids, self.crash_text,
                       self.restart_text, self._title]
        self.live = Live(ax.figure, moving=self.moving)
        self.update()

    @property
    def current(self) -> Run:
        return self.runs[(self.crash, self.design, self.delay)]

    def update(self, crash: int | None = None, design: str | None = None, delay: int | None = None) -> str:
        """Move to crash after fire `crash`, `design`, restart `delay` ms later; returns the readout."""
        crash = self.crash if crash is None else choice(crash, self.crashes, "crash (fire number)")
        design = self.design if design is None else choice(design, self.designs, "design")
        delay = self.delay if delay is None else choice(delay, self.delays, "restart delay (ms)")
        self.crash, self.design, self.delay = crash, design, delay   # stored once all are checked
        r = self.current
        n = np.array([j[0] for j in r.jobs], dtype=float)
        slot = np.array([j[1] for j in r.jobs], dtype=float)
        rel = np.array([j[2] for j in r.jobs], dtype=float)
        self.slots.set_offsets(np.column_stack([slot, n]))
        self.released.set_offsets(np.column_stack([rel, n]))
        self.lag.set_segments([[(s, k), (t, k)] for k, s, t in zip(n, slot, rel) if t != s])
        twins = r.twins()
        extra = [(k, t) for js in twins.values() for k, t, _ in js[1:]]
        self.twins.set_offsets(np.array([(t, k) for k, t in extra], dtype=float).reshape(-1, 2))
        self.twin_links.set_segments([[(s, js[0][0]), (s, js[-1][0])] for s, js in twins.items()])
        row = {j[1]: j[0] for j in r.jobs}   # slot -> the row of the job that holds it
        self.refused.set_offsets(np.array([(t, row[s]) for s, t in r.refused], dtype=float).reshape(-1, 2))
        self.unserved.set_offsets(np.array([(s, 0.5) for s in r.unserved], dtype=float).reshape(-1, 2))
        shown = [j for js in twins.values() for j in js][: len(self.ids)]
        mid = self.start + 4 * EVERY
        for text, (k, t, job_id) in zip(self.ids, shown + [(0, 0, "")] * (len(self.ids) - len(shown))):
            right = t < mid
            text.set_text(job_id)
            text.set_position((t + (3 if right else -3) * MINUTE, k))
            text.set_horizontalalignment("left" if right else "right")
        crashed = next(j[2] for j in r.jobs if j[0] == self.crash)
        back = crashed + self.delay
        self.down.set_x(crashed)
        self.down.set_width(self.delay)
        self.crash_line.set_xdata([crashed, crashed])
        self.restart_line.set_xdata([back, back])
        self.crash_text.set_x(crashed)
        self.crash_text.set_text("crash ")
        self.restart_text.set_x(back)
        self.restart_text.set_text(f" restart {hm(back)}")
        self._title.set_text(f"{self.design}: crash after fire {self.crash}")
        return self.readout()

    def readout(self) -> str:
        r = self.current
        twins = r.twins()
        head = (f"{self.design}, crash after fire {self.crash}, restart {format_duration(self.delay)} later: "
                f"{_plural(len(r.jobs), 'job')} for {len({j[1] for j in r.jobs})} slots, ")
        if twins:
            told = "; ".join(f"slot {hm(s)} as " + " and ".join(f"{j} released {hms(t)}" for _, t, j in js)
                             for s, js in twins.items())
            dup = f"{_plural(r.duplicates, 'duplicate')} ({told})"
        else:
            dup = "0 duplicates"
        note = "".join(f"; the re-fire of slot {hm(s)} at {hms(t)} found its job id taken (enqueue: duplicate)"
                       for s, t in r.refused)
        if r.unserved:
            note += f"; no job at all for {', '.join(hm(s) for s in r.unserved)}"
        return f"{head}{dup}, {r.lost} lost{note}"

    def moves(self) -> list[dict]:
        """Drag the crash slider, switch designs and delays, drag again: 20 moves with the defaults."""
        crashes = [{"crash": c} for c in drag_path(self.crashes, 12)]
        return (crashes[:6] + [{"design": d} for d in self.designs[1:]] + [{"delay": d} for d in self.delays]
                + crashes[6:] + [{"design": self.designs[0]}])


def faults_view(width: float = 9.5, height: float = 3.6, **kw) -> FaultsView:
    fig, ax = new_figure(width, height)
    return FaultsView(ax, **kw)


class FaultsPanel(Panel):
    """A design switch, a crash slider and a restart-delay slider around a `FaultsView`."""

    READOUT = "faults-readout"

    def __init__(self, figure: FaultsView | None = None):
        import ipywidgets as w

        self.view = v = figure or faults_view()
        self.design = w.ToggleButtons(options=v.designs, value=v.design, description="design")
        # a move only blits the marks that changed (about 25 ms): the figure follows the drag
        self.crash = w.IntSlider(value=v.crash, min=v.crashes[0], max=v.crashes[-1], step=1,
                                 description="crash after fire", continuous_update=True,
                                 style={"description_width": "initial"})
        self.delay = w.SelectionSlider(options=[(format_duration(d), d) for d in v.delays], value=v.delay,
                                       description="restart after", continuous_update=True,
                                       style={"description_width": "initial"})
        self.readout = w.HTML()
        self._show(v.update())
        self.design.observe(self.on_design, names="value")
        self.crash.observe(self.on_crash, names="value")
        self.delay.observe(self.on_delay, names="value")
        self.box = w.VBox([self.design, w.HBox([self.crash, self.delay]), self.readout, v.live.image])

    def on_design(self, change) -> str:
        return self._show(self.view.update(design=change["new"]))

    def on_crash(self, change) -> str:
        return self._show(self.view.update(crash=change["new"]))

    def on_delay(self, change) -> str:
        return self._show(self.view.update(delay=change["new"]))


def faults_panel(figure: FaultsView | None = None) -> FaultsPanel:
    return FaultsPanel(figure)


# -- 2. a seeded sweep of crashes ----------------------------------------------------------------

@dataclass(frozen=True)
class Draw:
    """One seeded crash: after fire `crash`, restart `delay` ms later, beats jittered up to `jitter` ms."""

    seed: int
    crash: int
    delay: int
    jitter: int


def draws(seeds: int = 20, *, fires: int = 10, delay_min: int = 30) -> list[Draw]:
    """random.Random(seed) picks the crash fire in 1..fires, the restart delay in whole
    minutes 0..delay_min and the pump's beat jitter in 0..999 ms."""
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise InputError(f"seeds {seeds!r} must be a whole number of runs, 1 or more")
    out = []
    for seed in range(seeds):
        rnd = random.Random(seed)
        out.append(Draw(seed, rnd.randint(1, fires), rnd.randint(0, delay_min) * MINUTE, rnd.randint(0, 999)))
    return out


@dataclass(frozen=True)
class SweepRow:
    design: str
    runs: int
    duplicates: int
    lost: int
    unserved: int                         # grid slots that got no job at all
    worst: tuple[int, int, int, Draw] | None   # (duplicates, lost, unserved, draw) of the worst run, or None


def sweep(seeds: int = 20, *, designs=tuple(DESIGNS), fires: int = 10, delay_min: int = 30,
          start: int = START) -> list[SweepRow]:
    """Each design through the same seeded crashes; the totals and the worst run."""
    plan = draws(seeds, fires=fires, delay_min=delay_min)
    until = start + (fires + delay_min // 15 + 1) * EVERY
    rows = []
    for design in designs:
        _design(design)
        dups = lost = unserved = 0
        worst = None
        for d in plan:
            r = run(design, Faults(crash_after_enqueue=d.crash, restart_after=d.delay), until=until,
                    start=start, jitter=d.jitter, seed=d.seed)
            dups, lost, unserved = dups + r.duplicates, lost + r.lost, unserved + len(r.unserved)
            bad = (r.duplicates, r.lost, len(r.unserved))
            if sum(bad) and (worst is None or sum(bad) > sum(worst[:3])):
                worst = (*bad, d)
        rows.append(SweepRow(design, len(plan), dups, lost, unserved, worst))
    return rows


def sweep_table(rows: list[SweepRow]) -> str:
    """The sweep as fixed-width text (deterministic: seeds, not clocks)."""
    head = f"{'design':20}  {'runs':>4}  {'duplicates':>10}  {'lost':>4}  {'no job':>6}  worst run"
    lines = [head, "-" * len(head)]
    for r in rows:
        if r.worst is None:
            worst = "none"
        else:
            n_dup, n_lost, n_none, d = r.worst
            worst = (f"{n_dup} dup, {n_lost} lost, {n_none} no job (seed {d.seed}: crash after fire {d.crash}, "
                     f"restart {format_duration(d.delay)} later)")
        lines.append(f"{r.design:20}  {r.runs:>4}  {r.duplicates:>10}  {r.lost:>4}  {r.unserved:>6}  {worst}")
    return "\n".join(lines)


# -- 3. two pumps on one queue -------------------------------------------------------------------

def two_pumps(minutes: int = 45, *, designs=tuple(DESIGNS), start: int = START) -> list[Run]:
    """Two pumps beating together on one queue for `minutes` (slots at both ends included)."""
    return [run(d, Faults(pumps=2), until=start + minutes * MINUTE, start=start) for d in designs]


def two_pumps_text(runs: list[Run]) -> str:
    head = f"{'design':20}  {'slots':>5}  {'jobs':>4}  {'duplicates':>10}  what the scripts answered"
    lines = [head, "-" * len(head)]
    for r in runs:
        slots = len({j[1] for j in r.jobs})
        lines.append(f"{r.design:20}  {slots:>5}  {len(r.jobs):>4}  {r.duplicates:>10}  {answers_text(r.answers)}")
    return "\n".join(lines)


# -- 4. a cancel between the due read and the write ----------------------------------------------

def cancel_race(cancel_at: int = 3, *, designs=("two-step, fresh ids", "atomic, fresh ids"),
                minutes: int = 90, start: int = START) -> list[Run]:
    """A cancel of the registration lands after the due read of fire `cancel_at`, before its write."""
    return [run(d, Faults(cancel_at=cancel_at), until=start + minutes * MINUTE, start=start) for d in designs]


def cancel_text(runs: list[Run]) -> str:
    lines = []
    for r in runs:
        slots = ", ".join(hm(j[1]) for j in r.jobs)
        lines.append(f"{r.design}: produced {len(r.jobs)} ({slots})")
        lines.append(f"  {answers_text(r.answers)}")
        lines.append(f"  after: ZCARD {r.size}, record {'present' if r.record else 'gone'}")
    return "\n".join(lines)
