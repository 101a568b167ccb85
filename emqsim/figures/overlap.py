"""A run longer than its period: what each overlap policy does with the next release.

Every 15 minutes from 09:00, runs of 1 to 40 minutes, one lane per policy of the engine
(`Schedule(overlap=...)`): ``allow`` runs them side by side, ``skip`` drops a release
while a run is going, ``buffer-one`` holds one release until the run ends (and drops
it if one is already held), ``replace`` cancels the running one. Each lane is its own
`Simulation`: one schedule, four workers, so under ``allow`` no job ever waits for a
worker (at most three 40-minute runs overlap) and every difference between the lanes
is the policy's.

The window shows the releases of 8 slots, 09:00 to 10:45. The engine also makes the next
release (11:00), and nothing after it: that release decides the fate of the 10:45 run
(under ``replace`` it cancels it), so every run drawn is drawn to its real end.

Why the engine, precomputed: 40 run lengths x 4 policies = 160 small simulations took
1.8 to 2.9 s on fakeredis on this 2-core machine (about 15 ms each, almost all of it Lua
round trips), once, when the view is built; a move only indexes them. The reference
model would take 0.02 s, but then the marks would not come from the Lua scripts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..cadence import Every
from ..durations import format_duration
from ..pump import Pump
from ..schedule import OVERLAPS, Schedule
from ..sim import Simulation
from ..timefmt import at, hm
from ..worker import Worker
from .controls import Panel, choice, drag_path
from .live import Live
from .style import BLACK, BLUE, GREEN, GREY, ORANGE, PURPLE, ROLE, VERMILLION, freeze_labels, new_figure, scale, time_axis

START = at("2026-11-30 09:00")
MINUTE = 60_000
EVERY = 15 * MINUTE
NAME = "reports"
POLICIES = OVERLAPS                       # allow, skip, buffer-one, replace
RUNS = tuple(range(1, 41))                # the run-length slider, whole minutes
RUN = 20                                  # its default: longer than the 15-min period
WORKERS = 4                               # per lane: more than the 3 runs that ever overlap
SLOTS = 8                                 # releases shown: 09:00 .. 10:45

#: the peers' names for each policy (DOMAIN.md, section 4)
PEERS = {
    "allow": "K8s Allow · Temporal AllowAll",
    "skip": "K8s Forbid · Temporal Skip",
    "buffer-one": "Temporal BufferOne",
    "replace": "K8s Replace · Temporal CancelOther",
}
#: each policy's colour in the runs-at-once plot and on its lane label
COLOUR = {"allow": BLUE, "skip": GREEN, "buffer-one": ORANGE, "replace": PURPLE}
#: the runs-at-once lines are nudged apart so equal counts do not hide each other
NUDGE = {"allow": 0.09, "skip": 0.03, "buffer-one": -0.03, "replace": -0.09}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- the engine's answer for one lane -------------------------------------------------------------

class Job(NamedTuple):
    """One run as the engine's trace holds it (Unix ms)."""

    slot: int
    released: int
    started: int
    finished: int
    cancelled: bool


@dataclass(frozen=True)
class Lane:
    """One policy, one run length: the runs released in the window and the slots skipped."""

    policy: str
    run: int                     # ms each run needs
    jobs: tuple[Job, ...]
    skipped: tuple[int, ...]     # slots whose release produced nothing
    start: int
    end: int                     # the window's end: releases from here on are not shown

    @property
    def completed(self) -> int:
        return sum(not j.cancelled for j in self.jobs)

    @property
    def cancelled(self) -> int:
        return sum(j.cancelled for j in self.jobs)

    @property
    def longest_wait(self) -> int:
        """The longest time a run waited between its release and its start (ms)."""
        return max((j.started - j.released for j in self.jobs), default=0)

    def going(self) -> tuple[np.ndarray, np.ndarray]:
        """Runs running at once, as a step function: (instants, count from each instant on).
        A run that ends at an instant and one that starts then are not counted together."""
        events = sorted([(j.finished, -1) for j in self.jobs if j.finished > j.started]
                        + [(j.started, 1) for j in self.jobs if j.finished > j.started])
        times, counts, now = [self.start], [0], 0
        for t, step in events:
            now += step
            if t == times[-1]:
                counts[-1] = now
            else:
                times.append(t)
                counts.append(now)
        return np.array(times, dtype=np.int64), np.array(counts, dtype=np.int64)

    @property
    def most(self) -> int:
        """The most runs running at the same time."""
        return int(self.going()[1].max())

    def line(self) -> str:
        """'skip        4 runs, 4 completed, 0 cancelled, 4 skipped, at most 1 at once'."""
        text = (f"{self.policy:<10}  {_plural(len(self.jobs), 'run')}, {self.completed} completed, "
                f"{self.cancelled} cancelled, {self.skipped_count} skipped, at most {self.most} at once")
        if self.longest_wait:
            text += f", longest wait {format_duration(self.longest_wait)}"
        if self.jobs and not self.completed:
            cut = self.jobs[0].finished - self.jobs[0].started
            text += (f"\n{'':<10}  nothing completes: each run is cancelled by the next release, "
                     f"{format_duration(cut)} in")
        return text

    @property
    def skipped_count(self) -> int:
        return len(self.skipped)

    def short(self) -> str:
        """The lane's label at the right of the figure."""
        text = f"{self.completed} of {len(self.jobs)} completed"
        if self.cancelled:
            text += f"\n{self.cancelled} cancelled"
        if self.skipped:
            text += f"\n{self.skipped_count} skipped"
        return text


def lane(policy: str, run: int | str, *, start: int = START, every: int | str = EVERY, slots: int = SLOTS,
         workers: int = WORKERS) -> Lane:
    """Run one schedule under `policy` with runs of `run` (ms or "20m") through the engine, up to
    and including the release after the window; keep the window's runs and skipped slots."""
    choice(policy, POLICIES, "overlap policy")
    gap = Every(every).ms
    end = start + slots * gap
    worker = Worker(run=run, concurrency=workers)
    with Simulation(Schedule(NAME, Every(gap), overlap=policy), start=start, pump=Pump(mode="atomic"),
                    worker=worker) as sim:
        trace = sim.run(until=end)
    jobs = tuple(Job(f.slot, f.released, f.started, f.finished, f.cancelled) for f in trace if f.released < end)
    skipped = tuple(s.slot for s in trace.skips if s.at < end)
    return Lane(policy, worker.run, jobs, skipped, start, end)


def _cell(policy: str, job: Job | None) -> str:
    if job is None:
        return "skipped (one waiting)" if policy == "buffer-one" else "skipped (one running)"
    span = f"{hm(job.started)}-{hm(job.finished)}"
    if job.cancelled:
        return f"{span} cancelled"
    if job.started > job.released:
        return f"{span} (waited {format_duration(job.started - job.released)})"
    return span


def slots_table(lanes: list[Lane]) -> str:
    """Slot by slot, what each lane did: a run's span, its wait, its cancel, or a skip."""
    first = lanes[0]
    grid = []
    for slot in range(first.start, first.end, EVERY):
        cells = []
        for ln in lanes:
            job = next((j for j in ln.jobs if j.slot == slot), None)
            cells.append(_cell(ln.policy, job) if job or slot in ln.skipped else "")
        grid.append((hm(slot), cells))
    widths = [max(len(ln.policy), *(len(cells[k]) for _, cells in grid)) for k, ln in enumerate(lanes)]
    head = "slot   " + "  ".join(f"{ln.policy:<{w}}" for ln, w in zip(lanes, widths)).rstrip()
    lines = [head, "-" * len(head)]
    for slot, cells in grid:
        lines.append(f"{slot}  " + "  ".join(f"{c:<{w}}" for c, w in zip(cells, widths)).rstrip())
    return "\n".join(lines)


def rows(jobs: tuple[Job, ...]) -> list[int]:
    """A row of the lane for each run: the first row whose last run (wait included) ended
    before this one's release, so side-by-side runs, and runs that touch, stay apart."""
    ends: list[int] = []
    out = []
    for j in jobs:
        r = next((i for i, e in enumerate(ends) if e < j.released), len(ends))
        if r == len(ends):
            ends.append(j.finished)
        else:
            ends[r] = j.finished
        out.append(r)
    return out


# -- the figure ---------------------------------------------------------------------------------

BAR = 0.72        # a bar's height, in rows
GAP = 1.2         # between two lanes, in rows
SKIP = 0.66       # the skip marks sit this far below a lane's last row, clear of its bars


class OverlapView:
    """Four lanes of runs (one per policy) against time, and the runs running at once.

    A bar is a run from start to finish: sky blue if it completed, hatched vermillion up to
    the cross if it was cancelled; a dotted line before a bar is its wait from release to
    start; a black x is a slot whose release produced nothing. Below, one step line per
    policy counts the runs running at each instant.
    """

    def __init__(self, ax, going_ax=None, *, run: int = RUN, runs=RUNS, start: int = START,
                 every: int | str = EVERY, slots: int = SLOTS, workers: int = WORKERS):
        self.ax, self.going_ax = ax, going_ax
        self.runs = tuple(runs)
        self.run = choice(run, self.runs, "run (min)")
        self.start, self.every, self.slots, self.workers = start, Every(every).ms, slots, workers
        # the engine, once per slider position and policy
        self.lanes = {(p, m): lane(p, m * MINUTE, start=start, every=self.every, slots=slots, workers=workers)
                      for m in self.runs for p in POLICIES}
        self.rows = {p: max(max(rows(self.lanes[(p, m)].jobs), default=0) + 1 for m in self.runs)
                     for p in POLICIES}
        self.top = {}
        y = 0.0
        for p in POLICIES:
            self.top[p] = y
            y += self.rows[p] - 1 + SKIP + GAP
        end = start + slots * self.every
        last = max(j.finished for ln in self.lanes.values() for j in ln.jobs)
        hi = -(-last // self.every) * self.every + 5 * MINUTE
        lo = start - 5 * MINUTE
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]

        # static: lanes, labels, the part after the window, the legend
        for p in POLICIES[1:]:
            ax.axhline(self.top[p] - GAP / 2 - 0.05, color=GREY, lw=lw * 0.4)
        for a in (ax, going_ax):
            if a is not None:
                a.axvspan(end, hi, color=GREY, alpha=0.15, lw=0)
        ax.text(end + 5 * MINUTE, self.mid("replace"), f"releases from\n{hm(end)} on\nnot drawn",
                fontsize=fs * 0.7, color=BLACK, va="center")
        ax.set_ylim(y - GAP + 0.3, -0.5)         # lanes read top down
        ax.set_yticks([self.mid(p) for p in POLICIES],
                      [f"{p}\n{PEERS[p].replace(' · ', chr(10))}" for p in POLICIES], fontsize=fs * 0.75)
        for label, p in zip(ax.get_yticklabels(), POLICIES):
            label.set_color(COLOUR[p])
        ax.tick_params(axis="y", length=0)
        ax.spines[["top", "right"]].set_visible(False)
        bottom = going_ax if going_ax is not None else ax
        time_axis(bottom, lo, hi, step=2 * self.every, label="time")
        ax.set_xlim(lo, hi)
        for a in (ax, going_ax):
            if a is not None:
                a.set_xticks(range(start, hi + 1, self.every), minor=True)
                a.grid(axis="x", which="both", color=GREY, alpha=0.3)
        if going_ax is not None:
            ax.tick_params(axis="x", labelbottom=False)
        handles = [Patch(facecolor=ROLE["run"], edgecolor=BLACK, lw=lw * 0.3),
                   Patch(facecolor="white", edgecolor=VERMILLION, hatch="///", lw=lw * 0.5),
                   Line2D([], [], ls="none", marker="X", color=VERMILLION, ms=ms),
                   Line2D([], [], ls=":", color=BLACK, lw=lw * 0.8),
                   Line2D([], [], ls="none", marker="x", color=BLACK, ms=ms, mew=lw * 0.8)]
        ax.legend(handles, ["run, completed", "run, cancelled", "cancelled here", "waiting to start",
                            "slot skipped"],
                  loc="lower left", bbox_to_anchor=(0.0, 1.0), ncol=5, fontsize=fs * 0.75, frameon=False,
                  handlelength=1.6, columnspacing=1.2)

        # moving: the runs, their waits and cancels, the skips, the counts
        self.done = PolyCollection([], facecolors=ROLE["run"], edgecolors=BLACK, linewidths=lw * 0.3, zorder=3)
        self.cut = PolyCollection([], facecolors="white", edgecolors=VERMILLION, hatch="///",
                                  linewidths=lw * 0.5, zorder=3)
        self.waits = LineCollection([], colors=BLACK, linewidths=lw * 0.8, linestyles=":", zorder=2)
        for c in (self.done, self.cut, self.waits):
            ax.add_collection(c)
        self.cancels = ax.scatter([], [], s=ms ** 2, marker="X", color=VERMILLION, zorder=4)
        self.skips = ax.scatter([], [], s=(ms * 1.1) ** 2, marker="x", color=BLACK, linewidths=lw * 0.8,
                                zorder=4)
        self.labels = {p: ax.text(1.01, 0, "", transform=ax.get_yaxis_transform(), fontsize=fs * 0.72,
                                  color=COLOUR[p], va="center", ha="left") for p in POLICIES}
        for p in POLICIES:
            self.labels[p].set_y(self.mid(p))
        self.lines = {}
        if going_ax is not None:
            for p in POLICIES:
                self.lines[p], = going_ax.plot([], [], drawstyle="steps-post", color=COLOUR[p], lw=lw * 0.8,
                                               label=p)
            most = max(ln.most for ln in self.lanes.values())
            going_ax.set_ylim(-0.3, most + 0.4)
            going_ax.set_yticks(range(0, most + 1))
            going_ax.set_ylabel("running\nat once", fontsize=fs * 0.8)
            going_ax.spines[["top", "right"]].set_visible(False)
            going_ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.1), fontsize=fs * 0.7, frameon=False,
                            handlelength=1.2)
        self.hi = hi
        fig = ax.figure
        # the title is static but for the run length, drawn just after it: less text to draw per move
        title = fig.text(0.01, 0.985, f"every {format_duration(self.every)} from {hm(start)}, {workers} workers "
                         "a lane, each run takes", fontsize=fs, va="top", ha="left")
        fig.subplots_adjust(left=0.2 if fs < 12 else 0.26, right=0.84, top=0.86, bottom=0.1, hspace=0.12)
        freeze_labels(bottom)
        right = fig.transFigure.inverted().transform(title.get_window_extent().p1)[0]
        self._title = fig.text(right + 0.008, 0.985, "", fontsize=fs, va="top", ha="left", weight="bold")
        #: every artist a move changes; all else is the cached background
        self.moving = [self.done, self.cut, self.waits, self.cancels, self.skips, *self.labels.values(),
                       *self.lines.values(), self._title]
        self.live = Live(fig, moving=self.moving)
        self.update()
        self.live.refresh()   # cache the static layer now, so the first move blits like the rest

    def lane(self, policy: str) -> Lane:
        """The engine's answer for `policy` at the current run length."""
        return self.lanes[(choice(policy, POLICIES, "overlap policy"), self.run)]

    def y(self, policy: str, row: int) -> float:
        """The centre line of a row of a policy's lane."""
        return self.top[policy] + row

    def mid(self, policy: str) -> float:
        """The middle of a policy's lane, skip band included: where its labels go."""
        return self.top[policy] + (self.rows[policy] - 1 + SKIP) / 2

    def skip_y(self, policy: str) -> float:
        """The line under a lane's rows where its skipped slots are marked."""
        return self.top[policy] + self.rows[policy] - 1 + SKIP

    def update(self, run: int | None = None) -> str:
        """Set the run length (whole minutes); returns the readout."""
        if run is not None:
            self.run = choice(run, self.runs, "run (min)")
        done, cut, waits, cancels, skips = [], [], [], [], []
        h = BAR / 2
        for p in POLICIES:
            ln = self.lane(p)
            for j, r in zip(ln.jobs, rows(ln.jobs)):
                y = self.y(p, r)
                box = [(j.started, y - h), (j.started, y + h), (j.finished, y + h), (j.finished, y - h)]
                (cut if j.cancelled else done).append(box)
                if j.cancelled:
                    cancels.append((j.finished, y))
                if j.started > j.released:
                    waits.append([(j.released, y), (j.started, y)])
            skips += [(s, self.skip_y(p)) for s in ln.skipped]
            self.labels[p].set_text(ln.short())
            if p in self.lines:
                t, n = ln.going()
                self.lines[p].set_data(np.append(t, self.hi), np.append(n, n[-1]) + NUDGE[p])
        self.done.set_verts(done)
        self.cut.set_verts(cut)
        self.waits.set_segments(waits)
        self.cancels.set_offsets(np.array(cancels, dtype=float).reshape(-1, 2))
        self.skips.set_offsets(np.array(skips, dtype=float).reshape(-1, 2))
        self._title.set_text(f"{self.run} min")
        return self.readout()

    def readout(self) -> str:
        """A header line, then one line per policy (see `Lane.line`)."""
        last = self.start + (self.slots - 1) * self.every
        head = (f"runs of {self.run} min, a release every {format_duration(self.every)} from {hm(self.start)} "
                f"to {hm(last)} ({self.slots} slots), {self.workers} workers a lane")
        return "\n".join([head] + [self.lane(p).line() for p in POLICIES])

    def table(self) -> str:
        """The current run length, slot by slot, for every policy (`slots_table`)."""
        return slots_table([self.lane(p) for p in POLICIES])

    def moves(self) -> list[dict]:
        """Drag the run length across its range, 20 positions."""
        return [{"run": m} for m in drag_path(self.runs[::2], 20)]


def overlap_view(width: float = 10.5, height: float = 6.4, **kw) -> OverlapView:
    """The figure with its runs-at-once plot, on a new figure."""
    fig, (ax, going_ax) = new_figure(width, height, nrows=2, sharex=True,
                                     gridspec_kw={"height_ratios": [4, 1.3]})
    return OverlapView(ax, going_ax, **kw)


class OverlapPanel(Panel):
    """A run-length slider (with Play and speed) around an `OverlapView`, and its readout."""

    READOUT = "overlap-readout"

    def __init__(self, figure: OverlapView | None = None):
        import ipywidgets as w

        from .controls import play

        self.view = v = figure or overlap_view()
        self.run = w.IntSlider(value=v.run, min=v.runs[0], max=v.runs[-1], step=1, description="run (min)",
                               continuous_update=True, layout=w.Layout(width="420px"))
        self.player = play(self.run, step=1, max_step=5, interval=400, label="min per step", width="240px")
        self.readout = w.HTML()
        self._show(v.update())
        self.run.observe(self.on_run, names="value")
        self.box = w.VBox([w.HBox([self.player.play, self.run, self.player.speed]), self.readout,
                           v.live.image])

    def on_run(self, change) -> str:
        return self._show(self.view.update(run=change["new"]))


def overlap_panel(figure: OverlapView | None = None) -> OverlapPanel:
    return OverlapPanel(figure)
