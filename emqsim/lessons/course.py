"""The course's shared values: the day every lesson is set on, its schedule's name, units.

One place, so a lesson that says "09:00 on 30 November" means the same instant as the
next one, and a reader who changes the day here moves the whole course.
"""

from __future__ import annotations

from ..engine.timefmt import at

SECOND = 1000
MINUTE = 60 * SECOND
HOUR = 60 * MINUTE
DAY = 24 * HOUR

#: the calendar day the lessons happen on, as ISO text, and `at(...)` for a clock time on it
DATE = "2026-11-30"
#: 09:00 UTC on that day: where the lessons' schedules are registered unless they say otherwise
START = at(f"{DATE} 09:00")
#: the schedule the lessons follow
NAME = "reports"
#: its interval
EVERY = 15 * MINUTE


def on_day(clock: str, tz: str = "UTC") -> int:
    """'09:07' on the course's day, as Unix ms (in `tz`, UTC unless given)."""
    return at(f"{DATE} {clock}", tz)


def page_label(number: int, last: int) -> str:
    """Where a course page stands, as its header and the site's contents say it. Page 00 is
    where the course starts, not a page to count ("Page 1 of 9" on 00 put 01 at "Page 2"),
    so the count runs 1..`last` and N is the number in the page's own file name: a student
    who opens `03_...` reads "Page 3 of 8"."""
    return "Start here" if number == 0 else f"Page {number} of {last}"
