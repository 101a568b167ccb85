"""Which instants a cron expression fires on a day when the wall clock jumps, by each library's rule.

A cron expression names wall-clock times; a zone turns each into an instant. On a
daylight-saving day some wall times happen twice (fall back) and some never (spring
forward), and each library decides for itself what the slot means then. Each rule here is
that library's own answer, and the test suite holds it to the library:

- ``"croniter"``: emqsim's `Cron` (croniter 7), `Cron(expr, tz).between(start, end)`. A wall
  time in the skipped hour fires at the change (03:00 in New York); a repeated wall time fires
  in both passes.
- ``"debian"``: Debian cron's rule, as the cronsim library (2.x) implements it; cronsim is
  called, not re-derived. A *fixed-time* job (five fields whose minute and hour do not start
  with ``*``) fires once at a repeated wall time, in the first pass, and at the change for a
  skipped one; any other expression fires at every real instant whose wall time matches.
- ``"cron-parser"``: cron-parser 5.10.3 (the parser BullMQ 6.7.0 uses), one iterator from the
  start of the window, re-written from its source in `emqsim.engine.cron_parser` and checked against
  the library's recorded answers. A repeated hour runs once, in its first pass, unless the hour
  field lists all 24 hours; a slot in a skipped hour moves into the hour the clock lands on,
  keeping its minute. On some days and zones it gives up (its loop limit): `GaveUp`, a ValueError.
- ``"bullmq"``: what a BullMQ 6.7.0 job scheduler runs when each job is taken on time: its
  next run is a fresh cron-parser parse from the previous run, one `next()` each
  (`defaultRepeatStrategy` in job-scheduler.js; `Cron(expr, tz, "cron-parser")`). It forgets
  what the iterator noted while crossing a change, so it can differ from ``"cron-parser"``
  (``*/20 2 * * *`` on New York's spring day: 03:00 only, where the iterator gives 03:00, 03:20
  and 03:40). Where cron-parser gives up, BullMQ makes no next job.

Each rule also reads the syntax its library reads, and refuses what that library refuses, with
the library's own message (`check`): croniter takes `15W` and `L5` but not `5L`; cronsim takes
`5L` and `LW` but not `15W`; cron-parser takes `L`, `5L` and `5#3` but neither `W` nor `5-1`.

Only the rules live here: what a zone does to its clock (offsets, changes, the bounds of a
local day) and the short texts that show instants are `emqsim.timefmt`'s.
"""
from __future__ import annotations

from datetime import datetime
from functools import cached_property

from cronsim import CronSim, CronSimError

from ..engine import cron_parser as _cron_parser
from ..engine.cadence import Cron
from ..engine.errors import CALENDAR_END, CALENDAR_START, CalendarEnd, InputError
from ..engine.timefmt import _EPOCH, _MS, changes, day_bounds, offset, zone


CRON_PARSER_VERSION = _cron_parser.VERSION
#: the libraries' rules (what `emqsim cron --rule` offers)
RULES = ("croniter", "debian", "cron-parser")
#: the rules and BullMQ's use of cron-parser
ALL = (*RULES, "bullmq")
#: how each rule is named in prose
RULE_NAMES = {"croniter": "croniter", "debian": "Debian cron", "cron-parser": "cron-parser", "bullmq": "BullMQ"}
#: where each rule comes from, with versions
SOURCES = {
    "croniter": "croniter 7.x, croniter.get_next (emqsim's Cron)",
    "debian": "cronsim 2.x, CronSim (Debian cron's rule)",
    "cron-parser": f"cron-parser {_cron_parser.VERSION}, CronExpression.next() (one iterator)",
    "bullmq": f"bullmq 6.7.0 job-scheduler.js defaultRepeatStrategy: cron-parser {_cron_parser.VERSION}, "
              "a fresh parse from each previous run",
}
#: the macros croniter and cronsim are given as five fields (cron-parser reads its own)
_MACROS = {"@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *",
           "@weekly": "0 0 * * 0", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *"}
#: the rules that walk cron-parser's search, which can give up part-way
_CRON_PARSER_RULES = ("cron-parser", "bullmq")
#: the last instant Python's calendar holds: 9999-12-31T23:59:59.999Z
_LAST = 253_402_300_799_999
#: the line a listing ends with where the calendar does (the same in every rule)
CALENDAR_LINES = (CALENDAR_END, CALENDAR_START)
#: the most runs one listing gives (`emqsim cron`), as many as `emqsim trace` lists: a horizon
#: past it is refused once run 10,001 is found ('* * * * *' over ten years is 5.3 million runs,
#: which took 91 s and 1.3 GB by Debian's rule)
MAX_RUNS = 10_000


def _rule(rule: str, allowed=ALL) -> str:
    if rule not in allowed:
        raise InputError(f"rule {rule!r} is not one of {', '.join(allowed)}", "rule")
    return rule


def _expand(expr: str) -> str:
    return _MACROS.get(expr.strip().lower(), expr) if isinstance(expr, str) else expr


def _instant(dt) -> int:
    return (dt - _EPOCH) // _MS


def _window(tz: str, start: int, end: int) -> None:
    """Every rule refuses a bad zone or window the same way, before any runs."""
    zone(tz)                             # an unknown zone -> InputError naming it
    if int(end) <= int(start):
        raise InputError(f"window end {end} ms is not after start {start} ms", "window")


def check(expr: str, rule: str, tz: str = "UTC") -> None:
    """Does `rule`'s library read `expr`? InputError with that library's own refusal if not:
    croniter through emqsim's `Cron`, cronsim's `CronSim`, cron-parser's parse (the model of
    it in `emqsim.engine.cron_parser`, held to the library's recorded answers)."""
    if _rule(rule) in _CRON_PARSER_RULES:
        _cron_parser.parse(expr)
    elif rule == "croniter":
        try:
            Cron(_expand(expr), tz)
        except InputError as exc:
            if exc.__cause__ is None:          # emqsim's own bounds (fields, length, zone)
                raise
            raise InputError(f"{exc} (croniter refuses it: {exc.__cause__})", "cron") from None
    else:
        if not isinstance(expr, str):
            raise InputError(f"cron {expr!r} is not text; write five fields such as '0 9 * * *'", "cron")
        try:
            CronSim(_expand(expr), _EPOCH)
        except CronSimError as exc:
            raise InputError(f"cron {expr!r}: cronsim (Debian cron's rule) refuses it: {exc}", "cron") from None


class Window:
    """One expression in one zone over [start, end): each rule's instants, worked out on demand
    and kept. Each rule reads the expression as its library does, so one rule can refuse
    an expression another takes (an InputError when that rule is asked)."""

    def __init__(self, expr: str, tz: str, start: int, end: int, cap: int | None = None):
        _window(tz, start, end)
        self.expr, self.tz, self.start, self.end = expr, tz, int(start), int(end)
        self.cap = cap   # croniter and debian stop after this many runs (a listing's cap + 1)
        #: rule -> CALENDAR_END where that rule's runs stop at the calendar's end, before `end`
        self.ended: dict[str, str] = {}

    @cached_property
    def cron(self) -> Cron:
        """emqsim's `Cron` (croniter's reading)."""
        return Cron(_expand(self.expr), self.tz)

    @cached_property
    def croniter(self) -> list[int]:
        """`Cron(expr, tz)`'s slots in the window: emqsim's own. A cron that never matches
        (`0 0 30 2 *`) is refused, as the other rules refuse it, not read as an empty window."""
        check(self.expr, "croniter", self.tz)
        runs = self.cron.between(self.start, self.end, inclusive=False, cap=self.cap)
        if self.cap is not None and len(runs) >= self.cap:
            return runs
        try:                                       # the next slot: past the calendar, or none at all
            self.cron.after(runs[-1] if runs else self.start - 1)
        except CalendarEnd as exc:
            self.ended["croniter"] = exc.line
        except InputError as exc:
            if exc.arg == "time":                  # the window reaches the calendar's last local day
                self.ended["croniter"] = CALENDAR_END
            elif not runs:                         # InputError when there is no slot at all
                why = "" if exc.__cause__ is None else f" (croniter refuses it: {exc.__cause__})"
                raise InputError(f"{exc}{why}", "cron") from None
        return runs

    @cached_property
    def walls(self) -> list[int]:
        """Bare wall-clock matches that can land in the window, each as a UTC-ms reading."""
        offs = [offset(self.start - 1, self.tz), offset(self.start, self.tz), offset(self.end - 1, self.tz)]
        for c in changes(self.tz, self.start, self.end):
            offs += [c.before, c.after]
        return Cron(self.cron.expr, "UTC").between(self.start + min(offs), self.end + max(offs), inclusive=False)

    @cached_property
    def debian(self) -> list[int]:
        """cronsim's iterator from the window's start, in the zone: Debian cron's rule is cronsim's."""
        check(self.expr, "debian")
        try:
            begin = (_EPOCH + (self.start - 1) * _MS).astimezone(zone(self.tz))
        except OverflowError:            # the window starts where the zone's calendar cannot show it
            if self.start > 0:
                self.ended["debian"] = CALENDAR_END
                return []
            begin = datetime(1, 1, 1, tzinfo=zone(self.tz))   # the zone's first local day
        out = []
        try:
            for dt in CronSim(_expand(self.expr), begin):
                t = _instant(dt)
                if t >= self.end:
                    return out
                if t >= self.start:      # a fixed-time slot read in its first pass can lie before
                    out.append(t)
                    if self.cap is not None and len(out) >= self.cap:
                        return out
        except OverflowError:            # past the year 9999: Python's dates end there
            self.ended["debian"] = CALENDAR_END
            return out
        except CronSimError as exc:
            raise InputError(f"cron {self.expr!r}: cronsim refuses it: {exc}", "cron") from None
        return out

    @cached_property
    def cron_parser(self) -> list[int]:
        """cron-parser's one iterator from the window's start (`emqsim.cron_parser`)."""
        return self._walk("cron-parser", _cron_parser.iter_runs)

    @cached_property
    def bullmq(self) -> list[int]:
        """BullMQ's chain: a fresh cron-parser parse from each previous run."""
        return self._walk("bullmq", _cron_parser.iter_chain)

    def _walk(self, rule: str, walk) -> list[int]:
        out: list[int] = []
        try:
            for t in walk(self.expr, self.tz, self.start - 1, self.end):
                out.append(t)
        except CalendarEnd as exc:
            self.ended[rule] = exc.line
        else:
            if _beyond(self.expr, self.tz, out[-1] if out else self.start - 1):
                self.ended[rule] = CALENDAR_END
        return out

    def slots(self, rule: str = "croniter") -> list[int]:
        return list(getattr(self, _rule(rule).replace("-", "_")))

    def all(self, rules=ALL) -> dict[str, list[int]]:
        return {r: self.slots(r) for r in rules}


def slots_between(expr: str, tz: str, start: int, end: int, rule: str = "croniter") -> list[int]:
    """The instants (Unix ms) in [start, end) at which `expr` fires in `tz` under `rule`."""
    _rule(rule)
    return Window(expr, tz, start, end).slots(rule)


def runs_after(expr: str, tz: str, after: int, until: int, rule: str = "croniter") -> list[int]:
    """The instants strictly after `after` and before `until` (what `emqsim cron` lists)."""
    return slots_between(expr, tz, int(after) + 1, until, rule)


def listing(expr: str, tz: str, after: int, until: int, rule: str = "croniter") -> tuple[list[int], str | None]:
    """`runs_after`, except that where cron-parser gives up part-way (its loop limit) the runs it
    gave before that come back with its message instead of a ValueError, and where the runs stop
    at the calendar's end (year 9999) before `until`, with CALENDAR_END, the same in every rule.
    Bad input still raises."""
    if _rule(rule) not in _CRON_PARSER_RULES:
        window = Window(expr, tz, int(after) + 1, until, cap=MAX_RUNS + 1)
        return _capped(window.slots(rule), until), window.ended.get(rule)
    _window(tz, int(after) + 1, until)
    check(expr, rule)                              # refused before any run, not as a stop
    walk = _cron_parser.iter_runs if rule == "cron-parser" else _cron_parser.iter_chain
    out: list[int] = []
    try:
        for t in walk(expr, tz, int(after), until):
            out.append(t)
            if len(out) > MAX_RUNS:
                break
    except _cron_parser.GaveUp as exc:
        return out, str(exc)
    except CalendarEnd as exc:
        return out, exc.line
    if len(out) <= MAX_RUNS and _beyond(expr, tz, out[-1] if out else int(after)):
        return out, CALENDAR_END
    return _capped(out, until), None


def _capped(runs: list[int], until: int) -> list[int]:
    """The runs of a listing, or InputError when there are more than MAX_RUNS before `until`."""
    if len(runs) > MAX_RUNS:
        raise InputError(f"until {until} ms is more than {MAX_RUNS:,} runs away (run {MAX_RUNS + 1:,} is at "
                         f"{runs[MAX_RUNS]} ms); give a nearer --until", "until")
    return runs


def slots(expr: str, tz: str, day, rule: str = "croniter") -> list[int]:
    """The instants (Unix ms) at which `expr` fires on local day `day` ('2026-11-01') in `tz`."""
    _rule(rule)
    return Window(expr, tz, *day_bounds(tz, day)).slots(rule)


def compare(expr: str, tz: str, day, rules=ALL) -> dict[str, list[int]]:
    """Each rule for one day: {rule: [ms, ...]}."""
    return Window(expr, tz, *day_bounds(tz, day)).all(rules)


def _beyond(expr: str, tz: str, last: int) -> bool:
    """Whether cron-parser's next run after `last` lies past the calendar's end: its walk counts
    past 9999 (luxon's dates do), where the other rules' calendars stop, so the listing ends
    there with the same line as theirs."""
    try:
        return _cron_parser.next_after(expr, tz, last) > _LAST
    except CalendarEnd:
        return True
    except _cron_parser.GaveUp:
        return False
