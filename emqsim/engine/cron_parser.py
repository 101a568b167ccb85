"""cron-parser 5.10.3's forward search (`CronExpression.next()`), re-written in Python.

Why a re-write and not a one-line rule: cron-parser decides what a slot means on a
daylight-saving day inside its search loop. It steps the clock hour by hour on such days,
notes a skipped window (`dstStart`) or a repeated hour (`dstEnd`) as it crosses one, and turns
wall times into instants the way luxon does (keep the current offset if it still fits, and in a
gap read the wall time with the earlier, smaller offset). The outcome depends on the zone
(half-hour changes, changes at midnight), on the hour field (nothing is noted when it lists all
24 hours) and even on where the search started. Taking the same steps is the only way to agree
with it everywhere; the test suite holds this module to the real library's recorded answers.

Only the forward search of five- and six-field expressions (seconds first) and cron-parser's
macros is modelled; its `L`, `W` and `H` extensions are refused with an InputError (a ValueError).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from .errors import InputError
from .timefmt import _EPOCH, _MS, _NAIVE_EPOCH, zone

VERSION = "5.10.3"
_MIN = 60_000
_HOUR = 3_600_000
LOOP_LIMIT = 10_000

#: cron-parser's predefined expressions (matched exactly, as it does)
MACROS = {"@yearly": "0 0 0 1 1 *", "@annually": "0 0 0 1 1 *", "@monthly": "0 0 0 1 * *",
          "@weekly": "0 0 0 * * 0", "@daily": "0 0 0 * * *", "@hourly": "0 0 * * * *",
          "@minutely": "0 * * * * *", "@secondly": "* * * * * *", "@weekdays": "0 0 0 * * 1-5",
          "@weekends": "0 0 0 * * 0,6"}
_NAMES = {n: i + 1 for i, n in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split())}
_NAMES |= {n: i for i, n in enumerate("sun mon tue wed thu fri sat".split())}
_BOUNDS = {"second": (0, 59), "minute": (0, 59), "hour": (0, 23), "day of month": (1, 31),
           "month": (1, 12), "day of week": (0, 7)}
_DAYS_IN_MONTH = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)   # cron-parser's table


def _refused(message: str) -> InputError:
    """An expression cron-parser (or this model of it) does not read: bad input, named as such."""
    return InputError(message, "cron")


# -- the fields ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    values: tuple[int, ...]     # sorted
    wildcard: bool              # written as '*' or '?'

    def nearest_after(self, current: int) -> int | None:
        return next((v for v in self.values if v > current), None)


def _field(name: str, raw: str) -> Field:
    lo, hi = _BOUNDS[name]
    text = raw
    if name in ("month", "day of week"):
        def alias(m):
            key = m.group(0).lower()
            if key not in _NAMES:
                raise _refused(f"cron {name} field {raw!r}: cannot resolve the name {m.group(0)!r}")
            return str(_NAMES[key])
        text = re.sub(r"[a-zA-Z]{3}", alias, text)
    if not re.fullmatch(r"[?,*\d/-]+", text):
        raise _refused(f"cron {name} field {raw!r} is not modelled here: give numbers, names, "
                         "'*', ranges, steps and lists (no L, W or H)")
    text = re.sub(r"[*?]", f"{lo}-{hi}", text)
    out: list[int] = []
    for atom in text.split(","):
        if not atom:
            raise _refused(f"cron {name} field {raw!r} has an empty list item")
        parts = atom.split("/")
        if len(parts) > 2:
            raise _refused(f"cron {name} field {raw!r}: invalid repeat {atom!r}")
        step = 1
        if len(parts) == 2:
            if "-" not in parts[0]:
                parts[0] = f"{parts[0]}-{hi}"
            step = int(parts[1]) if parts[1].isdigit() else 0
        ends = parts[0].split("-")
        if len(ends) == 1:
            v = int(ends[0]) if ends[0].isdigit() else -1
            if not lo <= v <= hi:
                raise _refused(f"cron {name} field {raw!r}: {ends[0]!r} is outside {lo}-{hi}")
            out.append(v % 7 if name == "day of week" else v)
            continue
        if len(ends) != 2 or not all(e.isdigit() for e in ends):
            raise _refused(f"cron {name} field {raw!r}: invalid range {parts[0]!r}")
        a, b = int(ends[0]), int(ends[1])
        if a < lo or b > hi or a > b:
            raise _refused(f"cron {name} field {raw!r}: range {a}-{b} is not inside {lo}-{hi}")
        if step <= 0:
            raise _refused(f"cron {name} field {raw!r}: the step must be a positive number")
        rng = list(range(a, b + 1, step))
        if name == "day of week" and b % 7 == 0 and (b - a) % step == 0:
            rng = [0] + [v for v in rng if v != 0]    # 7 is Sunday too
        out.extend(rng)
    if len(set(out)) != len(out):
        raise _refused(f"cron {name} field {raw!r} lists a value twice")
    return Field(tuple(sorted(out)), raw in ("*", "?"))


@dataclass(frozen=True)
class Fields:
    second: Field
    minute: Field
    hour: Field
    day: Field
    month: Field
    weekday: Field
    nth: int = 0                # 'd#n': the n-th such weekday of the month


def parse(expr: str) -> Fields:
    """cron-parser's reading of an expression: a macro, or up to six fields (seconds first)."""
    if not isinstance(expr, str):
        raise _refused(f"cron {expr!r} is not text; write five fields such as '0 9 * * *'")
    text = MACROS.get(expr, expr) or "0 * * * * *"
    atoms = text.split()
    if len(atoms) > 6:
        raise _refused(f"cron {expr!r} has too many fields; give five, or six with seconds first")
    atoms = ["0", "*", "*", "*", "*", "*"][: 6 - len(atoms)] + atoms
    sec, minute, hour, dom, month, dow = atoms
    nth = 0
    if "#" in dow:
        base, _, n = dow.partition("#")
        if re.search(r"[,/-]", dow) or not n.isdigit() or not 1 <= int(n) <= 5:
            raise _refused(f"cron day of week field {dow!r}: '#' takes one weekday and 1 to 5")
        dow, nth = base, int(n)
    months = _field("month", month)
    days = _field("day of month", dom)
    if len(months.values) == 1:    # days the one month never has are dropped (unless none is left)
        kept = tuple(d for d in days.values if d <= _DAYS_IN_MONTH[months.values[0] - 1])
        days = Field(kept or days.values, days.wildcard)
    weekdays = _field("day of week", dow)
    if len(months.values) == 1 and weekdays.wildcard and days.values[0] > _DAYS_IN_MONTH[months.values[0] - 1]:
        raise _refused(f"cron {expr!r}: the day of month never occurs in that month")
    return Fields(_field("second", sec), _field("minute", minute), _field("hour", hour),
                  days, months, Field(tuple(sorted(set(weekdays.values))), weekdays.wildcard), nth)


# -- luxon's DateTime, as far as cron-parser uses it ----------------------------------------------------

@lru_cache(maxsize=1 << 16)
def _zone_offset(ts: int, tz) -> int:
    """The zone's offset at `ts`, in whole minutes (luxon's unit); a search asks for the same
    instants again and again."""
    return int((_EPOCH + ts * _MS).astimezone(tz).utcoffset() // timedelta(minutes=1))


def _local_ts(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, ms: int = 0) -> int:
    """A wall-clock reading as ms of the bare clock; months and days past their end roll over."""
    y, mo = y + (mo - 1) // 12, (mo - 1) % 12 + 1
    base = datetime(y, mo, 1) + timedelta(days=d - 1, hours=h, minutes=mi, seconds=s, milliseconds=ms)
    return (base - _NAIVE_EPOCH) // _MS


def _fix_offset(local: int, o: int, tz) -> tuple[int, int]:
    """luxon's guess-and-check: keep offset `o` if the zone agrees; in a gap, read the wall
    time with the smaller offset and report the larger one."""
    guess = local - o * _MIN
    o2 = _zone_offset(guess, tz)
    if o == o2:
        return guess, o
    guess -= (o2 - o) * _MIN
    o3 = _zone_offset(guess, tz)
    if o2 == o3:
        return guess, o2
    return local - min(o2, o3) * _MIN, max(o2, o3)


def _days_in_month(y: int, mo: int) -> int:
    y, mo = y + (mo - 1) // 12, (mo - 1) % 12 + 1
    return ((datetime(y + mo // 12, mo % 12 + 1, 1) - datetime(y, mo, 1)).days)


class _Date:
    """A luxon DateTime (`ts`, `o`) plus cron-parser's CronDate notes on a change it crossed."""

    __slots__ = ("ts", "o", "tz", "dst_start", "dst_landing", "dst_end")

    def __init__(self, ts: int, tz, o: int | None = None):
        self.ts, self.tz = ts, tz
        self.o = _zone_offset(ts, tz) if o is None else o
        self.dst_start = self.dst_landing = self.dst_end = None

    def copy(self) -> "_Date":
        d = _Date(self.ts, self.tz, self.o)
        d.dst_start, d.dst_landing, d.dst_end = self.dst_start, self.dst_landing, self.dst_end
        return d

    # local fields
    @property
    def wall(self) -> datetime:
        return _NAIVE_EPOCH + (self.ts + self.o * _MIN) * _MS

    def _set(self, **kw) -> None:
        w = self.wall
        f = dict(y=w.year, mo=w.month, d=w.day, h=w.hour, mi=w.minute, s=w.second, ms=w.microsecond // 1000)
        f.update(kw)
        self.ts, self.o = _fix_offset(_local_ts(**f), self.o, self.tz)

    def _plus_calendar(self, months: int = 0, days: int = 0) -> None:
        w = self.wall
        mo = w.month + months
        d = min(w.day, _days_in_month(w.year, mo)) + days
        local = _local_ts(w.year, mo, d, w.hour, w.minute, w.second, w.microsecond // 1000)
        self.ts, self.o = _fix_offset(local, self.o, self.tz)

    def _plus_ms(self, ms: int) -> None:
        self.ts += ms
        self.o = _zone_offset(self.ts, self.tz)

    # CronDate's steps forward
    def add(self, unit: str, hours_listed: int) -> None:
        """applyDateOperation(Add, unit): one step, noting a change crossed by an hour-or-less step."""
        if unit == "month":
            self._plus_calendar(months=1)
            self._set(d=1, h=0, mi=0, s=0, ms=0)
            return
        if unit == "day":
            self._plus_calendar(days=1)
            self._set(h=0, mi=0, s=0, ms=0)
            return
        before_hour, before_o = self.wall.hour, self.o
        if unit == "hour":
            self._plus_ms(_HOUR)
            self._set(mi=0, s=0, ms=0)
        elif unit == "minute":
            self._plus_ms(_MIN)
            self._set(s=0, ms=0)
        else:
            self._plus_ms(1000)
        w = self.wall
        advance = (w.hour - before_hour) % 24
        if self.o > before_o and advance >= 2:
            if hours_listed != 24:
                self.dst_start, self.dst_landing = (before_hour + 1) % 24, w.hour
        elif advance == 0 and w.minute == 0 and w.second == 0:
            if hours_listed != 24:
                self.dst_end = w.hour

    def change_day(self) -> bool:
        """Whether the local day's offset at its start differs from the one at its end."""
        start = self.copy()
        start._set(h=0, mi=0, s=0, ms=0)
        end = start.copy()
        end._plus_calendar(days=1)
        end._set(h=0, mi=0, s=0, ms=0)
        end._plus_ms(-1)
        return start.o != end.o


# -- the search ---------------------------------------------------------------------------------------------

class CronExpression:
    """One parsed expression iterating forward in a zone from `current` (Unix ms), keeping its
    position and its change notes between calls, as cron-parser's iterator does."""

    def __init__(self, expr: str, tz: str, current: int):
        self.expr, self.fields = expr, parse(expr)
        self._date = _Date(int(current), zone(tz))

    def _day_matches(self, w: datetime) -> bool:
        f = self.fields
        dom = w.day in f.day.values
        weekday = w.isoweekday() % 7
        dow = weekday in f.weekday.values and (f.nth <= 0 or -(-w.day // 7) == f.nth)
        if not f.day.wildcard and not f.weekday.wildcard and (dom or dow):
            return True
        if dom and f.weekday.wildcard:
            return True
        return f.day.wildcard and not f.weekday.wildcard and dow

    def _hour_matches(self, d: _Date) -> bool:
        hours = self.fields.hour
        n = len(hours.values)
        hour = d.wall.hour
        if d.dst_start is not None and d.dst_landing == hour:    # a skipped hour was scheduled
            skipped = d.dst_start
            while skipped != hour:
                if skipped in hours.values:
                    return True
                skipped = (skipped + 1) % 24
        if d.dst_end == hour:                                     # the repeated hour: once only
            d.dst_end = None
            d.add("hour", n)
            return False
        if hour in hours.values:
            return True
        d.dst_start = d.dst_landing = None
        target = hours.nearest_after(hour)
        if target is None:
            d.add("day", n)
            return False
        if d.change_day():                                       # step, so the notes get made
            for _ in range(target - hour):
                d.add("hour", n)
                if d.wall.hour >= target:
                    break
        else:
            d._set(h=target)
        d._set(mi=self.fields.minute.values[0])
        d._set(s=self.fields.second.values[0])
        return False

    def next(self) -> int:
        """The next run strictly after the current position (Unix ms); moves the position there."""
        f, n = self.fields, len(self.fields.hour.values)
        d = self._date.copy()
        start = d.ts
        if d.wall.microsecond:
            d._set(ms=0)
            d.add("second", n)
        for _ in range(LOOP_LIMIT):
            w = d.wall
            if w.month not in f.month.values:
                d.add("month", n)
            elif not self._day_matches(w):
                d.add("day", n)
            elif not self._hour_matches(d):
                continue
            elif w.minute not in f.minute.values:
                m = f.minute.nearest_after(w.minute)
                if m is not None:
                    d._set(mi=m)
                else:
                    d.add("hour", n)
                    d._set(mi=f.minute.values[0])
                d._set(s=f.second.values[0])
            elif w.second not in f.second.values:
                s = f.second.nearest_after(w.second)
                if s is not None:
                    d._set(s=s)
                else:
                    d.add("minute", n)
                    d._set(s=f.second.values[0])
            elif d.ts == start:
                d.add("second", n)
            else:
                self._date = d
                return d.ts
        raise ValueError(f"cron {self.expr!r}: cron-parser gives up after {LOOP_LIMIT:,} steps "
                         "('Invalid expression, loop limit exceeded')")


def iter_runs(expr: str, tz: str, start: int, end: int):
    """One iterator from `start`: each run strictly after `start` and before `end`, in order.
    Where cron-parser gives up (its loop limit), the runs before it come out, then ValueError."""
    it = CronExpression(expr, tz, start)
    while (t := it.next()) < end:
        yield t


def iter_chain(expr: str, tz: str, start: int, end: int):
    """A fresh parse from each previous run, one `next()` each: what a BullMQ job scheduler
    asks for when every job is taken on time (bullmq's `defaultRepeatStrategy`)."""
    t = start
    while (t := CronExpression(expr, tz, t).next()) < end:
        yield t


def runs(expr: str, tz: str, start: int, end: int) -> list[int]:
    return list(iter_runs(expr, tz, start, end))


def chain(expr: str, tz: str, start: int, end: int) -> list[int]:
    return list(iter_chain(expr, tz, start, end))
