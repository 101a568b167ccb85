"""The question sets the oracles are asked: one function per oracle, deterministic (seeded),
so a recording can always be checked against a fresh run of the same questions."""

from __future__ import annotations

# oracle name -> function returning its question set (JSON-ready); each oracle's owner adds its own
QUESTIONS: dict = {}


# -- cron-parser: runs across daylight-saving changes ------------------------------------------------

CRON_ZONE_DAYS = [   # (zone, local day of a 2026 change): spring and fall in each
    ("America/New_York", "2026-03-08"), ("America/New_York", "2026-11-01"),
    ("Europe/London", "2026-03-29"), ("Europe/London", "2026-10-25"),
    ("Australia/Sydney", "2026-10-04"), ("Australia/Sydney", "2026-04-05"),
    ("Australia/Lord_Howe", "2026-10-04"), ("Australia/Lord_Howe", "2026-04-05"),   # half-hour changes
    ("America/Santiago", "2026-09-06"), ("America/Santiago", "2026-04-04"),         # changes at midnight
    ("America/Havana", "2026-03-08"), ("America/Havana", "2026-11-01"),
    ("UTC", "2026-11-01"),
]
CRON_EXPRESSIONS = [
    "30 1 * * *", "30 2 * * *", "*/20 2 * * *", "30 1-3 * * *", "* 1 * * *", "*/20 1 * * *",
    "0,30 1 * * *", "0 * * * *", "*/30 * * * *", "15 0 * * *", "0 2 * * *", "0 1-3 * * *",
    "15,45 1-3 * * *", "* 2 * * *", "0 */2 * * *", "30 0 * * *", "5 2-4 * * *", "0 0 * * *",
    "* 0 * * *", "*/20 0 * * *", "30 23 * * *", "45 1 * * *", "15 2 * * *", "0 9 * * *",
    "@daily", "@hourly", "0 30 1 * * *", "30 */2 * * *",
]


def cron_parser_questions() -> list[dict]:
    """Each expression in each zone over the change day with a margin (noon the day before to
    noon the day after, local), plus searches that start inside a change: one minute before it
    and ten minutes after it."""
    from datetime import date, timedelta

    from emqsim.lessons.course import DAY, HOUR
    from emqsim.engine.timefmt import changes, day_bounds

    out = []
    for tz, day in CRON_ZONE_DAYS:
        d = date.fromisoformat(day)
        start = day_bounds(tz, d - timedelta(days=1))[0] + 12 * HOUR
        end = day_bounds(tz, d + timedelta(days=1))[0] + 12 * HOUR
        out += [{"expr": e, "tz": tz, "from": start, "until": end} for e in CRON_EXPRESSIONS]
        for c in changes(tz, *day_bounds(tz, d)):
            for t in (c.at - 60_000, c.at + 600_000):
                out += [{"expr": e, "tz": tz, "from": t, "until": t + DAY} for e in CRON_EXPRESSIONS[:10]]
    # the rest of the syntax (names, day-of-month OR day-of-week, seconds, macros) over a plain January
    start, end = day_bounds("America/New_York", "2026-01-01")[0], day_bounds("America/New_York", "2026-02-01")[0]
    out += [{"expr": e, "tz": "America/New_York", "from": start + 1234, "until": end} for e in CRON_SYNTAX]
    # what each library accepts or refuses (L, #, W, day of month with day of week, six fields,
    # backwards ranges), over a whole year so a February-only or a last-day rule shows its runs
    year = day_bounds("America/New_York", "2027-01-01")[0]
    out += [{"expr": e, "tz": "America/New_York", "from": start, "until": year} for e in CRON_ACCEPTANCE]
    day = day_bounds("America/New_York", "2026-01-02")[0]       # every-minute ones: one day is plenty
    out += [{"expr": e, "tz": "America/New_York", "from": start, "until": day} for e in CRON_ACCEPTANCE_DAY]
    return out


CRON_SYNTAX = ["0 9 * * mon-fri", "0 0 1,15 * 5", "30 8 * * 7", "0 12 1 jan,jul *", "*/15 9-10 * * 1",
               "15,45 */5 * * *", "0 0 12 * * 1#2", "@weekly", "@monthly", "10-20/5 3 * * sun", "0 0 31 * *"]


CRON_ACCEPTANCE = [
    "0 12 L * *", "0 9 * * 5L", "0 9 * * 5#3", "0 0 15W * *", "0 0 LW * *", "0 0 1W * *", "0 0 13 * 5",
    "0 0 L * 5", "0 0 1,L * *", "0 0 L 2 *", "0 0 5L * *", "0 0 * * 7L", "0 0 * * 1,5L", "0 0 * * L",
    "0 0 * * L5", "0 0 L-2 * *", "0 0 * * 5#6", "0 0 * * 5#3,1", "0 0 * * sun#2", "0 0 * * 5-1",
    "0 5-1 * * *", "0 0 31 2 *", "0 0 30 2 1", "30 0 9 * * *", "0 0 12 L * *", "0 0 9 * * 5#3",
    "0 0 0 * * * *", "0 0 ? * *", "0 0 1 * MON",
]
CRON_ACCEPTANCE_DAY = ["5-1 * * * *", "0 5-1 * * * *"]


QUESTIONS["cron_parser"] = cron_parser_questions


# -- BullMQ: job schedulers step by step (the generator lives in bullmq_questions.py) ---------------

def bullmq_questions() -> dict:
    import bullmq_questions

    return bullmq_questions.questions()


QUESTIONS["bullmq"] = bullmq_questions
