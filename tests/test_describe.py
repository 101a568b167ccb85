"""Alt text from each frame's data: what a sighted reader reads off the figure, short, with no
internal id; it follows the controls (two positions that look different are told apart)."""

from __future__ import annotations

import re

import pytest
from figure_walk import model as shared_model
from figure_walk import positions

from emqsim.figures import catalogue

#: the default frame of each figure, in words
DEFAULT = {
    "01 cron vs interval": "Cron 0 9 * * *, now 08:48: next run 09:00:00, in 12 min.",
    "02 one row rewritten": "After 0 fires: 0 jobs produced (solid line), still 1 registry row (dashed line).",
    "02 the keys, step by step": "Before register-3.lua runs: the queue has no keys yet; step through its calls.",
    "02 watch a job move": "At 09:00 register: pump 09:00 next in the registry; BullMQ 09:00 in the wait list.",
    "05 watch the runs pile up": ("At 09:00 register: allow no job yet; skip no job yet; buffer-one no job yet; "
                                  "replace no job yet; forbid no job yet."),
    "03 the marker, step by step": "Before addJobScheduler-11.lua runs: the queue holds 1 key; step through its calls.",
    "03 start-to-start": ("Every 15 min from 09:00: start-to-start runs at 09:00, 09:15, 09:30 and 09:45; "
                          "start-to-finish runs at 09:00, 09:19, 09:38 and 09:57."),
    "03 slip over cycles": ("Slip of each release from its slot by run 96, pump tick 1 s: schedule +920 ms, "
                            "release +1.92 s and finish +6 h 20 min 1.92 s."),
    "03 wake latency": ("Polling every 30 s, the 24 jobs wait 537 ms to 29.007 s (mean 13.869 s); "
                        "parked on the marker, each waits 0 s."),
    "04 missed slots": ("Pump down 09:30 to 10:10: 09:37, 09:52 and 10:07 missed; snap runs once at 10:10, "
                        "then 10:22; epoch and release leave the :07 slots."),
    "05 an overlapping run": ("Runs of 10 min, a slot every 15 min; runs completed: allow 8 of 8, skip 8 of 8, "
                              "buffer-one 8 of 8, replace 8 of 8 and forbid 8 of 8."),
    "06 crash between two writes": ("Atomic, fresh ids: crash after fire 3, restart at 09:31; 10 jobs for 10 "
                                    "slots; every slot produced once; 0 lost."),
    "07 cron across daylight saving": (
        "America/New_York 2026-11-01: clocks go back at 06:00Z, a 25-hour day. 30 2 * * * runs once by croniter "
        "(07:30Z); 30 1 * * * runs twice by croniter (05:30Z and 06:30Z), Debian cron skips 06:30Z, "
        "cron-parser (and BullMQ) skips 06:30Z; 0 * * * * runs 25 times by croniter."),
}
#: a second position per figure that looks different, and a fragment its text must hold
OTHER = {
    "01 cron vs interval": ({"mode": "interval", "now": 1796032800000}, "next run 10:00:00, due now"),
    "02 one row rewritten": ({"fires": 10_000}, "10,000 jobs produced"),
    "02 the keys, step by step": ({"step": 10}, "Step 10 of 19: advance-2.lua line 114 runs ZADD"),
    "02 watch a job move": ({"step": 7}, "BullMQ 09:30 in the delayed set, 09:15 at a worker, 09:00 done"),
    "05 watch the runs pile up": ({"step": 16}, "allow 1 at workers, 2 done; skip 1 at workers, 1 done, 1 dropped"),
    "03 the marker, step by step": ({"step": 22}, "Step 22 of 55: moveToActive-11.lua line 110 runs ZADD"),
    "03 start-to-start": ({"measure": "start-to-start"}, "start-to-finish runs at 09:00, 09:19, 09:38 and 09:57 (greyed)"),
    "03 slip over cycles": ({"tick": 5000}, "pump tick 5 s: schedule +1.92 s"),
    "03 wake latency": ({"poll": 10_000}, "Polling every 10 s, the 24 jobs wait 228 ms to 9.896 s"),
    "04 missed slots": ({"up": 1796035080000}, "Pump down 09:30 to 10:38: 09:37, 09:52, 10:07, 10:22 and 10:37 missed"),
    "05 an overlapping run": ({"run": 40}, "skip 3 of 3 (5 skipped)"),
    "06 crash between two writes": ({"setup": "two-step, fresh ids"},
                                    "11 jobs for 10 slots; slot 09:30 produced twice (released 09:30:00 and 09:31:00)"),
    "07 cron across daylight saving": ({"day": "before forward"}, "2026-03-07: no change, a 24-hour day"),
}
BRANDED_ID = re.compile(r"\b[A-Z]{3}[0-9A-Za-z]{11}\b")


def test_every_figure_is_described():
    assert sorted(DEFAULT) == sorted(catalogue.SOURCES) == sorted(OTHER)


@pytest.mark.parametrize("title", list(catalogue.SOURCES))
def test_default_frame_in_words(title):
    fig = catalogue.figure(title)
    assert fig.describe() == DEFAULT[title]


@pytest.mark.parametrize("title", list(catalogue.SOURCES))
def test_another_position_is_told_apart(title):
    model = shared_model(title)
    changes, fragment = OTHER[title]
    other = model.describe(model.frame(**changes))
    assert other != DEFAULT[title]
    assert fragment in other


@pytest.mark.parametrize("title", list(catalogue.SOURCES))
def test_short_and_free_of_ids_at_every_site_position(title):
    model = shared_model(title)   # the frames the figure walks compute, computed once
    for values in positions(title):
        text = model.describe(model.frame(**values))
        assert text.endswith(".") and "\n" not in text
        assert len(text.split()) <= 60, text
        assert not BRANDED_ID.search(text), text
        assert text != title
