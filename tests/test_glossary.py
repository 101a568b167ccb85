"""Words defined before they are used (issue 30): the glossary page holds one entry per term of the
course, and every page links a term to its entry the first time it uses it, so a first-time
reader meets no jargon without its definition one click away.

A use is the term as a whole word (case-insensitive; a hyphen or underscore joins it to its
neighbours, so `cron-parser` is no use of "cron") in a page's Markdown, folds included; not in a
heading, a fold's `<summary>`, a code span or block, the text of a link to elsewhere, or the
`## Sources` cell. A link to a longer term's entry ("[missed slot](glossary.ipynb#missed-slot)")
is no use of the shorter one inside it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GLOSSARY = NOTEBOOKS / "glossary.ipynb"
#: the terms issue 30 names (pages-common.md), spelled as the pages write them
TERMS = ["registry", "schedule", "score", "next run", "slot", "cron", "interval", "upsert", "pump", "beat",
         "sweep", "tick", "rearm", "grid", "enqueue latency", "delayed job", "delayed set", "wait list",
         "marker", "BZPOPMIN", "worker", "take", "snap", "epoch", "phase", "offset", "start-to-start",
         "start-to-finish", "missed slot", "catch-up", "overlap", "forbid", "misfire_grace_time",
         "startingDeadlineSeconds", "BufferOne", "concurrency policy", "crash", "stalled job", "lock",
         "daylight saving", "time zone"]
#: another spelling of a term, and the entry it belongs to
ALIASES = {"misfire grace time": "misfire_grace_time"}

_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
_CODE = re.compile(r"`[^`\n]*`")
_HEADING = re.compile(r"^#{1,6} .*$", re.M)
_SUMMARY = re.compile(r"<summary>.*?</summary>", re.S | re.I)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_TAG = re.compile(r"<[^>\n]+>")
_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)\)")
_GLOSSARY_LINK = re.compile(r"^glossary\.ipynb#([\w-]+)$")


def anchor(heading: str) -> str:
    """The id a heading gets on the site (myst_heading_anchors) and in Lab: lower case, spaces as
    hyphens, nothing but word characters and hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _markdown(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
            and not "".join(c["source"]).lstrip().startswith("## Sources")]


def entries() -> dict[str, str]:
    """The glossary's entries: anchor -> the entry's text (its `## term` cell)."""
    out = {}
    for text in _markdown(GLOSSARY):
        m = re.match(r"^## (.+)$", text.strip(), re.M)
        if m:
            out[anchor(m[1])] = text
    return out


def segments(markdown: str) -> list[tuple[str, str | None]]:
    """The prose of one Markdown cell a reader meets, as (text, anchor): a glossary link's text
    with the anchor it links to, other prose with None. Code, headings, summaries, tags and the
    text of other links are left out."""
    text = _COMMENT.sub(" ", _FENCE.sub(" ", markdown))
    text = _SUMMARY.sub(" ", _HEADING.sub(" ", text))
    text = _CODE.sub(" ", text)
    out, at = [], 0
    for m in _LINK.finditer(text):
        out.append((text[at:m.start()], None))
        target = _GLOSSARY_LINK.match(m[2]) if not m[0].startswith("!") else None
        if target:
            out.append((m[1], target[1]))
        at = m.end()
    out.append((text[at:], None))
    return [(" ".join(_TAG.sub(" ", t).split()), a) for t, a in out]


def first_uses(markdown_cells: list[str], terms: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    """Each term's first use on a page: term -> (the words around it, the anchor it links to, or None)."""
    found: dict[str, tuple[str, str | None]] = {}
    for cell in markdown_cells:
        for text, linked in segments(cell):
            for term, target in terms.items():
                if term in found:
                    continue
                if linked is not None and linked != target:
                    continue          # inside a link to another entry: no use of this term
                m = re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text, re.I)
                if m:
                    found[term] = (text[max(0, m.start() - 40):m.end() + 40], linked)
    return found


def pages() -> list[Path]:
    return [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if p != GLOSSARY]


def _terms() -> dict[str, str]:
    return {**{t: anchor(t) for t in TERMS}, **ALIASES}


def test_the_glossary_has_an_entry_for_every_term_and_each_names_its_page():
    have = entries()
    assert sorted(have) == sorted(anchor(t) for t in TERMS)
    course = {p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb")}
    for key, text in have.items():
        shown = re.findall(r"\]\((\d\d_[\w]+\.ipynb)\)", text)
        assert shown and set(shown) <= course, f"glossary entry {key!r} names no page of the course"
    assert "misfire grace time" in have["misfire_grace_time"]   # the alias the pages may write


def test_the_first_use_counts_words_outside_code_headings_and_other_links():
    cells = ["# The pump\n\nA `pump` and [the pump page](03_start_to_start.ipynb).",
             "<details><summary>What a sweep does</summary>\n\nThe [missed slot](glossary.ipynb#missed-slot) "
             "and a [Sweep](glossary.ipynb#sweep); cron-parser, then the pump, then a slot.\n\n</details>"]
    terms = {"pump": "pump", "sweep": "sweep", "slot": "slot", "cron": "cron"}
    found = first_uses(cells, terms)
    assert {t: a for t, (_, a) in found.items()} == {"sweep": "sweep", "pump": None, "slot": None}
    assert anchor("misfire_grace_time") == "misfire_grace_time" and anchor("Enqueue latency") == "enqueue-latency"
    assert anchor("BZPOPMIN") == "bzpopmin" and anchor("start-to-start") == "start-to-start"


@pytest.mark.parametrize("path", pages(), ids=lambda p: p.stem)
def test_every_term_is_linked_to_its_entry_at_its_first_use(path):
    unlinked = {term: around for term, (around, linked) in first_uses(_markdown(path), _terms()).items()
                if linked is None}
    assert unlinked == {}, f"{path.name}: terms first used without a link to the glossary: {unlinked}"


def test_every_glossary_link_names_an_entry():
    have = entries()
    bad = []
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in _markdown(path):
            for m in _LINK.finditer(cell):
                target = m[2]
                if target.startswith("glossary.ipynb#") or (path == GLOSSARY and target.startswith("#")):
                    if target.split("#", 1)[1] not in have:
                        bad.append((path.name, m[0]))
    assert bad == []
