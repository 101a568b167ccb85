"""The wake marker: a worker parked on it is woken by the write that makes a job ready.

BullMQ 6.x's rule (its includes addBaseMarkerIfNeeded.lua and addDelayMarkerIfNeeded.lua):
the marker is a sorted set holding "0" at score 0 while a job is ready and "1" at the
earliest delayed job's timestamp; a worker with nothing to do blocks on it with BZPOPMIN.
In emqsim the scripts that make a job ready (`enqueue`, `fire`) write "0" through the
shared include `lua/includes/marker.lua`; a parked worker pops it with the `take` script
and takes its job. `marker_steps` shows those verbs one at a time on a store.

`WakeView` compares the start latency (started - released) of a worker parked on the
marker with one that polls every N. Both come from the engine's trace: the parked
worker's start is the instant its marker read handed it the job, so a script that
forgot the marker, or wrote the wrong score, would show here as a wait.
"""

from __future__ import annotations


import numpy as np

from ..cadence import Every
from ..durations import format_duration
from ..ids import Minter
from ..pump import Pump
from ..rand import draw
from ..registry import Registry
from ..schedule import Schedule
from ..sim import Simulation
from ..store import Store
from ..timefmt import at, hm, hms
from ..worker import Worker
from .controls import Panel, choice, drag_path
from .live import Live
from .style import ROLE, freeze_labels, new_figure, scale

START = at("2026-11-30 09:00")
EVERY = 15 * 60_000
POLLS = tuple(range(10_000, 60_001, 10_000))   # the poll-interval slider, ms


# -- the marker, one verb at a time ------------------------------------------------------------

def _shown(marker: list[tuple[str, int]]) -> str:
    return "{" + ", ".join(f'"{m}": {s}' for m, s in marker) + "}" if marker else "(empty)"


def marker_steps(store: Store | None = None, *, start: int = START, every: int | str = "15m") -> str:
    """Register, fire one occurrence, let a parked worker take it, let it park again: the answer
    of each script and what the marker key holds after it. Only names, answers and scores are
    printed (a real server's key names carry a per-store queue name)."""
    own = store is None
    store = store or Store()
    try:
        reg, gap = Registry(store), Every(every).ms
        job = Minter().mint(start)
        out = [f"register reports (every {format_duration(gap)}): {reg.register(Schedule('reports', Every(gap)), start)}"
               f"  \u00b7 marker {_shown(reg.marker())}"]
        _, head, res = reg.fire(start, [("reports", start, start + gap, job, start, "{}")])
        out.append(f"fire {hms(start)} (enqueue + advance): {res[0].result}  \u00b7 marker {_shown(reg.marker())}"
                   f"  \u00b7 registry next run {hms(head)}")
        answer, when, _ = reg.take(job, start, parked=True)
        out.append(f"parked worker takes {job}: {answer} at {hms(when)}  \u00b7 marker {_shown(reg.marker())}"
                   f"  \u00b7 job {reg.job(job)['state']}")
        answer, _, _ = reg.take("", start, parked=True)
        out.append(f"the worker, done, parks again: {answer}  \u00b7 marker {_shown(reg.marker())}")
        return "\n".join(out)
    finally:
        if own:
            store.close()


# -- wake latency: the marker against polling --------------------------------------------------

def fleet(jobs: int = 24, *, seed: int = 3, every: int | str = "15m") -> list[Schedule]:
    """`jobs` registrations every 15 min, each at its own seeded offset inside the gap, so
    their releases fall at arbitrary instants, as jobs do when nobody aligns them to a poll."""
    gap = Every(every).ms
    return [Schedule(f"team-{i:02d}", Every(gap, offset=1 + draw(seed, i, gap - 2))) for i in range(1, jobs + 1)]


def start_latency(poll: int, *, jobs: int = 24, seed: int = 3, start: int = START) -> np.ndarray:
    """started - released per job (release order), ms, from the engine's trace: a worker polling
    every `poll` ms, or (0) one parked on the marker, whose start is when its read of the marker
    handed it the job."""
    with Simulation(fleet(jobs, seed=seed), start=start, pump=Pump(tick=0, mode="atomic"),
                    worker=Worker(poll=poll)) as sim:
        cols = sim.run(fires=jobs).arrays()
    return cols["started"] - cols["released"]


class WakeView:
    """Per job: the wait before it starts, woken by the marker (0) or by a poll (up to N)."""

    def __init__(self, ax, *, jobs: int = 24, seed: int = 3, polls=POLLS, poll: int = 30_000,
                 start: int = START):
        self.ax, self.jobs, self.polls = ax, jobs, tuple(polls)
        self.poll = choice(poll, self.polls, "poll (ms)")
        # the engine, once for the marker and once per poll interval
        self.marker = start_latency(0, jobs=jobs, seed=seed, start=start)
        self.latency = {p: start_latency(p, jobs=jobs, seed=seed, start=start) for p in self.polls}
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        x = np.arange(1, jobs + 1)
        self.bars = list(ax.bar(x, np.zeros(jobs), width=0.7, color=ROLE["poll"], zorder=2).patches)
        self.dots, = ax.plot(x, self.marker / 1000, ls="none", marker="o", ms=ms, color=ROLE["marker"], zorder=4)
        self.limit = ax.axhline(0, color=ROLE["now"], ls="--", lw=lw * 0.6, zorder=3)
        self.mean = ax.axhline(0, color=ROLE["poll"], ls=":", lw=lw, zorder=3)
        ax.set_xlim(0.3, jobs + 0.7)
        ax.set_ylim(-max(self.polls) / 1000 * 0.04, max(self.polls) / 1000 * 1.1)
        ax.set_xlabel(f"job, in release order ({jobs} registrations, released {hm(start)}-{hm(start + EVERY)})")
        ax.set_ylabel("start \u2212 release (s)")
        ax.spines[["top", "right"]].set_visible(False)
        # direct labels at the right edge instead of a legend (a legend is laid out on every redraw)
        right = jobs + 1.0
        self._limit_text = ax.text(right, 0, "", color=ROLE["now"], fontsize=fs * 0.8, va="center", clip_on=False)
        self._mean_text = ax.text(right, 0, "", color=ROLE["poll"], fontsize=fs * 0.8, va="center", clip_on=False)
        ax.text(right, float(self.marker.max()) / 1000, "parked on the marker: "
                + format_duration(int(self.marker.max())), color=ROLE["marker"], fontsize=fs * 0.8, va="center",
                clip_on=False)
        self._title = ax.set_title("", fontsize=fs, loc="left", y=1.0)
        ax.figure.subplots_adjust(left=0.09, right=0.74, top=0.88, bottom=0.16)
        freeze_labels(ax)
        self.live = Live(ax.figure, moving=[*self.bars, self.limit, self.mean, self._limit_text,
                                            self._mean_text, self._title])
        self.update()

    def update(self, poll: int | None = None) -> str:
        """Set the poll interval (ms); returns the readout."""
        if poll is not None:
            self.poll = choice(poll, self.polls, "poll (ms)")
        lat = self.latency[self.poll]
        for bar, v in zip(self.bars, lat):
            bar.set_height(v / 1000)
        mean = float(lat.mean()) / 1000
        self.limit.set_ydata([self.poll / 1000] * 2)
        self.mean.set_ydata([mean] * 2)
        self._limit_text.set_y(self.poll / 1000)
        self._limit_text.set_text(f"poll interval {format_duration(self.poll)}")
        self._mean_text.set_y(mean)
        self._mean_text.set_text(f"mean wait, polling ({format_duration(int(round(mean * 1000)))})")
        self._title.set_text(f"grey bars: a worker polling every {format_duration(self.poll)} \u00b7 "
                             "green: one parked on the marker (its measured wait)")
        return self.readout()

    def readout(self) -> str:
        lat = self.latency[self.poll]
        mean = int(round(float(lat.mean())))
        woke = ("0 ms for every job" if not self.marker.any()
                else f"{format_duration(int(self.marker.min()))} to {format_duration(int(self.marker.max()))}")
        return (f"poll every {format_duration(self.poll)}: jobs wait {format_duration(int(lat.min()))} to "
                f"{format_duration(int(lat.max()))}, mean {format_duration(mean)} \u00b7 marker: {woke}")

    def moves(self) -> list[dict]:
        return [{"poll": p} for p in drag_path(self.polls)]


def wake_view(width: float = 9.0, height: float = 3.4, **kw) -> WakeView:
    fig, ax = new_figure(width, height)
    return WakeView(ax, **kw)


class WakePanel(Panel):
    """A poll-interval slider around a `WakeView`, with its readout."""

    READOUT = "wake-readout"

    def __init__(self, figure: WakeView | None = None):
        import ipywidgets as w

        self.view = v = figure or wake_view()
        self.poll = w.SelectionSlider(options=[(format_duration(p), p) for p in v.polls], value=v.poll,
                                      description="poll every", continuous_update=True)
        self.readout = w.HTML()
        self._show(v.update())
        self.poll.observe(self.on_poll, names="value")
        self.box = w.VBox([self.poll, self.readout, v.live.image])

    def on_poll(self, change) -> str:
        return self._show(self.view.update(poll=change["new"]))


def wake_panel(figure: WakeView | None = None) -> WakePanel:
    return WakePanel(figure)


# -- the same worker on a marker written the old way -------------------------------------------

#: the line of `fire` that marks a ready job, and what this course's script wrote before: the
#: registry's next run as "1" (a time at which nothing becomes ready for a worker)
READY_LINE = "if made then markReady(KEYS[3]) end"
OLD_LINE = "if head[2] then redis.call('ZADD', KEYS[3], head[2], '1') end"


def waits(fires: int = 4, *, old: bool = False, start: int = START, every: int | str = "15m") -> list[int]:
    """started - released per job, ms, for a worker parked on the marker behind the atomic
    pump; `old=True` runs the fire script with the marker line it had before."""
    store = Store()
    try:
        if old:
            src = store.scripts.source("fire")
            if READY_LINE not in src:
                raise ValueError("the fire script has no ready-marker line to swap")
            store.scripts.replace("fire", src.replace(READY_LINE, OLD_LINE))
        with Simulation(Schedule("reports", Every(every)), start=start, pump=Pump(mode="atomic"),
                        store=store) as sim:
            trace = sim.run(fires=fires)
        return [f.started - f.released for f in trace]
    finally:
        store.close()
