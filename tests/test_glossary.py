"""Words defined before they are used (issue 30): the glossary page holds one entry per term of the
course, and every page links a term to its entry the first time it uses it, so a first-time
reader meets no jargon without its definition one click away.

A use is the term as a whole word (case-insensitive; a hyphen or underscore joins it to its
neighbours, so `cron-parser` is no use of "cron") in a page's Markdown, folds included; not in a
heading, a fold's `<summary>`, a code block, a code span holding more than the term, the text of a
link to elsewhere, or the `## Sources` cell. A code span that is the term alone, on a page that
links the term, is a use: 04 wrote its lane `epoch` in its list of lanes and linked "epoch" only
further down, in a fold, so the reader met the word first with no link. A link to a longer
term's entry ("[missed slot](glossary.ipynb#missed-slot)") is no use of the shorter one inside it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
#: the glossary's pages: keys and designs; missed slots, overlap, crashes and other schedulers; time
GLOSSARIES = ["glossary.ipynb", "glossary_policies.ipynb", "glossary_time.ipynb"]
GLOSSARY = NOTEBOOKS / GLOSSARIES[0]
_KEYS = ["registry", "schedule", "score", "next run", "slot", "cron", "interval", "upsert", "job scheduler",
         "pump", "beat", "sweep", "tick", "rearm", "grid", "enqueue latency", "release", "delayed job",
         "delayed set", "wait list", "marker", "BZPOPMIN", "worker", "take", "branded id", "slot-derived job id",
         "start-to-start", "start-to-finish", "re-fire"]
_POLICIES = ["missed slot", "catch-up", "collapsed slot", "snap", "snap-v5", "epoch", "phase", "offset",
             "misfire_grace_time", "startingDeadlineSeconds", "overlap", "concurrency policy", "allow", "skip",
             "forbid", "BufferOne", "BufferAll", "replace", "CancelOther", "TerminateOther", "crash",
             "idempotent", "stalled job", "lock"]
_TIME = ["time zone", "daylight saving", "repeated hour", "skipped hour", "fixed-time job"]
#: each term of the course, spelled as the pages write it -> the glossary page that defines it
TERMS = {**{t: GLOSSARIES[0] for t in _KEYS}, **{t: GLOSSARIES[1] for t in _POLICIES},
         **{t: GLOSSARIES[2] for t in _TIME}}
#: another spelling of a term (a peer's name, a form the pages write), and the term it belongs to
ALIASES = {"misfire grace time": "misfire_grace_time", "AllowAll": "allow", "buffer-one": "BufferOne",
           "slot-derived id": "slot-derived job id", "re-arm": "rearm", "re-arms": "rearm",
           "release lag": "release", "fixed-time": "fixed-time job", "collapsed": "collapsed slot",
           "collapse": "collapsed slot"}

#: a term's inflected forms the course writes, and the term: 06's "re-sweeps" and 07's "upserted"
#: were each a page's first use of their term and no test saw them, the forms matching no spelling
#: (h71r). Only jargon verbs: "takes", "released" or "slots" are plain English as well, and a
#: reader meets them long before the page links the term (no use of it).
INFLECTIONS = {"upserts": "upsert", "upserted": "upsert", "upserting": "upsert", "sweeps": "sweep",
               "re-sweep": "sweep", "re-sweeps": "sweep", "rearms": "rearm", "rearmed": "rearm",
               "re-armed": "rearm", "re-fires": "re-fire", "re-fired": "re-fire", "snaps": "snap",
               "snapped": "snap"}
#: the course's pages (00 to 08): where a code span that is a term alone is a use of it whether or
#: not the page links the term (08's recap named the lanes `skip`, `buffer-one` in code and linked
#: none: h72r), and where printouts are read
COURSE = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_HEADING = re.compile(r"^#{1,6} .*$", re.M)
_SUMMARY = re.compile(r"<summary>.*?</summary>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>\n]+>")
_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)\)")
_GLOSSARY_LINK = re.compile(r"^(glossary(?:_\w+)?\.ipynb#[\w-]+)$")
_LAB_ONLY = re.compile(r"<!-- lab-only -->(.*?)<!-- /lab-only -->", re.S)


def anchor(heading: str) -> str:
    """The id a heading gets on the site (myst_heading_anchors): lower case, spaces as hyphens,
    nothing but word characters and hyphens; what is marked lab-only is not on the site."""
    text = _TAG.sub("", _LAB_ONLY.sub("", heading))
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def lab_ids(heading: str) -> list[str]:
    """The ids JupyterLab 4 gives a heading line: the heading's text with spaces as hyphens, case
    kept (its `createHeaderId`), then the id of each anchor inside it (`<a id=...>`, which Lab's
    sanitizer keeps as `data-jupyter-id`, the attribute its fragment search reads)."""
    text = _TAG.sub("", _COMMENT.sub("", heading)).strip()
    return [text.replace(" ", "-"), *re.findall(r'<a id="([^"]+)"></a>', heading)]


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
            and not "".join(c["source"]).lstrip().startswith("## Sources")]


def entries(page: str | None = None) -> dict[str, str]:
    """The glossary's entries: `page#anchor` -> the entry's text (its `## term` cell), of one
    glossary page or of all."""
    out = {}
    for name in [page] if page else GLOSSARIES:
        for text in _markdown(NOTEBOOKS / name):
            m = re.match(r"^## (.+)$", text.strip(), re.M)
            if m:
                out[f"{name}#{anchor(m[1])}"] = text
    return out


def segments(markdown: str, keep: frozenset[str] = frozenset()) -> list[tuple[str, str | None]]:
    """The prose of one Markdown cell a reader meets, as (text, target): a glossary link's text
    with the `page#anchor` it links to, other prose with None. Code, headings, summaries, tags and the
    text of other links are left out; a code span whose whole text (lower case) is in `keep` stays,
    as its words between \u2039 and \u203a."""
    text = _COMMENT.sub(" ", _FENCE.sub(" ", markdown))
    text = _SUMMARY.sub(" ", _HEADING.sub(" ", text))
    # a mark either side, so words either side of code do not join
    text = _CODE.sub(lambda m: f" \u00b7 \u2039{m[0][1:-1]}\u203a \u00b7 " if m[0][1:-1].strip().lower() in keep
                     else " \u00b7 ", text)
    out, at = [], 0
    for m in _LINK.finditer(text):
        out.append((text[at:m.start()], None))
        target = _GLOSSARY_LINK.match(m[2]) if not m[0].startswith("!") else None
        if target:
            out.append((m[1], target[1]))
        at = m.end()
    out.append((text[at:], None))
    return [(" ".join(_TAG.sub(" ", t).split()), a) for t, a in out]


def _links_beside(cell: str, span: str) -> set[str]:
    """The link targets of the paragraph or list item of `cell` that first holds `span`."""
    for part in re.split(r"\n\s*\n|\n(?=[ \t]*[-*] )", cell):
        if span.lower() in part.lower():
            return {m[2] for m in _LINK.finditer(part)}
    return set()


def first_uses(markdown_cells: list[str], terms: dict[str, str],
               code_alone: bool = False) -> dict[str, tuple[str, str | None]]:
    """Each entry's first use on a page, under the spelling met first (a term or one of its
    aliases): term -> (the words around it, the `page#anchor` it links to, or None). A code span
    that is the term alone is a use on a page that links the term, or on any page with
    `code_alone`; it is linked when its paragraph or list item links the entry (a lane's name in
    code, then what it is, then the link: "- `epoch`: ... ([epoch](...))")."""
    found: dict[str, tuple[str, str | None]] = {}
    met: set[str] = set()        # entries met already: a later spelling of one is no first use
    linked_here = {m[2] for cell in markdown_cells for m in _LINK.finditer(cell)}
    alone = frozenset(t.lower() for t, target in terms.items() if code_alone or target in linked_here)
    for cell in markdown_cells:
        for text, linked in segments(cell, alone):
            for term, target in terms.items():
                if term in found or target in met:
                    continue
                if linked is not None and linked != target:
                    continue          # inside a link to another entry: no use of this term
                m = re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text, re.I)
                if m:
                    if linked is None and text[m.start() - 1:m.start()] == "\u2039" \
                            and target in _links_beside(cell, f"`{m[0]}`"):
                        linked = target        # a code span whose paragraph links the entry
                    found[term] = (text[max(0, m.start() - 40):m.end() + 40], linked)
                    met.add(target)
    return found


def pages() -> list[Path]:
    return [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if p.name not in GLOSSARIES]


def target(term: str) -> str:
    """The `page#anchor` a link to `term` (or to one of its aliases) points at."""
    term = ALIASES.get(term, term)
    return f"{TERMS[term]}#{anchor(term)}"


def _terms(inflected: bool = False) -> dict[str, str]:
    return {t: target(t) for t in [*TERMS, *ALIASES]} | (
        {form: target(term) for form, term in INFLECTIONS.items()} if inflected else {})


def test_the_glossary_has_an_entry_for_every_term_and_each_names_its_page():
    have = entries()
    assert sorted(have) == sorted(target(t) for t in TERMS)
    course = {p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    for key, text in have.items():
        shown = re.findall(r"\]\((\d\d_[\w]+\.ipynb)\)", text)
        assert shown and set(shown) <= course, f"glossary entry {key!r} names no page of the course"
    for alias, term in ALIASES.items():       # an alias the pages write is named in its entry
        assert re.search(rf"(?<![\w-]){re.escape(alias)}", have[target(term)], re.I), alias


def test_the_first_use_counts_words_outside_code_headings_and_other_links():
    cells = ["# The pump\n\nA `pump` and [the pump page](03_start_to_start.ipynb).",
             "<details><summary>What a sweep does</summary>\n\nThe [missed slot](glossary_policies.ipynb#missed-slot) "
             "and a [Sweep](glossary.ipynb#sweep); cron-parser, then the pump, then a slot.\n\n</details>"]
    terms = {"pump": "glossary.ipynb#pump", "sweep": "glossary.ipynb#sweep", "slot": "glossary.ipynb#slot",
             "cron": "glossary.ipynb#cron"}
    found = first_uses(cells, terms)
    assert {t: a for t, (_, a) in found.items()} == {"sweep": "glossary.ipynb#sweep", "pump": None, "slot": None}
    # a code span that is the term alone is a use of it, one holding more is not
    lanes = ["- `epoch`: the quarter hours; `epoch_ms` is code.",
             "<details><summary>Lanes</summary>\n\n- **[epoch](glossary_policies.ipynb#epoch)**\n\n</details>"]
    assert first_uses(lanes, {"epoch": "glossary_policies.ipynb#epoch"}) == {
        "epoch": ("- \u00b7 \u2039epoch\u203a \u00b7 : the quarter hours; \u00b7 is code.", None)}
    # linked in its own list item, after the code span: a linked first use
    item = ["- `epoch`: the quarter hours ([epoch](glossary_policies.ipynb#epoch)).\n- `snap`: `epoch` again"]
    assert first_uses(item, {"epoch": "glossary_policies.ipynb#epoch"})["epoch"][1] == "glossary_policies.ipynb#epoch"
    item = ["- `epoch`: the quarter hours.\n- `snap`: the [epoch](glossary_policies.ipynb#epoch) rule"]
    assert first_uses(item, {"epoch": "glossary_policies.ipynb#epoch"})["epoch"][1] is None
    assert first_uses(["`epoch_ms`, `epoch + 1`", lanes[1]], {"epoch": "glossary_policies.ipynb#epoch"}) == {
        "epoch": ("epoch", "glossary_policies.ipynb#epoch")}
    assert first_uses(lanes[:1], {"epoch": "glossary_policies.ipynb#epoch"}) == {}   # a page that never links it
    # on a course page, a use all the same
    assert first_uses(lanes[:1], {"epoch": "glossary_policies.ipynb#epoch"}, code_alone=True)["epoch"][1] is None
    assert anchor("misfire_grace_time") == "misfire_grace_time" and anchor("Enqueue latency") == "enqueue-latency"
    assert anchor("BZPOPMIN") == "bzpopmin" and anchor("start-to-start") == "start-to-start"
    assert target("AllowAll") == "glossary_policies.ipynb#allow" and target("pump") == "glossary.ipynb#pump"


def test_a_heading_has_the_sites_id_and_jupyterlabs_and_no_other():
    """JupyterLab 4 keeps a heading's case in its id (`## BZPOPMIN` -> `BZPOPMIN`), the site
    lower-cases it (`bzpopmin`). A heading whose two ids differ carries an anchor with the site's
    id inside it, marked lab-only so the site (which has it already) does not get it twice."""
    marked = 'BZPOPMIN<!-- lab-only --><a id="bzpopmin"></a><!-- /lab-only -->'
    assert anchor(marked) == "bzpopmin" and lab_ids(marked) == ["BZPOPMIN", "bzpopmin"]
    assert lab_ids("enqueue latency") == ["enqueue-latency"] == [anchor("enqueue latency")]
    for name in GLOSSARIES:
        for key, text in entries(name).items():
            line = text.strip().splitlines()[0][3:]
            site, lab = anchor(line), lab_ids(line)
            assert site in lab, (name, line)                         # the link lands in Lab too
            assert len(set(lab)) == len(lab), (name, line)           # no id twice in Lab
            assert (len(lab) == 1) == (lab[0] == site), (name, line)  # an anchor only where needed
            assert "<a " not in _LAB_ONLY.sub("", line), (name, line)   # nothing extra on the site


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.stem)
def test_every_term_is_linked_to_its_entry_at_its_first_use(path):
    # with a term's inflected forms too (06's "re-sweeps", 07's "upserted"; four reference pages'
    # "upserted", "re-sweep", "snaps": h72r)
    unlinked = {term: around for term, (around, linked)
                in first_uses(_markdown(path), _terms(True), code_alone=path in COURSE).items() if linked is None}
    assert unlinked == {}, f"{path.name}: terms first used without a link to the glossary: {unlinked}"


def test_an_inflected_form_is_a_use_of_its_term():
    found = first_uses(["A restart re-sweeps; the [sweep](glossary.ipynb#sweep) is the pump's pass."], _terms(True))
    assert {t: a for t, (_, a) in found.items()} == {"re-sweeps": None, "pump": None}
    found = first_uses(["It stops until upserted again."], _terms(True))
    assert {t: a for t, (_, a) in found.items()} == {"upserted": None}
    assert first_uses(["It stops until upserted again."], _terms()) == {}    # the plain spellings miss it
    assert (_terms(True)["re-sweeps"], _terms(True)["upserted"]) == ("glossary.ipynb#sweep", "glossary.ipynb#upsert")
    assert first_uses(["It snaps to 10:22."], _terms(True)) == {"snaps": ("It snaps to 10:22.", None)}


def _with_printouts(path: Path) -> list[tuple[str, bool]]:
    """A page's Markdown cells and its printouts (a code cell's printed text), in page order, as
    (text, is a printout); a printout's backquotes are made plain, so none reads as code."""
    out = []
    for c in json.loads(path.read_text())["cells"]:
        text = "".join(c["source"])
        if c["cell_type"] == "markdown":
            if not text.lstrip().startswith("## Sources"):
                out.append((text, False))
        else:
            said = "".join("".join(o.get("text", "")) for o in c.get("outputs", []) if o.get("output_type") == "stream")
            if said.strip():
                out.append((said.replace("`", "'"), True))
    return out


def printed_first(path: Path) -> set[str]:
    """The terms a page's reader meets first in a printout though its prose links them further
    down: 03 printed "with a sweep that costs only the enqueue latency" and linked "sweep" in the
    paragraph after (h71r). A term the page never links is left alone: the printout is code."""
    cells = _with_printouts(path)
    terms = _terms(True)
    later = {m[2] for text, printed in cells if not printed for m in _LINK.finditer(text)}
    found = first_uses([text for text, _ in cells], terms)
    printouts = [text for text, printed in cells if printed]
    return {term for term, (around, linked) in found.items() if linked is None and terms[term] in later
            and any(" ".join(around.split()) in " ".join(p.split()) for p in printouts)}


@pytest.mark.parametrize("path", COURSE, ids=lambda p: p.stem)
def test_no_term_is_printed_before_the_prose_links_it(path):
    assert printed_first(path) == set()


def glossary_links(path: Path) -> list[tuple[str, str]]:
    """The glossary links of a page as (link text, `page#anchor`); a glossary page's own `#anchor`
    links read as links to itself."""
    out = []
    for cell in _markdown(path):
        for m in _LINK.finditer(cell):
            to = m[2]
            if to.startswith("#") and path.name in GLOSSARIES:
                to = f"{path.name}{to}"
            if re.match(r"^glossary(?:_\w+)?\.ipynb#", to):
                out.append((m[1], to))
    return out


def test_every_glossary_link_names_an_entry_and_its_text_is_that_term():
    have, by_target = entries(), {}
    for term, to in _terms(True).items():     # "[upserted](glossary.ipynb#upsert)" names its term
        by_target.setdefault(to, []).append(term)
    bad = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for text, to in glossary_links(path):
            if to not in have:
                bad.append((path.name, text, to, "no such entry"))
            elif path.name not in GLOSSARIES and not any(
                    re.search(rf"(?<![\w-]){re.escape(t)}(?![\w-])", " ".join(_CODE.sub(lambda m: m[0][1:-1], text).split()), re.I)
                    for t in by_target[to]):
                bad.append((path.name, text, to, "the link's text is not the term"))
    assert bad == []


def _panels_and_prose_before(path: Path) -> list[tuple[str, list[str]]]:
    """Each figure panel of a page (its catalogue title) with the Markdown cells above it."""
    cells, out, above = json.loads(path.read_text())["cells"], [], []
    for c in cells:
        text = "".join(c["source"])
        if c["cell_type"] == "markdown" and not text.lstrip().startswith("## Sources"):
            above.append(text)
        meta = c.get("metadata", {}).get("emqsim")
        if c["cell_type"] == "code" and isinstance(meta, dict) and meta.get("figure"):
            out.append((meta["figure"], list(above)))
    return out


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.stem)
def test_every_term_a_question_uses_is_defined_above_it(path):
    """A question's prompt and options cannot carry a link, so a glossary term in them must
    have been met, linked, in the page above the panel (01's option "the next mark of its grid"
    used "grid", which only 03 defines: issue 30)."""
    from emqsim.figures import catalogue

    terms, early = _terms(True), []
    for title, above in _panels_and_prose_before(path):
        met = {target for _, (_, target) in first_uses(above, terms).items() if target}
        model = catalogue.model(title)
        asked = [(q.id, text) for q in model.questions
                 # the feedback too: a reader reads it at once, and it carries no link either (02's
                 # keys: "The upsert makes the first job" before the page said what an upsert is)
                 for text in [q.prompt, *(o.text for o in q.options), *(o.why for o in q.options)]]
        # and what the controls say as they move (02's "09:00 release" frames before the page
        # linked release), and the challenge's goal
        asked += [(c.name, label) for c in model.controls for label, _ in c.positions]
        if model.challenge:
            asked.append((model.challenge.id, model.challenge.goal))
        for who, text in asked:
            plain = re.sub(r"`[^`]*`", " ", text)
            for term, to in terms.items():
                if to not in met and re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", plain, re.I):
                    early.append((who, term, text[:60]))
    assert early == [], f"{path.name}: terms a question uses before the page defines them: {early}"


_NAME = re.compile(r"(?<![\w-])[a-z]+(?:[A-Z][a-z]*)+(?![\w-])")


def test_a_name_in_code_case_is_caught_and_a_plain_word_is_not():
    assert _NAME.findall("updateJobScheduler, at each pickup; moveToFinished.") == [
        "updateJobScheduler", "moveToFinished"]
    assert _NAME.findall("BullMQ's design, the worker's marker, cron-parser") == []


def test_02s_wake_question_says_what_is_fetched():
    """h71r: "updateJobScheduler, run when one is fetched" left the reader to guess what "one" was (a job).
    It now says "pickup", a worker picking a job up: the option may not reuse "job" or "take", the
    words of the prose just above its figure (the no-giveaway tests)."""
    from emqsim.figures import catalogue

    q = next(q for q in catalogue.model("02 the keys, step by step").questions if q.id == "02-who-writes-the-wake")
    assert [o.text for o in q.options][0] == "updateJobScheduler, at each pickup."


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.stem)
def test_every_script_name_a_question_uses_is_in_the_prose_above_it(path):
    """A script or function name (camel case: `updateJobScheduler`) that a question's prompt or
    options use must appear in the page's Markdown above its panel, where the prose can say in
    plain words what it does: 02's keys question offered updateJobScheduler, addJobScheduler and
    moveToFinished, which no prose before it mentioned (issue 30)."""
    from emqsim.figures import catalogue

    early = []
    for title, above in _panels_and_prose_before(path):
        read = " ".join(_COMMENT.sub(" ", text) for text in above)
        for q in catalogue.model(title).questions:
            for text in [q.prompt, *(o.text for o in q.options)]:
                early.extend((q.id, name) for name in _NAME.findall(text)
                             if not re.search(rf"(?<![\w-]){name}(?![\w-])", read))
    assert early == [], f"{path.name}: names a question uses that the prose above never mentions: {early}"


def test_pump_and_beat_do_not_define_each_other_and_tick_names_03s_slider():
    """The glossary defined the pump as waking "on each beat" and a beat as "one wake of the pump": a
    reader who knew neither learned neither. The pump's entry says what it does without the beat
    (its first sentence); the tick's entry names 03's slider by its label, "pump tick"."""
    have = entries(GLOSSARIES[0])
    pump = have[target("pump")].split("\n", 1)[1]
    assert "beat" in have[target("beat")] and "pump" in have[target("beat")]
    what = re.split(r"[.;]", pump.strip(), maxsplit=1)[0]     # what it is, before any aside
    assert not re.search(r"\bbeats?\b", what, re.I), what
    assert "pump tick" in have[target("tick")] and "slider `tick`" not in have[target("tick")]
    from emqsim.lessons.start_to_start import SlipModel
    assert [c.label for c in SlipModel.controls] == ["pump tick"]


def test_a_fire_is_said_in_plain_words_where_02_first_uses_the_word():
    """'fire' is in 02's title and all through its prose, and no page said what it is (issue 30).
    It is no glossary entry (every page would have to link it), so 02 defines it in bold at its
    first use in prose, and 00 and 01, read before 02, do not use it."""
    word = re.compile(r"(?<![\w-])(\*\*)?(fire[sd]?|firing)\b", re.I)

    def prose(name):
        return " ".join(text for cell in _markdown(NOTEBOOKS / name) for text, _ in segments(cell))

    assert word.search(prose("00_start_here.ipynb")) is None
    assert word.search(prose("01_cron_vs_interval.ipynb")) is None
    first = word.search(prose("02_one_row_rewritten.ipynb"))
    assert first[1] == "**" and re.match(r"\*\*fire\*\* is one run coming due\b", prose(
        "02_one_row_rewritten.ipynb")[first.start():]), prose("02_one_row_rewritten.ipynb")[first.start():][:80]


def test_the_index_uses_no_term_the_course_has_not_defined():
    """The index is the first page a reader lands on, before any page defines a term: h63r read
    "The pages need no kernel" there, a word only 00 explains. It uses no glossary term and not
    the word 00 defines for the reader who has never run a notebook."""
    from emqsim.site.pages import _INDEX

    assert first_uses([_INDEX], {**_terms(), "kernel": "00_start_here.ipynb"}) == {}
