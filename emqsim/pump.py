"""The pump: how often it beats and how it releases what it reads due.

EchoMQ.Pump beats every `tick` ms, reads due rows (at most `batch`), mints a JOB id
per occurrence, enqueues it and then advances the row: two round trips (`two-step`).
The `atomic` mode does both in the `fire` script. `tick=0` wakes exactly at the
next run.

When the next beat comes is `beat`. ``grid``: beats on a fixed grid from the pump's
start, whatever a sweep costs. ``rearm``: EchoMQ's own loop (`EchoMQ.Pump`,
lib/echo_mq/pump.ex: `handle_info(:tick)` sweeps, then `arm` calls
`Process.send_after(self(), :tick, tick_ms)`), so the next beat is a tick after the
sweep *ended*: a sweep that released something took `latency` ms and pushes every
later beat back by that much. An empty sweep costs nothing here, so idle beats stay
a tick apart in both.
"""

from __future__ import annotations

from dataclasses import dataclass

from .durations import parse_duration
from .rand import draw

MODES = ("two-step", "atomic")
IDS = ("fresh", "slot")
BEATS = ("grid", "rearm")


@dataclass(frozen=True)
class Pump:
    tick: int = 1000
    batch: int = 100
    jitter: int = 0
    seed: int = 0
    latency: int = 0
    mode: str = "two-step"
    ids: str = "fresh"
    beat: str = "grid"

    def __post_init__(self):
        for name in ("tick", "jitter", "latency"):
            object.__setattr__(self, name, parse_duration(getattr(self, name), name=name))
        if isinstance(self.batch, bool) or not isinstance(self.batch, int) or self.batch < 1:
            raise ValueError(f"batch {self.batch!r} must be a whole number of rows, at least 1")
        if self.tick and self.jitter >= self.tick:
            raise ValueError(f"jitter {self.jitter} ms must be shorter than the tick {self.tick} ms")
        if self.mode not in MODES:
            raise ValueError(f"pump mode {self.mode!r} is not one of {', '.join(MODES)}")
        if self.ids not in IDS:
            raise ValueError(f"ids {self.ids!r} is not one of {', '.join(IDS)}")
        if self.beat not in BEATS:
            raise ValueError(f"beat {self.beat!r} is not one of {', '.join(BEATS)}")

    def instant(self, origin: int, k: int) -> int:
        """The instant of beat k of a pump started at `origin`."""
        return origin + k * self.tick + draw(self.seed, k, self.jitter)

    def rearm(self, origin: int, swept: int) -> int:
        """The origin of the beats after a sweep that released something and ended at `swept`:
        unchanged on a grid; a tick after the sweep under ``rearm`` (its beat 0)."""
        return swept + self.tick if self.beat == "rearm" else origin

    def wake(self, origin: int, earliest: int, after: int | None) -> int:
        """The first beat at or after `earliest` and strictly after the beat `after`."""
        if self.tick == 0:
            return earliest if after is None else max(earliest, after)
        lo = earliest if after is None else max(earliest, after + 1)
        k = max(0, -(-(lo - origin - self.jitter) // self.tick))
        while (b := self.instant(origin, k)) < lo:
            k += 1
        return b
