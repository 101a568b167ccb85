"""Cadences: the two ways to name "when next", both reduced to one Unix-ms score.

`Every` is a gap (BullMQ's `every`, EchoMQ's `every_ms`); `Cron` is a calendar slot in a
zoneinfo zone, read by croniter or, as BullMQ reads it, by cron-parser. Neither holds state:
the registry row does.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import lru_cache

from croniter import croniter

from . import cron_parser
from .durations import parse_duration
from .errors import CALENDAR_END, CALENDAR_START, CalendarEnd, InputError, one_of, whole
from .timefmt import zone

MAX_EXPR = 200  # characters of a cron expression
#: slots a `between` lists without a `cap`: more is refused (the cron listing's cap, 10,000)
MAX_SLOTS = 10_000
_DAY_MS = 86_400_000
_FIRST = -62_135_596_800_000    # 0001-01-01T00:00:00Z, the first instant Python's calendar holds
_LAST = 253_402_300_799_999     # 9999-12-31T23:59:59.999Z, its last

#: the catch-up formulas of `Every.after`, for Schedule's missed "snap", "snap-v5" and "epoch"
SNAPS = ("offset", "offset-v5", "epoch")
#: which bullmq code computes each formula, and the first and last release recorded doing so:
#: derived from the releases' own answers (tests/oracles/recorded/, held to this table and every
#: version range the course names by tests/test_oracle_bullmq_releases.py). "scheduler": job
#: schedulers; "repeat": legacy repeatable jobs (`queue.add` with `repeat`). 5.58.7 (the release
#: before 5.58.8) computes a job scheduler's next run in JS, with none of the three; the first
#: release of "epoch" is older than any recorded, and by 5.58.7 a repeatable's later runs go
#: through the job-scheduler code.
SNAP_RELEASES = {
    "offset": ("scheduler", "5.80.2", "6.7.0"),
    "offset-v5": ("scheduler", "5.58.8", "5.80.1"),
    "epoch": ("repeat", "5.15.0", "5.15.0"),
}


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
        (getJobSchedulerEveryNextMillis, bullmq 6.7.0 and 5.80.1 alike; 5.58.8 ignored a given
        offset and started at `now`. An offset of 0 counts as none.)"""
        now = whole(now, "now")
        if not self.offset:
            return now
        s = now // self.ms * self.ms + self.offset
        return s + self.ms if s <= now else s

    def phase(self, first: int) -> int:
        """The offset kept on the record: the given one, else the first run's phase.

        An offset of 0 is no offset: BullMQ's client passes `offset: 0` on as none, and its
        store step keeps `first mod every` (checked against bullmq 6.7.0 in
        tests/test_oracle_bullmq.py), so every 15 min from 09:07 with offset 0 stays on :07."""
        return self.offset if self.offset else whole(first, "first") % self.ms

    def after(self, prev: int, now: int, phase: int, snap: str = "offset") -> int:
        """Start-to-start: `prev + every`; if that is already behind `now`, snap forward.

        All missed slots collapse into one run. Which slot the snap lands on is where
        BullMQ's releases differ, so each formula is kept under its own name (which release
        computes which: `SNAP_RELEASES`, derived from the releases' own answers):
        - "offset": the job-scheduler snap of bullmq 5.80.2 and later (6.7.0 included):
          `a = floor(now/every)*every + phase`, then `a` if it is still ahead, else
          `a + every`; the phase is kept and the nearest slot on it is taken.
        - "offset-v5": the job-scheduler snap of bullmq 5.58.8 to 5.80.1
          (`getJobSchedulerEveryNextMillis.lua`): `floor(now/every)*every + every + phase`;
          the phase is kept, but when the nearest slot on it is still ahead, it is stepped
          over. Where the stored phase is 0 (a first run on a multiple of `every`), a pickup
          a period or more late lands where "epoch" does.
        - "epoch": the legacy repeatable jobs' `getNextMillis` (bullmq 5.15.0 `repeat.js`),
          which has no phase: `floor(max(now, prev)/every)*every + every`, the next multiple
          of `every` strictly after the pickup, so a pickup that lands exactly on `prev + every`
          steps over it. On a row on that grid (every legacy row is) that is `prev + every`
          while it is ahead, as here.
        """
        one_of(snap, SNAPS, "snap")
        prev, now = whole(prev, "prev"), whole(now, "now")
        phase = whole(phase, "phase", low=0, what="a phase in ms")  # an upsert to a shorter gap keeps the old one
        nxt = prev + self.ms
        if nxt > now or (nxt == now and snap != "epoch"):
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
        `cap` of them: where a schedule that keeps that phase comes due in the span. Without a
        cap, a span of more than MAX_SLOTS slots is refused rather than listed."""
        start, end = whole(start, "start"), whole(end, "end")
        phase = whole(phase, "phase", low=0, high=self.ms - 1, what="a phase inside the gap, in ms")
        if cap is not None:
            cap = whole(cap, "cap", low=0)
        first = start + (phase - start) % self.ms
        stop = end + 1 if inclusive else end
        count = max(0, -(-(stop - first) // self.ms))
        if cap is None and count > MAX_SLOTS:
            raise InputError(f"end {end} ms is {count:,} slots of every {self.ms} ms after start {start} ms, "
                             f"more than {MAX_SLOTS:,}; give a nearer end or a cap", "end")
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


_ANCHOR = datetime(2026, 1, 1, tzinfo=timezone.utc)   # a fixed start: a reading never takes the wall clock's


@lru_cache(maxsize=256)
def _check_cron(expr: str, seconds: bool) -> None:
    try:
        croniter(expr, _ANCHOR, second_at_beginning=seconds)
    except (ValueError, KeyError, TypeError) as exc:
        fields = "six fields (second first) such as '30 0 9 * * *'" if seconds else "five fields such as '0 9 * * *'"
        raise InputError(
            f"invalid cron {expr!r}; write {fields} "
            "(minute hour day-of-month month day-of-week) or a macro like @hourly", "cron"
        ) from exc


_PARSED = threading.local()


def _reading(expr: str, seconds: bool) -> croniter:
    """croniter's reading of a valid `expr`, parsed once per expression and thread. Parsing
    (croniter's `_expand`) costs more than finding a slot, and a walk over a year asks thousands
    of times. Every call hands `get_next`/`get_prev` its own start, so nothing carries over from
    one call to the next; one per thread, since a reading is set before it is read."""
    cache = getattr(_PARSED, "cache", None)
    if cache is None:
        cache = _PARSED.cache = {}
    key = (expr, seconds)
    it = cache.get(key)
    if it is None:
        if len(cache) >= 256:
            cache.clear()
        it = cache[key] = croniter(expr, _ANCHOR, second_at_beginning=seconds)
    return it


#: who reads a `Cron`: croniter (emqsim's own rule) or cron-parser (BullMQ's parser)
READERS = ("croniter", "cron-parser")


@dataclass(frozen=True)
class Cron:
    """A calendar slot in a time zone. Six fields put seconds first, as BullMQ's cron-parser does.

    `reader` is whose rule turns the expression into instants, and whose syntax it accepts:
    "croniter" (the default), or "cron-parser", which is what BullMQ's design reads a pattern
    with: each next run a fresh cron-parser parse from the instant it is asked after."""

    expr: str
    tz: str = "UTC"
    reader: str = "croniter"

    def __post_init__(self):
        """Five or six fields (seconds first) or a macro, in ASCII; a seventh field (croniter
        reads it as a year, with seconds last) is refused, as cron-parser refuses it. With the
        cron-parser reader, what cron-parser accepts (its own refusal otherwise)."""
        e = self.expr
        one_of(self.reader, READERS, "reader")
        if not isinstance(e, str) or not e.strip():
            raise InputError(f"invalid cron {e!r}; {CRON_FORMS}", "cron")
        if len(e) > MAX_EXPR or not e.isascii():
            raise InputError(f"invalid cron {e[:40]!r}{'...' if len(e) > 40 else ''}: only ASCII text of at "
                             f"most {MAX_EXPR} characters is read; {CRON_FORMS}", "cron")
        zone(self.tz)  # unknown zone -> InputError naming it
        if self.reader == "cron-parser":
            cron_parser.parse(e)      # cron-parser's own refusal
            return
        if not e.strip().startswith("@") and len(e.split()) not in (5, 6):
            raise InputError(f"invalid cron {e!r}: {len(e.split())} fields; {CRON_FORMS}", "cron")
        _check_cron(e, self._seconds)

    @property
    def _seconds(self) -> bool:
        return len(self.expr.split()) == 6

    def _at(self, t: int) -> datetime:
        whole(t, "time", what="Unix ms, a whole number")
        try:
            return datetime.fromtimestamp(t / 1000, zone(self.tz))
        except (OverflowError, OSError, ValueError, TypeError):
            raise InputError(f"time {t!r} is not Unix ms a calendar can hold; give whole ms within years 1 to 9999",
                             "time") from None

    def _edge(self, t: int, later: bool) -> datetime:
        """`t` as a local time, where `t` is an instant the zone's calendar cannot show (its
        local date is before year 1 or after 9999, a day's offset from the UTC ends): looking
        later from before the calendar starts at its first local instant, looking earlier from
        after it at its last; the other two ways there is no slot (CalendarEnd)."""
        t = whole(t, "time", what="Unix ms, a whole number")
        try:
            return self._at(t)
        except InputError:
            if not _FIRST - 2 * _DAY_MS <= t <= _LAST + 2 * _DAY_MS or _FIRST + 2 * _DAY_MS < t < _LAST - 2 * _DAY_MS:
                raise
        if t < 0:
            if not later:
                raise CalendarEnd(self.expr, CALENDAR_START)
            return datetime(1, 1, 1, tzinfo=zone(self.tz))
        if later:
            raise CalendarEnd(self.expr, CALENDAR_END)
        return datetime(9999, 12, 31, 23, 59, 59, 999_000, tzinfo=zone(self.tz))

    def after(self, t: int) -> int:
        """The first slot strictly after `t` (croniter's and cron-parser's rule). With the
        cron-parser reader, a fresh parse from `t` (cron_parser.GaveUp where it gives up)."""
        start = self._edge(t, later=True)
        if self.reader == "cron-parser":
            return cron_parser.next_after(self.expr, self.tz, t)
        try:
            return round(_reading(self.expr, self._seconds).get_next(float, start) * 1000)
        except (OverflowError, ValueError) as exc:  # past 9999-12-31, where Python's dates end
            if not isinstance(exc, OverflowError) and "out of range" not in str(exc):
                raise InputError(f"cron {self.expr!r} has no slot after {t} ms; it never matches", "cron") from exc
            raise CalendarEnd(self.expr, CALENDAR_END) from None
        except (ValueError, KeyError) as exc:  # e.g. '0 0 30 2 *' never matches
            raise InputError(f"cron {self.expr!r} has no slot after {t} ms; it never matches", "cron") from exc

    def before(self, t: int) -> int:
        """The last slot strictly before `t`: where a coalesced catch-up run is labelled."""
        start = self._edge(t, later=False)
        if self.reader == "cron-parser":
            raise InputError(f"cron {self.expr!r}: only cron-parser's forward search is modelled, so no "
                             "slot before a time; read it with croniter (reader='croniter')", "reader")
        try:
            return round(_reading(self.expr, self._seconds).get_prev(float, start) * 1000)
        except OverflowError:   # before 0001-01-01, where Python's dates begin
            raise CalendarEnd(self.expr, CALENDAR_START) from None
        except (ValueError, KeyError) as exc:
            if "out of range" in str(exc):
                raise CalendarEnd(self.expr, CALENDAR_START) from None
            raise InputError(f"cron {self.expr!r} has no slot before {t} ms; it never matches", "cron") from exc

    def at_or_after(self, t: int) -> int:
        """The course's first-run rule: a slot equal to `t` counts."""
        whole(t, "time", what="Unix ms, a whole number")
        try:
            return self.after(t - 1)
        except cron_parser.GaveUp:
            raise
        except ValueError:
            raise InputError(f"cron {self.expr!r} has no slot at or after {t} ms; it never matches", "cron") from None

    def first(self, now: int) -> int:
        return self.at_or_after(now)

    def between(self, start: int, end: int, *, inclusive: bool = True, cap: int | None = None) -> list[int]:
        """The slots from `start` to `end` (both counted, or `end` left out with
        `inclusive=False`), in order, at most `cap` of them; none if the cron never matches.
        Without a cap, more than MAX_SLOTS slots before `end` is refused rather than listed."""
        start, end = whole(start, "start"), whole(end, "end")
        if cap is not None:
            cap = whole(cap, "cap", low=0)
        slots: list[int] = []
        try:
            t = self.at_or_after(start)
        except ValueError:
            return slots
        while (t <= end if inclusive else t < end) and (cap is None or len(slots) < cap):
            if cap is None and len(slots) == MAX_SLOTS:
                raise InputError(f"end {end} ms is more than {MAX_SLOTS:,} slots of cron {self.expr!r} after "
                                 f"start {start} ms; give a nearer end or a cap", "end")
            slots.append(t)
            try:
                t = self.after(t)
            except cron_parser.GaveUp:
                raise
            except InputError:  # the calendar's end (year 10000): no later slot
                break
        return slots

    def describe(self) -> str:
        return f"cron {self.expr}" + ("" if self.tz == "UTC" else f" ({self.tz})")


Cadence = Every | Cron


def cadence(every: int | str | None = None, cron: str | None = None, *, offset=None, tz: str = "UTC",
            reader: str = "croniter") -> Cadence:
    """Build exactly one cadence from CLI-style options (`reader`: who reads a cron)."""
    if (every is None) == (cron is None):
        raise InputError("give exactly one cadence: every=<duration> or cron=<expression>", "every")
    if every is not None:
        return Every(every, offset)
    if offset is not None:
        raise InputError("offset applies to every=..., not to a cron expression", "offset")
    return Cron(cron, tz, reader)
