"""Start-to-start against start-to-finish, and how far each rule lets a cadence slip.

`CadenceView` lays four runs of an every-15-min schedule on two lanes: the rule that
counts the gap from each run's start (BullMQ's ``prevMillis + every``) and the rule
that counts it from each run's finish. `SlipView` follows the three rules of the
engine over many cycles under EchoMQ's own pump, which re-arms a tick after each
sweep (``Pump(beat="rearm")``): ``schedule`` never accumulates a lag (it wanders
inside one tick), ``release`` (EchoMQ's ``now_ms() + every_ms``) slips by the release
lag each cycle, ``finish`` by the run as well.
Each view computes its marks once per slider value when it is built, so a slider
move only indexes stored arrays: the cadence marks from the engine (`Simulation`),
the slip over a day of cycles from the reference model (`emqsim.reference`, the same
rules as plain arithmetic; `slips(..., engine=True)` gives the engine's answer, and
the tests hold the two equal).
"""

from __future__ import annotations


import numpy as np
from matplotlib.collections import LineCollection

from ..cadence import Every
from ..durations import format_duration
from ..pump import Pump
from ..reference import reference
from ..registry import ADVANCE, Registry
from ..schedule import Schedule
from ..sim import simulate
from ..store import Store
from ..timefmt import at, hm, hms
from ..worker import Worker
from .live import Live
from .controls import Panel, choice, drag_path
from .style import GREY, ROLE, freeze_labels, new_figure, scale, time_axis

START = at("2026-11-30 09:00")
MINUTE = 60_000
EVERY = 15 * MINUTE
RUNS = tuple(range(15))                 # the run-duration slider, in whole minutes
MEASURES = ("start-to-start", "start-to-finish", "both")
LANE = {"schedule": 1, "finish": 0}     # rule -> lane height
LABEL = {"schedule": "start-to-start", "finish": "start-to-finish"}
SHOWS = {"start-to-start": ("schedule",), "start-to-finish": ("finish",), "both": ("schedule", "finish")}
TICKS = (0, 250, 500, 1000, 1500, 2000, 2500, 3000, 4000, 5000)  # pump-tick slider, ms; each divides 15 min
LATENCY = 20                            # the enqueue round trip before EchoMQ reads now_ms()
SLIP_RULES = ("schedule", "release", "finish")
BEAT = "rearm"                          # EchoMQ.Pump re-arms send_after(tick) after each sweep


def hmsms(ms: int) -> str:
    """'HH:MM:SS.mmm' in UTC: the release rule's drift lives in the milliseconds."""
    return f"{hms(ms)}.{ms % 1000:03d}"


# -- 1. the cadence: four runs on two lanes ----------------------------------------------------

def runs(rule: str, run: int | str, *, start: int = START, every: int | str = "15m", fires: int = 4):
    """[(started, finished)] of the first `fires` runs under `rule`, from the engine."""
    sched = Schedule("reports", Every(every), rule=choice(rule, ("schedule", "release", "finish"), "rule"))
    trace = simulate(sched, start=start, fires=fires, worker=Worker(run=run))
    return [(f.started, f.finished) for f in trace]


def lane_verdict(rule: str, starts: list[int], every: int, run: int) -> str:
    """One lane's verdict: the start times, then whether the gap between them holds."""
    times = ", ".join(hm(s) for s in starts)
    slips = sorted({b - a - every for a, b in zip(starts, starts[1:])})
    if slips == [0]:
        marks = ", ".join(":" + hm(s)[3:] for s in starts)
        why = " (a 0-min run adds nothing to the gap)" if rule == "finish" and run == 0 else ""
        return f"{LABEL[rule]}: {times} \u2014 holds at {marks}{why}"
    if len(slips) == 1:
        return f"{LABEL[rule]}: {times} \u2014 drifts {format_duration(slips[0])} later each cycle"
    steps = ", ".join(f"+{format_duration(s)}" for s in slips)
    return f"{LABEL[rule]}: {times} \u2014 drifts later by {steps}"


class CadenceView:
    """Two lanes of run bars: start-to-start on top, start-to-finish below; one lane lit."""

    def __init__(self, ax, *, start: int = START, every: int | str = "15m", fires: int = 4,
                 run: int = 4, measure: str = "both"):
        self.ax, self.start, self.every, self.fires = ax, start, Every(every).ms, fires
        self.run, self.measure = choice(run, RUNS, "run (min)"), choice(measure, MEASURES, "measure")
        # the engine, once per slider value: 15 runs x 2 rules x `fires` fires
        self.marks = {(rule, m): runs(rule, m * MINUTE, start=start, every=self.every, fires=fires)
                      for rule in LANE for m in RUNS}
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        last = max(fi for marks in self.marks.values() for _, fi in marks)
        hi = -(-(last + 2 * MINUTE) // EVERY) * EVERY
        time_axis(ax, start - 5 * MINUTE, hi, step=EVERY, label="time")
        ax.set_ylim(-0.7, 1.75)
        ax.set_yticks([LANE[r] for r in LANE], [f"{LABEL[r]}\nnext = {'start' if r == 'schedule' else 'finish'}"
                                                 f" + {format_duration(self.every)}" for r in LANE])
        ax.spines[["top", "right"]].set_visible(False)

        self.bars, self.starts, self.labels, self.gaps, self.gap_text = {}, {}, {}, {}, {}
        for rule, y in LANE.items():
            c = ROLE[rule]
            self.bars[rule] = list(ax.barh([y] * fires, [0] * fires, left=[start] * fires, height=0.4,
                                           color=c, edgecolor="white", zorder=3).patches)
            self.starts[rule], = ax.plot([start] * fires, [y] * fires, ls="none", marker="|",
                                         ms=ms * 2.6, mew=lw, color=c, zorder=4)
            self.labels[rule] = [ax.text(start, y + 0.27, "", fontsize=fs * 0.85, ha="left", va="bottom",
                                         color=c, zorder=5) for _ in range(fires)]
            self.gaps[rule] = ax.add_collection(LineCollection([], colors=c, linewidths=lw * 0.7,
                                                               linestyles=":", zorder=2))
            self.gap_text[rule] = ax.text(start, y - 0.36, "", fontsize=fs * 0.75, ha="center", va="top",
                                          color=c, zorder=5)
        # direct labels and fixed title/label positions: a legend or an auto-placed label
        # is laid out again on every redraw, which costs more than the marks themselves
        self._title = ax.set_title("", fontsize=fs, loc="left", y=1.0)
        ax.figure.subplots_adjust(left=0.22 if fs < 12 else 0.3, right=0.95, top=0.88, bottom=0.2)
        freeze_labels(ax)
        moving = [self._title] + [a for rule in LANE for a in (*self.bars[rule], self.starts[rule],
                                                               *self.labels[rule], self.gaps[rule],
                                                               self.gap_text[rule])]
        self.live = Live(ax.figure, moving=moving)
        self.update()

    def update(self, run: int | None = None, measure: str | None = None) -> str:
        """Set the run length (whole minutes) and the measure; returns the verdict."""
        run = self.run if run is None else choice(run, RUNS, "run (min)")          # check both,
        measure = self.measure if measure is None else choice(measure, MEASURES, "measure")
        self.run, self.measure = run, measure                                         # then store
        lit = SHOWS[self.measure]
        for rule, y in LANE.items():
            marks = self.marks[(rule, self.run)]
            colour, alpha = (ROLE[rule], 1.0) if rule in lit else (GREY, 0.35)
            for bar, (st, fi) in zip(self.bars[rule], marks):
                bar.set_x(st)
                bar.set_width(fi - st)
                bar.set_facecolor(colour)
                bar.set_alpha(alpha)
            starts = [st for st, _ in marks]
            self.starts[rule].set_xdata(starts)
            self.starts[rule].set_color(colour)
            self.starts[rule].set_alpha(alpha)
            for text, st in zip(self.labels[rule], starts):
                text.set_x(st)
                text.set_text(hm(st))
                text.set_color(colour)
                text.set_alpha(alpha)
            anchor = 0 if rule == "schedule" else 1    # the gap runs from the start, or the finish
            self.gaps[rule].set_segments([[(m[anchor], y - 0.3), (m[anchor] + self.every, y - 0.3)]
                                          for m in marks[:-1]])
            self.gaps[rule].set_color(colour)
            self.gaps[rule].set_alpha(alpha)
            first = marks[0][anchor]
            self.gap_text[rule].set_x(first + self.every / 2)
            self.gap_text[rule].set_text(f"{format_duration(self.every)} from the {'start' if anchor == 0 else 'finish'}")
            self.gap_text[rule].set_color(colour)
            self.gap_text[rule].set_alpha(alpha)
        grey = "" if self.measure == "both" else ", the other greyed"
        self._title.set_text(f"every {format_duration(self.every)} from {hm(self.start)}, each run takes "
                             f"{self.run} min · lit: {self.measure}{grey}")
        return self.verdict()

    def verdict(self) -> str:
        """The lit measures' verdicts, one line each."""
        return "\n".join(lane_verdict(rule, [st for st, _ in self.marks[(rule, self.run)]], self.every,
                                      self.run * MINUTE) for rule in SHOWS[self.measure])

    def moves(self) -> list[dict]:
        """Drag the run from 0 to 14 min and back, switching the measure on the way."""
        path = list(range(0, 15)) + [12, 9, 6, 4, 2]
        return [{"run": r, "measure": MEASURES[(i // 7) % 3]} for i, r in enumerate(path)]


def cadence_view(width: float = 9.0, height: float = 3.4, **kw) -> CadenceView:
    fig, ax = new_figure(width, height)
    return CadenceView(ax, **kw)


class CadencePanel(Panel):
    """A run slider and a measure switch around a `CadenceView`, with its verdict."""

    READOUT = "cadence-verdict"

    def __init__(self, figure: CadenceView | None = None):
        import ipywidgets as w

        self.view = v = figure or cadence_view()
        self.run = w.IntSlider(value=v.run, min=RUNS[0], max=RUNS[-1], step=1, description="run (min)",
                               continuous_update=True)
        self.measure = w.ToggleButtons(options=MEASURES, value=v.measure, description="measure")
        self.readout = w.HTML()
        self._show(v.update())
        self.run.observe(self.on_run, names="value")
        self.measure.observe(self.on_measure, names="value")
        self.box = w.VBox([self.measure, self.run, self.readout, v.live.image])

    def on_run(self, change) -> str:
        return self._show(self.view.update(run=change["new"]))

    def on_measure(self, change) -> str:
        return self._show(self.view.update(measure=change["new"]))


def cadence_panel(figure: CadenceView | None = None) -> CadencePanel:
    return CadencePanel(figure)


# -- 2. the slip over many cycles -------------------------------------------------------------

def slips(rule: str, tick: int, *, start: int = START, every: int | str = "15m", cycles: int = 96,
          latency: int = LATENCY, run: int | str = "4m", engine: bool = False, beat: str = BEAT) -> np.ndarray:
    """released - the on-the-clock slot (start + (n-1) * every), ms, for runs 1..cycles.

    From the reference model; `engine=True` runs the Lua engine instead (slower, same answer).
    """
    gap = Every(every).ms
    sched = Schedule("reports", Every(gap), rule=choice(rule, SLIP_RULES, "rule"))
    pump, worker = Pump(tick=tick, latency=latency, beat=beat), Worker(run=run)
    if engine:
        cols = simulate(sched, start=start, fires=cycles, pump=pump, worker=worker).arrays()
    else:
        cols = reference(sched, start=start, fires=cycles, pump=pump, worker=worker, ids=None).arrays()
    return cols["released"] - (start + gap * (cols["n"] - 1))


def _tick_text(tick: int) -> str:
    return "0 (woken at the score)" if tick == 0 else format_duration(tick)


def growth(slip: np.ndarray) -> str:
    """How a slip series moves: "flat", "+X a run" (a constant step), "+X to +Y a run"
    (always later, by varying steps), or "between X and Y" (it comes and goes)."""
    steps = np.diff(slip)
    if not len(steps) or not steps.any():
        return "flat"
    lo, hi = int(steps.min()), int(steps.max())
    if lo == hi:
        return f"+{format_duration(lo)} a run"
    if lo > 0:
        return f"+{format_duration(lo)} to +{format_duration(hi)} a run"
    return f"between {format_duration(int(slip.min()))} and {format_duration(int(slip.max()))}"


def _y(slip: np.ndarray) -> np.ndarray:
    """Slips on the log axis: 0 is drawn on the floor (1 ms)."""
    return np.maximum(slip, 1)


class SlipView:
    """Slip of each release from its on-the-clock slot, against the run number, per rule."""

    YTICKS = [(1, "\u2264 1 ms"), (10, "10 ms"), (100, "100 ms"), (1000, "1 s"), (10_000, "10 s"),
              (MINUTE, "1 min"), (10 * MINUTE, "10 min"), (60 * MINUTE, "1 h"), (600 * MINUTE, "10 h")]

    def __init__(self, ax, *, start: int = START, every: int | str = "15m", ticks=TICKS, cycles: int = 96,
                 latency: int = LATENCY, run: int | str = "4m", tick: int = 1000):
        self.ax, self.start, self.every, self.cycles = ax, start, Every(every).ms, cycles
        self.ticks, self.latency, self.run = tuple(ticks), latency, Worker(run=run).run
        self.tick = choice(tick, self.ticks, "tick (ms)")
        # the reference model, once per tick and rule
        self.slip = {(rule, t): slips(rule, t, start=start, every=self.every, cycles=cycles, latency=latency,
                                      run=self.run) for t in self.ticks for rule in SLIP_RULES}
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        x = np.arange(1, cycles + 1)
        self.lines, self.ends = {}, {}
        for rule in SLIP_RULES:
            self.lines[rule], = ax.plot(x, np.ones(cycles), color=ROLE[rule], lw=lw, marker="o",
                                        ms=ms * 0.45)
            # each line is labelled at its end: the rule, its formula, its slip by the last run
            self.ends[rule] = ax.text(cycles + 1.5, 1, "", color=ROLE[rule], fontsize=fs * 0.8, ha="left",
                                      va="center", clip_on=False, linespacing=1.1)
        ax.set_yscale("log")
        top = max(float(s.max()) for s in self.slip.values())
        ax.set_ylim(0.6, max(top * 3, 1e4))
        ax.set_yticks([v for v, _ in self.YTICKS], [t for _, t in self.YTICKS])
        ax.minorticks_off()
        ax.set_xlim(0, cycles + 1)
        ax.set_xlabel(f"run number (every {format_duration(self.every)}, from {hm(start)})")
        ax.set_ylabel("released \u2212 slot on the clock")
        ax.grid(axis="y", color=GREY, alpha=0.3)
        ax.spines[["top", "right"]].set_visible(False)
        self._title = ax.set_title("", fontsize=fs, loc="left", y=1.0)
        ax.figure.subplots_adjust(left=0.14 if fs < 12 else 0.19, right=0.74, top=0.9, bottom=0.16)
        freeze_labels(ax)
        self.live = Live(ax.figure, moving=[self._title, *self.lines.values(), *self.ends.values()])
        self.update()

    def update(self, tick: int | None = None) -> str:
        """Set the pump tick (ms); returns the readout."""
        if tick is not None:
            self.tick = choice(tick, self.ticks, "tick (ms)")
        for rule in SLIP_RULES:
            s = self.slip[(rule, self.tick)]
            self.lines[rule].set_ydata(_y(s))
            self.ends[rule].set_y(_y(s)[-1])
            self.ends[rule].set_text(f"{_RULE_LABEL[rule]}\n+{format_duration(int(s[-1]))}")
        self._title.set_text(f"EchoMQ's pump (re-armed a tick after each sweep), tick {_tick_text(self.tick)}, "
                             f"enqueue latency {format_duration(self.latency)}, each run {format_duration(self.run)}")
        return self.readout()

    def readout(self) -> str:
        """'by run 96, pump tick 1 s: schedule +920 ms (between 20 ms and 1 s) · release ...'."""
        parts = []
        for rule in SLIP_RULES:
            s = self.slip[(rule, self.tick)]
            parts.append(f"{rule} +{format_duration(int(s[-1]))} ({growth(s)})")
        return f"by run {self.cycles}, pump tick {_tick_text(self.tick)}: " + " \u00b7 ".join(parts)

    def moves(self) -> list[dict]:
        """Sweep the tick slider up, down and up again."""
        return [{"tick": t} for t in drag_path(self.ticks)]


_RULE_LABEL = {"schedule": "schedule: slot + every", "release": "release: now + every",
               "finish": "finish: finish + every"}


def slip_view(width: float = 9.0, height: float = 3.6, **kw) -> SlipView:
    fig, ax = new_figure(width, height)
    return SlipView(ax, **kw)


class SlipPanel(Panel):
    """A pump-tick slider around a `SlipView`, with its readout."""

    READOUT = "slip-readout"

    def __init__(self, figure: SlipView | None = None):
        import ipywidgets as w

        self.view = v = figure or slip_view()
        self.tick = w.SelectionSlider(options=[(format_duration(t), t) for t in v.ticks],
                                      value=v.tick, description="pump tick", continuous_update=True)
        self.readout = w.HTML()
        self._show(v.update())
        self.tick.observe(self.on_tick, names="value")
        self.box = w.VBox([self.tick, self.readout, v.live.image])

    def on_tick(self, change) -> str:
        return self._show(self.view.update(tick=change["new"]))


def slip_panel(figure: SlipView | None = None) -> SlipPanel:
    return SlipPanel(figure)


# -- the two pages' rules side by side --------------------------------------------------------

def rule_rows(*, every: int | str = 1500, tick: int = 1000, fires: int = 4, start: int = START,
              latency: int = 0, beat: str = BEAT):
    """{rule: [(slot, released)]} for the schedule and release rules, from the engine."""
    out = {}
    for rule in ("schedule", "release"):
        trace = simulate(Schedule("reports", Every(every), rule=rule), start=start, fires=fires,
                         pump=Pump(tick=tick, latency=latency, beat=beat))
        out[rule] = [(f.slot, f.released) for f in trace]
    return out


def rule_table(*, every: int | str = 1500, tick: int = 1000, fires: int = 4, start: int = START,
               latency: int = 0, beat: str = BEAT) -> str:
    """Slot and release per cycle under BullMQ's `prev + every` and EchoMQ's `now + every`."""
    rows = rule_rows(every=every, tick=tick, fires=fires, start=start, latency=latency, beat=beat)
    gap = Every(every).ms
    lines = [f"every {gap} ms, pump tick {tick} ms ({beat}), sweep latency {latency} ms",
             f"{'run':>3}  {'schedule: slot':>14}  {'released':>12}  {'release: slot':>14}  {'released':>12}"]
    for n, ((s1, r1), (s2, r2)) in enumerate(zip(rows["schedule"], rows["release"]), 1):
        lines.append(f"{n:>3}  {hmsms(s1):>14}  {hmsms(r1):>12}  {hmsms(s2):>14}  {hmsms(r2):>12}")
    lines += period_readout(rows, gap).splitlines()[1:]
    return "\n".join(lines)


def period_readout(rows: dict, every: int) -> str:
    """What each rule keeps, measured on the engine's rows: the schedule rule's slot gap and
    release lags, and the release rule's gap between releases (its effective period)."""
    def apart(values) -> str:
        return "/".join(str(v) for v in sorted(set(values)))

    sched, rel = rows["schedule"], [r for _, r in rows["release"]]
    slot_gaps = [b[0] - a[0] for a, b in zip(sched, sched[1:])]
    return "\n".join([
        f"asked for every {every} ms",
        f"  schedule rule: slots {apart(slot_gaps)} ms apart, each released {apart(r - s for s, r in sched)} ms"
        " after its slot",
        f"  release rule:  released {apart(b - a for a, b in zip(rel, rel[1:]))} ms apart: "
        + ", ".join(hmsms(r) for r in rel),
    ])


def periods(*, every: int | str = 1500, tick: int = 1000, latencies=(0, LATENCY), fires: int = 8,
            start: int = START) -> str:
    """The release rule's gap between releases (its effective period), from the engine, on a
    grid pump and on EchoMQ's re-arming one, for each sweep latency."""
    gap = Every(every).ms
    lines = [f"release rule, every {gap} ms, pump tick {tick} ms: gap between releases over {fires} runs"]
    for lat in latencies:
        cells = []
        for beat in ("grid", "rearm"):
            rel = [r for _, r in rule_rows(every=gap, tick=tick, fires=fires, start=start, latency=lat,
                                           beat=beat)["release"]]
            cells.append(f"{beat} {'/'.join(str(v) for v in sorted({b - a for a, b in zip(rel, rel[1:])}))} ms")
        lines.append(f"  latency {lat:>3} ms: " + " · ".join(cells))
    return "\n".join(lines)


def slip_ranges(*, ticks=(1000, 5000), latency: int = LATENCY, cycles: int = 96, start: int = START) -> str:
    """What the release rule loses per cycle (min-max over `cycles` runs every 15 min), on a grid
    pump and on EchoMQ's re-arming one: the slip is a range, not one number."""
    lines = [f"release rule, every 15 min, enqueue latency {latency} ms: lost per cycle over {cycles} runs"]
    for tick in ticks:
        cells = []
        for beat in ("grid", "rearm"):
            steps = np.diff(slips("release", tick, start=start, cycles=cycles, latency=latency, beat=beat))
            lo, hi = int(steps.min()), int(steps.max())
            cells.append(f"{beat} {format_duration(lo)}" + ("" if lo == hi else f" to {format_duration(hi)}"))
        lines.append(f"  tick {format_duration(tick):>5}: " + " · ".join(cells))
    return "\n".join(lines)


# -- 4. EchoMQ's advance, live on a Store --------------------------------------------------------

def advance_demo(store: Store | None = None, *, start: int = START, every: int | str = "15m",
                 lag: int = LATENCY) -> str:
    """Register, advance to `now + every`, cancel, advance again: the answers and the registry.

    Only row names, scores and answers are printed: key names carry the queue name, which a
    real server makes unique per Store.
    """
    own = store is None
    store = store or Store()
    try:
        reg = Registry(store)
        gap = Every(every).ms
        code = {v: k for k, v in ADVANCE.items()}

        def rows() -> str:
            shown = ", ".join(f"{name} -> {hmsms(score)}" for name, score in reg.rows()) or "(empty)"
            return f"  registry: {shown}   ZCARD {reg.size()}"

        out = [f"register reports, every {format_duration(gap)}, first run {hmsms(start)}: "
               f"{reg.register(Schedule('reports', Every(gap), rule='release'), start)}", rows()]
        now = start + lag
        ans = reg.advance("reports", now + gap)
        out += [f"released at {hmsms(now)}; advance(reports, now + every = {hmsms(now + gap)}): "
                f"{ans} ({code[ans]})", rows()]
        out.append(f"cancel(reports): {reg.cancel('reports')}")
        now += gap
        ans = reg.advance("reports", now + gap)
        out += [f"a tick that read the row before the cancel: advance(reports, {hmsms(now + gap)}): "
                f"{ans} ({code[ans]})", rows()]
        return "\n".join(out)
    finally:
        if own:
            store.close()
