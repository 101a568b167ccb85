"""cron-parser 5.10.3's forward search (`CronExpression.next()`), re-written in Python.

Why a re-write and not a one-line rule: cron-parser decides what a slot means on a
daylight-saving day inside its search loop. It steps the clock hour by hour on such days,
notes a skipped window (`dstStart`) or a repeated hour (`dstEnd`) as it crosses one, and turns
wall times into instants the way luxon does (keep the current offset if it still fits, and in a
gap read the wall time with the earlier, smaller offset). The outcome depends on the zone
(half-hour changes, changes at midnight), on the hour field (nothing is noted when it lists all
24 hours) and even on where the search started. Taking the same steps is the only way to agree
with it everywhere; the test suite holds this module to the real library's recorded answers.

The parse is cron-parser's too: what it accepts (`L` as the month's last day, `5L` as its last
Friday, `5#3` as its third, fields missing on the left filled in) is read, and what it refuses
(`W`, `5-1`, a standalone `L` for the weekday) raises an InputError carrying its own message.
Only its forward search is modelled, and not its `H` (a random value per parse): that is
refused by name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

from .errors import CALENDAR_END, CalendarEnd, InputError
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


class GaveUp(ValueError):
    """cron-parser stopped searching (its loop limit): not bad input, the library's own stop."""


class _Refusal(Exception):
    """cron-parser's own error text for an expression it does not read."""


def _refused(expr, message: str) -> InputError:
    """An expression cron-parser refuses: bad input, with the library's own words."""
    return InputError(f"cron {expr!r}: cron-parser {VERSION} refuses it: {message}", "cron")


def _js_int(text: str) -> int | None:
    """JavaScript's parseInt(text, 10): the leading digits, or None for NaN."""
    m = re.match(r"\s*([+-]?\d+)", text)
    return int(m.group(1)) if m else None


def _js_number(text: str) -> float | None:
    """JavaScript's unary plus on a string: None for NaN."""
    t = text.strip()
    if not t:
        return 0
    for pattern, base in ((r"0[xX][0-9a-fA-F]+", 16), (r"0[oO][0-7]+", 8), (r"0[bB][01]+", 2)):
        if re.fullmatch(pattern, t):
            return int(t[2:], base)
    if re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", t):
        v = float(t)
        return int(v) if v.is_integer() else v
    return None


def _js(v) -> str:
    """A value as JavaScript prints it in a template string."""
    return "NaN" if v is None else str(v)


# -- the fields ---------------------------------------------------------------------------------------

#: cron-parser's names for its fields: (CronUnit, field class, the characters its validChars allows)
_KIND = {"second": ("Second", "CronSecond", r"?,*\dH/-"), "minute": ("Minute", "CronMinute", r"?,*\dH/-"),
         "hour": ("Hour", "CronHour", r"?,*\dH/-"), "day of month": ("DayOfMonth", "CronDayOfMonth", r"?,*\dLH/-"),
         "month": ("Month", "CronMonth", r"?,*\dH/-"), "day of week": ("DayOfWeek", "CronDayOfWeek", r"?,*\dLH#/-")}
_MAX_FIELD_VALUES = 256
_MAX_LENGTH = 1024


@dataclass(frozen=True)
class Field:
    values: tuple[int, ...]     # sorted numbers
    wildcard: bool              # written as '*' or '?'
    last: bool = False          # an 'L' in the field: the month's last day, or its last such weekday
    last_weekdays: frozenset = frozenset()   # with 'L' in day of week: the weekdays it names

    def nearest_after(self, current: int) -> int | None:
        return next((v for v in self.values if v > current), None)


def _sequence(name: str, raw: str) -> list:
    """CronExpressionParser's parseField: the field's values (numbers, and 'L' forms as text)."""
    unit, _, chars = _KIND[name]
    lo, hi = _BOUNDS[name]
    value = raw
    if name in ("month", "day of week"):
        def alias(m):
            key = m.group(0).lower()
            if key not in _NAMES:
                raise _Refusal(f'Validation error, cannot resolve alias "{key}"')
            return str(_NAMES[key])
        value = re.sub(r"[a-zA-Z]{3}", alias, value)
    hashed = re.search(r"H\(\d+-\d+\)|H/\d+", value)
    if not (re.fullmatch(f"[{chars}]+", value) or hashed):
        raise _Refusal(f"Invalid characters, got value: {value}")
    if "H" in value:
        raise InputError(f"cron {name} field {raw!r}: cron-parser reads H as a random value (seeded per "
                         "parse); emqsim does not model it, so give the number itself", "cron")
    value = re.sub(r"[*?]", f"{lo}-{hi}", value)
    stack: list = []
    for atom in value.split(","):
        if len(stack) > _MAX_FIELD_VALUES:
            raise _Refusal(f"Constraint error, too many values in {unit} field, expected at most {_MAX_FIELD_VALUES}")
        if not atom:
            raise _Refusal("Invalid list value format")
        parts = atom.split("/")
        if len(parts) > 2:
            raise _Refusal(f"Invalid repeat: {atom}")
        step = 1
        if len(parts) == 2:
            if "-" not in parts[0]:
                parts[0] = f"{parts[0]}-{hi}"
            step = _js_int(parts[1])
        ends = parts[0].split("-")
        if len(ends) <= 1:                         # one value: a number, or text such as 'L'
            n = _js_number(parts[0])
            result = parts[0] if n is None else n
            if name in ("day of month", "day of week") and "L" in str(result):
                stack.append(result)
                continue
            v = _js_int(str(result))
            if v is None or not lo <= v <= hi:
                raise _Refusal(f"Constraint error, got value {result} expected range {lo}-{hi}")
            stack.append(v % 7 if name == "day of week" else result)
            continue
        a, b = _js_int(ends[0]), _js_int(ends[1])  # a third end ('1-5-7') is ignored, as there
        if a is None or b is None or a < lo or b > hi:
            raise _Refusal(f"Constraint error, got range {_js(a)}-{_js(b)} expected range {lo}-{hi}")
        if a > b:
            raise _Refusal(f"Invalid range: {a}-{b}, min({a}) > max({b})")
        if step is None or step <= 0:
            raise _Refusal(f"Constraint error, cannot repeat at every {_js(step)} time.")
        rng = [0] if name == "day of week" and b % 7 == 0 and (b - a) % step == 0 else []
        rng += [v for v in range(a, b + 1, step) if v not in rng]
        stack.extend(rng)
    return stack


def _build(name: str, values: list, raw: str) -> Field:
    """A field object as cron-parser builds it: sorted, checked for range and for duplicates."""
    _, cls, chars = _KIND[name]
    lo, hi = _BOUNDS[name]
    ordered = sorted(v for v in values if not isinstance(v, str)) + sorted(v for v in values if isinstance(v, str))
    for v in ordered:
        ok = lo <= v <= hi if not isinstance(v, str) else "L" in chars and re.fullmatch(r"\d{0,2}L", v)
        if not ok:
            more = " or chars L" if "L" in chars else ""
            raise _Refusal(f"{cls} Validation error, got value {v} expected range {lo}-{hi}{more}")
    dup = next((v for i, v in enumerate(ordered) if ordered.index(v) != i), None)
    if dup is not None:
        raise _Refusal(f"{cls} Validation error, duplicate values found: {dup}")
    if name == "day of week" and "L" in ordered:
        raise _Refusal(f"{cls} Validation error, unexpected standalone L")
    last = "L" in raw or "L" in ordered
    weekdays = frozenset(int(str(v)[0]) % 7 for v in ordered) if last and name == "day of week" else frozenset()
    numbers = tuple(v for v in ordered if not isinstance(v, str))
    return Field(numbers, raw in ("*", "?"), last, weekdays)


@dataclass(frozen=True)
class Fields:
    second: Field
    minute: Field
    hour: Field
    day: Field
    month: Field
    weekday: Field
    nth: float = 0              # 'd#n': the n-th such weekday of the month


def parse(expr: str) -> Fields:
    """cron-parser's reading of an expression (CronExpressionParser.parse, not strict): a macro,
    or up to six fields (seconds first, missing ones filled from the left). What it refuses
    raises InputError carrying cron-parser's own message."""
    if not isinstance(expr, str):
        raise InputError(f"cron {expr!r} is not text; write five fields such as '0 9 * * *'", "cron")
    try:
        return _parse(expr)
    except _Refusal as exc:
        raise _refused(expr, str(exc)) from None


@lru_cache(maxsize=512)
def _parse(expr: str) -> Fields:
    text = MACROS.get(expr, expr) or "0 * * * * *"
    if len(text) > _MAX_LENGTH:
        raise _Refusal(f"Invalid cron expression, too long, expected at most {_MAX_LENGTH} characters")
    atoms = re.split(r"\s+", text.strip())
    if len(atoms) > 6:
        raise _Refusal("Invalid cron expression, too many fields")
    atoms = ["0", "*", "*", "*", "*", "*"][: 6 - len(atoms)] + atoms
    raw = dict(zip(("second", "minute", "hour", "day of month", "month", "day of week"), atoms))
    seq = {n: _sequence(n, raw[n]) for n in ("second", "minute", "hour", "month", "day of month")}
    dow, nth = raw["day of week"], 0
    if "#" in dow:
        parts = dow.split("#")
        n = _js_number(parts[-1])
        sep = re.search(r"[,\-/]", dow)
        if sep:
            raise _Refusal(f"Constraint error, invalid dayOfWeek `#` and `{sep.group(0)}` special characters "
                           "are incompatible")
        if not (len(parts) <= 2 and n is not None and 1 <= n <= 5):
            raise _Refusal("Constraint error, invalid dayOfWeek occurrence number (#)")
        dow, nth = parts[0], n
    seq["day of week"] = _sequence("day of week", dow)
    days = seq["day of month"]
    if len(seq["month"]) == 1:        # days the one month never has are dropped (unless none is left)
        limit = _DAYS_IN_MONTH[int(seq["month"][0]) - 1]
        days = [d for d in days if isinstance(d, str) or d <= limit] or days
    second, minute, hour = (_build(n, seq[n], raw[n]) for n in ("second", "minute", "hour"))
    day = _build("day of month", days, raw["day of month"])
    month = _build("month", seq["month"], raw["month"])
    weekday = _build("day of week", seq["day of week"], raw["day of week"])
    if len(month.values) == 1 and not day.last and weekday.wildcard:
        if not day.values[0] <= _DAYS_IN_MONTH[month.values[0] - 1]:
            raise _Refusal("Invalid explicit day of month definition")
    return Fields(second, minute, hour, day, month, weekday, nth)


# -- luxon's DateTime, as far as cron-parser uses it ----------------------------------------------------

@lru_cache(maxsize=1 << 16)
def _zone_offset(ts: int, tz) -> int:
    """The zone's offset at `ts`, in whole minutes (luxon's unit); a search asks for the same
    instants again and again. Past either end of Python's calendar (luxon has none there: a look
    a day ahead on 9999-12-31), the offset of the nearest instant inside, two days in."""
    try:
        return int((_EPOCH + ts * _MS).astimezone(tz).utcoffset() // timedelta(minutes=1))
    except OverflowError:
        inside = min(max(ts, _CALENDAR[0] + 2 * _DAY), _CALENDAR[1] - 2 * _DAY)
        return int((_EPOCH + inside * _MS).astimezone(tz).utcoffset() // timedelta(minutes=1))


_DAY = 86_400_000
#: the first and last instants Python's calendar holds (0001-01-01T00:00Z, 9999-12-31T23:59:59.999Z)
_CALENDAR = (-62_135_596_800_000, 253_402_300_799_999)


@lru_cache(maxsize=4096)
def _month_start(y: int, mo: int) -> int:
    """The first of month `mo` of year `y` (months past 12 roll into later years) as ms of the
    bare clock."""
    y, mo = y + (mo - 1) // 12, (mo - 1) % 12 + 1
    # counted, not read from datetime, whose years end at 9999: the walk may look at the first
    # of January 10000 (the end of December 9999) without leaving the calendar (days from
    # 1970-01-01 in the proleptic Gregorian calendar, by eras of 400 years)
    y -= mo <= 2
    era, yoe = divmod(y, 400)
    doy = (153 * (mo - 3 if mo > 2 else mo + 9) + 2) // 5
    return (era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468) * _DAY


def _local_ts(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0, ms: int = 0) -> int:
    """A wall-clock reading as ms of the bare clock; months and days past their end roll over."""
    return _month_start(y, mo) + (d - 1) * _DAY + h * _HOUR + mi * _MIN + s * 1000 + ms


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
    return (_month_start(y, mo + 1) - _month_start(y, mo)) // _DAY


class _Date:
    """A luxon DateTime (`ts`, `o`) plus cron-parser's CronDate notes on a change it crossed."""

    __slots__ = ("ts", "o", "tz", "dst_start", "dst_landing", "dst_end", "_read", "_wall")

    def __init__(self, ts: int, tz, o: int | None = None):
        self.ts, self.tz = ts, tz
        self.o = _zone_offset(ts, tz) if o is None else o
        self.dst_start = self.dst_landing = self.dst_end = None
        self._read = None   # the (ts, o) that `_wall` was read at

    def copy(self) -> "_Date":
        d = _Date(self.ts, self.tz, self.o)
        d.dst_start, d.dst_landing, d.dst_end = self.dst_start, self.dst_landing, self.dst_end
        return d

    # local fields
    @property
    def wall(self) -> datetime:
        """The wall clock's reading, kept until `ts` or `o` change: a search reads it many times
        a step."""
        if self._read != (self.ts, self.o):
            self._read, self._wall = (self.ts, self.o), _NAIVE_EPOCH + (self.ts + self.o * _MIN) * _MS
        return self._wall

    def _set(self, **kw) -> None:
        """luxon's `set`: some wall-clock fields replaced, the rest kept (days and times past
        their end roll over). The time of day is arithmetic on the day's start; the calendar is
        read only when a date field changes."""
        local = self.ts + self.o * _MIN
        day = local - local % _DAY
        left = local - day
        t = {"h": left // _HOUR, "mi": left // _MIN % 60, "s": left // 1000 % 60, "ms": left % 1000}
        t.update((k, v) for k, v in kw.items() if k in t)
        if kw.keys() & {"y", "mo", "d"}:
            w = self.wall
            day = _local_ts(kw.get("y", w.year), kw.get("mo", w.month), kw.get("d", w.day))
        local = day + t["h"] * _HOUR + t["mi"] * _MIN + t["s"] * 1000 + t["ms"]
        self.ts, self.o = _fix_offset(local, self.o, self.tz)

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
        """matchDayOfMonth: day of month OR day of week when both are given, with `L` and `#`."""
        f = self.fields
        month_days = _days_in_month(w.year, w.month)
        dom = w.day in f.day.values or (f.day.last and w.day == month_days)
        weekday = w.isoweekday() % 7
        dow = (weekday in f.weekday.values and (f.nth <= 0 or -(-w.day // 7) == f.nth)) or (
            f.weekday.last and w.day > month_days - 7 and weekday in f.weekday.last_weekdays)
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
        raise GaveUp(f"cron {self.expr!r}: cron-parser gives up after {LOOP_LIMIT:,} steps "
                     "('Invalid expression, loop limit exceeded')")


def iter_runs(expr: str, tz: str, start: int, end: int):
    """One iterator from `start`: each run strictly after `start` and before `end`, in order.
    Where cron-parser gives up (its loop limit), the runs before it come out, then GaveUp."""
    try:
        it = CronExpression(expr, tz, start)
    except OverflowError:
        raise CalendarEnd(expr, CALENDAR_END) from None
    while (t := _next(it, expr)) < end:
        yield t


def _next(it: "CronExpression", expr: str) -> int:
    """`it.next()`, or CalendarEnd where the walk leaves Python's calendar (after 9999)."""
    try:
        return it.next()
    except (OverflowError, ValueError) as exc:
        if isinstance(exc, InputError) or not isinstance(exc, OverflowError) and "out of range" not in str(exc):
            raise
        raise CalendarEnd(expr, CALENDAR_END) from None


def next_after(expr: str, tz: str, t: int) -> int:
    """A fresh parse from `t` and one `next()`: the run strictly after `t` that a BullMQ job
    scheduler asks cron-parser for (bullmq 6.7.0 `defaultRepeatStrategy`). GaveUp where
    cron-parser gives up."""
    try:
        it = CronExpression(expr, tz, t)
    except OverflowError:
        raise CalendarEnd(expr, CALENDAR_END) from None
    return _next(it, expr)


def iter_chain(expr: str, tz: str, start: int, end: int):
    """A fresh parse from each previous run, one `next()` each: what a BullMQ job scheduler
    asks for when every job is taken on time."""
    t = start
    while (t := next_after(expr, tz, t)) < end:
        yield t


def runs(expr: str, tz: str, start: int, end: int) -> list[int]:
    return list(iter_runs(expr, tz, start, end))


def chain(expr: str, tz: str, start: int, end: int) -> list[int]:
    return list(iter_chain(expr, tz, start, end))
