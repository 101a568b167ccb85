"""The wake marker: a worker parked on it starts a job the moment it is released.

The `fire` script writes ``ZADD marker <next run> "1"`` in the same step that rewrites
the registry row, so the marker's score is the next run. `WakeView` compares the
start latency (started - released) of a worker woken by the marker with one that
polls every N: 0 for every job against anything up to N. Every value comes from
the engine, run once per poll interval when the view is built.
"""

from __future__ import annotations


import numpy as np

from ..cadence import Every
from ..durations import format_duration
from ..pump import Pump
from ..rand import draw
from ..schedule import Schedule
from ..sim import Simulation
from ..timefmt import at, hm, hms
from ..worker import Worker
from .controls import Panel, choice, drag_path
from .live import Live
from .style import ROLE, freeze_labels, new_figure, scale

START = at("2026-11-30 09:00")
EVERY = 15 * 60_000
POLLS = tuple(range(10_000, 60_001, 10_000))   # the poll-interval slider, ms


# -- the marker's score is the next run -------------------------------------------------------

def marker_after(fires: int = 3, *, start: int = START, every: int | str = "15m"):
    """(row score, marker score, release instants) after `fires` fires of the atomic pump."""
    with Simulation(Schedule("reports", Every(every)), start=start, pump=Pump(mode="atomic")) as sim:
        trace = sim.run(fires=fires)
        return sim.registry.score("reports"), sim.registry.marker(), [f.released for f in trace]


def marker_text(fires: int = 3, *, start: int = START, every: int | str = "15m") -> str:
    score, marker, released = marker_after(fires, start=start, every=every)
    return "\n".join([
        f"released: {', '.join(hms(r) for r in released)}  (pump mode atomic: one fire script per beat)",
        f"registry row  reports  score {score}  = {hms(score)}",
        f"wake marker   \"1\"      score {marker}  = {hms(marker)}",
        f"marker == next run: {marker == score}",
    ])


# -- wake latency: the marker against polling --------------------------------------------------

def fleet(jobs: int = 24, *, seed: int = 3, every: int | str = "15m") -> list[Schedule]:
    """`jobs` registrations every 15 min, each at its own seeded offset inside the gap, so
    their releases fall at arbitrary instants, as jobs do when nobody aligns them to a poll."""
    gap = Every(every).ms
    return [Schedule(f"team-{i:02d}", Every(gap, offset=1 + draw(seed, i, gap - 2))) for i in range(1, jobs + 1)]


def start_latency(poll: int, *, jobs: int = 24, seed: int = 3, start: int = START) -> np.ndarray:
    """started - released per job (release order), ms: a worker polling every `poll` ms (0 = marker)."""
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
        ax.text(right, 0, "woken by the marker: 0", color=ROLE["marker"], fontsize=fs * 0.8, va="center",
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
                             "green: one parked on the marker")
        return self.readout()

    def readout(self) -> str:
        lat = self.latency[self.poll]
        mean = int(round(float(lat.mean())))
        woke = "0 ms for every job" if not self.marker.any() else f"up to {format_duration(int(self.marker.max()))}"
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
