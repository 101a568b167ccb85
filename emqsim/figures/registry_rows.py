"""One row, rewritten each fire: the registry stays at one entry while the jobs pile up.

The engine runs once, when the view is built; a slider move only indexes what it
recorded (each Fire carries ZCARD and the row's score after it), so a move costs a
redraw and no Redis round trip. `reregister_demo` puts EchoMQ's insert-if-absent
next to BullMQ's upsert on the same name.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np

from ..cadence import Every
from ..durations import parse_duration
from ..errors import InputError
from ..ids import minted_at
from ..schedule import INF, Schedule
from ..sim import Simulation
from ..store import Store
from ..timefmt import at, hm, hms, iso
from .controls import play
from .live import Live
from .style import GREY, ROLE, new_figure, scale

NAME = "reports"
EVERY = "15m"
START = "2026-11-30 09:00"
#: Fires the notebook runs through the Lua engine, once, when the figure is built
#: (about 8 s on fakeredis, 3 s on a local redis-server; `make bench` prints the rate).
FIRES = 10_000


def reports(*, start: int | None = None, **options) -> Simulation:
    """The course's schedule: `reports`, every 15 min, registered at 09:00 UTC (not run yet)."""
    return Simulation(Schedule(NAME, Every(EVERY)), start=at(START) if start is None else start, **options)


def _fires(n: int) -> str:
    return f"{n} fire" if n == 1 else f"{n} fires"


def _day(ms: int | float, tz: str) -> str:
    return "parked" if ms == INF else iso(int(ms), tz)[:10]


def _when(ms: int | float, tz: str) -> str:
    """A row's score as the course shows it: HH:MM on YYYY-MM-DD."""
    return "+inf (parked)" if ms == INF else f"{hm(int(ms), tz)} on {_day(ms, tz)}"


@dataclass(frozen=True)
class State:
    """What the registry and the queue hold after `fires` fires."""

    fires: int
    size: int                     # ZCARD of the registry
    name: str
    score: int | float            # the one row's score
    jobs: int                     # jobs produced so far
    job_id: str | None            # the latest job's id
    minted: int | None            # what that id decodes to (Unix ms)


class RegistryRowsView:
    """Registry rows (ZCARD) and jobs produced against fires elapsed, with a cursor.

    `sim` is a Simulation that has not run yet: the view reads the state right after
    registration, runs `fires` fires once, and reads the live registry at the end.
    """

    def __init__(self, ax, sim: Simulation, fires: int, tz: str = "UTC"):
        if isinstance(fires, bool) or not isinstance(fires, int) or fires < 1:
            raise InputError(f"fires {fires!r} must be a whole number of fires, at least 1")
        if sim.trace.count:
            raise InputError(f"the simulation has already produced {sim.trace.count} fires; "
                             "give a fresh one so the view sees the registration")
        if fires > sim.trace.fires.maxlen:
            raise InputError(f"fires {fires} exceeds the trace's retain {sim.trace.fires.maxlen}; "
                             "build the Simulation with retain >= fires")
        rows = sim.registry.rows()
        if len(rows) != 1:
            raise InputError(f"the registry holds {len(rows)} rows; this view shows exactly one schedule")
        self.sim, self.tz, self.fires = sim, tz, fires
        self.name, first = rows[0]
        registered_size = sim.registry.size()
        trace = sim.run(fires=fires)
        if trace.count != fires:
            raise InputError(f"the schedule produced {trace.count} fires, not {fires}; "
                             "it ended (limit or end date) before that")
        cols = trace.arrays()
        # index k = state after k fires; k = 0 is the registration
        self.sizes = np.concatenate(([registered_size], cols["size"]))
        self.scores = np.concatenate(([first], cols["next"]))
        self.jobs = np.concatenate(([0], cols["n"]))
        self.job_ids = [None] + trace.column("job_id")
        self.x = np.arange(fires + 1)
        # the live registry once the run is over
        self.final_rows = sim.registry.rows()
        self.final_size = sim.registry.size()
        self.final_record = sim.registry.record(self.name)
        self.ax = ax
        self._draw()
        self.live = Live(ax.figure, moving=self.moving)
        self.readout = self.update(0)

    # -- drawing -------------------------------------------------------------------------

    def _draw(self) -> None:
        ax, s, n = self.ax, scale(), self.fires
        self.ax_rows = rows_ax = ax.twinx()
        ax.set_xlim(0, n)
        ax.set_ylim(0, n * 1.05)
        ax.set_xlabel("fires elapsed")
        ax.set_ylabel("jobs produced", color=ROLE["run"])
        rows_ax.set_ylim(0, 2)
        rows_ax.set_yticks([0, 1, 2])
        rows_ax.set_ylabel("registry rows (ZCARD)", color=ROLE["schedule"])
        ax.grid(color=GREY, alpha=0.25)
        ax.set_title(f"One row, rewritten each fire ({self.name}, every 15 min)", fontsize=s["font"])
        lw, small = s["line"], s["font"] * 0.85
        # the whole run, faint; the part up to the cursor, solid; each line named where it ends
        (self.jobs_all,) = ax.plot(self.x, self.jobs, color=ROLE["run"], lw=lw, alpha=0.25)
        (self.rows_all,) = rows_ax.plot(self.x, self.sizes, color=ROLE["schedule"], lw=lw, alpha=0.25)
        (self.jobs_line,) = ax.plot([], [], color=ROLE["run"], lw=lw * 1.5, label="jobs produced")
        (self.rows_line,) = rows_ax.plot([], [], color=ROLE["schedule"], lw=lw * 1.5, ls="--",
                                         label="registry rows (ZCARD)")
        ax.text(0.98 * n, 0.8 * self.jobs[-1], "jobs produced", color=ROLE["run"], ha="right", va="top",
                fontsize=small)
        rows_ax.text(0.98 * n, self.sizes[-1] + 0.08, "registry rows (ZCARD)", color=ROLE["schedule"], ha="right",
                     va="bottom", fontsize=small)
        self.cursor = ax.axvline(0, color=ROLE["now"], lw=lw * 0.6, label="fires elapsed")
        (self.jobs_dot,) = ax.plot([0], [0], "o", color=ROLE["run"], ms=s["marker"], mec=ROLE["now"], clip_on=False)
        (self.rows_dot,) = rows_ax.plot([0], [1], "s", color=ROLE["schedule"], ms=s["marker"], mec=ROLE["now"],
                                       clip_on=False)
        self.row_box = ax.text(0.02, 0.95, "", transform=ax.transAxes, va="top", ha="left", fontsize=small,
                               zorder=5, bbox=dict(boxstyle="round", fc="white", ec=GREY))
        ax.figure.subplots_adjust(left=0.09, right=0.91, bottom=0.16, top=0.9)
        self.moving = (self.jobs_line, self.rows_line, self.cursor, self.jobs_dot, self.rows_dot, self.row_box)

    # -- moving ---------------------------------------------------------------------------

    def state(self, fires: int) -> State:
        """The recorded state after `fires` fires (0 = right after registration)."""
        if isinstance(fires, bool) or not isinstance(fires, (int, np.integer)) or not 0 <= fires <= self.fires:
            raise InputError(f"fires {fires!r} is out of range; use a whole number 0..{self.fires}", "fires")
        k = int(fires)
        score = self.scores[k]
        job_id = self.job_ids[k]
        return State(k, int(self.sizes[k]), self.name, INF if score == INF else int(score), int(self.jobs[k]),
                     job_id, None if job_id is None else minted_at(job_id))

    def describe(self, st: State) -> str:
        tz = self.tz
        last = "no job yet" if st.job_id is None else \
            f"last job {st.job_id} minted {hms(st.minted, tz)} on {_day(st.minted, tz)}"
        return (f"after {_fires(st.fires)} · ZCARD {st.size} · jobs {st.jobs} · "
                f"row {st.name} -> {_when(st.score, tz)} · {last}")

    def update(self, fires: int) -> str:
        """Move the cursor to `fires` fires elapsed; returns the readout."""
        st = self.state(fires)
        k = st.fires
        self.jobs_line.set_data(self.x[: k + 1], self.jobs[: k + 1])
        self.rows_line.set_data(self.x[: k + 1], self.sizes[: k + 1])
        self.cursor.set_xdata([k, k])
        self.jobs_dot.set_data([k], [st.jobs])
        self.rows_dot.set_data([k], [st.size])
        job = "none yet" if st.job_id is None else f"{st.job_id} ({hms(st.minted, self.tz)})"
        self.row_box.set_text(f"cursor at {_fires(k)}: row {st.name} -> {_when(st.score, self.tz)}\n"
                              f"latest job {job}")
        self.readout = self.describe(st)
        return self.readout

    def moves(self) -> list[dict]:
        """A sweep of slider positions, as a reader dragging it would give."""
        return [{"fires": int(k)} for k in np.unique(np.linspace(0, self.fires, 20).round().astype(int))]

    def summary(self) -> str:
        """The live registry after the whole run, read from Redis (not from the trace)."""
        rows = ", ".join(f"{name} -> {_when(score, self.tz)}" for name, score in self.final_rows)
        return (f"after {_fires(self.fires)} the registry holds ZCARD {self.final_size}: {rows}\n"
                f"its record: every_ms {self.final_record.get('every_ms')}, "
                f"runs so far (ic) {self.final_record.get('ic')}")


def build(fires: int = FIRES, tz: str = "UTC", **options) -> RegistryRowsView:
    """The notebook's figure: run the course's schedule `fires` times, then close its store."""
    fig, ax = new_figure(9.0, 3.6)
    sim = reports(retain=max(fires, 1), **options)
    try:
        return RegistryRowsView(ax, sim, fires, tz)
    finally:
        sim.close()


class RowsPanel:
    """The widgets: a fires slider, a Play button linked to it, and a speed control."""

    def __init__(self, view: RegistryRowsView, speed: int | None = None, interval: int = 300):
        import ipywidgets as w

        self.view = view
        n = view.fires
        speed = speed or max(1, n // 100)
        self.slider = w.IntSlider(value=0, min=0, max=n, step=1, description="fires elapsed",
                                  continuous_update=True, style={"description_width": "initial"},
                                  layout=w.Layout(width="60%"))
        self.player = play(self.slider, step=speed, max_step=max(1, n // 10), interval=interval,
                           label="fires per step")
        self.play, self.speed, self.link = self.player.play, self.player.speed, self.player.link
        self.readout = w.HTML(self._html(view.update(0)))
        self.slider.observe(self.on_fires, names="value")
        self.box = w.VBox([w.HBox([self.play, self.slider]), self.speed, self.readout, view.live.image])

    @staticmethod
    def _html(text: str) -> str:
        return f"<code>{html.escape(text)}</code>"

    def on_fires(self, change) -> None:
        self.readout.value = self._html(self.view.update(change["new"]))
        self.view.live.refresh()

    def on_speed(self, change) -> None:
        self.player.on_speed(change)


def panel(view: RegistryRowsView, **options):
    """The widget box for `view`: Play, the fires slider, the speed control, readout, figure."""
    return RowsPanel(view, **options).box


# -- registering the same name again -----------------------------------------------------------

@dataclass(frozen=True)
class Step:
    """One call on the registry and what it left behind."""

    at: int                      # virtual time of the call
    call: str                    # e.g. "register every 5 min"
    answer: str                  # the script's answer
    size: int                    # ZCARD after
    rows: list                   # [(name, score)] after
    record: dict                 # the record hash after


def _snapshot(reg, name, t, call, answer) -> Step:
    return Step(t, call, answer, reg.size(), reg.rows(), reg.record(name))


def reregister_demo(store: Store, start: int, *, fires: int = 4, later: str | int = "5m") -> list[Step]:
    """Register `reports` (every 15 min) at `start` and let it fire `fires` times; then, at the
    last release + `later`, register the name again with every 5 min (EchoMQ), upsert every
    5 min (BullMQ), and upsert every 5 min once more. Returns the state after each call."""
    if isinstance(fires, bool) or not isinstance(fires, int) or fires < 1:
        raise InputError(f"fires {fires!r} must be a whole number of fires, at least 1")
    gap = parse_duration(later, name="later", allow_zero=False)
    sim = reports(start=start, store=store)
    reg = sim.registry
    steps = [_snapshot(reg, NAME, start, "register every 15 min", "registered")]
    trace = sim.run(fires=fires)
    t = trace[-1].released + gap
    steps.append(_snapshot(reg, NAME, trace[-1].released, f"after {fires} fires", "-"))
    five = Schedule(NAME, Every("5m"))
    steps.append(_snapshot(reg, NAME, t, "register every 5 min", reg.register(five, t)))
    steps.append(_snapshot(reg, NAME, t, "upsert every 5 min", reg.upsert(five, t)))
    steps.append(_snapshot(reg, NAME, t, "upsert every 5 min", reg.upsert(five, t)))
    return steps


def steps_table(steps: list[Step], tz: str = "UTC") -> str:
    """The demo as plain text: member names, scores and record fields, never key names."""
    head = f"{'time':8}  {'call':22}  {'answer':10}  {'ZCARD':5}  {'row (member -> score)':30}  every_ms  ic"
    lines = [head, "-" * len(head)]
    for s in steps:
        row = "; ".join(f"{name} -> {_when(score, tz)}" for name, score in s.rows)
        lines.append(f"{hms(s.at, tz)}  {s.call:22}  {s.answer:10}  {s.size:>5}  {row:30}  "
                     f"{s.record.get('every_ms', '-'):>8}  {s.record.get('ic', '-')}")
    return "\n".join(lines)
