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
from .errors import InputError, one_of, whole, whole_ms
from .rand import draw, seed_arg

MODES = ("two-step", "atomic")
IDS = ("fresh", "slot")
BEATS = ("grid", "rearm")
MAX_BATCH = 100_000  # rows one sweep may read


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
        checked = {name: parse_duration(getattr(self, name), name=name) for name in ("tick", "jitter", "latency")}
        batch = whole(self.batch, "batch", low=1, high=MAX_BATCH, what="a number of rows")
        seed = seed_arg(self.seed)
        if checked["tick"] and checked["jitter"] >= checked["tick"]:
            raise InputError(f"jitter {checked['jitter']} ms must be shorter than the tick {checked['tick']} ms",
                             "jitter")
        one_of(self.mode, MODES, "mode")
        one_of(self.ids, IDS, "ids")
        one_of(self.beat, BEATS, "beat")
        for name, value in {**checked, "batch": batch, "seed": seed}.items():
            object.__setattr__(self, name, value)

    def beat_at(self, origin: int, k: int) -> int:
        """The instant of beat k of a pump started at `origin`."""
        origin, k = whole_ms(origin, "origin"), whole(k, "k", low=0)
        return origin + k * self.tick + draw(self.seed, k, self.jitter)

    def rearm(self, origin: int, swept: int) -> int:
        """The origin of the beats after a sweep that released something and ended at `swept`:
        unchanged on a grid; a tick after the sweep under ``rearm`` (its beat 0)."""
        origin, swept = whole_ms(origin, "origin"), whole_ms(swept, "swept")
        return swept + self.tick if self.beat == "rearm" else origin

    def wake(self, origin: int, earliest: int, after: int | None) -> int:
        """The first beat at or after `earliest` and strictly after the beat `after`."""
        origin, earliest = whole_ms(origin, "origin"), whole_ms(earliest, "earliest")
        after = None if after is None else whole_ms(after, "after")
        if self.tick == 0:
            return earliest if after is None else max(earliest, after)
        lo = earliest if after is None else max(earliest, after + 1)
        k = max(0, -(-(lo - origin - self.jitter) // self.tick))
        while (b := self.beat_at(origin, k)) < lo:
            k += 1
        return b
