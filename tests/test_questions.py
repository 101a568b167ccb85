"""The course's questions and challenges: every right answer is the engine's, read off a frame;
every wrong option is not; every challenge can be met, is not met at the defaults, and holds
exactly where the figure's readout says what it asks for.

One table: each question's id with the answer the engine gives today (an exact value: a
changed engine shows here first), and for each challenge a reading of the readout text
alone, held equal to the challenge's predicate on every frame the static site renders.
"""

from __future__ import annotations

import re

import pytest
from figure_walk import model as shared_model

from emqsim.engine.timefmt import hm, iso
from emqsim.figures import catalogue
from emqsim.lessons import cron_time_zones, missed_slots, overlap
from emqsim.lessons.course import on_day
from emqsim.lessons.questions import Challenge, Question, challenge_line, feedback, question

TITLES = list(catalogue.SOURCES)

#: question id -> the key of the right option, as the engine computes it
ANSWERS = {
    "01-interval-after-a-mark": "09:30",
    "01-cron-after-its-slot": "tomorrow",
    "02-gain-50-to-100": "50 jobs",
    "02-score-after-6": "10:30",
    "02-stop-between-scripts": "job-not-row",
    "02-who-writes-the-wake": "update",
    "03-marker-after-take": "none",
    "03-marker-first-pop": "zero",
    "03-finish-fourth-start": "09:54",
    "03-schedule-fourth-finish": "09:55",
    "03-poll-mean": "30s",
    "04-strict-last-slot": "10:40:04",
    "04-snap-lands": "1 then 10:37",
    "04-grace-drops": "skip",
    "05-replace-completes": "0",
    "05-buffer-one-skips": "2",
    "05-forbid-skips": "2",
    "06-fresh-ids-twice": "2",
    "06-slot-ids-refuse": "refused",
    "06-fresh-ids-long-down": "0",
    "07-croniter-fall-back": "00:30Z and 01:30Z",
    "07-first-pass-time": "15:30Z",
    "07-skipped-slot": "07:00Z",
}


@pytest.fixture(scope="module")
def models():
    """One model per figure, shared: their frames are cached across the tests here, and with the
    other tests in this process that read frames (figure_walk.model)."""
    return {t: shared_model(t) for t in TITLES}


def asked():
    return [(t, q) for t in TITLES for q in catalogue.model(t).questions]


def _ms(text: str) -> float:
    """'920 ms' / '1.92 s' / '5.119 s' as ms (what `format_duration` writes for under a minute)."""
    m = re.fullmatch(r"([\d.]+) (ms|s)", text)
    assert m, text
    return float(m[1]) * (1 if m[2] == "ms" else 1000)


def _minutes(clock: str) -> int:
    """'08:46' as minutes after midnight."""
    return int(clock[:2]) * 60 + int(clock[3:5])


def _line(readout: str, head: str) -> str:
    return next(line for line in readout.splitlines() if line.startswith(head))


#: challenge id -> does the readout text say the goal is met?
READS = {
    "01-one-min-off": lambda r: "| every 15 min -> next run " in r
    and _minutes(r.split("next run ")[1][:5]) - _minutes(r.split(" |")[0][4:]) == 1,
    "02-midnight": lambda r: " row reports -> 00:00 on 2026-12-01 " in r,
    "02-pump-job-exists": lambda r: re.search(r"^pump: .*\b09:15 in the wait list\b", r, re.M) is not None,
    "05-two-workers-busy": lambda r: _line(r, "allow:").count(" at a worker") >= 2 and r.startswith("09:15"),
    "02-next-job-delayed": lambda r: re.search(r"^call: ZADD \S+:delayed ", r, re.M) is not None,
    "03-job-leaves-wait": lambda r: re.search(r"^call: RPOPLPUSH ", r, re.M) is not None,
    "03-fourth-at-1021": lambda r: any(line.startswith("start-to-finish:")
                                       and line.split(": ", 1)[1].split(" \u2014")[0].split(", ")[3] == "10:21"
                                       for line in r.splitlines()),
    "03-schedule-as-late": lambda r: re.search(r"pump tick (\S+ s):", r) is not None
    and _ms(re.search(r"schedule \+(.+?) \(", r)[1]) == _ms(re.search(r"release \+(.+?) \(", r)[1])
    and _ms(re.search(r"pump tick (\S+ s):", r)[1]) - 500 <= _ms(re.search(r"release \+(.+?) \(", r)[1]),
    "03-longest-wait": lambda r: not r.startswith("poll every 1 min")
    and _ms(re.search(r"jobs wait .+? to (.+?), mean", r)[1]) > 45_000,
    "04-release-back-on-phase": lambda r: r.startswith("pump down") and "no slot missed" not in r
    and "phase :07 kept" in _line(r, "release:"),
    "05-three-at-once": lambda r: "at most 3 at once" in _line(r, "allow ") and r.startswith("runs of 31 min,"),
    "06-gap-without-twin": lambda r: "\n  0 duplicates\n" in r and re.search(r"\b10:30 never runs\b", r) is not None,
    "07-gap-moves-it": lambda r: re.search(r"^30 1 \* \* \* fires once by croniter, .*; once by cron-parser", r,
                                           re.M) is not None,
}

#: challenge id -> the positions of the main slider (with the other controls at their defaults,
#: where that is enough) at which it is met, as the engine has it today
MET_AT = {
    "03-schedule-as-late": [2000],
    "04-release-back-on-phase": [on_day(c) for c in ("09:52", "10:07", "10:22", "10:37", "10:52")],
    "03-longest-wait": [50_000],
    "05-three-at-once": [31],
    "02-next-job-delayed": [34],
    "03-job-leaves-wait": [17],
    # the goal asks when the 09:15 job is made: at its release only, not while a worker has it
    "02-pump-job-exists": [5],
}


def test_the_course_asks_enough():
    per = {}
    for title, q in asked():
        per.setdefault(title[:2], []).append(q.id)
    assert len(asked()) >= 16
    assert all(len(per.get(nb, [])) >= 2 for nb in ("01", "02", "03", "04", "05", "06", "07")), per
    ids = [q.id for _, q in asked()]
    assert len(set(ids)) == len(ids) and set(ids) == set(ANSWERS)
    challenges = [catalogue.model(t).challenge for t in TITLES]
    assert all(isinstance(c, Challenge) for c in challenges) and len(challenges) == 13
    assert len({c.id for c in challenges}) == 13 and {c.id for c in challenges} == set(READS)


@pytest.mark.parametrize("title,q", asked(), ids=[q.id for _, q in asked()])
def test_the_right_answer_is_the_engine_s_and_no_wrong_option_is(models, title, q):
    model = models[title]
    assert isinstance(q, Question) and len(q.options) >= 2
    got = q.answer(q.frame(model))
    assert got == ANSWERS[q.id] == q.right(model)
    assert [o.key for o in q.options].count(got) == 1
    assert all(o.key != got for o in q.options if o.key != ANSWERS[q.id])
    # the question is set off the defaults, so the panel as first shown does not print its answer
    defaults = model.defaults()
    assert any(defaults[k] != v for k, v in q.show_me.items()), q.id
    # Show me points at a frame the static site renders
    values, _ = model.reachable()
    assert model.values(None, **q.show_me) in values
    # the feedback says right for the right option only, with that option's own sentence
    for o in q.options:
        text = feedback(q, o.key, got)
        assert text.startswith("Right. " if o.key == got else "Not quite. ") and text.endswith(o.why)
        assert o.why.endswith(".") and o.text and "`" not in o.text


def test_wrong_options_are_what_the_other_rules_really_do(models):
    """Where a wrong option names another rule, that rule's lane gives exactly that answer."""
    m = models["04 missed slots"]
    late = m.frame(up=on_day("10:25"))
    assert missed_slots._lands(missed_slots._lane(late, "all")) == "4 then 10:37"        # replay every slot
    assert missed_slots._lands(missed_slots._lane(late, "release")) == "1 then 10:40"    # now + every
    long = m.frame(up=on_day("10:40"))
    assert len(missed_slots._lane(long, "snap").catch_up) == 1
    assert missed_slots._released(missed_slots._lane(long, "snap"), on_day("10:37")) == "never"  # a collapse
    assert [r for s, r in missed_slots._lane(long, "all").catch_up][0] == on_day("10:40")     # the first goes at once
    after = m.frame(up=on_day("10:20"))
    assert len(missed_slots._lane(after, "once").catch_up) == 1                     # a CronJob with no deadline runs it
    tz = models["07 cron across daylight saving"]
    london = tz.frame(zone="Europe/London", day="back")
    assert cron_time_zones._rule_count(london, 1, "debian") == 1                   # Debian cron: once
    assert len(london.runs[1]) == 2                                             # croniter: twice
    assert cron_time_zones._rule_utc(london, 1, "croniter") == "both"            # ... on both passes
    assert cron_time_zones._rule_utc(london, 1, "cron-parser") == "00:30Z"       # cron-parser: the first pass
    rows = models["02 one row rewritten"].frame(fires=50).state
    assert (rows.size, rows.jobs) == (1, 50)                                    # not 1 job, not 49
    cad = models["03 start-to-start"].frame(run=10)
    assert iso(next(ln for ln in cad.lanes if ln.rule == "finish").starts[3])[11:16] == "10:15"
    over = models["05 an overlapping run"]
    for run in (25, 20):                                                      # buffer-one's, forbid's question
        assert overlap._lane(over.frame(run=run), "skip").skipped_count == 4      # the "4" options: what skip does


@pytest.mark.parametrize("title", TITLES)
def test_each_challenge_is_reachable_not_met_at_the_defaults_and_read_off_the_readout(models, title):
    model = models[title]
    c = model.challenge
    assert not c.check(model.frame()), f"{c.id} is met at the defaults"
    values, _ = model.reachable()
    if title == "02 one row rewritten":   # the walk to 10,000 fires is long; its first 300 say enough
        values = [v for v in values if v["fires"] <= 300]
    met = []
    for v in values:
        frame = model.frame(**v)
        said = READS[c.id](frame.readout)
        assert c.check(frame) == said, f"{c.id} at {v}: the predicate says {c.check(frame)}, the readout {said}"
        if said:
            met.append(v)
    assert met, f"{c.id}: no frame the site renders meets it"
    if c.id in MET_AT:
        assert [v[model.main().name] for v in met] == MET_AT[c.id]
    if c.id == "04-release-back-on-phase":   # what its explanation says of BullMQ's snap
        assert all("phase :07 kept" in _line(model.frame(**v).readout, "snap:") for v in values
                   if model.frame(**v).runs)
    if c.id == "01-one-min-off":   # a minute before each of the interval's runs
        assert [hm(v["now"]) for v in met] == [f"{h:02d}:{m:02d}" for h in (8, 9) for m in (14, 29, 44, 59)]
    if c.id == "02-midnight":
        assert [v["fires"] for v in met] == [60]
    if c.id == "06-gap-without-twin":   # one crash, one delay, one setup: the search is the lesson
        assert met == [{"setup": "two-step, slot ids", "crash": 6, "delay": 20 * 60_000}]
    if c.id == "07-gap-moves-it":   # only where the gap holds 01:30
        assert [(v["zone"], v["day"]) for v in met] == [("Europe/London", "forward")]
    assert challenge_line(c, False) == f"Challenge: {c.goal}"
    assert challenge_line(c, True) == f"\u2713 Challenge met: {c.explain}"     # the goal not said twice


#: words that point back at something said before; a met line's opening must not lean on them
_POINTING = {"it", "them", "they", "this", "that"}


@pytest.mark.parametrize("title", TITLES)
def test_a_met_line_reads_without_its_goal(models, title):
    """Once met, the line reads the explanation in the goal's place (the goal not said twice), so
    the explanation must stand on its own: it opens with a capitalised word, not code or a number,
    and names what it speaks of before pointing back (h75r: 02's "The pump makes it at 09:15" read
    "it" with no goal in sight; 04's opened "now + every", 05's "31 min:")."""
    c = models[title].challenge
    if c is None:
        pytest.skip("no challenge")
    first = re.sub(r"`[^`]*`", "CODE", c.explain).split()
    assert first and first[0][0].isalpha() and first[0][0].isupper(), (c.id, c.explain[:40])
    assert not _POINTING & {w.strip(",.:;").lower() for w in first[:6]}, (c.id, c.explain[:60])


@pytest.mark.parametrize("title", TITLES)
def test_no_show_me_meets_the_challenge(models, title):
    """Show me answers a question; it never does the challenge for the reader."""
    model = models[title]
    assert [q.id for q in model.questions if model.challenge.check(q.frame(model))] == []


def test_a_question_needs_two_options_with_distinct_keys():
    with pytest.raises(ValueError, match=r"^question 'q' needs two or more options with distinct keys"):
        question("q", "?", [("a", "A", "why.")], answer=lambda f: "a")
    with pytest.raises(ValueError, match=r"distinct keys, not \['a', 'a'\]"):
        question("q", "?", [("a", "A", "why."), ("a", "B", "why.")], answer=lambda f: "a")


def test_an_answer_no_option_holds_is_an_error(models):
    q = question("q", "?", [("a", "A", "why."), ("b", "B", "why.")], answer=lambda f: "c")
    with pytest.raises(ValueError, match=r"^question 'q': the engine's answer 'c' is none of its options"):
        q.right(models["05 an overlapping run"])
    with pytest.raises(ValueError, match=r"^question 'q' has no option 'z'; its options are \['a', 'b'\]"):
        q.option("z")


#: an option as the site shows it: its answer, then ", " or ": ", then its reason (two words or more)
_SHAPE = re.compile(r"(?P<answer>.+?)(?P<sep>, |: )(?P<reason>\S+ \S.*)")
#: how much shorter or longer than every other option the right one may be before its length tells it
_MARGIN = 1.5


def _shape(text: str) -> tuple[str, str] | None:
    m = _SHAPE.fullmatch(text)
    return (m["answer"], m["sep"]) if m else None


@pytest.mark.parametrize("title,q", asked(), ids=[q.id for _, q in asked()])
def test_every_option_has_the_same_shape_and_the_right_one_is_not_set_apart(models, title, q):
    """In 01, 02, 03 and 05 the right option was the only one with no reason ("09:00 tomorrow"
    against "09:16, 15 minutes on"; "1 row and 50 jobs"; "09:54"; "2"), and often the shortest by far:
    a reader picks it on its form (issue 30). Every option is "<answer>, <reason>" (or with ": "),
    one separator per question, and the right one is neither the shortest nor the longest by 1.5x."""
    shapes = {o.text: _shape(o.text) for o in q.options}
    assert [t for t, s in shapes.items() if s is None] == [], f"{q.id}: options with no reason"
    assert len({s[1] for s in shapes.values()}) == 1, f"{q.id}: options part their reason differently"
    right = len(q.option(q.right(models[title])).text)
    others = [len(o.text) for o in q.options if o.key != q.right(models[title])]
    assert right * _MARGIN >= min(others), f"{q.id}: the right option is the shortest by far ({right} vs {others})"
    assert right <= max(others) * _MARGIN, f"{q.id}: the right option is the longest by far ({right} vs {others})"


def test_the_shape_reads_an_answer_and_a_reason():
    assert _shape("09:16, 15 minutes on") == ("09:16", ", ")
    assert _shape("One: a restart re-sweeps") == ("One", ": ")
    assert _shape("09:00 tomorrow") is None and _shape("2") is None and _shape("09:54, late") is None


def test_05_feedback_names_the_slots_the_model_drops(models):
    """05's buffer-one and forbid feedback name the slots that get no job ("09:45 and 10:30");
    the times are the model's skipped slots at the question's Show me, not typed guesses."""
    over = models["05 an overlapping run"]
    asked = {q.id: q for q in over.questions}
    for key, policy, shown in (("05-buffer-one-skips", "buffer-one", 2), ("05-forbid-skips", "forbid", 1)):
        q = asked[key]
        lane = overlap._lane(over.frame(**q.show_me), policy)
        dropped = [iso(s)[11:16] for s in lane.skipped]
        right = next(o for o in q.options if o.key == q.right(over))
        named = re.findall(r"\b\d\d:\d\d\b", right.why)
        assert dropped[:shown] == [t for t in named if t in dropped], (key, dropped, named)
        assert dropped[:shown] and set(dropped[:shown]) <= set(named), (key, dropped, named)
