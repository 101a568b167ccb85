"""The two designs side by side: one schedule run in the pump design and in BullMQ's.

The experiment of notebooks 04 to 06, built on the engine's public calls: `compare` runs a
schedule with the same workers and the same outage in both designs and gives a `Comparison`
(the traces, a table, a summary, the jobs waiting and the slots no job stood for). An outage
in BullMQ's design is always no worker running; in the pump design `stopped` says what it
stops, the pump or the workers (the engine's `Faults(workers_down=...)`). BullMQ's side is
`bullmq_lane.lane`: BullMQ 6.7.0's own scripts where the pinned package is installed, this
course's model of them where not.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..engine.durations import format_duration
from ..engine.errors import InputError, one_of
from ..engine.faults import Faults
from ..engine.schedule import INF, Schedule
from ..engine.sim import simulate
from ..engine.timefmt import hms
from ..engine.trace import Trace
from ..engine.worker import Worker
from .bullmq_lane import lane


@dataclass(frozen=True)
class Comparison:
    """One schedule run in both designs, with the same workers and the same outage. In
    BullMQ's design an outage is always no worker running; in the pump design `stopped` says
    what it stops: "pump" (the pump is down, the workers are there) or "workers" (the pump
    beats on, no worker takes a job). `pump` and `bullmq` are the traces."""

    pump: Trace
    bullmq: Trace
    schedule: Schedule | None = None
    stopped: str = "pump"

    def summary(self) -> dict[str, dict[str, int]]:
        """Per design: `runs`, `late_ms` (the latest start behind its slot), `running` (the
        most runs going at once) and `waiting` (the most jobs made and not yet started at
        once: the backlog). Quadratic in the fires: meant for the short runs a figure shows."""
        return {"pump": _numbers(self.pump), "bullmq": _numbers(self.bullmq)}

    def table(self, tz: str = "UTC") -> str:
        """The fires of both designs side by side (slot and start, HH:MM:SS in `tz`), then the summary."""
        head = f"{'n':>4}  {'pump slot':9}  {'started':8}  {'bullmq slot':11}  started"
        lines = [head, "-" * len(head)]
        a, b = list(self.pump), list(self.bullmq)
        for i in range(max(len(a), len(b))):
            p = f"{hms(a[i].slot, tz):9}  {hms(a[i].started, tz):8}" if i < len(a) else " " * 19
            q = f"{hms(b[i].slot, tz):11}  {hms(b[i].started, tz):8}" if i < len(b) else ""
            lines.append(f"{i + 1:>4}  {p}  {q}".rstrip())
        # runs that take no time are never "running": the count is left out rather than read
        # "5 runs · at most 0 running" (issue 30, h68r)
        timed = any(f.finished > f.started for f in a + b)
        for design, n in self.summary().items():
            # in minutes, not "1980000 ms late", which a reader had to divide (issue 30, h67r)
            running = f"at most {n['running']} running · " if timed else ""
            late = f"starts up to {format_duration(n['late_ms'])} late" if n["late_ms"] else "every start on time"
            lines.append(f"{design}: {n['runs']} runs · {late} · {running}at most {n['waiting']} waiting")
        return "\n".join(lines)

    def waiting(self, t: int) -> dict[str, list[int]]:
        """Per design, the slots of the jobs that were due before `t` and not yet taken at `t`
        (released before it, started at or after it): what a worker coming back at `t` finds."""
        return {design: [f.slot for f in trace if f.released < t <= f.started]
                for design, trace in (("pump", self.pump), ("bullmq", self.bullmq))}

    def no_job(self) -> dict[str, list[int]]:
        """Per design, the slots of the schedule's own grid (each slot's `next_run` when it
        runs on time), from the first fire's slot to the last one's, that no job stood for."""
        if self.schedule is None:
            raise ValueError("no_job needs the schedule: build the Comparison with compare()")
        out = {}
        for design, trace in (("pump", self.pump), ("bullmq", self.bullmq)):
            made = {f.slot for f in trace}
            slots, s = [], min(made, default=INF)
            while s <= max(made, default=0):
                if s not in made:
                    slots.append(s)
                s = self.schedule.next_run(s, released=s, finished=s, phase=0)
            out[design] = slots
        return out


def compare(schedule: Schedule, *, start: int, fires: int | None = None, until: int | None = None,
            worker: Worker | None = None, outage: tuple[int, int] | None = None, pump=None,
            stopped: str = "pump") -> Comparison:
    """Run `schedule` in the pump design and in BullMQ's, where the chain changes the answer:
    after an outage (the pump's slots are enqueued late but the workers were there; BullMQ's
    one overdue job waits for a worker, then the chain snaps), and with runs longer than the
    period (the pump enqueues every slot and a backlog grows; BullMQ makes the next job only
    at a pickup, so one worker starts each run late and the late pickups snap past slots).
    `stopped="workers"` stops the workers instead of the pump in the pump design, the outage
    BullMQ's design has: the pump goes on enqueuing every slot that comes due."""
    stopped = one_of(stopped, STOPPED, "stopped")
    if stopped == "workers" and outage is None:
        raise InputError("stopped='workers' needs an outage=(down, up) to stop the workers in", "stopped")
    worker = worker or Worker()
    options = dict(start=start, fires=fires, until=until, worker=worker)
    away = Faults(workers_down=outage) if stopped == "workers" else Faults(outage=outage)
    pumped = simulate(schedule, pump=pump, faults=away, **options)
    return Comparison(pumped, lane(schedule, outage=outage, **options), schedule, stopped)


STOPPED = ("pump", "workers")


def _numbers(trace: Trace) -> dict[str, int]:
    fires = list(trace)
    late = max((f.started - f.slot for f in fires), default=0)
    going = backlog = 0
    for f in fires:
        going = max(going, sum(1 for g in fires if g.started <= f.started < g.finished))
        backlog = max(backlog, sum(1 for g in fires if g.released <= f.released < g.started))
    return {"runs": len(fires), "late_ms": late, "running": going, "waiting": backlog}
