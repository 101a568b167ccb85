"""systemd timers: what an `OnCalendar=` timer does with the times it missed while inactive.

Source: systemd.timer(5), `Persistent=` (systemd 257.4, manpages.ubuntu.com plucky): a boolean, false by default;
when true, the time of the last trigger is stored on disk, and when the timer is activated the
unit is triggered at once if it would have been triggered at least once while the timer was
inactive. So by default a machine that was off runs nothing for the missed times and waits for
the next calendar time; with `Persistent=true` it runs once, at activation.
The same page: a unit still active when the timer elapses is not started again.
"""

from __future__ import annotations

SOURCE = "systemd.timer(5) Persistent= (systemd 257.4)"
DEFAULTS = {"Persistent": False}
#: a unit still active when the timer elapses is not started again: the engine's `skip`
OVERLAP = {"overlap": "skip"}


def catch_up(next_after, last: int, up: int, persistent: bool = False) -> tuple[list[int], int]:
    """The runs at activation `up` (Unix ms) after the last trigger `last`, and the next
    elapse: one run at `up` if `Persistent=true` and a calendar time fell in `(last, up]`.
    A calendar time exactly at `up` elapses anyway (the timer is active then)."""
    missed = next_after(last) <= up
    runs = [up] if missed and (persistent or next_after(up - 1) == up) else []
    return runs, next_after(up)


def missed(persistent: bool = False) -> dict:
    """The engine's settings: by default `once` with deadline 0 (only a slot exactly at the
    restart runs), with `Persistent=true` `now` (one run at the restart, stamped then;
    systemd stamps no slot)."""
    return {"missed": "now"} if persistent else {"missed": "once", "deadline": 0}
