"""`emqsim trace ...`: run one schedule on the virtual clock and print what it produced.

The command only translates options into the package's objects (Every/Cron, Schedule,
Pump, Worker, Faults) and calls `simulate`; every check lives in those objects, so the
command line and the notebooks refuse the same inputs with the same messages. Bad input
is one `emqsim: error: ...` line on stderr and exit status 2, never a traceback.
Importing this module stays cheap: the standard library only. `main` puts its signal
handlers in first and only then loads the engine (each command imports what it uses), so a
Ctrl-C at any moment is one line and status 130.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine.pump import Pump
    from .engine.schedule import Schedule

START = "2026-11-30T09:00:00Z"   # a fixed instant: the command never reads the wall clock
SAMPLE = 100                     # cron slots read to estimate how many fit before --until

# Options whose value may be written with a leading minus (a negative duration or count):
# argparse would take "-4m" for an option, so such values are glued on as --run=-4m.
_VALUED = {"--every", "--offset", "--run", "--tick", "--fires", "--crash-after-enqueue",
           "--restart-after", "--latency", "--poll", "--concurrency", "--deadline"}
_DASH_VALUE = re.compile(r"-\d")


class _Parser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line and exit 2, like the package's own.
    Prefixes are not expanded (--ev is not --every): a flag is spelled out or refused."""

    def __init__(self, *a, **kw):
        kw.setdefault("allow_abbrev", False)
        super().__init__(*a, **kw)

    def error(self, message: str):
        fail(message)


def fail(message: str):
    """Report bad input as one line on stderr and stop with status 2."""
    print(f"emqsim: error: {message}", file=sys.stderr)
    raise SystemExit(2)


class _Version(argparse.Action):
    """`emqsim --version`: the version, the libraries that decide the answers, and whether the
    embedded server runs with the speed-up (read only when asked: it imports fakeredis)."""

    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, help="print the version and the libraries' versions")

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_text())
        parser.exit(0)


def version_text() -> str:
    from importlib.metadata import PackageNotFoundError, version

    from . import __version__
    from .engine.fakelua import state

    def of(dist: str) -> str:
        try:
            return f"{dist} {version(dist)}"
        except PackageNotFoundError:
            return f"{dist} (not installed)"

    libraries = ", ".join(of(d) for d in ("redis", "fakeredis", "lupa", "croniter", "cronsim"))
    return f"emqsim {__version__} (Python {sys.version.split()[0]}; {libraries})\n{state()}"


def parser() -> argparse.ArgumentParser:
    from .engine.parts import DESIGNS
    from .engine.ids import span_dates
    from .engine.parts import MAX_FIRES  # the API's cap too
    from .engine.pump import BEATS, MODES
    from .engine.registry import RegistryChanged
    from .engine.schedule import MISSED, OVERLAPS, RULES
    from .engine.store import statuses

    top = _Parser(prog="emqsim", description="A teaching simulator of a Redis-backed job scheduler.")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)
    p = sub.add_parser(
        "trace", help="run one schedule on the virtual clock and list its fires",
        description="Register one schedule at --start, run it on the virtual clock with Lua scripts "
                    "that model the two schedulers' own (written for this course, not their code), and "
                    "list each fire (the last 10,000; the counts cover all).",
        epilog="Durations: 15m, 90s, 1h30m, 900000ms. Numbers are ASCII digits. Times: ISO 8601 such as "
               "2026-11-30T09:00:00Z (without an offset they are read in --tz; a local time the clocks "
               "skip or repeat is refused: give its offset). Job ids carry times from "
               f"{span_dates()}. Bad input exits with status 2. "
               f"On a real Redis ($EMQSIM_REDIS_URL) a server that cannot be used exits with {statuses()}; "
               f"a registry another client deleted or rewrote mid-run exits with {RegistryChanged.status}; "
               "SIGINT exits 130, SIGTERM 143, SIGHUP 129 and SIGQUIT 131, after removing the run's keys; "
               "where they cannot all be removed, a second line gives the command that removes them.",
    )
    when = p.add_mutually_exclusive_group(required=True)
    when.add_argument("--every", metavar="DUR", help="an interval: the gap between runs")
    when.add_argument("--cron", metavar="EXPR", help="a cron expression: five fields, e.g. '0 9 * * *', or six with seconds first, "
                           "e.g. '30 0 9 * * *' (croniter is asked with second_at_beginning=True)")
    p.add_argument("--offset", metavar="DUR", help="with --every: pin the phase inside the gap")
    p.add_argument("--tz", default="UTC", metavar="ZONE",
                   help="IANA zone of the cron, of times without an offset, and of the table (default UTC)")
    p.add_argument("--rule", default="schedule", choices=RULES,
                   help="next run from the scheduled slot, the release, or the finish (default schedule)")
    p.add_argument("--missed", default="snap", choices=MISSED,
                   help="after an outage: one run then the nearest slot on the phase grid (snap, "
                        "bullmq 5.80.2 and later), the same grid one gap later when the offset is greater than the "
                        "release's time past a multiple of every, else the same as snap (snap-v5, bullmq 5.58.8 "
                        "to 5.80.1), the "
                        "multiples of every (epoch, legacy repeatable jobs as bullmq 5.15.0 runs them), "
                        "every missed slot (all), one run for the latest (once, within --deadline if given), "
                        "one run stamped with the release (now), or none later than --deadline (skip) "
                        "(default snap)")
    p.add_argument("--deadline", metavar="DUR",
                   help="with --missed skip or once: how late a release may still run")
    p.add_argument("--overlap", default="allow", choices=OVERLAPS,
                   help="while an earlier run of the schedule is going: run side by side (allow), "
                        "skip, start after it (buffer-one), or cancel it (replace) (default allow)")
    p.add_argument("--name", default="reports", help="the registration's name (default reports)")
    p.add_argument("--run", default="0", metavar="DUR", help="how long each job runs (default 0)")
    p.add_argument("--concurrency", default="1", metavar="N", help="workers taking jobs (default 1)")
    p.add_argument("--poll", default="0", metavar="DUR",
                   help="workers poll every DUR; 0 = woken by the marker (default 0)")
    p.add_argument("--tick", default="1s", metavar="DUR",
                   help="the pump's beat; 0 = wake exactly at the next run (default 1s)")
    p.add_argument("--latency", default="0", metavar="DUR",
                   help="time from the pump's due read to its release (default 0)")
    p.add_argument("--pump", default="two-step", choices=MODES,
                   help="enqueue then advance in two round trips, or both in one script (default two-step)")
    p.add_argument("--beat", default="grid", choices=BEATS,
                   help="the pump beats on a fixed grid, or re-arms a tick after each sweep ends, as "
                        "EchoMQ.Pump does (default grid)")
    p.add_argument("--design", default="pump", choices=DESIGNS,
                   help="what makes the jobs: a pump that enqueues what is due (EchoMQ), or BullMQ's "
                        "chain, where taking a job makes the next one and --outage means no worker "
                        "runs (the pump options do not apply) (default pump)")
    p.add_argument("--start", default=START, metavar="ISO8601",
                   help=f"the virtual now at registration (default {START})")
    end = p.add_mutually_exclusive_group(required=True)
    end.add_argument("--fires", metavar="N", help=f"stop after N fires (1 to {MAX_FIRES:,})")
    end.add_argument("--until", metavar="ISO8601", help="stop at this virtual time")
    p.add_argument("--outage", metavar="ISO8601/ISO8601", help="the pump is down over this interval")
    p.add_argument("--crash-after-enqueue", metavar="N",
                   help="the pump dies right after enqueuing fire N, then restarts")
    p.add_argument("--restart-after", metavar="DUR",
                   help="how long the crashed pump stays down (default one tick)")
    p.add_argument("--format", default="table", choices=("table", "json"),
                   help="a table in --tz, or one JSON object with times in Unix ms (default table)")
    _add_cron(sub)
    return top


def _add_cron(sub) -> None:
    """`emqsim cron`: the runs of a cron expression in a zone by one library's rule."""
    from .cron.rules import RULES as CRON_RULES

    c = sub.add_parser(
        "cron", help="list a cron expression's runs in a zone by croniter, cronsim or cron-parser",
        description="List the runs of EXPR in --tz strictly after --from and before --until, as one "
                    "library's rule gives them across daylight-saving changes: croniter (emqsim's Cron, a sixth "
                    "field read as seconds first: second_at_beginning=True), debian (cronsim, which follows "
                    "Debian cron's day and daylight-saving rules; its L, 5L, 5#3 and six fields are cronsim's "
                    "own, Debian cron refuses them) or cron-parser (5.10.3, the parser BullMQ 6.7.0 uses).",
        epilog="Times: ISO 8601 such as 2026-11-01T00:00:00Z (without an offset they are read in --tz). "
               "Each rule reads the syntax its library reads (L, 5L, 5#3, W, ...) and refuses the rest "
               "with that library's own message. "
               "Bad input exits with status 2; where cron-parser gives up part-way, the runs before "
               "it are listed and the status is 1.",
    )
    c.add_argument("expr", metavar="EXPR", help="a cron expression: five fields, e.g. '30 1 * * *', or six with seconds "
                                       "first, e.g. '0 30 1 * * *' (croniter: second_at_beginning=True)")
    c.add_argument("--tz", default="UTC", metavar="ZONE", help="IANA zone of the expression (default UTC)")
    c.add_argument("--from", dest="after", required=True, metavar="ISO8601", help="list runs strictly after this")
    c.add_argument("--until", required=True, metavar="ISO8601", help="list runs strictly before this")
    c.add_argument("--rule", default="croniter", choices=CRON_RULES, help="whose rule (default croniter)")
    c.add_argument("--format", default="table", choices=("table", "json"),
                   help="a table (local date and time, offset, UTC), or {\"runs\": [ms, ...]} (default table)")


#: the signals that stop a run: it unwinds, its store removes its keys, one line, 128 + N
STOPS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT") if hasattr(signal, n))


class _Stop:
    """The handler of STOPS: the first signal unwinds like Ctrl-C; any later one is noted and
    otherwise ignored, so an impatient second Ctrl-C cannot cut the clean-up short.

    Which signal came first is read from `wakeup`, the pipe Python's C-level handler writes each
    signal's number to as it arrives: two signals that arrive before Python runs a handler are
    handled in signal-number order, so SIGINT (2) would be called before an earlier SIGTERM (15)."""

    def __init__(self, wakeup: int | None = None):
        self.first: int | None = None
        self.wakeup = wakeup

    def __call__(self, signum, frame):
        if self.first is None:
            self.first = self._earliest(signum)
            raise KeyboardInterrupt(self.first)

    def _earliest(self, signum: int) -> int:
        if self.wakeup is None:
            return signum
        try:
            arrived = os.read(self.wakeup, 512)
        except OSError:   # nothing there (EAGAIN): this signal is the only one
            return signum
        return next((n for n in arrived if n in STOPS), signum)


#: the handler `main` put in, while it runs (None otherwise, or off the main thread)
_active: _Stop | None = None


def _unraisable(hook):
    """sys.unraisablehook, but silent on our stop swallowed in a finalizer (redis-py's
    `Pipeline.__del__`, say): `_watched` raises it again, and its line is the one printed."""

    def quiet(unraisable) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            hook(unraisable)

    return quiet


def _watched(report):
    """The progress callback (None or the bar's), and a check on each fire that a stop was not
    lost: a signal landing in a finalizer (a `__del__`, a generator the collector closes) has
    its KeyboardInterrupt swallowed there ("Exception ignored in ..."), and the run would go
    on to its end; the next fire raises it again, from the run itself."""
    stop = _active
    if stop is None:
        return report

    def progress(made: int, now: int) -> None:
        if stop.first is not None:
            raise KeyboardInterrupt(stop.first)
        if report is not None:
            report(made, now)

    return progress


def main(argv: list[str] | None = None) -> int:
    """The console script `emqsim`; returns the exit status (2 for bad input, 3-12 for a Redis
    server that cannot be used (store.FAULTS), 128 + the signal when stopped by SIGINT, SIGTERM,
    SIGHUP or SIGQUIT)."""
    if threading.current_thread() is not threading.main_thread():
        return _main(argv)
    global _active
    wakeup = _wakeup()
    handler, before = _Stop(wakeup and wakeup[0]), {}
    _active = handler
    hook, sys.unraisablehook = sys.unraisablehook, _unraisable(sys.unraisablehook)
    status = 1
    try:
        for sig in STOPS:  # a signal the caller ignores stays ignored (`nohup`, a background job)
            if signal.getsignal(sig) is not signal.SIG_IGN:
                before[sig] = signal.signal(sig, handler)
        status = _main(argv)
    except KeyboardInterrupt as stop:  # a second signal while the first one's line was printed
        status = 128 + (handler.first or (stop.args[0] if stop.args else signal.SIGINT))
    finally:  # called in-process with arguments (tests, a notebook): the caller's handlers back;
        _active, sys.unraisablehook = None, hook
        for sig, old in before.items():  # as the process's command once stopped: ignore the rest,
            keep = argv is None and handler.first is not None   # so a late second signal cannot
            signal.signal(sig, signal.SIG_IGN if keep else old)  # end it by a signal after its line
        if wakeup is not None:
            signal.set_wakeup_fd(wakeup[2])
            os.close(wakeup[0]), os.close(wakeup[1])
    if argv is None and handler.first is not None:
        _exit_stopped(status, handler.first)
    return status


def _wakeup() -> tuple[int, int, int] | None:
    """A non-blocking pipe for `signal.set_wakeup_fd`: (read end, write end, the fd it replaced)."""
    try:
        r, w = os.pipe()
        os.set_blocking(r, False), os.set_blocking(w, False)
    except OSError:
        return None
    try:
        return r, w, signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except (ValueError, OSError):
        os.close(r), os.close(w)
        return None


def _exit_stopped(status: int, first: int):
    """End the process stopped by `first` with 128 + first, now. Python's own exit would not:
    a KeyboardInterrupt that passed through code run by exec() or eval() of a string (the
    methods `dataclasses` writes while a module loads) marks the interpreter, which then ends
    by killing itself with SIGINT after our status, caught or not: 130 for a SIGTERM."""
    if status != 128 + first:   # the stop came after the run's own end (or its line was lost)
        print(f"emqsim: stopped by {signal.Signals(first).name}", file=sys.stderr)
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(128 + first)


def _main(argv: list[str] | None) -> int:
    if sys.stdout is None:  # started with stdout closed (`>&-`): say so before any work
        print("emqsim: error: cannot write the output: stdout is closed", file=sys.stderr)
        return 1
    try:
        return _run(argv)
    except KeyboardInterrupt as stop:  # a signal of STOPS: the store has closed on the way out
        signum = stop.args[0] if stop.args and isinstance(stop.args[0], int) else signal.SIGINT
        if _active is not None and _active.first is not None:   # the first signal decides
            signum = _active.first
        print(f"emqsim: stopped by {signal.Signals(signum).name}", file=sys.stderr)
        return 128 + signum
    except BaseException:
        if _stopping() is None:
            raise
        print(f"emqsim: stopped by {signal.Signals(_stopping()).name}", file=sys.stderr)
        return 128 + _stopping()


def _stopping() -> int | None:
    """The first stop signal, once one has come. Its KeyboardInterrupt can come out as another
    error: the interpreter turns it into one where it lands in C code that is raising already
    (an import's ImportError became "TypeError: expected a message argument"). Whatever the
    unwinding raises after a stop is the stop, and is reported as the stop."""
    return None if _active is None else _active.first


def _run(argv: list[str] | None) -> int:
    import logging

    from .engine.registry import RegistryChanged
    from .engine.store import ServerError  # the engine loads here, once main's handlers are in

    # redis-py warns through `logging` (a server that refuses HELLO: "Falling back to RESP2"),
    # which with no handler set prints to stderr: the command's say is its own one line
    logging.getLogger("redis").addHandler(logging.NullHandler())

    try:
        args = parser().parse_args(_glue_dash_values(sys.argv[1:] if argv is None else list(argv)))
        try:
            out = trace(args) if args.command == "trace" else cron(args)
        except ValueError as exc:
            if _stopping() is not None:   # not bad input: a stop that came out as a ValueError
                raise
            fail(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except SystemExit as stop:  # argparse's --help (0) and every error (2)
        return stop.code if isinstance(stop.code, int) else 2
    except (ServerError, RegistryChanged) as exc:  # one line naming the server (or key) and what went wrong
        print(f"emqsim: error: {exc}", file=sys.stderr)
        if exc.remains:  # the clean-up could not finish either: what is left and how to remove it
            print(f"emqsim: {exc.remains}", file=sys.stderr)
        return exc.status
    stopped = None
    if isinstance(out, tuple):  # `cron`: the listing, and cron-parser's message if it gave up
        out, stopped = out
    status = _write(out)
    if status:
        return status
    if stopped:
        print(f"emqsim: {stopped}", file=sys.stderr)
        return 1
    return 0


def _write(text: str) -> int:
    """Print the result; 0, or 1 with one line when stdout cannot take it (`> /dev/full`)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:  # `emqsim trace ... | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except OSError as exc:  # a full disk, a closed descriptor
        try:  # drop what is buffered, so the interpreter's own flush at exit says nothing
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass
        print(f"emqsim: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0


def cron(args: argparse.Namespace) -> tuple[str, str | None]:
    """Run the `cron` command: the listing, and the library's message where it gave up part-way."""
    import json

    from .cron import rules as dst
    from .engine import timefmt
    from .engine.errors import InputError
    from .engine.timefmt import parse_instant, zone

    def flag(name: str, read):
        try:
            return read()
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None

    flag("--tz", lambda: zone(args.tz))
    after = flag("--from", lambda: parse_instant(args.after, args.tz, repeated="refuse"))
    until = flag("--until", lambda: parse_instant(args.until, args.tz, repeated="refuse"))
    if until <= after:
        raise ValueError(f"--until {args.until!r} is not after --from {args.after!r}; give a later --until")
    try:
        runs, stopped = dst.listing(args.expr, args.tz, after, until, args.rule)  # its errors name the cron
    except InputError as exc:
        if exc.arg != "until":
            raise
        raise InputError(f"--until {args.until!r} is more than {dst.MAX_RUNS:,} runs of {args.expr!r} "
                         f"after --from; give a nearer --until", "--until") from None
    end = None
    if stopped in dst.CALENDAR_LINES:   # a complete listing that reached the calendar's end: status 0
        end, stopped = stopped, None
    if stopped:
        stopped = f"{args.rule} stopped after {len(runs)} run{'s' if len(runs) != 1 else ''}: {stopped}"
    if args.format == "json":
        doc = {"runs": runs} if stopped is None else {"runs": runs, "error": stopped}
        if end:
            doc["end"] = end
        return json.dumps(doc), stopped
    foot = (f"{len(runs)} run{'s' if len(runs) != 1 else ''} of {args.expr!r} in {args.tz} by "
            f"{dst.SOURCES[args.rule]}")
    return (timefmt.table(runs, args.tz) + "\n" + foot + (f"\n{stopped}" if stopped else "")
            + (f"\n{end}" if end else "")), stopped


def trace(args: argparse.Namespace) -> str:
    """Run the `trace` command; bad input raises InputError with a one-line message that
    starts with the flag it is about."""
    from .engine.cadence import cadence
    from .engine.errors import InputError
    from .engine.durations import parse_duration
    from .engine.faults import Faults
    from .engine.ids import id_time
    from .engine.parts import MAX_FIRES
    from .engine.pump import Pump
    from .engine.schedule import Schedule
    from .engine.sim import simulate
    from .engine.timefmt import parse_interval, zone
    from .engine.worker import Worker
    from .progress import bar as progress_bar

    with _flag("--tz"):
        zone(args.tz)
    with _flag("--start"):
        start = _instant(args.start, args.tz, "--start")
    if args.cron is not None and args.offset is not None:
        raise InputError(f"--offset {args.offset!r} applies to --every, not to --cron; "
                         "put the minute in the cron expression instead", "--offset")
    with _flag("--cron" if args.cron is not None else "--every"):
        reader = "cron-parser" if args.design == "bullmq" else "croniter"   # BullMQ reads cron with cron-parser
        sched = Schedule(args.name, cadence(every=args.every, cron=args.cron, offset=args.offset, tz=args.tz,
                                            reader=reader),
                         rule=args.rule, missed=args.missed, deadline=args.deadline, overlap=args.overlap)
    with _flag("--tick"):
        tick = parse_duration(args.tick, name="tick")
    with _flag("--latency"):
        pump = Pump(tick=tick, latency=args.latency, mode=args.pump, beat=args.beat)
    with _flag("--run"):
        worker = Worker(run=args.run, poll=args.poll, concurrency=_count(args.concurrency, "concurrency"))
    if args.restart_after is not None and args.crash_after_enqueue is None:
        raise InputError(f"--restart-after {args.restart_after!r} applies only with --crash-after-enqueue N; "
                         "give that too, or leave --restart-after out", "--restart-after")
    with _flag("--outage"):
        outage = None
        if args.outage is not None:
            outage = parse_interval(args.outage, args.tz, repeated="refuse")
            id_time(outage[0], "outage"), id_time(outage[1], "outage")
            if outage[0] < start:
                raise InputError(f"--outage {args.outage!r} begins before --start {args.start!r}; "
                                 "give an outage from the start on", "--outage")
    with _flag("--crash-after-enqueue"):
        faults = Faults(
            outage=outage,
            crash_after_enqueue=None if args.crash_after_enqueue is None
            else _count(args.crash_after_enqueue, "crash-after-enqueue"),
            restart_after=tick if args.restart_after is None else parse_duration(args.restart_after, name="restart-after"),
        )
    fires = until = None
    if args.fires is not None:
        with _flag("--fires"):
            fires = _count(args.fires, "fires")
            if fires > MAX_FIRES:
                raise InputError(f"fires {args.fires!r} is too many; give at most {MAX_FIRES:,}", "fires")
    else:
        with _flag("--until"):
            until = _instant(args.until, args.tz, "--until")
            if until < start:
                raise InputError(f"until {args.until!r} is before start {args.start!r}; give a later time", "until")
            _check_horizon(sched, start, until, args.until, None if args.design == "bullmq" else pump,
                           restarts=(outage is not None) + (args.crash_after_enqueue is not None))
    # on a terminal, a progress bar on stderr (the simulation reads no clock; tqdm does, for its rate)
    with _flag("--fires" if fires is not None else "--until"), \
            progress_bar(start=start, fires=fires, until=until, tz=args.tz) as report:
        result = simulate(sched, start=start, fires=fires, until=until, worker=worker, faults=faults,
                          pump=pump if args.design == "pump" else None,   # BullMQ's design has none
                          design=args.design, progress=_watched(report))
    return result.to_json() if args.format == "json" else result.table(args.tz)


#: the package's argument names -> the flag that gives them
FLAGS = {"every": "--every", "offset": "--offset", "cron": "--cron", "tz": "--tz", "rule": "--rule",
         "missed": "--missed", "deadline": "--deadline", "overlap": "--overlap", "name": "--name",
         "run": "--run", "poll": "--poll", "concurrency": "--concurrency", "tick": "--tick",
         "latency": "--latency", "mode": "--pump", "beat": "--beat", "design": "--design",
         "restart_after": "--restart-after", "restart-after": "--restart-after",
         "crash_after_enqueue": "--crash-after-enqueue", "crash-after-enqueue": "--crash-after-enqueue",
         "fires": "--fires", "until": "--until", "start": "--start", "outage": "--outage"}


@contextmanager
def _flag(default: str):
    """Inside, a ValueError becomes an InputError whose line starts with the flag it is about:
    the one its argument name maps to, else `default`."""
    try:
        yield
    except ValueError as exc:
        from .engine.errors import InputError

        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if text.startswith("--"):
            raise
        arg = getattr(exc, "arg", None)
        flag = FLAGS.get(arg, arg if isinstance(arg, str) and arg.startswith("--") else default)
        raise InputError(_named(flag, text), flag) from None


def _named(flag: str, text: str) -> str:
    """'every 0 must be ...' -> '--every 0 must be ...'; a message not about the flag by name
    gets it in front: '--start: ...'."""
    for word in (flag[2:], flag[2:].replace("-", "_")):
        if word and text.startswith(word + " "):
            return flag + text[len(word):]
    return f"{flag}: {text}"


def _instant(text: str, tz: str, flag: str) -> int:
    """A time flag: ISO 8601 in --tz, not a skipped or repeated local time, inside the ids' span."""
    from .engine.errors import InputError
    from .engine.ids import id_time, span
    from .engine.timefmt import parse_instant

    ms = parse_instant(text, tz, repeated="refuse")
    try:
        return id_time(ms, flag)
    except InputError:
        raise InputError(f"{flag} {text!r} is outside the times job ids can carry; {span()}", flag) from None


def _count(text: str, name: str) -> int:
    """A whole number, 1 or more, in ASCII digits, from the command line."""
    from .engine.errors import InputError

    if len(text) > 20 or not re.fullmatch(r"\s*[0-9]+\s*", text, re.ASCII) or int(text) < 1:
        shown = text if len(text) <= 40 else f"{text[:20]}... ({len(text):,} characters)"
        raise InputError(f"{name} {shown!r} must be a whole number, 1 or more, in ASCII digits", name)
    return int(text)


def _check_horizon(sched: Schedule, start: int, until: int, text: str, pump: Pump | None = None,
                   restarts: int = 0) -> None:
    """Refuse an --until that would produce more than MAX_FIRES fires (an upper estimate).

    The cadence's slots bound it, and so does the pump: one registration is one row, read
    at most once a beat, and beats come a tick apart (on the grid, or re-armed a tick after
    a sweep), so a pump with a tick releases at most one fire per tick, plus one for each
    restart (a new grid). `pump` None: no pump paces the run (BullMQ's chain)."""
    from .engine.cadence import Every
    from .engine.parts import MAX_FIRES

    c = sched.cadence
    first = sched.first_run(start)
    if first > until:
        return
    if isinstance(c, Every):
        estimate = (until - first) // c.ms + 1
    else:  # the average gap of the first SAMPLE slots, stretched over the horizon
        last = first
        for _ in range(SAMPLE):
            last = c.after(last)
            if last > until:
                return
        estimate = (until - first) * SAMPLE // (last - first)
    if pump is not None and pump.tick:
        estimate = min(estimate, (until - start) // pump.tick + 1 + restarts)
    if estimate > MAX_FIRES:
        raise ValueError(f"until {text!r} is about {estimate:,} fires away; "
                         f"give a horizon of at most {MAX_FIRES:,} fires")


def _glue_dash_values(argv: list[str]) -> list[str]:
    """['--run', '-4m'] -> ['--run=-4m'], so the package (not argparse) judges the value."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in _VALUED and i + 1 < len(argv) and _DASH_VALUE.match(argv[i + 1]):
            out.append(f"{a}={argv[i + 1]}")
            i += 2
        else:
            out.append(a)
            i += 1
    return out

