"""No giveaway question (issue 30, problem 10): a reader at a figure's first position, or reading
on past a question, must act (move the figure, think) to find its answer.

Three ways an answer was given away before: the figure's default frame already was the case
asked about (05's readout at 20-minute runs printed the 2, the 0 and the 4 its questions ask
for); the default readout showed the same case on another slot (06's default, EchoMQ's two-step
pump, printed the duplicate its first question asks about); the prose and printout right under a
question stated its answer (02's "After 4 fires ... it holds 10:00"). The answer itself is still
read off the model's frame at `show_me`: the readout there says it (TELLS).
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from figure_walk import model as shared_model

from emqsim.figures import catalogue

ROOT = Path(__file__).resolve().parent.parent


def asked():
    return [(t, q) for t in catalogue.SOURCES for q in catalogue.model(t).questions]


#: questions whose figure, as first shown, is already the case asked (the answer function reads the
#: right key off the default frame); each to be moved off it (issue 30), listed so that a new one
#: fails, and dropped from here once fixed
NOT_YET_MOVED: set[str] = set()


@pytest.mark.parametrize("title,q", asked(), ids=[q.id for _, q in asked()])
def test_the_default_frame_does_not_hold_the_answer(title, q):
    model = shared_model(title)
    holds = q.answer(model.frame()) == q.right(model)
    assert holds == (q.id in NOT_YET_MOVED), (f"{q.id}: the figure as first shown answers it" if holds
                                              else f"{q.id}: fixed, drop it from NOT_YET_MOVED")


def _at(readout: str, lane: str, what: str) -> set[str]:
    return set(re.findall(rf"^{re.escape(lane)}\s+.*?\b(\d+) {what}\b", readout, re.M))


def _twice(readout: str) -> set[str]:
    """How many jobs a slot a crash interrupted got, as the text tells it, for each crash it shows."""
    return {"2" if int(n) > 0 else "1" for n in re.findall(r"^\s+(\d+) duplicates?\b", readout, re.M)}


def _poll_mean(readout: str) -> set[str]:
    """The polling worker's mean wait at a 1 min poll, rounded as 03's options round it."""
    means = [float(m) for m in re.findall(r"^poll every 1 min: .*\bmean ([\d.]+) s\b", readout, re.M)]
    return {"0" if m < 1 else "30s" if 20 <= m < 40 else "1min" if 45 <= m < 75 else f"{round(m)}s" for m in means}


def _croniter_utc(readout: str) -> set[str]:
    """The UTC times croniter runs `30 1 * * *` at in London, for each London day the text shows."""
    days = re.split(r"(?m)^(?=\S+/\S+ \d{4}-\d\d-\d\d: )", readout)
    return {" and ".join(re.findall(r"\((\d\d:\d\dZ)\)", m[1]))
            for d in days if d.startswith("Europe/London ")
            for m in [re.search(r"^30 1 \* \* \* fires \w+ by croniter, ([^;\n]*)", d, re.M)] if m}


def _skipped_slot(readout: str) -> set[str]:
    """The UTC time croniter runs `30 2 * * *` at in New York, for each New York day the text shows
    on which the clocks go forward."""
    days = re.split(r"(?m)^(?=\S+/\S+ \d{4}-\d\d-\d\d: )", readout)
    return {" and ".join(re.findall(r"\((\d\d:\d\dZ)\)", m[1].split(";")[0]))
            for d in days if d.startswith("America/New_York ") and "clocks go forward" in d.split("\n")[0]
            for m in [re.search(r"^30 2 \* \* \* fires \w+ by croniter, ([^\n]*)", d, re.M)] if m}


def _debian_utc(readout: str, zone: str, expr: str) -> set[str]:
    """The UTC time Debian cron runs `expr` at in `zone`, for each day of that zone the text shows
    ('both' for two), as 07's options say it."""
    out = set()
    for day in re.split(r"(?m)^(?=\S+/\S+ \d{4}-\d\d-\d\d: )", readout):
        m = re.search(rf"^{re.escape(expr)} fires (.*)$", day, re.M) if day.startswith(zone + " ") else None
        if m:
            parts = m[1].split("; ")
            debian = next(p for p in parts if "Debian cron" in p)
            times = re.findall(r"\((\d\d:\d\dZ)\)", parts[0] if "agree with croniter" in debian else debian)
            out.add(times[0] if len(times) == 1 else "both")
    return out


#: question id -> what a readout or printout says of the case the question asks about: the keys of
#: the options it states (none where it does not say)
TELLS = {
    "03-poll-mean": _poll_mean,
    "05-replace-completes": lambda r: _at(r, "replace", "completed"),
    "05-buffer-one-skips": lambda r: _at(r, "buffer-one", "skipped"),
    "05-forbid-skips": lambda r: _at(r, "forbid", "skipped"),
    "06-fresh-ids-twice": _twice,
    "06-slot-ids-refuse": lambda r: ({"refused"} if "found its job id taken" in r else set())
    | ({"twin"} if "2" in _twice(r) else set()),
    "06-fresh-ids-long-down": lambda r: ({"0"} if re.search(r"^\s+\d\d:\d\d never runs\b", r, re.M) else set()),
    "07-croniter-fall-back": _croniter_utc,
    "07-first-pass-time": lambda r: _debian_utc(r, "Australia/Sydney", "30 2 * * *"),
    "07-skipped-slot": _skipped_slot,
}


@pytest.mark.parametrize("qid", sorted(TELLS))
def test_the_readout_tells_the_answer_at_show_me_and_not_at_the_start(qid):
    title, q = next((t, q) for t, q in asked() if q.id == qid)
    model = shared_model(title)
    right = q.right(model)
    assert right in TELLS[qid](q.frame(model).readout), f"{qid}: its Show me frame's readout does not say it"
    said = TELLS[qid](model.frame().readout)
    assert right not in said, f"{qid}: the default readout already says {right!r}:\n{model.frame().readout}"


def _is_panel(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("emqsim")
    return cell["cell_type"] == "code" and isinstance(meta, dict) and bool(meta.get("figure"))


def _shown(cell: dict) -> str:
    """What a reader reads of a cell: a Markdown cell outside its folds, a code cell's printout."""
    if cell["cell_type"] == "markdown":
        return re.sub(r"(?s)<details\b.*?</details>", " ", "".join(cell["source"]))
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            out.append("".join(o["text"]))
        elif "text/plain" in o.get("data", {}):
            out.append("".join(o["data"]["text/plain"]))
    return "\n".join(out)


#: a Markdown line that asks the reader to answer first: what follows it is read after answering
STOP = re.compile(r"(?im)^(\*\*)?Try (both |all )?(the )?(\w+ )?questions above\b.*\bbefore you read on\b")


def _stops(cell: dict) -> bool:
    return cell["cell_type"] == "markdown" and bool(STOP.search("".join(cell["source"])))


def read_on(path: Path) -> list[tuple[object, str]]:
    """(question, what a reader reads after it before answering) for each question of the page:
    the Markdown outside folds and the printouts between the question's panel and the next panel,
    or the cell that asks the reader to try the questions before reading on, whichever comes first."""
    cells = json.loads(path.read_text())["cells"]
    panels = [i for i, c in enumerate(cells) if _is_panel(c)]
    out = []
    for i in panels:
        model = catalogue.model(cells[i]["metadata"]["emqsim"]["figure"])
        nxt = next((j for j in range(i + 1, len(cells)) if j in panels or _stops(cells[j])), len(cells))
        text = "\n".join(_shown(c) for c in cells[i + 1:nxt] if not "".join(c["source"]).startswith("## Sources"))
        out.extend((q, text, model) for q in model.questions)
    return out


#: answers that are clock times and still stand in what follows their question; each to be read and
#: rewritten (issue 30); listed so that a new one fails, and dropped from here once fixed
NOT_YET_READ: set[str] = set()


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("0[1-7]_*.ipynb")), ids=lambda p: p.stem)
def test_what_follows_a_question_does_not_state_its_clock_time_answer(path):
    found = []
    for q, text, model in read_on(path):
        right = q.right(model)
        if re.fullmatch(r"\d\d:\d\d(:\d\d)?Z?", right) and re.search(rf"(?<![\d:]){re.escape(right)}(?![\d:])", text):
            found.append(q.id)
    assert [f for f in found if f not in NOT_YET_READ] == [], f"{path.name}: stated right after their question"
    assert {f for f in NOT_YET_READ if f[:2] == path.stem[:2]} <= set(found), "fixed: drop it from NOT_YET_READ"


PAGES = sorted((ROOT / "notebooks").glob("0[1-7]_*.ipynb"))


def read_above(path: Path) -> list[tuple[object, str, object]]:
    """(question, what a reader has read before answering it, model) for each question of the page:
    the Markdown (folds included) and printouts between the previous panel and its own, and the
    options and feedback of the questions before it on the same figure."""
    cells = json.loads(path.read_text())["cells"]
    out, start = [], 0
    for i, c in enumerate(cells):
        if _is_panel(c):
            model = catalogue.model(c["metadata"]["emqsim"]["figure"])
            text = "\n".join("".join(d["source"]) if d["cell_type"] == "markdown" else _shown(d)
                             for d in cells[start:i])
            for n, q in enumerate(model.questions):
                earlier = "\n".join(f"{o.text}\n{o.why}" for p in model.questions[:n] for o in p.options)
                out.append((q, f"{text}\n{earlier}", model))
            start = i + 1
    return out


def _clock_time_in(right: str, text: str) -> bool:
    """Whether a clock-time answer stands in a text, "09:15" also as "09:15:00"."""
    return bool(re.search(rf"(?<![\d:]){re.escape(right)}(?::00)?(?![\d:])", text))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_what_precedes_a_question_does_not_state_its_clock_time_answer(path):
    """03's marker question asked when member 1 wakes a parked worker, answer 09:15, under a printout
    that read `marker {"0": 0, "1": 09:15:00}`, and after a first question whose option read "Member 1
    at 09:15" (issue 30): the reader copied it. A clock-time answer stands neither in the Markdown and
    printouts between the previous figure and its own, nor in an earlier question's options or
    feedback on the same figure."""
    found = [q.id for q, text, model in read_above(path)
             if re.fullmatch(r"\d\d:\d\d(:\d\d)?Z?", q.right(model)) and _clock_time_in(q.right(model), text)]
    assert found == [], f"{path.name}: stated before their question"


def test_a_clock_time_is_found_with_or_without_its_seconds():
    assert _clock_time_in("09:15", 'marker {"1": 09:15:00}') and _clock_time_in("09:15", "at 09:15.")
    assert not _clock_time_in("09:15", "09:15:30") and not _clock_time_in("09:15", "109:15")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_what_follows_a_question_does_not_tell_its_answer(path):
    """05's printout of its 20-minute readout gave the 2, the 0 and the 4 its questions ask for,
    06's crash-3 printout the duplicate, 07's the UTC day's single run: the printouts and prose
    between a panel and the stop are read as the readout is."""
    told = [(q.id, sorted(TELLS[q.id](text))) for q, text, model in read_on(path)
            if q.id in TELLS and q.right(model) in TELLS[q.id](text)]
    assert told == [], f"{path.name}: what follows these questions tells their answers"


def test_the_stop_ends_what_follows_a_question():
    """The reader is asked to try the questions first; what comes after that line is not counted."""
    assert STOP.search("**Try the questions above before you read on.**")
    assert STOP.search("Try both questions above on the slider before you read on.")
    assert not STOP.search("The questions above are answered below.")


def test_a_term_a_question_uses_is_linked_before_its_figure():
    """02's question on the wake names the marker: the page links it to the glossary above the figure."""
    cells = json.loads((ROOT / "notebooks" / "02_one_row_rewritten.ipynb").read_text())["cells"]
    at = next(i for i, c in enumerate(cells) if _is_panel(c)
              and any("marker" in q.prompt for q in catalogue.model(c["metadata"]["emqsim"]["figure"]).questions))
    above = "".join("".join(c["source"]) for c in cells[:at] if c["cell_type"] == "markdown")
    first = re.search(r"\bmarker\b", re.sub(r"\[marker\]\(glossary\.ipynb#marker\)", "LINKED", above))
    assert "[marker](glossary.ipynb#marker)" in above and first is None, "02 uses marker unlinked before the link"


#: a prompt stating which pass of a repeated hour its rule runs, and an option saying on which side
#: of the change it falls: read together, they match without the figure
_PASS = re.compile(r"\b(first|second|earlier|later) pass\b", re.I)
_SIDE = re.compile(r"\b(before|after|once) the clocks\b|\bclocks (are|go) back\b", re.I)


@pytest.mark.parametrize("title,q", asked(), ids=[q.id for _, q in asked()])
def test_a_prompt_does_not_name_the_pass_its_right_option_is_told_by(title, q):
    """07's second question said "on its first pass" and its right option "01:30 BST, before the
    clocks go back" (issue 30): the words matched, no look at the figure needed. A prompt names no
    pass of a repeated hour, and a right option does not say which side of the change it is on;
    the feedback (`why`) may say both."""
    right = q.option(q.right(shared_model(title))).text
    assert not _PASS.search(q.prompt), f"{q.id}: the prompt names the pass: {q.prompt!r}"
    assert not _SIDE.search(right), f"{q.id}: the right option says its side of the change: {right!r}"


def _words(text: str) -> list[str]:
    """A text as a reader's eye takes its words: links, code marks and quotes gone, times kept whole."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.findall(r"[a-z0-9]+(?:[:'][a-z0-9]+)*", text.lower())


def _runs(words: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


#: a run of this many words, the same in a right option and in the page above its figure, is a match
#: a reader can make without the idea
SAME_WORDS = 4


def read_before(path: Path) -> list[tuple[object, str, object]]:
    """(question, what a reader has read before its figure, model) for each question of the page:
    every Markdown cell, folds included, and every printout above the question's panel."""
    cells = json.loads(path.read_text())["cells"]
    out = []
    for i, c in enumerate(cells):
        if _is_panel(c):
            model = catalogue.model(c["metadata"]["emqsim"]["figure"])
            text = "\n".join("".join(d["source"]) if d["cell_type"] == "markdown" else _shown(d) for d in cells[:i])
            out.extend((q, text, model) for q in model.questions)
    return out


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_right_option_does_not_repeat_the_words_above_its_figure(path):
    """03's marker question's right option, "Member 0 at score 0: try to take a job now", was the
    prose just above it ("every take writes back "0", "try to take a job now""): a phrase match, no
    idea needed (issue 30). The tests above read only what follows a question and only its clock
    times or its readout's numbers; the quoted words above it were never compared with its options."""
    found = []
    for q, above, model in read_before(path):
        same = _runs(_words(q.option(q.right(model)).text), SAME_WORDS) & _runs(_words(above), SAME_WORDS)
        if same:
            found.append((q.id, sorted(" ".join(s) for s in same)))
    assert found == [], f"{path.name}: right options that repeat the page above their figure"


def test_words_are_read_past_links_quotes_and_code_marks():
    assert _words('writes back `"0"`, "try to [take](g.ipynb#take) a job now" at 09:15') == [
        "writes", "back", "0", "try", "to", "take", "a", "job", "now", "at", "09:15"]




def in_page_order(path: Path) -> list[tuple[str, object]]:
    """(figure, question) for each question of the page, in the order a reader meets them."""
    cells = json.loads(path.read_text())["cells"]
    return [(c["metadata"]["emqsim"]["figure"], q) for c in cells if _is_panel(c)
            for q in catalogue.model(c["metadata"]["emqsim"]["figure"]).questions]


#: (earlier, later) questions whose earlier Show me already shows the later one's answer; to be
#: redesigned (issue 30), listed so that a new one fails, and dropped from here once fixed. (05's
#: allow, replace and skip questions were: their answers change only at 15 and 30 min.)
NOT_YET_APART: set[tuple[str, str]] = set()


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_show_me_answers_a_later_question(path):
    """07's first Show me (London's fall-back day, for croniter) printed "once by Debian cron ...
    01:30 BST (00:30Z)", the second question's answer (issue 30): a reader who pressed it first read
    the next answer off it. A question's answer is neither read off the frame of an earlier
    question's Show me on the same figure nor told by the readout of any earlier one on the page."""
    asked_here = in_page_order(path)
    found = set()
    for j, (title, q) in enumerate(asked_here):
        model = shared_model(title)
        right = q.right(model)
        for earlier_title, p in asked_here[:j]:
            shown = shared_model(earlier_title).frame(**p.show_me)
            if (earlier_title == title and q.answer(shown) == right) or (
                    q.id in TELLS and right in TELLS[q.id](shown.readout)):
                found.add((p.id, q.id))
    assert found - NOT_YET_APART == set(), f"{path.name}: Show me answers a later question"
    assert {f for f in NOT_YET_APART if f[0][:2] == path.stem[:2]} <= found, "fixed: drop it from NOT_YET_APART"


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def bracketed(asked_here: list[tuple[str, object]]) -> set[tuple[str, str, str]]:
    """(earlier, earlier, later) question ids where the two earlier Show me frames, on the later
    one's figure, differ from it in one control only, its value lies between theirs, and the later
    question's own reading of those two frames are numbers its right answer lies between."""
    found = set()
    for j, (title, q) in enumerate(asked_here):
        model = shared_model(title)
        right = _number(q.right(model))
        earlier = [p for t, p in asked_here[:j] if t == title]
        for a, b in itertools.combinations(earlier, 2):
            if right is None or not a.show_me.keys() == b.show_me.keys() == q.show_me.keys():
                continue
            moved = [k for k in q.show_me if not a.show_me[k] == b.show_me[k] == q.show_me[k]]
            if len(moved) != 1 or not all(isinstance(s.show_me[moved[0]], (int, float)) for s in (a, b, q)):
                continue
            k = moved[0]
            lo, hi = sorted((a, b), key=lambda s: s.show_me[k])
            if not lo.show_me[k] < q.show_me[k] < hi.show_me[k]:
                continue
            read = [_number(q.answer(model.frame(**s.show_me))) for s in (lo, hi)]
            if None not in read and min(read) <= right <= max(read):
                found.add((lo.id, hi.id, q.id))
    return found


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_two_show_me_bracket_a_later_answer(path):
    """05's first two Show me (runs of 18 and 25 min) showed `forbid` dropping 1 and 3 slots; its
    third question asked `forbid` at 20 min, answer 2: read between the two, the figure never moved
    (issue 30). No later answer lies between what two earlier Show me frames, set on either side of
    its own on one control, show of it."""
    assert bracketed(in_page_order(path)) == set(), f"{path.name}: two Show me bracket a later answer"


#: words that carry no idea of their own: sharing one is no match
_SMALL = set("""a an the and or but nor of to in on at by for from with as is are was be been being it its
this that these those each every one no not none all any some only once than then so if while when
what which who how do does did has have had will would can may must here there up out off into over
""".split())
_TIME = re.compile(r"\b\d\d:\d\d(?::\d\d)?\b")


def _stem(word: str) -> str:
    """A word's stem, crudely: "cancels", "cancelled" and "cancel" are one word to a reader's eye."""
    for end in ("ing", "ed", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            word = word[:-len(end)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


def _content(text: str) -> set[str]:
    return {_stem(w) for w in _words(text) if w not in _SMALL and not re.fullmatch(r"[\d:]+", w)}


def reason(option) -> str:
    """What an option says beyond its answer: the text after its first ": " or ", " (the answer
    value, "Member 0 at score 0" or "At 10:40:04", stands before it)."""
    m = re.search(r": |, ", option.text)
    return option.text[m.end():] if m else ""


def paragraph_above(path: Path) -> list[tuple[object, str, object]]:
    """(question, the Markdown between the previous figure and its own, model) for each question."""
    cells = json.loads(path.read_text())["cells"]
    out, start = [], 0
    for i, c in enumerate(cells):
        if _is_panel(c):
            model = catalogue.model(c["metadata"]["emqsim"]["figure"])
            text = "\n".join("".join(d["source"]) for d in cells[start:i] if d["cell_type"] == "markdown")
            out.extend((q, text, model) for q in model.questions)
            start = i + 1
    return out


def shared_by_a_wrong_option(q, right_key: str) -> set[str]:
    """The content words of the wrong options' reasons. A term the question cannot avoid ("fire",
    "id", "restart") that a wrong option's reason also uses does not set the right one apart: a
    reader matching words finds it in both, and must take the idea to choose."""
    return set().union(*(_content(reason(o)) for o in q.options if o.key != right_key))


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_right_option_s_reason_shares_no_word_with_its_stem_or_the_text_above(path):
    """03's "Member 0 at score 0: wake now" echoed "try to take a job now" above its figure, its
    "the delayed job's run time" echoed "scored with the run time of the earliest delayed job"; 05's
    "None: each is cancelled" its own stem's "each release cancels", "2: the slots passed while
    one waits" the forbid bullet's "the latest slot passed" (issue 30): picked by the words, not the
    idea. A right option's reason shares no content word with its stem or the Markdown between the
    previous figure and its own, beyond its answer value, the lane's name and the words a wrong
    option's reason uses too."""
    found = []
    for q, above, model in paragraph_above(path):
        right = q.option(q.right(model))
        lanes = {_stem(w) for w in re.findall(r"`([\w-]+)`", q.prompt) for w in _words(w)}
        same = (_content(reason(right)) & (_content(q.prompt) | _content(above)) - lanes - _content(right.key)
                - shared_by_a_wrong_option(q, right.key))
        if same:
            found.append((q.id, reason(right), sorted(same)))
    assert found == [], f"{path.name}: right options whose reason repeats the words around them"


def glossed(path: Path) -> list[tuple[str, str]]:
    """(question id, lane) where a prompt follows a lane's name with a gloss in brackets or after a
    colon, "`replace` (each release cancels ...)", "The `all` lane is Hangfire's Strict mode: it makes
    a job for every slot ...", and the page above its figure defines that lane in a bullet."""
    out = []
    for q, above, _ in read_before(path):
        for lane in re.findall(r"`([^`]+)`(?: lane is [^:.?]*)? ?[(:]", q.prompt):
            if re.search(rf"(?m)^- `{re.escape(lane)}`", above):
                out.append((q.id, lane))
    return out


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_a_prompt_does_not_gloss_a_rule_the_page_defines_above(path):
    """05's first question read "Runs of 18 min under `replace` (each release cancels the run still
    going)": the rule the bullet above defines, restated where the answer follows from it and 18 > 15
    without a look at the figure; 04's first, "The `all` lane is Hangfire's Strict mode: it makes a job
    for every slot ...", the `all` bullet (issue 30). A prompt names a lane the page has defined, no gloss."""
    assert glossed(path) == [], f"{path.name}: prompts that gloss a lane defined above"


def test_a_reason_is_read_past_its_answer_and_small_words():
    """The stems "cancels" and "cancelled" meet; "the", "each" and the answer value do not count."""
    assert _content("each is cancelled") & _content("each release cancels the run") == {"cancel"}
    assert _content("Member 0 at score 0: the 09:15 one") == {"member", "score"}


def _shape(time: str) -> str:
    return "hh:mm" if len(time) == 5 else "hh:mm:00" if time.endswith(":00") else "hh:mm:ss"


@pytest.mark.parametrize("title,q", asked(), ids=[q.id for _, q in asked()])
def test_every_option_of_a_question_writes_its_times_alike(title, q):
    """04's right option "10:40:04" was the only one with seconds off the minute, beside "10:40:00"
    and "10:37" (issue 30): the format picked it. The options that name a time name it in one
    format, and a right one off the minute is not the only one off it."""
    shapes = {o.key: {_shape(t) for t in _TIME.findall(o.text)} for o in q.options}
    timed = {k: s for k, s in shapes.items() if s}
    assert len({_shape(t) if len(t) == 5 else "hh:mm:ss" for o in q.options for t in _TIME.findall(o.text)}) <= 1, (
        f"{q.id}: options write their times in different formats: {[o.text for o in q.options]}")
    right = q.right(shared_model(title))
    if "hh:mm:ss" in timed.get(right, ()):
        others = set().union(*(s for k, s in timed.items() if k != right))
        assert "hh:mm:ss" in others, f"{q.id}: only the right option's time is off the minute"


#: what a question's own prompt must not say, because it settles the answer or rules an option out
#: before the reader thinks: 06's slot-id question said the re-fire "comes with the id the first job
#: already has", which ruled out "Two jobs: the second gets a key of its own" (issue 30, h68r)
STEM_TELLS = {"06-slot-ids-refuse": ("already has", "same id", "the id the first job")}


@pytest.mark.parametrize("qid", sorted(STEM_TELLS))
def test_a_prompt_leaves_the_reader_to_work_out_what_it_asks(qid):
    prompt = next(q.prompt for _, q in asked() if q.id == qid)
    assert [t for t in STEM_TELLS[qid] if t in prompt.lower()] == [], prompt
