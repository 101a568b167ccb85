"""Missed slots: what seven catch-up policies fire after the pump was down, and where the cadence lands.

A schedule runs every 15 minutes from 09:07 UTC on 30 November 2026, so its slots sit on
:07, :22, :37 and :52. The pump goes down and comes back; the registry row still holds the
first slot it missed. What the release at the restart does with the missed slots is the
schedule's ``missed`` policy (`emqsim.schedule`), and `MissedView` draws all seven on one time
axis, a lane each: BullMQ's job-scheduler snap as bullmq 6.7.0 computes it, the same snap as
bullmq 5.59.0 to 5.80.0 computed it, the legacy repeatable jobs' ``getNextMillis`` (the
"epoch" lane), EchoMQ's ``now + every``, replay all, fire once for the latest slot, and skip
past a deadline.

Where the numbers come from. A move recomputes all seven lanes with the reference model
(`emqsim.reference.reference`), not with the Lua engine: a Simulation per lane, with its
set-up and a script call per fire, is far over the 50 ms a move may take, and the sliders
reach over 6,000 outages times 61 deadlines, too many to run through the engine when the
view is built. The reference model computes the lanes with the package's own formulas, and
tests/test_engine_vs_reference.py and tests/test_policies.py hold it equal to the engine
fire for fire. `engine_check` runs the engine for one outage and compares it lane by lane:
the notebook calls it for the default outage, the unit tests for several more.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D

from ..cadence import Every
from ..durations import format_duration, parse_duration
from ..errors import InputError
from ..faults import Faults
from ..pump import Pump
from ..reference import engine_fires, engine_skips, reference
from ..schedule import Schedule
from ..sim import Simulation
from ..timefmt import at, hm, hms
from .controls import Panel
from .live import Live
from .style import BLUE, GREY, ORANGE, VERMILLION, freeze_labels, new_figure, scale, time_axis

DAY = "2026-11-30"
MINUTE = 60_000
EVERY = 15 * MINUTE
START = at(f"{DAY} 09:07")                 # the schedule's first run, and its phase (:07)
NAME = "reports"
PUMP = Pump(tick=1000)
VIEW = (at(f"{DAY} 09:00"), at(f"{DAY} 11:15"))
HORIZON = at(f"{DAY} 11:45")               # run past the axis: every lane gets two runs after the restart
TIMES = tuple(range(at(f"{DAY} 09:10"), at(f"{DAY} 11:00") + 1, MINUTE))   # the outage sliders' positions
DEADLINES = tuple(m * MINUTE for m in range(61))                          # the deadline slider: 0 to 60 min
DOWN, UP, DEADLINE = at(f"{DAY} 09:30"), at(f"{DAY} 10:10"), 5 * MINUTE

#: the engine's policies, one lane each, top to bottom
POLICIES = ("snap", "snap-v5", "epoch", "release", "all", "once", "skip")
#: lane labels: the engine's name and who does it that way
LABELS = {
    "snap": "snap\nBullMQ 6.7.0 scheduler",
    "snap-v5": "snap-v5\nBullMQ 5.59-5.80.0",
    "epoch": "epoch\nBullMQ legacy repeatable",
    "release": "release\nEchoMQ now + every",
    "all": "all\nQuartz, Hangfire Strict",
    "once": "once\nK8s, APScheduler",
    "skip": "skip\npast a deadline",
}
_HHMM = re.compile(r"\s*([0-9]{1,2}):([0-9]{2})\s*", re.ASCII)


def schedule(policy: str, deadline: int | str = DEADLINE) -> Schedule:
    """The every-15-min registration under `policy` ("release" is the rule, the others `missed`)."""
    if policy not in POLICIES:
        raise InputError(f"policy {policy!r} is not one of {', '.join(POLICIES)}")
    if policy == "release":
        return Schedule(NAME, Every(EVERY), rule="release")
    if policy == "skip":
        return Schedule(NAME, Every(EVERY), missed="skip", deadline=deadline)
    return Schedule(NAME, Every(EVERY), missed=policy)


def instant(value: int | str, what: str = "time") -> int:
    """`value` as Unix ms: whole ms, or "HH:MM" on the view's day (UTC)."""
    if isinstance(value, str):
        m = _HHMM.fullmatch(value)
        if m and int(m.group(1)) < 24 and int(m.group(2)) < 60:
            return at(f"{DAY} {int(m.group(1)):02d}:{m.group(2)}")
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    raise InputError(f"{what} {value!r} is not a time; give HH:MM such as '10:10', or Unix ms", what)


def outage(down: int | str, up: int | str) -> tuple[int, int]:
    """(down, up) in Unix ms; an outage that ends before it starts is a ValueError saying so."""
    down, up = instant(down, "pump down"), instant(up, "pump up")
    if up < down:
        raise InputError(f"pump up {hm(up)} is before pump down {hm(down)}: "
                         f"the outage must end after it starts; move pump up to {hm(down)} or later")
    if down < START:
        raise InputError(f"pump down {hm(down)} is before the schedule starts at {hm(START)}; "
                         f"give {hm(START)} or later")
    return down, up


def missed_slots(down: int, up: int, start: int = START) -> tuple[int, ...]:
    """The slots of the :07 grid the outage covered: due while the pump was down, plus the
    one at the restart instant if the row was already behind (it is caught up with them)."""
    first = start + max(0, -(-(down - start) // EVERY)) * EVERY   # the first slot at or after `down`
    covered = tuple(range(first, up, EVERY))
    if covered and (up - start) % EVERY == 0:
        covered += (up,)
    return covered


@dataclass(frozen=True)
class Lane:
    """One policy after one outage: its jobs as (slot stood for, released), its skipped
    occurrences as (slot, instant skipped), and what the trace counted."""

    policy: str
    fires: tuple[tuple[int, int], ...]
    skips: tuple[tuple[int, int], ...]
    missed: tuple[int, ...]
    up: int
    deadline: int | None = None
    lost: int = 0
    duplicates: int = 0

    @property
    def catch_up(self) -> tuple[tuple[int, int], ...]:
        """The jobs released at or after the restart that stand for a missed slot."""
        return tuple(f for f in self.fires if f[1] >= self.up and f[0] in self.missed)

    @property
    def then(self) -> tuple[int, ...]:
        """Releases after the catch-up: where the cadence now lands."""
        late = set(self.catch_up)
        return tuple(r for slot, r in self.fires if r >= self.up and (slot, r) not in late)

    @property
    def skipped(self) -> tuple[tuple[int, int], ...]:
        """Skipped occurrences at or after the restart."""
        return tuple(s for s in self.skips if s[1] >= self.up)

    @property
    def collapsed(self) -> tuple[int, ...]:
        """Missed slots that got no job and were not skipped: the row stepped over them, so
        they were never written to the registry (not lost, not skipped: never there)."""
        held = {f[0] for f in self.fires} | {s[0] for s in self.skips}
        return tuple(s for s in self.missed if s not in held)


def lanes(down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE, *,
          engine: bool = False) -> list[Lane]:
    """The seven lanes for an outage from `down` to `up`, from the reference model, or from the
    Lua engine (`Simulation` with `Faults(outage=...)`, `Pump(tick=1000)`) with `engine=True`."""
    down, up = outage(down, up)
    deadline = parse_duration(deadline, name="deadline")
    missed = missed_slots(down, up)
    out = []
    for policy in POLICIES:
        s = schedule(policy, deadline)
        dl = deadline if policy == "skip" else None
        if engine:
            with Simulation(s, start=START, pump=PUMP, faults=Faults(outage=(down, up))) as sim:
                tr = sim.run(until=HORIZON)
            out.append(Lane(policy, tuple((f.slot, f.released) for f in tr), tuple((k.slot, k.at) for k in tr.skips),
                            missed, up, dl, tr.lost, tr.duplicates))
        else:
            r = reference(s, start=START, until=HORIZON, pump=PUMP, outage=(down, up), ids=None)
            out.append(Lane(policy, tuple(zip(r.slot.tolist(), r.released.tolist())),
                            tuple((a, b) for a, b, _ in r.skips), missed, up, dl))
    return out


# -- the readout -------------------------------------------------------------------------------

def _t(ms: int) -> str:
    return hm(ms) if ms % MINUTE == 0 else hms(ms)


def phase_text(ms: int) -> str:
    """The minute inside the 15-min gap, as ':07' (':07:30' with seconds)."""
    p = ms % EVERY
    return f":{p // MINUTE:02d}" + (f":{p % MINUTE // 1000:02d}" if p % MINUTE else "")


def lane_line(lane: Lane) -> str:
    """'snap:     10:10 (slot 09:37), then 10:22, 10:37 · phase :07 kept'."""
    late = lane.catch_up
    fmt = hms if any(r % MINUTE for _, r in late) else hm
    events = []
    for slot, rel in late:
        why = ""
        if lane.deadline is not None:
            why = f", {format_duration(rel - slot)} late \u2264 {format_duration(lane.deadline)}"
        events.append((rel, f"{fmt(rel)} (slot {hm(slot)}{why})"))
    for slot, when in lane.skipped:
        events.append((when, f"{hm(slot)} skipped at {_t(when)} "
                             f"({format_duration(when - slot)} late > {format_duration(lane.deadline)})"))
    events.sort(key=lambda e: e[0])
    then = lane.then
    done = ", ".join(text for _, text in events) + ", then " if events else "nothing missed; next "
    head = f"{lane.policy + ':':9}{done}"
    if not then:
        return head + f"nothing before {hm(HORIZON)}"
    before, after = phase_text(START), phase_text(then[0])
    phase = f"phase {before} kept" if before == after else f"phase {before} \u2192 {after}"
    return head + ", ".join(_t(r) for r in then[:2]) + f" \u00b7 {phase}"


def readout_text(down: int, up: int, ls: list[Lane]) -> str:
    """A head line for the outage, then one line per policy."""
    missed = ls[0].missed
    what = (f"slot{'s' if len(missed) > 1 else ''} {', '.join(hm(s) for s in missed)} missed" if missed
            else "no slot missed")
    head = f"pump down {_t(down)} \u2192 {_t(up)} ({format_duration(up - down)}): {what}"
    return "\n".join([head] + [lane_line(lane) for lane in ls])


def engine_check(down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE) -> str:
    """Run the Lua engine for one outage and compare each lane with the reference model the
    view uses; one line per policy with the engine's counts."""
    down, up = outage(down, up)
    deadline = parse_duration(deadline, name="deadline")
    lines = [f"pump down {_t(down)} \u2192 {_t(up)}, skip deadline {format_duration(deadline)}"]
    for policy in POLICIES:
        s = schedule(policy, deadline)
        with Simulation(s, start=START, pump=PUMP, faults=Faults(outage=(down, up))) as sim:
            tr = sim.run(until=HORIZON)
        ref = reference(s, start=START, until=HORIZON, pump=PUMP, outage=(down, up))
        same = (engine_fires(tr) == ref.to_fires() and engine_skips(tr) == ref.skips
                and (tr.count, tr.skipped, tr.next) == (ref.count, ref.skipped, ref.next))
        verdict = "engine = reference" if same else "engine \u2260 reference"
        lines.append(f"{policy + ':':8} {verdict} \u00b7 {tr.count} jobs \u00b7 skipped {tr.skipped} "
                     f"\u00b7 lost {tr.lost} \u00b7 duplicates {tr.duplicates} \u00b7 registry rows {tr.registry_size}")
    return "\n".join(lines)


def snap_arithmetic(prev: int | str = "09:37", now: int | str = "10:10", *, every: int | str = "15m",
                    start: int = START) -> str:
    """The three catch-up formulas of `Every.after`, worked in Unix ms for one late release."""
    cad = Every(every)
    e = cad.ms
    prev, now = instant(prev, "prev"), instant(now, "now")
    phase = cad.phase(start)
    base = now // e * e
    a = base + phase
    offset = cad.after(prev, now, phase, "offset")
    v5 = cad.after(prev, now, phase, "offset-v5")
    epoch = cad.after(prev, now, phase, "epoch")
    if prev + e >= now:
        return (f"prev + every = {prev + e} ({hm(prev + e)}) is not before now = {now} ({_t(now)}): "
                f"nothing to snap, the next run is {hm(prev + e)} under all three formulas")
    lines = [
        f"every  = {e} ms ({format_duration(e)}); offset = phase of the first run {hm(start)} = {phase} ms "
        f"({format_duration(phase)})",
        f"prev   = {prev} ({hm(prev)}, the slot the row holds); now = {now} ({_t(now)}, the release)",
        f"prev + every = {prev + e} ({hm(prev + e)}) < now: missed, snap forward",
        f"floor(now/every)*every = {base} ({hm(base)})",
        f"offset snap: a = {base} + {phase} = {a} ({hm(a)}); "
        + (f"a <= now, so a + every = {a + e} ({hm(a + e)})" if a <= now else f"a > now, so a = {a} ({hm(a)})"),
        f"v5 snap:     {base} + {e} + {phase} = {base + e + phase} ({hm(base + e + phase)})",
        f"epoch snap:  {base} + {e} = {base + e} ({hm(base + e)})",
        f'Every("{every}").after(prev, now, {phase}, "offset")    = {offset} ({hm(offset)})',
        f'Every("{every}").after(prev, now, {phase}, "offset-v5") = {v5} ({hm(v5)})',
        f'Every("{every}").after(prev, now, {phase}, "epoch")     = {epoch} ({hm(epoch)})',
    ]
    return "\n".join(lines)


# -- the figure ----------------------------------------------------------------------------------

class MissedView:
    """Seven lanes on one time axis, one per policy: each release a dot; a late job's slot a
    ring joined to its release by a faint line; a skipped slot a cross joined to the release
    that skipped it; a missed slot that got neither a grey square. The outage is shaded and
    the :07 slots are dotted verticals, so a lane that keeps its phase stays on them."""

    def __init__(self, ax, *, down: int | str = DOWN, up: int | str = UP, deadline: int | str = DEADLINE,
                 times=TIMES, deadlines=DEADLINES):
        self.ax = ax
        self.times, self.deadlines = tuple(times), tuple(deadlines)
        self.down = self._time(down, "pump down")
        self.up = self._time(up, "pump up")
        self.deadline = self._deadline(deadline)
        self.lanes: list[Lane] | None = None
        self.error: str | None = None      # the readout while the outage ends before it starts
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        n = len(POLICIES)
        self.y = {p: n - 1 - i for i, p in enumerate(POLICIES)}
        for s in range(START - (START - VIEW[0]) // EVERY * EVERY, VIEW[1] + 1, EVERY):
            ax.axvline(s, color=ORANGE, ls=":", lw=lw * 0.6, zorder=0)
        self.band = ax.axvspan(self.down, self.up, color=GREY, alpha=0.25, lw=0)
        self.links = LineCollection([], colors=BLUE, linewidths=lw * 0.6, alpha=0.45)
        ax.add_collection(self.links)
        self.skip_links = LineCollection([], colors=VERMILLION, linewidths=lw * 0.6, linestyles=":")
        ax.add_collection(self.skip_links)
        self.collapsed = ax.scatter([], [], s=(ms * 0.9) ** 2, marker="s", facecolors="none", edgecolors=GREY,
                                    linewidths=lw * 0.5, zorder=3)
        self.slots = ax.scatter([], [], s=(ms * 1.5) ** 2, facecolors="none", edgecolors=BLUE,
                                linewidths=lw * 0.6, zorder=3)
        self.released = ax.scatter([], [], s=ms ** 2, color=BLUE, zorder=4)
        self.skipped = ax.scatter([], [], s=(ms * 1.3) ** 2, color=VERMILLION, marker="X", zorder=5)
        self.counts = [ax.text(VIEW[0], self.y[p] + 0.22, "", fontsize=fs * 0.75, color=BLUE, va="bottom",
                               ha="center", zorder=6) for p in POLICIES]
        time_axis(ax, *VIEW, step=EVERY, label="time")
        ax.tick_params(axis="x", labelsize=fs * 0.8)
        ax.set_ylim(-0.6, n - 0.4)
        ax.set_yticks([self.y[p] for p in POLICIES], [LABELS[p] for p in POLICIES], fontsize=fs * 0.75)
        ax.spines[["top", "right"]].set_visible(False)
        grid = Line2D([], [], color=ORANGE, ls=":", lw=lw * 0.6)
        ax.legend([self.released, (self.slots, self.links), self.skipped, self.collapsed, self.band, grid],
                  ["release: a job", "the slot a late job stands for", "skipped: past the deadline",
                   "missed slot, no job: never written", "pump down", "the :07 slots"],
                  loc="upper center", bbox_to_anchor=(0.42, -0.16), ncol=3, fontsize=fs * 0.75, frameon=False)
        self._title = ax.set_title("", fontsize=fs, loc="left")
        ax.figure.subplots_adjust(left=0.2, right=0.98, top=0.92, bottom=0.22)
        freeze_labels(ax)
        #: every artist a move changes; the rest is drawn once and cached by `Live`
        self.moving = [self.band, self.links, self.skip_links, self.collapsed, self.slots, self.released,
                       self.skipped, *self.counts, self._title]
        self.live = Live(ax.figure, moving=self.moving)
        self.update()
        self.live.refresh()   # cache the static layer now, so the reader's first move is only a blit

    # -- inputs -----------------------------------------------------------------------------

    def _time(self, value, what: str) -> int:
        t = instant(value, what)
        if t not in self.times:
            raise InputError(f"{what} {value!r} is not a slider position; give a whole minute from "
                             f"{hm(self.times[0])} to {hm(self.times[-1])}", what)
        return t

    def _deadline(self, value) -> int:
        if isinstance(value, float):
            raise InputError(f"deadline {value!r} is not a slider position; give whole ms or text like '10m'",
                             "deadline")
        d = parse_duration(value, name="deadline")
        if d not in self.deadlines:
            raise InputError(f"deadline {value!r} is not a slider position; give whole minutes from "
                             f"{format_duration(self.deadlines[0])} to {format_duration(self.deadlines[-1])}",
                             "deadline")
        return d

    # -- a move --------------------------------------------------------------------------------

    def update(self, down: int | str | None = None, up: int | str | None = None,
               deadline: int | str | None = None) -> str:
        """Move the outage to `down` -> `up` ("HH:MM" or Unix ms) and the skip deadline to
        `deadline` ("5m" or ms); returns the readout. An outage that ends before it starts is
        a state two sliders can reach: the readout says so and the lanes are emptied."""
        down = self.down if down is None else self._time(down, "pump down")
        up = self.up if up is None else self._time(up, "pump up")
        deadline = self.deadline if deadline is None else self._deadline(deadline)
        self.down, self.up, self.deadline = down, up, deadline   # stored once all are checked
        try:
            outage(self.down, self.up)
        except ValueError as exc:
            self.lanes, self.error = None, str(exc)
            self._draw([])
            self._title.set_text(f"pump down {hm(self.down)}, up {hm(self.up)}: no outage to draw")
            return self.error
        self.lanes, self.error = lanes(self.down, self.up, self.deadline), None
        self._draw(self.lanes)
        self._title.set_text(f"pump down {hm(self.down)} \u2192 {hm(self.up)} \u00b7 "
                             f"skip deadline {format_duration(self.deadline)}")
        return self.readout()

    def _draw(self, ls: list[Lane]) -> None:
        rel, ring, links, skips, skip_links, gone = [], [], [], [], [], []
        for lane in ls:
            y = self.y[lane.policy]
            for slot, r in lane.fires:
                rel.append((r, y))
                if slot != r:
                    ring.append((slot, y))
                    links.append([(slot, y), (r, y)])
            for slot, when in lane.skips:
                skips.append((slot, y))
                skip_links.append([(slot, y), (when, y)])
            gone += [(s, y) for s in lane.collapsed]
        self.released.set_offsets(_xy(rel))
        self.slots.set_offsets(_xy(ring))
        self.links.set_segments(links)
        self.skipped.set_offsets(_xy(skips))
        self.skip_links.set_segments(skip_links)
        self.collapsed.set_offsets(_xy(gone))
        by = {lane.policy: lane for lane in ls}
        for p, text in zip(POLICIES, self.counts):
            late = by[p].catch_up if p in by else ()
            text.set_text(f"\u00d7{len(late)}" if len(late) > 1 else "")
            text.set_x(late[0][1] if late else VIEW[0])
        self.band.set_x(self.down)
        self.band.set_width(max(0, self.up - self.down))

    def readout(self) -> str:
        if self.lanes is None:
            return self.error or ""
        return readout_text(self.down, self.up, self.lanes)

    def moves(self) -> list[dict]:
        """A reader's session, 20 moves: drag the restart later, the deadline up, the outage's
        start earlier, the restart back."""
        t = lambda hhmm: at(f"{DAY} {hhmm}")   # noqa: E731
        ups = [{"up": t(x)} for x in ("10:13", "10:16", "10:19", "10:22", "10:25", "10:28", "10:31", "10:34")]
        dls = [{"deadline": m * MINUTE} for m in (10, 20, 35, 60)]
        downs = [{"down": t(x)} for x in ("09:25", "09:20", "09:15", "09:12")]
        back = [{"up": t(x)} for x in ("10:25", "10:16", "10:07", "10:10")]
        return ups + dls + downs + back


def _xy(points) -> np.ndarray:
    return np.array(points, dtype=float).reshape(-1, 2)


def missed_view(width: float = 10.0, height: float = 5.4, **kw) -> MissedView:
    fig, ax = new_figure(width, height)
    return MissedView(ax, **kw)


class MissedPanel(Panel):
    """Two outage sliders (pump down, pump up), a deadline slider and Play on the restart,
    around a `MissedView`, with its readout."""

    READOUT = "missed-readout"

    def __init__(self, figure: MissedView | None = None):
        import ipywidgets as w

        from .controls import play

        self.view = v = figure or missed_view()
        style = {"description_width": "initial"}
        times = [(hm(t), t) for t in v.times]
        # a move is a reference-model run and a blit, well under 50 ms: follow the drag
        self.down = w.SelectionSlider(options=times, value=v.down, description="pump down",
                                      continuous_update=True, style=style)
        self.up = w.SelectionSlider(options=times, value=v.up, description="pump up",
                                    continuous_update=True, style=style)
        self.deadline = w.SelectionSlider(options=[(format_duration(d), d) for d in v.deadlines],
                                          value=v.deadline, description="skip deadline",
                                          continuous_update=True, style=style)
        self.player = play(self.up, step=1, max_step=15, interval=400, label="min per step", width="240px")
        self.readout = w.HTML()
        self._show(v.update())
        self.down.observe(self.on_down, names="value")
        self.up.observe(self.on_up, names="value")
        self.deadline.observe(self.on_deadline, names="value")
        self.box = w.VBox([w.HBox([self.down, self.up]), w.HBox([self.deadline, self.player.box]),
                           self.readout, v.live.image])

    def on_down(self, change) -> str:
        return self._show(self.view.update(down=change["new"]))

    def on_up(self, change) -> str:
        return self._show(self.view.update(up=change["new"]))

    def on_deadline(self, change) -> str:
        return self._show(self.view.update(deadline=change["new"]))


def missed_panel(figure: MissedView | None = None) -> MissedPanel:
    return MissedPanel(figure)
