"""Progress of a long command-line run, on stderr, only when stderr is a terminal.

A run of months of virtual time can take minutes; without a sign of life it looks hung.
The bar shows the fires made, the virtual date reached, the rate and the time left. The
simulation itself never reads a clock: it reports (fires made, virtual now) through the
`progress` callback of `PumpDesign.run`, and only tqdm, which draws the bar, reads the wall
clock for the rate and the time left. Piped or redirected, stderr gets nothing, so a
script's output and a test's stay exactly as they were.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

from .engine.timefmt import iso

DAY = 86_400_000


def wanted(stream=None) -> bool:
    """Whether `stream` (stderr by default) is a terminal someone watches."""
    stream = sys.stderr if stream is None else stream
    try:
        return stream.isatty()
    except (AttributeError, ValueError):   # no isatty, or closed
        return False


@contextmanager
def bar(*, start: int, fires: int | None = None, until: int | None = None, tz: str = "UTC", stream=None):
    """A callback `(fires made, virtual now)` drawing a bar on `stream` (stderr), or None when
    it is not a terminal. With `fires` the bar counts fires; with `until` it counts virtual
    days. On a normal end the final state is drawn once, then the bar is cleared (the table
    follows on stdout); on an error or Ctrl-C it is only cleared."""
    stream = sys.stderr if stream is None else stream
    if not wanted(stream):
        yield None
        return
    from tqdm import tqdm   # imported only when a bar is drawn: the command stays quick to start

    class _Bar(tqdm):
        made = 0
        now = start

        @property
        def format_dict(self):
            d = super().format_dict
            d["made"] = f"{self.made:,}"
            d["virtual"] = iso(self.now, tz)[:16].replace("T", " ")
            return d

    # follow the terminal's size; one that reports none (a bare pty) gets a fixed one, as
    # tqdm would otherwise cut the line to nothing or not draw it
    width = {"dynamic_ncols": True} if _columns(stream) else {"ncols": 100, "nrows": 20}
    if fires is not None:
        b = _Bar(total=fires, unit=" fires", file=stream, leave=False, **width,
                 bar_format=f"emqsim: {{made}}/{fires:,} fires · virtual {{virtual}} {tz} · {{rate_fmt}} · "
                            "{remaining} left")
    else:
        b = _Bar(total=max(until - start, 1) / DAY, unit=" virtual days", file=stream, leave=False, **width,
                 bar_format="emqsim: {made} fires · virtual {virtual} " + tz + " · {percentage:3.0f}% · "
                            "{rate_fmt} · {remaining} left")

    def report(made: int, now: int) -> None:
        step = (made - b.made) if fires is not None else (now - b.now) / DAY
        b.made, b.now = made, now
        if step:
            b.update(step)

    try:
        yield report
        b.refresh()
    finally:
        b.close()


def _columns(stream) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 0
