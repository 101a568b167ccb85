"""Lesson 07: cron in a time zone, on the days the wall clock jumps.

A cron expression names wall-clock times; the zone decides which instants show them. On the
day the clocks go back an hour happens twice, on the day they go forward an hour never
happens, and croniter, Debian cron (cronsim) and cron-parser each settle those slots their
own way; BullMQ asks cron-parser afresh for each run. Every instant here comes from
`emqsim.dst` (the rules) and `emqsim.timefmt` (the zone's clock); this module only words them
and lays them out as a frame: one row of croniter's runs per expression, with the other rules
only where they differ, on an axis of real hours since local midnight (so a 25-hour day is
longer than a 23-hour one).

`TimeZonesModel` is the figure: a zone and a day of that zone (its change days, the days
either side, an ordinary day). The rest are the texts the notebook prints: the rules side by
side, the recording of the real cron-parser they are held to, and the one registry row a
cron schedule keeps across a change.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path

from croniter import croniter

from ..cron import rules as dst
from ..engine.cadence import Cron
from .course import HOUR
from ..engine.errors import InputError
from ..engine.registry import Registry
from ..engine.schedule import Schedule
from ..engine.sim import PumpDesign
from ..engine.store import Store
from ..engine.timefmt import (abbreviation, at, changes, day_bounds, hm, iso, label, offset, parse_day, utc, utc_offset,
                       year_changes, zone as check_zone)
from .model import Model, choice
from .questions import Challenge, question

ZONES = ("America/New_York", "Europe/London", "Australia/Sydney", "UTC")
EXPRESSIONS = ("30 2 * * *", "30 1 * * *", "0 * * * *")
YEAR = 2026
ORDINARY = "2026-06-15"
#: UTC has no change of its own: its day choice offers the days New York changes
UTC_REFERENCE = "America/New_York"
#: the figure opens on New York's fall-back day (2026-11-01)
DEFAULT_ZONE, DEFAULT_KIND = "America/New_York", "back"
#: the rules drawn under croniter's row, only where they differ from it, in this order
LANE_RULES = ("debian", "cron-parser")


# -- the days a zone offers --------------------------------------------------------------------------

@dataclass(frozen=True)
class DayChoice:
    """A day offered for a zone: its date, what kind of day it is, and its label."""

    day: str
    kind: str       # "ordinary", "forward", "back", "before forward", "after back", ...
    note: str

    @property
    def label(self) -> str:
        return f"{self.day} \u00b7 {self.note}"


def choices(tz: str, year: int = YEAR) -> list[DayChoice]:
    """An ordinary day, and each change day of `year` with the day before and after it."""
    return list(_choices(check_zone(tz).key, year))


@lru_cache(maxsize=64)
def _choices(tz: str, year: int) -> tuple[DayChoice, ...]:
    """Kept: a zone's changes are sampled over a whole year, and every move asks for the days."""
    source = UTC_REFERENCE if tz == "UTC" else tz
    out = [DayChoice(ORDINARY, "ordinary", "no change")]
    for c in year_changes(source, year):
        way = "forward" if c.forward else "back"
        d = date.fromisoformat(iso(c.at, source)[:10])
        if tz == "UTC":
            out.append(DayChoice(d.isoformat(), way, f"no change in UTC (New York goes {way})"))
            continue
        out += [DayChoice((d - timedelta(days=1)).isoformat(), f"before {way}", f"the day before clocks go {way}"),
                DayChoice(d.isoformat(), way, f"clocks go {way}"),
                DayChoice((d + timedelta(days=1)).isoformat(), f"after {way}", f"the day after clocks go {way}")]
    return tuple(sorted(out, key=lambda c: c.day))


def day_of_kind(tz: str, kind: str) -> str:
    """The date of the day of `kind` ("forward", "before back", "ordinary", ...) `tz` offers."""
    for c in choices(tz):
        if c.kind == kind:
            return c.day
    raise InputError(f"{tz} offers no day of kind {kind!r}; it offers "
                     f"{', '.join(repr(c.kind) for c in choices(tz))}", "day")


# -- the words ----------------------------------------------------------------------------------------

def _count(n: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def _hours(ms: int) -> str:
    """'a 25-hour day'; Lord Howe's half-hour changes make 'a 24.5-hour day'."""
    n = ms / HOUR
    return f"a {int(n) if n == int(n) else n}-hour day"


def day_changes(tz: str, day) -> list:
    """The changes whose skipped or repeated wall times fall on local day `day`. A change at the
    edge of the day counts: Havana's spring (00:00 -> 01:00) is the instant its 8 March starts,
    Nuuk's (23:00 -> 00:00) the instant its 28 March ends, and Santiago's fall-back at 00:00
    repeats 23:00-23:59 of the day before."""
    d = parse_day(day)
    start, end = day_bounds(tz, d)
    return [c for c in changes(tz, start - 3 * HOUR, end + 3 * HOUR)
            if _wall_day(c.wall[0]) <= d <= _wall_day(c.wall[1] - 1)]


def _wall_day(wall: int) -> date:
    """The calendar date of a bare wall-clock reading (UTC ms of the bare clock)."""
    return date(1970, 1, 1) + timedelta(days=wall // (24 * HOUR))


def day_facts(tz: str, day) -> dict:
    """What the header states of a day: the zone, the date, its length (ms), and either the zone's
    abbreviation and UTC offset all day (`change` None) or the change: when (`at`, UTC ms), which
    way, the wall clock before and after with their abbreviations, and the wall hour it skips or
    repeats (`hour`, 'HH:MM' first and last minute)."""
    start, end = day_bounds(tz, day)
    found = day_changes(tz, day)
    facts = {"zone": tz, "day": parse_day(day).isoformat(), "length": end - start, "change": None,
             "abbreviation": abbreviation(start, tz), "offset": offset(start, tz)}
    if found:
        c = found[0]
        lo, hi = c.wall
        facts["change"] = {"at": c.at, "forward": c.forward, "from": (hm(c.at + c.before), abbreviation(c.at - 1, tz)),
                           "to": (hm(c.at + c.after), abbreviation(c.at, tz)), "hour": (hm(lo), hm(hi - 60_000))}
    return facts


def day_header(tz: str, day) -> str:
    """What the clocks do that day (`day_facts`): 'America/New_York 2026-11-01: at 06:00Z clocks go back ...'."""
    f = day_facts(tz, day)
    head = f"{f['zone']} {f['day']}"
    c = f["change"]
    if c is None:
        return (f"{head}: no change, {f['abbreviation']} ({utc_offset(f['offset'])}) "
                f"all day ({_hours(f['length'])})")
    way, what = ("forward", "never happens") if c["forward"] else ("back", "happens twice")
    return (f"{head}: at {utc(c['at'])} clocks go {way} from {' '.join(c['from'])}"
            f" to {' '.join(c['to'])}, so {c['hour'][0]}-{c['hour'][1]} {what} "
            f"({_hours(f['length'])})")


def _phrase(slots: list[int], who: str, tz: str, matched: list[str]) -> str:
    """'twice by croniter, 01:30 EDT (05:30Z) and 01:30 EST (06:30Z)'; many slots are summarised:
    a wall time seen twice, and wall times the expression names that the day never shows."""
    n = len(slots)
    text = f"{_count(n)} by {who}"
    if 0 < n <= 3:
        return text + ", " + _and([label(s, tz) for s in slots])
    seen: dict[str, list[int]] = {}
    for s in slots:
        seen.setdefault(hm(s, tz), []).append(s)
    notes = [f"{w} twice ({' and '.join(utc(s) for s in ss)})" for w, ss in seen.items() if len(ss) > 1]
    missing = [w for w in matched if w not in seen]
    if len(missing) > 3:
        notes.append(f"none of the {len(missing)} wall times {missing[0]} to {missing[-1]}")
    elif missing:
        notes.append("no " + " or ".join(missing))
    return text + (", " + ", ".join(notes) if notes else "")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def day_rules(expr: str, tz: str, day) -> tuple[dict[str, list[int]], list[str]]:
    """Every rule's slots on the local day, and the wall times (HH:MM) the expression names on
    that date (what a summary says the day never showed)."""
    win = dst.Window(expr, tz, *day_bounds(tz, day))
    lo = at(parse_day(day).isoformat())
    hi = lo + 24 * HOUR
    return win.all(), [hm(w) for w in win.walls if lo <= w < hi]


def expression_line(expr: str, tz: str, day, results: dict[str, list[int]] | None = None,
                    matched: list[str] | None = None) -> str:
    """One expression's day under every rule, croniter first; the others (Debian cron,
    cron-parser, BullMQ) are said together where they give the same runs."""
    if results is None or matched is None:
        results, matched = day_rules(expr, tz, day)
    base = results["croniter"]
    parts = [f"{expr} fires {_phrase(base, 'croniter', tz, matched)}"]
    groups: dict[tuple[int, ...], list[str]] = {}
    for r in dst.ALL[1:]:
        groups.setdefault(tuple(results[r]), []).append(dst.RULE_NAMES[r])
    for runs, names in groups.items():
        if list(runs) == base:
            parts.append(f"{_and(names)} agree{'s' if len(names) == 1 else ''} with croniter")
        else:
            parts.append(_phrase(list(runs), _and(names), tz, matched))
    return "; ".join(parts)


def title(tz: str, day) -> str:
    """The figure's title: the zone, the day, and its length."""
    start, end = day_bounds(tz, day)
    found = day_changes(tz, day)
    what = "no change" if not found else (
        f"clocks go {'forward' if found[0].forward else 'back'} at {utc(found[0].at)}")
    return f"{tz} {parse_day(day).isoformat()}: {what}, {_hours(end - start)}"


def readout(tz: str, day, expressions=EXPRESSIONS) -> str:
    """The header and one line per expression (the figure's readout), for any zone and day."""
    return "\n".join([day_header(tz, day)] + [expression_line(e, tz, day) for e in expressions])


# -- the rules side by side, and the recording they are held to ---------------------------------------

#: the expressions whose counts the libraries disagree on (issue 8's list), for the table
DISPUTED = ("30 1 * * *", "30 2 * * *", "*/20 2 * * *", "30 1-3 * * *", "* 1 * * *", "*/20 1 * * *",
            "0,30 1 * * *", "0 * * * *", "*/30 * * * *", "15 0 * * *")
RECORDING = "tests/oracles/recorded/cron_parser.json"


def _alike(said: list[tuple[str, str]], every: str = "") -> list[str]:
    """An expression's answers, one indented line per answer naming the rules that gave it, in
    the rules' order; `every`, where given, names them when all agree."""
    answers: dict[str, list[str]] = {}
    for name, answer in said:
        answers.setdefault(answer, []).append(name)
    return [f"  {every if every and len(names) == len(said) else _and(names)}: {answer}"
            for answer, names in answers.items()]


def _runs(runs: list[int]) -> str:
    """A rule's runs on a day as a line says them: the count, and the UTC times when three or fewer."""
    n = len(runs)
    said = "no run" if n == 0 else f"{n} run" + ("s" if n > 1 else "")
    return said + (" at " + " ".join(utc(t) for t in runs) if 0 < n <= 3 else "")


def rules_lines(tz: str, day, expressions=DISPUTED) -> str:
    """Each expression's runs on the local day by every rule, rules that agree on one line: the
    count, and the UTC times when there are three or fewer. BullMQ's are its own chain of fresh
    cron-parser parses. Lines, not a table: a table of the four rules was 110 characters wide
    and wrapped every row, even on a desktop (issue 30, h67r)."""
    out = [day_header(tz, day)]   # what the clocks do, once: the page printed it twice (h68r)
    for e in expressions:
        res = dst.compare(e, tz, day)
        out += [e, *_alike([(dst.RULE_NAMES[r], _runs(res[r])) for r in dst.ALL], every="all four")]
    return "\n".join(out)


def _recording() -> dict:
    return json.loads((Path(__file__).resolve().parents[2] / RECORDING).read_text())


def recorded_facts(expr: str, tz: str, day) -> dict:
    """What the real cron-parser 5.10.3 answered (the recording in the repository) for the window
    holding `day`: its runs that day by next() iterated (`runs`) and by a fresh parse per run
    (`chain`), and emqsim's cron-parser and BullMQ rules' runs (`mine`, `bull`)."""
    doc = _recording()
    start, end = day_bounds(tz, day)
    for q, a in zip(doc["questions"], doc["answers"]):
        if q["expr"] == expr and q["tz"] == tz and q["from"] < start and q["until"] >= end and "runs" in a:
            return {"runs": [t for t in a["runs"] if start <= t < end],
                    "chain": [t for t in a["chain"] if start <= t < end],
                    "mine": dst.slots(expr, tz, day, "cron-parser"), "bull": dst.slots(expr, tz, day, "bullmq")}
    raise ValueError(f"no recorded cron-parser case for {expr!r} in {tz} on {day}; see {RECORDING}")


def recorded(expr: str, tz: str, day) -> str:
    """`recorded_facts` in four lines: the recording's runs both ways, and whether emqsim's
    cron-parser and BullMQ rules agree with them."""
    f = recorded_facts(expr, tz, day)
    mine, bull = f["mine"], f["bull"]
    return "\n".join([
        f"recorded: cron-parser {dst.CRON_PARSER_VERSION} on {tz} {parse_day(day).isoformat()}, {expr!r}",
        f"  next() iterated:          {[label(t, tz) for t in f['runs']]}",
        f"  fresh parse per run:      {[label(t, tz) for t in f['chain']]}",
        f"  emqsim 'cron-parser' rule: {'the same' if mine == f['runs'] else mine}; "
        f"'bullmq' rule: {'the same' if bull == f['chain'] else bull}"])


def recording_summary() -> str:
    """How much of cron-parser the repository's recording covers: cases, zones, and where it gave up."""
    doc = _recording()
    qs, ans = doc["questions"], doc["answers"]
    zones = sorted({q["tz"] for q in qs})
    gave_up = sorted({(q["tz"], q["expr"]) for q, a in zip(qs, ans) if "runs_error" in a})
    return "\n".join([
        f"{RECORDING}: cron-parser {dst.CRON_PARSER_VERSION}, {len(qs)} cases, "
        f"{len({q['expr'] for q in qs})} expressions, {len(zones)} zones",
        "  zones: " + ", ".join(zones),
        f"  cases where cron-parser gave up part-way (its loop limit): {sum('runs_error' in a for a in ans)}, "
        f"all in {', '.join(sorted({z for z, _ in gave_up}))}",
        f"  expressions cron-parser refused (its own message kept): {sum('error' in a for a in ans)}",
    ])


_EPOCH_UTC = datetime(1970, 1, 1, tzinfo=timezone.utc)
#: syntax the libraries read differently (the last day, the last Friday, the third Friday, the
#: weekday nearest the 15th, day of month OR day of week, seconds first, a backwards range)
SYNTAX = ("0 12 L * *", "0 9 * * 5L", "0 9 * * 5#3", "0 0 15W * *", "0 0 13 * 5", "30 0 9 * * *", "0 5-1 * * *")


#: who answers in the syntax table: the "debian" rule's answers to `L`, `5L`, `5#3` and six fields
#: are cronsim's extensions (its README marks Debian cron "No" for each), so the table names the
#: library, not Debian cron; croniter reads a sixth field first only because the engine asks it to
SYNTAX_NAMES = {"debian": "cronsim"}


def _weekday_time(ms: int, tz: str) -> str:
    """'Fri 2026-01-30 09:00': a run's local date, weekday and time."""
    w = _EPOCH_UTC + timedelta(milliseconds=ms)
    local = w.astimezone(check_zone(tz))
    return local.strftime("%a %Y-%m-%d %H:%M" + (":%S" if local.second else ""))


def _first_runs(expr: str, tz: str, start: int, end: int, rule: str, n: int = 3) -> list[int]:
    """A rule's first `n` runs after `start` and before `end`, looked for in the first 100 days
    before the whole span: every rule walks forward from `start`, so the runs of a shorter window
    are the first runs of the longer one, and a year of a seconds field is 31 million slots."""
    near = min(end, start + 100 * 86_400_000)
    runs = dst.runs_after(expr, tz, start, near, rule)
    if len(runs) < n and near < end:
        runs = dst.runs_after(expr, tz, start, end, rule)
    return runs[:n]


def syntax_facts(expressions=SYNTAX, tz: str = "America/New_York", year: int = YEAR) -> dict:
    """{expression: {rule: its first three runs in `year` (local) as a tuple of Unix ms, or the
    library's own refusal as text}}."""
    start, end = day_bounds(tz, date(year, 1, 1))[0], day_bounds(tz, date(year + 1, 1, 1))[0]
    out: dict = {}
    for e in expressions:
        out[e] = {}
        for rule in dst.ALL:
            try:
                out[e][rule] = tuple(_first_runs(e, tz, start, end, rule))
            except InputError as exc:
                text = str(exc)
                out[e][rule] = (text.split("(croniter refuses it: ", 1)[1][:-1] if "(croniter refuses" in text
                                else text.split("refuses it: ", 1)[-1])
    return out


def syntax_lines(expressions=SYNTAX, tz: str = "America/New_York", year: int = YEAR) -> str:
    """For each expression, each rule's first three runs in `year` (local), or the library's own
    refusal (`syntax_facts`); rules that answer alike share a line."""
    start = day_bounds(tz, date(year, 1, 1))[0]
    out = []
    for e, by_rule in syntax_facts(expressions, tz, year).items():
        said = [(SYNTAX_NAMES.get(rule, dst.RULE_NAMES[rule]),
                 "refused: " + runs if isinstance(runs, str)
                 else ", ".join(_weekday_time(t, tz) for t in runs) + (", ..." if runs else "no run"))
                for rule, runs in by_rule.items()]
        out += [e, *_alike(said)]
    six = next((e for e in expressions if len(e.split()) == 6), None)
    if six:
        runs = ", ".join(_weekday_time(t, tz) for t in _croniter_default_runs(six, tz, start))
        out.append(f"(croniter is asked with second_at_beginning=True, as the engine asks it; by default it reads "
                   f"a sixth field as seconds, last: {six} would run {runs}, ...)")
    return "\n".join(out)


def _croniter_default_runs(expr: str, tz: str, start: int, n: int = 3) -> list[int]:
    """croniter's first `n` runs of a six-field `expr` with its default reading (seconds last)."""
    it = croniter(expr, (_EPOCH_UTC + timedelta(milliseconds=start)).astimezone(check_zone(tz)))
    return [int(it.get_next(datetime).timestamp() * 1000) for _ in range(n)]


def rule_runs(expr: str, tz: str, day) -> str:
    """Each rule's runs on the local day, as Unix ms and as local and UTC times: one line a rule."""
    return "\n".join(f"{rule:12} {runs}  {[label(t, tz) for t in runs]}"
                     for rule, runs in dst.compare(expr, tz, day).items())


def labelled_runs(runs: list[int], tz: str) -> str:
    """One line per run: its Unix ms and its local and UTC times."""
    return "\n".join(f"{t} {label(t, tz)}" for t in runs)


# -- the registry keeps one row, scored in UTC ---------------------------------------------------------

def row_facts(expr: str = "30 1 * * *", tz: str = "America/New_York", *, now: str = "2026-10-31 12:00",
              fires: int = 4, name: str = "nightly") -> dict:
    """Upsert a cron schedule with a zone just before a change and fire it through the engine:
    the upsert's `answer` and instant (`at`), the `record`'s pattern and zone, and per step (the
    upsert, then each fire) the instant released (None for the upsert), the registry's rows
    [(member, score)] and its ZCARD."""
    sched = Schedule(name, Cron(expr, tz))
    t0 = at(now, tz)
    with Store() as store:
        reg = Registry(store)
        answer = reg.upsert(sched, t0)
        record = reg.record(name)
        steps = [(None, reg.rows(), reg.size())]
        with PumpDesign(sched, start=t0, store=store) as sim:
            for _ in range(fires):
                f = sim.run(fires=1)[-1]
                steps.append((f.released, sim.registry.rows(), sim.registry.size()))
    return {"answer": answer, "at": t0, "record": (record.get("pattern"), record.get("tz")), "steps": steps}


def row_across_change(expr: str = "30 1 * * *", tz: str = "America/New_York", *,
                      now: str = "2026-10-31 12:00", fires: int = 4, name: str = "nightly") -> str:
    """`row_facts` printed: the one registry row after the upsert and after each fire. Its score
    is a UTC millisecond, shown both ways."""
    f = row_facts(expr, tz, now=now, fires=fires, name=name)

    def row(rows, size) -> str:
        (member, score), = rows
        local = f"{iso(score, tz)} {abbreviation(score, tz)}"
        return f"{member} score {score} = {iso(score)} = {local} (rows: {size})"

    (_, rows, size), *fired = f["steps"]
    pattern, zone = f["record"]
    lines = [f"upsert {name!r} cron {expr!r} tz {tz} at {now} {abbreviation(f['at'], tz)}: {f['answer']}",
             f"  {row(rows, size)}",
             f"  record: pattern {pattern!r}, tz {zone!r}"]
    lines += [f"fire {n}: released {label(released, tz)} -> {row(rows, size)}"
              for n, (released, rows, size) in enumerate(fired, 1)]
    return "\n".join(lines)


# -- the figure -------------------------------------------------------------------------------------------

def _hour(ms: int, tz: str) -> str:
    text = hm(ms, tz)
    return text[:2] if text.endswith(":00") else text


def labelled_hours(start: int, end: int, tz: str) -> list[int]:
    """Hours after local midnight that get a label: each the local clock reads as 00, 06, 12 or
    18 (the first time), and the hour before a change and the change's own: the clock reading
    "01 01" (repeated) or "01 03" (skipped). Every sixth real hour read "05 11 17 23" after a
    repeated hour, "07 13 19 01" after a skipped one: irregular to a student (issue 30); a third
    label, the hour after the change, made three in two hours' width, crowded on the desktop (a
    later read). A zone whose clock then reads half hours keeps every sixth real hour."""
    near = {round((c.at - start) / HOUR) + k for c in changes(tz, start, end) for k in (-1, 0)}
    clock = [hm(start + h * HOUR, tz) for h in range(0, 26)]
    sixes = {h for h, text in enumerate(clock) if text.endswith(":00") and int(text[:2]) % 6 == 0
             and (h == 0 or clock[h - 1] != text)}            # a repeated hour's second pass: not again
    regular = sixes if len(sixes) >= 4 else {h for h in range(0, 26) if h % 6 == 0}
    return sorted(regular | near)


def _listed(times: list[int], most: int = 3) -> str:
    shown = ", ".join(utc(t) for t in times[:most])
    return shown + (f" and {len(times) - most} more" if len(times) > most else "")


def lane_text(rule: str, runs: list[int], croniter: list[int], who: str | None = None) -> str:
    """What a rule does differently from croniter: 'cron-parser runs 07:30Z and skips 07:00Z' ('' if nothing)."""
    base, got = set(croniter), set(runs)
    extra, skipped = sorted(got - base), sorted(base - got)
    parts = ([f"runs {_listed(extra)}"] if extra else []) + ([f"skips {_listed(skipped)}"] if skipped else [])
    return f"{who or dst.RULE_NAMES[rule]} " + " and ".join(parts) if parts else ""


def lane_who(rule: str, results: dict[str, list[int]]) -> str:
    """The cron-parser lane speaks for BullMQ too when BullMQ's fresh parses give the same runs."""
    if rule != "cron-parser":
        return dst.RULE_NAMES[rule]
    return "cron-parser (and BullMQ)" if results["bullmq"] == results["cron-parser"] else "cron-parser (not BullMQ)"


@dataclass(frozen=True)
class RunTag:
    """croniter's UTC time beside one of its runs: `x` the run (hours since local midnight);
    `left` puts the text on the left of the mark (the first of two runs an hour apart)."""

    text: str
    x: float
    left: bool = False


@dataclass(frozen=True)
class RuleMarks:
    """Where one rule parts from croniter in one expression's row (`row`, from 0): the runs
    croniter does not make (`extra`) and croniter's runs it skips (`skipped`), as hours since
    local midnight, and the sentence saying so, placed after `last` (the latest of those marks)."""

    rule: str
    row: int
    extra: tuple[float, ...]
    skipped: tuple[float, ...]
    text: str
    last: float | None


@dataclass(frozen=True)
class TimeZonesFrame:
    """One zone's day. Every x is real hours since local midnight."""

    zone: str
    day: str
    expressions: tuple[str, ...]
    readout: str
    title: str
    xlabel: str
    #: hours from local midnight to the next: 23, 24, 25 (24.5 on Lord Howe)
    length: float
    #: where the clocks change, if they do
    change: float | None
    #: a repeated span's two passes, each (start, width); none on other days
    passes: tuple[tuple[float, float], ...]
    #: croniter's runs, one tuple per expression
    runs: tuple[tuple[float, ...], ...]
    #: per expression: its runs' UTC times when there are one or two, else its count
    tags: tuple[tuple[RunTag, ...], ...]
    counts: tuple[str, ...]
    #: per expression and rule of LANE_RULES, in that order
    lanes: tuple[RuleMarks, ...]
    #: the labelled hours: (x, 'local hour over UTC hour')
    ticks: tuple[tuple[float, str], ...]


def _rule_count(frame: "TimeZonesFrame", row: int, rule: str) -> int:
    """How many runs `rule` makes of the expression in `row`: croniter's, with that rule's differences."""
    lane = next(m for m in frame.lanes if m.row == row and m.rule == rule)
    return len(frame.runs[row]) + len(lane.extra) - len(lane.skipped)


def _croniter_utc(frame: "TimeZonesFrame", row: int) -> list[str]:
    """The UTC times ('00:30Z') of croniter's runs of the expression in `row` on the frame's day."""
    start = day_bounds(frame.zone, frame.day)[0]
    return [utc(start + round(h * HOUR)) for h in sorted(frame.runs[row])]


def _rule_utc(frame: "TimeZonesFrame", row: int, rule: str) -> str:
    """The UTC times ('00:30Z') at which `rule` runs the expression in `row` on the frame's day:
    one time, or 'both' when it runs two. croniter's are the frame's runs; each other rule's are
    those with its lane's differences."""
    lane = next((m for m in frame.lanes if m.row == row and m.rule == rule), None)
    hours = set(frame.runs[row])
    if lane is not None:
        hours = (hours - set(lane.skipped)) | set(lane.extra)
    start = day_bounds(frame.zone, frame.day)[0]
    times = [utc(start + round(h * HOUR)) for h in sorted(hours)]
    return times[0] if len(times) == 1 else "both" if len(times) == 2 else ", ".join(times) or "never"


class TimeZonesModel(Model):
    """The figure "07 cron across daylight saving": pick a zone, then one of its days.

    The day control names the kind of day ("forward": the day the clocks go forward, "before
    back", "ordinary", ...), each labelled with its date in the zone chosen; so moving to
    another zone keeps the kind of day (New York's spring-forward day becomes Sydney's), by the
    rule every dependent control follows, in the notebook and on the static site alike. A
    frame is one (zone, day): the engine is asked for those three expressions on that day only."""

    readout_id = "time-zones-readout"
    expressions = EXPRESSIONS
    controls = (
        choice("zone", ZONES, DEFAULT_ZONE),
        choice("day", [], DEFAULT_KIND, depends=lambda zone: [(c.label, c.kind) for c in choices(zone)]),
    )
    questions = (
        question(
            "07-croniter-fall-back",
            "London, 25 October 2026: at 02:00 BST the clocks go back to 01:00 GMT. At what UTC times does "
            "croniter run `30 1 * * *`?",
            [("00:30Z and 01:30Z", "00:30Z and 01:30Z, 01:30 on either side",
              "01:30 happens twice that night, in BST (UTC+1) then in GMT, and croniter runs both."),
             ("05:30Z and 06:30Z", "05:30Z and 06:30Z, as in New York",
              "Those are New York's passes; London is at UTC+1, then UTC+0."),
             ("01:30Z", "01:30Z only, once the clocks are back",
              "croniter runs the wall time each time it comes, and 01:30 BST came first.")],
            answer=lambda f: " and ".join(_croniter_utc(f, 1)) or "never",
            show_me={"zone": "Europe/London", "day": "back"}),
        question(
            "07-first-pass-time",
            "Sydney, 5 April 2026: at 03:00 AEDT the clocks go back to 02:00 AEST. At what UTC time, or times, "
            "does Debian cron run `30 2 * * *`? Under its row the figure marks where Debian cron parts from "
            "croniter.",
            [("15:30Z", "15:30Z, 02:30 AEDT",
              "Debian cron runs this job once, in the first pass: 02:30 AEDT (UTC+11), 15:30 in UTC on 4 April. "
              "cron-parser, which BullMQ asks, does too."),
             ("16:30Z", "16:30Z, 02:30 AEST",
              "That is the second pass; Debian cron's rule runs this job once, the first time its wall time comes."),
             ("both", "15:30Z and 16:30Z, 02:30 AEDT and AEST",
              "That is croniter's rule, which runs every pass; Debian cron's runs this job once.")],
            answer=lambda f: _rule_utc(f, 0, "debian"), show_me={"zone": "Australia/Sydney", "day": "back"}),
        question(
            "07-skipped-slot",
            "New York, 8 March 2026: at 02:00 EST the clocks go forward an hour, so 02:30 never shows on "
            "a New York clock. At what UTC time does croniter run `30 2 * * *` that day?",
            [("07:00Z", "07:00Z, 03:00 EDT, right after the gap",
              "croniter makes up a skipped slot at the first instant after the gap: 03:00 EDT, 07:00 in UTC. Debian "
              "cron does the same."),
             ("07:30Z", "07:30Z, 03:30 EDT, its minute kept",
              "That is cron-parser's rule, which BullMQ asks: it keeps the minute, in the hour the clock lands on."),
             ("never", "Never, as there is no 02:30",
              "None of the three libraries drops it: croniter runs it as soon as the clock allows.")],
            answer=lambda f: " and ".join(_croniter_utc(f, 0)) or "never",
            show_me={"zone": "America/New_York", "day": "forward"}),
    )
    challenge = Challenge(
        "07-gap-moves-it", "Find a zone and a day on which croniter and cron-parser each run `30 1 * * *` "
        "once, but at different times.",
        met=lambda f: len(f.runs[1]) == 1 and _rule_utc(f, 1, "cron-parser") not in ("both", "never")
        and [_rule_utc(f, 1, "cron-parser")] != _croniter_utc(f, 1),
        explain="London's clocks jump at 01:00 GMT, so there 01:30 is the slot the gap swallows: croniter "
                "runs it at the jump, 02:00 BST, and cron-parser at 02:30 BST, the same instant as "
                "its `30 2 * * *` run.")

    def describe(self, frame: TimeZonesFrame) -> str:
        rows = []
        for row, expr in enumerate(frame.expressions):
            n = len(frame.runs[row])
            times = {1: "once", 2: "twice"}.get(n, f"{n} times")
            tags = f" ({_and([t.text for t in frame.tags[row]])})" if frame.tags[row] else ""
            others = [lane.text for lane in frame.lanes if lane.row == row and lane.text]
            rows.append(f"{expr} runs {times} by croniter{tags}" + "".join(f", {t}" for t in others))
        return f"{frame.title}. {'; '.join(rows)}."

    def compute(self, *, zone: str, day: str) -> TimeZonesFrame:
        day = day_of_kind(zone, day)
        start, end = day_bounds(zone, day)

        def x(ms: int) -> float:
            return (ms - start) / HOUR

        per = {e: day_rules(e, zone, day) for e in self.expressions}
        runs, tags, counts, lanes = [], [], [], []
        for row, e in enumerate(self.expressions):
            results = per[e][0]
            base = results["croniter"]
            runs.append(tuple(x(s) for s in base))
            shown = base if len(base) <= 2 else []
            tags.append(tuple(RunTag(utc(s), x(s), len(shown) == 2 and i == 0) for i, s in enumerate(shown)))
            counts.append("" if shown else f"{len(base)} runs")
            for rule in LANE_RULES:
                got = results[rule]
                extra, skipped = sorted(set(got) - set(base)), sorted(set(base) - set(got))
                lanes.append(RuleMarks(rule, row, tuple(x(s) for s in extra), tuple(x(s) for s in skipped),
                                       lane_text(rule, got, base, lane_who(rule, results)),
                                       x(max(extra + skipped)) if extra or skipped else None))
        found = day_changes(zone, day)
        change, passes = None, ()
        if found:
            c = found[0]
            change = x(c.at)
            if not c.forward:
                span = (c.before - c.after) / HOUR
                passes = ((change - span, span), (change, span))
        ticks = tuple((float(h), f"{_hour(start + h * HOUR, zone)}\n{_hour(start + h * HOUR, 'UTC')}")
                      for h in labelled_hours(start, end, zone))
        text = "\n".join([day_header(zone, day)] + [expression_line(e, zone, day, *per[e]) for e in self.expressions])
        return TimeZonesFrame(zone, day, tuple(self.expressions), text, title(zone, day),
                              f"hour: local ({zone}) over UTC", x(end), change, passes, tuple(runs), tuple(tags),
                              tuple(counts), tuple(lanes), ticks)


__all__ = ["DISPUTED", "EXPRESSIONS", "ZONES", "DayChoice", "RuleMarks", "RunTag", "TimeZonesFrame",
           "TimeZonesModel", "choices", "day_header", "expression_line", "lane_text", "labelled_runs",
           "readout", "recorded", "recording_summary", "row_across_change", "rule_runs", "rules_lines",
           "day_of_kind", "day_changes", "syntax_lines", "SYNTAX", "title"]
