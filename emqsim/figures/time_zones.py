"""Cron in a time zone: which instants a wall-clock slot becomes on a daylight-saving day.

A cron expression names wall-clock times; the zone decides which instants show them. On
the day the clocks go back an hour happens twice, on the day they go forward an hour never
happens, and croniter, Debian cron (cronsim) and cron-parser each settle those slots their
own way; BullMQ asks cron-parser afresh for each run (`emqsim.dst`). `TimeZonesView` draws
one row of croniter's runs per expression, with Debian cron and cron-parser under it only
where they differ, on an axis of real elapsed time
since local midnight labelled in local and UTC hours, so a 25-hour day is visibly longer
than a 23-hour one. Every zone and day the pickers offer is worked out when the view is
built; a move only redraws.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from datetime import date, timedelta

from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.transforms import blended_transform_factory

from .. import dst
from ..cadence import Cron
from ..errors import InputError
from ..registry import Registry
from ..schedule import Schedule
from ..sim import Simulation
from ..store import Store
from ..timefmt import at, hm, iso, zone as check_zone
from .controls import Panel
from .live import Live
from .style import BLACK, GREY, PURPLE, ROLE, VERMILLION, new_figure, scale

ZONES = ("America/New_York", "Europe/London", "Australia/Sydney", "UTC")
EXPRESSIONS = ("30 2 * * *", "30 1 * * *", "0 * * * *")
YEAR = 2026
ORDINARY = "2026-06-15"
#: UTC has no change of its own: its picker offers the days New York changes
UTC_REFERENCE = "America/New_York"
HOUR = dst.HOUR
XMAX = 25.4           # the axis holds the longest day (25 h) and a little more
READOUT_ID = "time-zones-readout"
DEFAULT_ZONE, DEFAULT_DAY = "America/New_York", "2026-11-01"


# -- the days a zone's picker offers -------------------------------------------------------------

@dataclass(frozen=True)
class DayChoice:
    """A day in the picker: its date, what kind of day it is, and the picker's label."""

    day: str
    kind: str       # "ordinary", "forward", "back", "before forward", "after back", ...
    note: str

    @property
    def label(self) -> str:
        return f"{self.day} \u00b7 {self.note}"


def _zone(tz: str, allowed=None) -> str:
    """A known IANA zone, and one of `allowed` when given."""
    check_zone(tz)
    if allowed is not None and tz not in allowed:
        raise InputError(f"zone {tz!r} is not one of {', '.join(allowed)}")
    return tz


def choices(tz: str, year: int = YEAR) -> list[DayChoice]:
    """An ordinary day, and each change day of `year` with the day before and after it."""
    _zone(tz)
    source = UTC_REFERENCE if tz == "UTC" else tz
    out = [DayChoice(ORDINARY, "ordinary", "no change")]
    for c in dst.year_changes(source, year):
        way = "forward" if c.forward else "back"
        d = date.fromisoformat(iso(c.at, source)[:10])
        if tz == "UTC":
            out.append(DayChoice(d.isoformat(), way, f"no change in UTC (New York goes {way})"))
            continue
        out += [DayChoice((d - timedelta(days=1)).isoformat(), f"before {way}", f"the day before clocks go {way}"),
                DayChoice(d.isoformat(), way, f"clocks go {way}"),
                DayChoice((d + timedelta(days=1)).isoformat(), f"after {way}", f"the day after clocks go {way}")]
    return sorted(out, key=lambda c: c.day)


# -- the words ----------------------------------------------------------------------------------------

def _count(n: int) -> str:
    return {0: "never", 1: "once", 2: "twice"}.get(n, f"{n} times")


def _hours(ms: int) -> str:
    """'a 25-hour day'; Lord Howe's half-hour changes make 'a 24.5-hour day'."""
    n = ms / HOUR
    return f"a {int(n) if n == int(n) else n}-hour day"


def day_header(tz: str, day) -> str:
    """What the clocks do that day: 'America/New_York 2026-11-01: at 06:00Z clocks go back ...'."""
    start, end = dst.day_bounds(tz, day)
    length = end - start
    head = f"{tz} {dst.parse_day(day).isoformat()}"
    found = dst.changes(tz, start, end)
    if not found:
        return (f"{head}: no change, {dst.abbreviation(start, tz)} ({dst.utc_offset(dst.offset(start, tz))}) "
                f"all day ({_hours(length)})")
    c = found[0]
    lo, hi = c.wall
    way, what = ("forward", "never happens") if c.forward else ("back", "happens twice")
    return (f"{head}: at {dst.utc(c.at)} clocks go {way} from {hm(c.at + c.before)} {dst.abbreviation(c.at - 1, tz)}"
            f" to {hm(c.at + c.after)} {dst.abbreviation(c.at, tz)}, so {hm(lo)}-{hm(hi - 60_000)} {what} "
            f"({_hours(length)})")


def _phrase(slots: list[int], who: str, tz: str, matched: list[str]) -> str:
    """'twice by croniter, 01:30 EDT (05:30Z) and 01:30 EST (06:30Z)'; many slots are summarised:
    a wall time seen twice, and wall times the expression names that the day never shows."""
    n = len(slots)
    text = f"{_count(n)} by {who}"
    if 0 < n <= 3:
        return text + ", " + _and([dst.label(s, tz) for s in slots])
    seen: dict[str, list[int]] = {}
    for s in slots:
        seen.setdefault(hm(s, tz), []).append(s)
    notes = [f"{w} twice ({' and '.join(dst.utc(s) for s in ss)})" for w, ss in seen.items() if len(ss) > 1]
    missing = [w for w in matched if w not in seen]
    if len(missing) > 3:
        notes.append(f"none of the {len(missing)} wall times {missing[0]} to {missing[-1]}")
    elif missing:
        notes.append("no " + " or ".join(missing))
    return text + (", " + ", ".join(notes) if notes else "")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def expression_line(expr: str, tz: str, day, results: dict[str, list[int]] | None = None,
                    matched: list[str] | None = None) -> str:
    """One expression's day under every rule, croniter first; the others (Debian cron,
    cron-parser, BullMQ) are said together where they give the same runs."""
    if results is None or matched is None:
        results, matched = _work(expr, tz, day)
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


def _work(expr: str, tz: str, day) -> tuple[dict[str, list[int]], list[str]]:
    """Every rule's slots, and the wall times (HH:MM) the expression names on that date."""
    start, end = dst.day_bounds(tz, day)
    win = dst.Window(expr, tz, start, end)
    d = dst.parse_day(day)
    lo = at(d.isoformat())
    hi = lo + 24 * HOUR
    return win.all(), [hm(w) for w in win.walls if lo <= w < hi]


def title(tz: str, day) -> str:
    """The figure's title: the zone, the day, and its length."""
    start, end = dst.day_bounds(tz, day)
    found = dst.changes(tz, start, end)
    what = "no change" if not found else (
        f"clocks go {'forward' if found[0].forward else 'back'} at {dst.utc(found[0].at)}")
    return f"{tz} {dst.parse_day(day).isoformat()}: {what}, {_hours(end - start)}"


def readout(tz: str, day, expressions=EXPRESSIONS) -> str:
    """The header and one line per expression (what the view's update returns)."""
    return "\n".join([day_header(tz, day)] + [expression_line(e, tz, day) for e in expressions])


# -- the rules side by side, and the recording they are held to ---------------------------------------

#: the expressions whose counts the libraries disagree on (issue 8's list), for the table
DISPUTED = ("30 1 * * *", "30 2 * * *", "*/20 2 * * *", "30 1-3 * * *", "* 1 * * *", "*/20 1 * * *",
            "0,30 1 * * *", "0 * * * *", "*/30 * * * *", "15 0 * * *")
RECORDING = "tests/oracles/recorded/cron_parser.json"


def _cell(runs: list[int]) -> str:
    return f"{len(runs)}" + (": " + " ".join(dst.utc(t) for t in runs) if 0 < len(runs) <= 3 else "")


def rules_table(tz: str, day, expressions=DISPUTED) -> str:
    """Each expression's runs on the local day by every rule: the count, and the UTC times when
    there are three or fewer. BullMQ's column is its own chain of fresh cron-parser parses."""
    heads = ["expression"] + [dst.RULE_NAMES[r] for r in dst.ALL]
    rows = []
    for e in expressions:
        res = dst.compare(e, tz, day)
        rows.append([e] + [_cell(res[r]) for r in dst.ALL])
    widths = [max(len(r[i]) for r in [heads, *rows]) for i in range(len(heads))]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([f"{tz} {dst.parse_day(day).isoformat()}", line(heads), line(["-" * w for w in widths])]
                     + [line(r) for r in rows])


def _recording_path():
    from pathlib import Path

    return Path(__file__).resolve().parents[2] / RECORDING


def recorded(expr: str, tz: str, day) -> str:
    """What the real cron-parser 5.10.3 answered (the recording in the repository) for the window
    holding `day`, its runs on that day, and whether emqsim's cron-parser and BullMQ rules agree."""
    import json

    doc = json.loads(_recording_path().read_text())
    start, end = dst.day_bounds(tz, day)
    for q, a in zip(doc["questions"], doc["answers"]):
        if q["expr"] == expr and q["tz"] == tz and q["from"] < start and q["until"] >= end and "runs" in a:
            runs = [t for t in a["runs"] if start <= t < end]
            chain = [t for t in a["chain"] if start <= t < end]
            mine, bull = dst.slots(expr, tz, day, "cron-parser"), dst.slots(expr, tz, day, "bullmq")
            return "\n".join([
                f"recorded: cron-parser {dst.CRON_PARSER_VERSION} on {tz} {dst.parse_day(day).isoformat()}, {expr!r}",
                f"  next() iterated:          {[dst.label(t, tz) for t in runs]}",
                f"  fresh parse per run:      {[dst.label(t, tz) for t in chain]}",
                f"  emqsim 'cron-parser' rule: {'the same' if mine == runs else mine}; "
                f"'bullmq' rule: {'the same' if bull == chain else bull}"])
    raise ValueError(f"no recorded cron-parser case for {expr!r} in {tz} on {day}; see {RECORDING}")


def recording_summary() -> str:
    """How much of cron-parser the repository's recording covers: cases, zones, and where it gave up."""
    import json

    doc = json.loads(_recording_path().read_text())
    qs, ans = doc["questions"], doc["answers"]
    zones = sorted({q["tz"] for q in qs})
    gave_up = sorted({(q["tz"], q["expr"]) for q, a in zip(qs, ans) if "runs_error" in a})
    return "\n".join([
        f"{RECORDING}: cron-parser {dst.CRON_PARSER_VERSION}, {len(qs)} cases, "
        f"{len({q['expr'] for q in qs})} expressions, {len(zones)} zones",
        "  zones: " + ", ".join(zones),
        f"  cases where cron-parser gave up part-way (its loop limit): {sum('runs_error' in a for a in ans)}, "
        f"all in {', '.join(sorted({z for z, _ in gave_up}))}",
    ])


# -- the registry keeps one row, scored in UTC ---------------------------------------------------------

def row_across_change(expr: str = "30 1 * * *", tz: str = "America/New_York", *,
                      now: str = "2026-10-31 12:00", fires: int = 4, name: str = "nightly") -> str:
    """Upsert a cron schedule with a zone just before a change, fire it through the engine, and
    print the one registry row after each fire: its score is a UTC millisecond, shown both ways."""
    sched = Schedule(name, Cron(expr, tz))
    t0 = at(now, tz)

    def row(reg: Registry) -> str:
        (member, score), = reg.rows()
        local = f"{iso(score, tz)} {dst.abbreviation(score, tz)}"
        return f"{member} score {score} = {iso(score)} = {local} (rows: {reg.size()})"

    with Store() as store:
        reg = Registry(store)
        lines = [f"upsert {name!r} cron {expr!r} tz {tz} at {now} {dst.abbreviation(t0, tz)}: {reg.upsert(sched, t0)}",
                 f"  {row(reg)}",
                 f"  record: pattern {reg.record(name).get('pattern')!r}, tz {reg.record(name).get('tz')!r}"]
        with Simulation(sched, start=t0, store=store) as sim:
            for _ in range(fires):
                f = sim.run(fires=1)[-1]
                lines.append(f"fire {f.n}: released {dst.label(f.released, tz)} -> {row(sim.registry)}")
    return "\n".join(lines)


# -- the view -------------------------------------------------------------------------------------------

#: the other rules' lanes under each expression's row, and how their marks look
LANES = {"debian": -0.3, "cron-parser": -0.56}
LOOK = {"croniter": ("o", ROLE["cron"]), "debian": ("D", VERMILLION), "cron-parser": ("s", PURPLE)}
#: the key's names: BullMQ runs what cron-parser gives, one fresh parse per run
KEY_NAMES = {"croniter": "croniter (emqsim)", "debian": "Debian cron (cronsim)", "cron-parser": "cron-parser (BullMQ)"}


def _hour(ms: int, tz: str) -> str:
    text = hm(ms, tz)
    return text[:2] if text.endswith(":00") else text


def _labelled_hours(start: int, end: int, tz: str) -> list[int]:
    """Hours after local midnight that get a label: every sixth, and the hours either side of a change."""
    near = {round((c.at - start) / HOUR) + k for c in dst.changes(tz, start, end) for k in (-1, 0, 1)}
    return sorted({h for h in range(0, 26) if h % 6 == 0 or h in near})


def _listed(times: list[int], most: int = 3) -> str:
    shown = ", ".join(dst.utc(t) for t in times[:most])
    return shown + (f" and {len(times) - most} more" if len(times) > most else "")


def lane_text(rule: str, runs: list[int], croniter: list[int], who: str | None = None) -> str:
    """What a rule does differently from croniter: 'cron-parser runs 07:30Z and skips 07:00Z' ('' if nothing)."""
    base, got = set(croniter), set(runs)
    extra, skipped = sorted(got - base), sorted(base - got)
    parts = ([f"runs {_listed(extra)}"] if extra else []) + ([f"skips {_listed(skipped)}"] if skipped else [])
    return f"{who or dst.RULE_NAMES[rule]} " + " and ".join(parts) if parts else ""


def _lane_who(rule: str, results: dict[str, list[int]]) -> str:
    """The cron-parser lane speaks for BullMQ too when BullMQ's fresh parses give the same runs."""
    if rule != "cron-parser":
        return dst.RULE_NAMES[rule]
    return "cron-parser (and BullMQ)" if results["bullmq"] == results["cron-parser"] else "cron-parser (not BullMQ)"


def _key(fig, entries, *, y: float, fontsize: float) -> list:
    """A legend's look at a fixed place: a mark and a label per entry, centred on the figure,
    laid out once by measuring the labels. Returns the (mark, label) artists."""
    renderer = fig.canvas.get_renderer()
    to_fig = fig.transFigure.inverted()
    em = fontsize * fig.dpi / 72                      # one em in pixels
    texts = [fig.text(0, y, label, fontsize=fontsize, va="center") for _, label in entries]
    widths = [t.get_window_extent(renderer).width for t in texts]
    handle, pad, gap = 1.6 * em, 0.4 * em, 1.2 * em
    total = sum(widths) + len(entries) * (handle + pad) + (len(entries) - 1) * gap
    x = (fig.bbox.width - total) / 2
    out = []
    for (style, _), text, width in zip(entries, texts, widths):
        (x0, _), (x1, _), (xt, _) = to_fig.transform([(x, 0), (x + handle, 0), (x + handle + pad, 0)])
        xs = [(x0 + x1) / 2] if style.get("ls") == "none" else [x0, x1]
        mark = Line2D(xs, [y] * len(xs), transform=fig.transFigure, **style)
        fig.add_artist(mark)
        text.set_x(xt)
        out.append((mark, text))
        x += handle + pad + width + gap
    return out


class TimeZonesView:
    """One row per expression with croniter's runs; under it, Debian cron's and cron-parser's
    runs only where they differ (the cron-parser lane says when BullMQ's runs differ from it).
    x is real time since local midnight, labelled local over UTC."""

    def __init__(self, ax, *, zone: str = DEFAULT_ZONE, day: str = DEFAULT_DAY, expressions=EXPRESSIONS,
                 zones=ZONES, year: int = YEAR):
        self.ax, self.expressions, self.zones, self.year = ax, tuple(expressions), tuple(zones), year
        for z in self.zones:
            _zone(z)
        self.choices = {z: choices(z, year) for z in self.zones}
        # the engine, once for every zone and day the pickers offer
        self._cache: dict[tuple[str, str], dict] = {}
        for z in self.zones:
            for c in self.choices[z]:
                self._work(z, c.day)
        self.zone, self.day = _zone(zone, self.zones), dst.parse_day(day).isoformat()
        fig = ax.figure
        sc = scale()
        fs, lw, ms = sc["font"], sc["line"], sc["marker"]
        n = len(self.expressions)
        self.rows = [float(-g) for g in range(n)]
        ax.set_xlim(-0.4, XMAX)
        ax.set_ylim(-n + 0.3, 0.4)
        # no matplotlib ticks at all: an Axis measures and places every tick label again on each
        # redraw, the larger part of a move's cost; these texts are placed by hand instead
        ax.set_xticks([])
        ax.set_yticks([])
        left = blended_transform_factory(ax.transAxes, ax.transData)
        for y, e in zip(self.rows, self.expressions):
            ax.text(-0.01, y, e, transform=left, fontsize=fs * 0.85, family="monospace", ha="right", va="center")
        for y in self.rows:
            ax.axhline(y, color=GREY, lw=lw * 0.25, alpha=0.5, zorder=0)
        # shading: the repeated hour (both passes) and the part of the axis after the day ends
        xt = ax.get_xaxis_transform()
        self.passes = [Rectangle((0, 0), 0, 1, transform=xt, color=GREY, alpha=0.22, lw=0, zorder=0.5)
                       for _ in range(2)]
        self.after = Rectangle((0, 0), 0, 1, transform=xt, color=GREY, alpha=0.4, lw=0, zorder=0.4)
        for p in [*self.passes, self.after]:
            ax.add_patch(p)
        self._after_text = ax.text(0, 0.98, "next day", transform=xt, fontsize=fs * 0.7, va="top", ha="left")
        self.change = ax.axvline(0, color=BLACK, ls="--", lw=lw * 0.7, zorder=1)
        # one artist per rule for all rows, and one for the croniter runs a rule skips
        self.marks = {r: ax.plot([], [], ls="none", marker=m, ms=ms * (1 if r == "croniter" else 0.9), color=c,
                                 zorder=4)[0] for r, (m, c) in LOOK.items()}
        self.skipped, = ax.plot([], [], ls="none", marker="x", ms=ms, mew=lw * 0.7, color=BLACK, zorder=3)
        # croniter's UTC times beside its runs (one or two), or its count; a sentence per differing lane
        self.labels = [[ax.text(0, y, "", fontsize=fs * 0.72, va="center") for _ in range(2)] for y in self.rows]
        self.counts = [ax.text(1.005, y, "", transform=blended_transform_factory(ax.transAxes, ax.transData),
                               fontsize=fs * 0.72, va="center") for y in self.rows]
        self.lanes = {r: [ax.text(0, y + dy, "", fontsize=fs * 0.72, va="center")
                          for y in self.rows] for r, dy in LANES.items()}
        # every hour marked (one artist), some labelled: the local hour over the UTC hour
        xt = ax.get_xaxis_transform()
        ax.plot(range(0, 26), [0] * 26, ls="none", marker="|", ms=ms * 0.6, color=BLACK, clip_on=False,
                transform=xt, zorder=2)
        self.hours = [ax.text(0, -0.04, "", transform=xt, fontsize=fs * 0.72, ha="center", va="top")
                      for _ in range(26)]
        self._xlabel = ax.text(0.5, -0.21, "", transform=ax.transAxes, fontsize=fs * 0.8, ha="center", va="top")
        ax.spines[["right", "top"]].set_visible(False)
        self._title = fig.text(0.01, 0.97, "", fontsize=fs * 0.85, va="top", ha="left")
        # a key drawn once, without a legend: a legend lays its boxes out again on every redraw
        key = [(dict(ls="none", marker=m, ms=ms, color=c), KEY_NAMES.get(r, dst.RULE_NAMES[r]))
               for r, (m, c) in LOOK.items()]
        key += [(dict(ls="none", marker="x", ms=ms, mew=lw * 0.7, color=BLACK), "skipped"),
                (dict(color=BLACK, ls="--", lw=lw * 0.7), "change")]
        self.key = _key(fig, key, y=0.04, fontsize=fs * 0.7)
        fig.subplots_adjust(left=0.13, right=0.93, top=0.88, bottom=0.27)
        moving = [*self.passes, self.after, self._after_text, self.change, *self.marks.values(), self.skipped,
                  *(t for pair in self.labels for t in pair), *self.counts,
                  *(t for texts in self.lanes.values() for t in texts), *self.hours, self._xlabel, self._title]
        self.live = Live(fig, moving=moving)
        self.update()

    # -- the engine's answers ---------------------------------------------------------------------

    def _work(self, tz: str, day: str) -> dict:
        key = (tz, day)
        if key not in self._cache:
            start, end = dst.day_bounds(tz, day)
            per = {e: _work(e, tz, day) for e in self.expressions}
            self._cache[key] = {"start": start, "end": end, "per": per,
                                "changes": dst.changes(tz, start, end),
                                "text": readout_from(tz, day, per, self.expressions),
                                "title": title(tz, day), "ticks": _labelled_hours(start, end, tz)}
        return self._cache[key]

    def tick_labels(self) -> list[str]:
        """The labelled hours along the axis, each the local hour over the UTC hour."""
        return [t.get_text() for t in self.hours if t.get_visible()]

    def _pick_day(self, zone: str) -> str:
        days = {c.day: c for c in self.choices[zone]}
        if self.day in days:
            return self.day
        kind = next((c.kind for c in self.choices[self.zone] if c.day == self.day), None)
        same = [c.day for c in self.choices[zone] if c.kind == kind]
        return same[0] if same else self.day

    # -- a move -------------------------------------------------------------------------------------

    def update(self, zone: str | None = None, day=None) -> str:
        """Show `zone` on `day` ('2026-11-01'); a new zone alone keeps the kind of day. Returns the readout."""
        if zone is not None:
            try:
                _zone(zone, self.zones)
            except ValueError as exc:
                raise InputError(str(exc) if str(exc).startswith("zone") else f"zone: {exc}", "zone") from None
        new_zone = zone or self.zone
        try:
            new_day = dst.parse_day(day).isoformat() if day is not None else self._pick_day(new_zone)
        except ValueError as exc:
            raise InputError(str(exc), "day") from None
        work = self._work(new_zone, new_day)    # computes (and keeps) a day the picker does not offer
        self.zone, self.day = new_zone, new_day
        start, end = work["start"], work["end"]

        def x(ms: int) -> float:
            return (ms - start) / HOUR

        pts = {r: ([], []) for r in [*LOOK, "skipped"]}
        for row, (y, e) in enumerate(zip(self.rows, self.expressions)):
            results = work["per"][e][0]
            base = results["croniter"]
            pts["croniter"][0].extend(x(s) for s in base)
            pts["croniter"][1].extend([y] * len(base))
            self._label_row(row, base, x)
            for rule, dy in LANES.items():
                got, text = results[rule], self.lanes[rule][row]
                extra, skipped = sorted(set(got) - set(base)), sorted(set(base) - set(got))
                pts[rule][0].extend(x(s) for s in extra)
                pts[rule][1].extend([y + dy] * len(extra))
                pts["skipped"][0].extend(x(s) for s in skipped)
                pts["skipped"][1].extend([y + dy] * len(skipped))
                text.set_text(lane_text(rule, got, base, _lane_who(rule, results)))
                text.set_x(x(max(extra + skipped)) + 0.4 if extra or skipped else 0)
        for rule, artist in [*self.marks.items(), ("skipped", self.skipped)]:
            artist.set_data(*pts[rule])
        # the change, the repeated hour, the end of the day
        length = x(end)
        self.after.set_x(length)
        self.after.set_width(XMAX - length)
        self._after_text.set_x(length + 0.1)
        self._after_text.set_visible(length < XMAX - 1)
        changes = work["changes"]
        self.change.set_visible(bool(changes))
        for p in self.passes:
            p.set_visible(False)
        if changes:
            c = changes[0]
            self.change.set_xdata([x(c.at)] * 2)
            if not c.forward:
                span = (c.before - c.after) / HOUR
                for p, x0 in zip(self.passes, (x(c.at) - span, x(c.at))):
                    p.set_x(x0)
                    p.set_width(span)
                    p.set_visible(True)
        self._xlabel.set_text(f"hour: local ({self.zone}) over UTC")
        self._title.set_text(work["title"])
        for i, t in enumerate(self.hours):
            if i < len(work["ticks"]):
                h = work["ticks"][i]
                ms = start + h * HOUR
                t.set_x(h)
                t.set_text(f"{_hour(ms, self.zone)}\n{_hour(ms, 'UTC')}")
            t.set_visible(i < len(work["ticks"]))
        return work["text"]

    def _label_row(self, row: int, runs: list[int], x) -> None:
        """croniter's UTC times beside its runs when there are one or two (of two, an hour
        apart, the first goes to the left of its mark); with more, the count at the right."""
        shown = runs if len(runs) <= 2 else []
        self.counts[row].set_text("" if shown else f"{len(runs)} runs")
        for i, t in enumerate(self.labels[row]):
            if i >= len(shown):
                t.set_visible(False)
                continue
            left = len(shown) == 2 and i == 0
            t.set_visible(True)
            t.set_text(dst.utc(shown[i]))
            t.set_x(x(shown[i]) + (-0.4 if left else 0.4))
            t.set_ha("right" if left else "left")

    def readout(self) -> str:
        return self._cache[(self.zone, self.day)]["text"]

    def moves(self) -> list[dict]:
        """A reader's session: the first zone's days, the zone picker, then the other zones' days."""
        first = self.zones[0]
        out = [{"zone": first, "day": c.day} for c in self.choices[first]]
        out += [{"zone": z} for z in self.zones[1:]] + [{"zone": first}]
        for z in reversed(self.zones[1:]):
            out += [{"zone": z, "day": c.day} for c in self.choices[z]]
        return out[:20]


def readout_from(tz: str, day, per: dict, expressions=EXPRESSIONS) -> str:
    """The readout from precomputed work: per[expr] = (results, matched wall times)."""
    return "\n".join([day_header(tz, day)] + [expression_line(e, tz, day, *per[e]) for e in expressions])


def time_zones_view(width: float = 9.5, height: float = 3.6, **kw) -> TimeZonesView:
    fig, ax = new_figure(width, height)
    return TimeZonesView(ax, **kw)


class TimeZonesPanel(Panel):
    """A zone picker and a day picker around a `TimeZonesView`, with its readout."""

    def __init__(self, figure: TimeZonesView | None = None):
        import ipywidgets as w

        self.view = v = figure or time_zones_view()
        self._busy = False
        self.zone = w.Dropdown(options=list(v.zones), value=v.zone, description="zone")
        self.day = w.Dropdown(options=self._options(v.zone), value=v.day, description="day",
                              layout=w.Layout(width="28em"))
        self.readout = w.HTML()
        self._show(v.readout())
        self.zone.observe(self.on_zone, names="value")
        self.day.observe(self.on_day, names="value")
        self.box = w.VBox([w.HBox([self.zone, self.day]), self.readout, v.live.image])

    def _options(self, zone: str) -> list[tuple[str, str]]:
        """The zone's days; a day the view shows that the picker does not offer is added, so it can be shown."""
        out = [(c.label, c.day) for c in self.view.choices[zone]]
        if zone == self.view.zone and self.view.day not in {d for _, d in out}:
            out = sorted(out + [(self.view.day, self.view.day)], key=lambda o: o[1])
        return out

    def _show(self, text: str) -> str:
        self.readout.value = f'<pre id="{READOUT_ID}" style="margin:0">{html.escape(text)}</pre>'
        self.view.live.refresh()
        return text

    def on_zone(self, change) -> str:
        """A new zone: the view keeps the kind of day; the day picker gets that zone's days."""
        text = self.view.update(zone=change["new"])
        self._busy = True
        try:
            self.day.options = self._options(self.view.zone)
            self.day.value = self.view.day
        finally:
            self._busy = False
        return self._show(text)

    def on_day(self, change) -> str:
        if self._busy:            # the zone callback is swapping the day picker's options
            return self.view.readout()
        return self._show(self.view.update(day=change["new"]))


def time_zones_panel(figure: TimeZonesView | None = None) -> TimeZonesPanel:
    return TimeZonesPanel(figure)
