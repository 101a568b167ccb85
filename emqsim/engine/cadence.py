"""Cadences: the two ways to name "when next", both reduced to one Unix-ms score.

`Every` is a gap (BullMQ's `every`, EchoMQ's `every_ms`); `Cron` is a calendar slot
(croniter in a zoneinfo zone). Neither holds state: the registry row does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache

from croniter import croniter

from .durations import parse_duration
from .errors import InputError, whole
from .timefmt import zone

MAX_EXPR = 200  # characters of a cron expression

#: the catch-up formulas of `Every.after`, for Schedule's missed "snap", "snap-v5" and "epoch"
SNAPS = ("offset", "offset-v5", "epoch")


@dataclass(frozen=True)
class Every:
    """A fixed gap of `ms`; `offset` pins the phase inside the gap (BullMQ's `offset`)."""

    ms: int
    offset: int | None = None

    def __init__(self, ms: int | str, offset: int | str | None = None):
        every = parse_duration(ms, name="every", allow_zero=False)
        object.__setattr__(self, "ms", every)
        if offset is not None:
            offset = parse_duration(offset, name="offset")
            if offset >= every:
                raise InputError(
                    f"offset {offset} ms is not shorter than every {every} ms; "
                    "give an offset from 0 up to the gap", "offset"
                )
        object.__setattr__(self, "offset", offset)

    def first(self, now: int) -> int:
        """BullMQ's first run: with an offset above 0, the next slot at that phase strictly
        after `now` (a start exactly on its slot waits a whole gap); else `now` itself.
        (getJobSchedulerEveryNextMillis, bullmq 6.x; an offset of 0 counts as none.)"""
        if not self.offset:
            return now
        s = now // self.ms * self.ms + self.offset
        return s + self.ms if s <= now else s

    def phase(self, first: int) -> int:
        """The offset kept on the record: the given one, else the first run's phase.

        An offset of 0 is no offset: BullMQ's client passes `offset: 0` on as none, and its
        store step keeps `first mod every` (checked against bullmq 6.7.0 in
        tests/test_oracle_bullmq.py), so every 15 min from 09:07 with offset 0 stays on :07."""
        return self.offset if self.offset else first % self.ms

    def after(self, prev: int, now: int, phase: int, snap: str = "offset") -> int:
        """Start-to-start: `prev + every`; if that is already behind `now`, snap forward.

        All missed slots collapse into one run. Which slot the snap lands on is where
        BullMQ's versions differ, so each formula is kept under its own name:
        - "offset": the job-scheduler snap since bullmq 5.80.1 (6.x included):
          `a = floor(now/every)*every + phase`, then `a` if it is still ahead, else
          `a + every`; the phase is kept and the nearest slot on it is taken.
        - "offset-v5": the job-scheduler snap of bullmq 5.59.0 to 5.80.0 (read in those
          releases' `src/commands/includes/getJobSchedulerEveryNextMillis.lua`; no oracle
          here runs a 5.x release):
          `floor(now/every)*every + every + phase`; the phase is kept, but when the
          nearest slot on it is still ahead, it is stepped over.
        - "epoch": the legacy repeatable jobs' `getNextMillis` (bullmq 5.x), which has
          no phase: `floor(now/every)*every + every`, the next multiple of `every`.
        """
        if snap not in SNAPS:
            raise InputError(f"snap {snap!r} is not one of {', '.join(SNAPS)}")
        nxt = prev + self.ms
        if nxt >= now:
            return nxt
        base = now // self.ms * self.ms
        if snap == "epoch":
            return base + self.ms
        if snap == "offset-v5":
            return base + self.ms + phase
        a = base + phase
        return a + self.ms if a <= now else a

    def between(self, start: int, end: int, phase: int, *, inclusive: bool = True,
                cap: int | None = None) -> list[int]:
        """The slots on the grid of `phase` (the instants equal to it mod the gap) from `start`
        to `end` (both counted, or `end` left out with `inclusive=False`), in order, at most
        `cap` of them: where a schedule that keeps that phase comes due in the span."""
        start, end = whole(start, "start"), whole(end, "end")
        phase = whole(phase, "phase", low=0, high=self.ms - 1, what="a phase inside the gap, in ms")
        if cap is not None:
            cap = whole(cap, "cap", low=0)
        first = start + (phase - start) % self.ms
        stop = end + 1 if inclusive else end
        count = max(0, -(-(stop - first) // self.ms))
        if cap is not None:
            count = min(count, cap)
        return [first + i * self.ms for i in range(count)]

    def missed(self, down: int, up: int, phase: int, *, first: int | None = None) -> list[int]:
        """The slots of the grid of `phase` that an outage from `down` to `up` leaves behind:
        each one due while the pump was down (from `down`, none before the `first` run, `up`
        left out), and the one at `up` itself when any was, since the row is behind then and
        the release at `up` catches that slot up with the others rather than on time."""
        down, up = whole(down, "down"), whole(up, "up")
        if up < down:
            raise InputError(f"up {up} ms is before down {down} ms; an outage ends after it starts", "up")
        low = down if first is None else max(down, whole(first, "first"))
        slots = self.between(low, up, phase, inclusive=False) if low < up else []
        if slots and (up - phase) % self.ms == 0:
            slots.append(up)
        return slots

    def describe(self) -> str:
        from .durations import format_duration

        return f"every {format_duration(self.ms)}"


CRON_FORMS = ("write five fields such as '0 9 * * *' (minute hour day-of-month month day-of-week), "
              "six with seconds first such as '30 0 9 * * *', or a macro like @hourly")


@lru_cache(maxsize=256)
def _check_cron(expr: str, seconds: bool) -> None:
    try:
        croniter(expr, datetime(2026, 1, 1, tzinfo=timezone.utc), second_at_beginning=seconds)
    except (ValueError, KeyError, TypeError) as exc:
        fields = "six fields (second first) such as '30 0 9 * * *'" if seconds else "five fields such as '0 9 * * *'"
        raise InputError(
            f"invalid cron {expr!r}; write {fields} "
            "(minute hour day-of-month month day-of-week) or a macro like @hourly", "cron"
        ) from exc


@dataclass(frozen=True)
class Cron:
    """A calendar slot in a time zone. Six fields put seconds first, as BullMQ's cron-parser does."""

    expr: str
    tz: str = "UTC"

    def __post_init__(self):
        """Five or six fields (seconds first) or a macro, in ASCII; a seventh field (croniter
        reads it as a year, with seconds last) is refused, as cron-parser refuses it."""
        e = self.expr
        if not isinstance(e, str) or not e.strip():
            raise InputError(f"invalid cron {e!r}; {CRON_FORMS}", "cron")
        if len(e) > MAX_EXPR or not e.isascii():
            raise InputError(f"invalid cron {e[:40]!r}{'...' if len(e) > 40 else ''}: only ASCII text of at "
                             f"most {MAX_EXPR} characters is read; {CRON_FORMS}", "cron")
        if not e.strip().startswith("@") and len(e.split()) not in (5, 6):
            raise InputError(f"invalid cron {e!r}: {len(e.split())} fields; {CRON_FORMS}", "cron")
        zone(self.tz)  # unknown zone -> InputError naming it
        _check_cron(e, self._seconds)

    @property
    def _seconds(self) -> bool:
        return len(self.expr.split()) == 6

    def _at(self, t: int) -> datetime:
        try:
            return datetime.fromtimestamp(t / 1000, zone(self.tz))
        except (OverflowError, OSError, ValueError, TypeError):
            raise InputError(f"time {t!r} is not Unix ms a calendar can hold; give whole ms within years 1 to 9999",
                             "time") from None

    def after(self, t: int) -> int:
        """The first slot strictly after `t` (croniter's and cron-parser's rule)."""
        start = self._at(t)
        try:
            it = croniter(self.expr, start, second_at_beginning=self._seconds)
            return round(it.get_next(float) * 1000)
        except (ValueError, KeyError) as exc:  # e.g. '0 0 30 2 *' never matches
            raise InputError(f"cron {self.expr!r} has no slot after {t} ms; it never matches", "cron") from exc

    def before(self, t: int) -> int:
        """The last slot strictly before `t`: where a coalesced catch-up run is labelled."""
        start = self._at(t)
        try:
            it = croniter(self.expr, start, second_at_beginning=self._seconds)
            return round(it.get_prev(float) * 1000)
        except (ValueError, KeyError) as exc:
            raise InputError(f"cron {self.expr!r} has no slot before {t} ms; it never matches", "cron") from exc

    def at_or_after(self, t: int) -> int:
        """The course's first-run rule: a slot equal to `t` counts."""
        try:
            return self.after(t - 1)
        except ValueError:
            raise InputError(f"cron {self.expr!r} has no slot at or after {t} ms; it never matches", "cron") from None

    def first(self, now: int) -> int:
        return self.at_or_after(now)

    def between(self, start: int, end: int, *, inclusive: bool = True, cap: int | None = None) -> list[int]:
        """The slots from `start` to `end` (both counted, or `end` left out with
        `inclusive=False`), in order, at most `cap` of them; none if the cron never matches."""
        slots: list[int] = []
        try:
            t = self.at_or_after(start)
        except ValueError:
            return slots
        while (t <= end if inclusive else t < end) and (cap is None or len(slots) < cap):
            slots.append(t)
            t = self.after(t)
        return slots

    def describe(self) -> str:
        return f"cron {self.expr}" + ("" if self.tz == "UTC" else f" ({self.tz})")


Cadence = Every | Cron


def cadence(every: int | str | None = None, cron: str | None = None, *, offset=None, tz: str = "UTC") -> Cadence:
    """Build exactly one cadence from CLI-style options."""
    if (every is None) == (cron is None):
        raise InputError("give exactly one cadence: every=<duration> or cron=<expression>", "every")
    if every is not None:
        return Every(every, offset)
    if offset is not None:
        raise InputError("offset applies to every=..., not to a cron expression", "offset")
    return Cron(cron, tz)
