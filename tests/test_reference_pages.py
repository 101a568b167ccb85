"""The pages beside the course (issue 30): the reference pages that hold 04-07's depth, the
"which policy when" guide and the closing page 08.

Each is held to the page limits as the project's hook counts them, its links land on pages (and
glossary entries) that exist, it is one click from a course page, and every fact moved onto it
keeps a Sources line naming a version and a test that exists.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_sources import CITED, VERSIONED, _entries, _tests_in

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
#: the reference pages of 04-07's depth: prose, and printouts with no figure
REFERENCE = ["ref_missed_slots", "ref_releases", "ref_peers_missed_slots", "ref_peers_overlap",
             "ref_bullmq_design", "ref_crashes", "ref_cron_libraries", "ref_cron_code"]
GUIDES = ["which_policy", "08_the_whole_course"]
PAGES = REFERENCE + GUIDES
#: the course pages whose links this file also checks
COURSE = ["04_missed_slots", "05_overlap", "06_faults", "07_cron_time_zones"]

PAGE_WORDS, CELL_WORDS, FOLDS = 1500, 200, 5
LINK = re.compile(r"\]\(([^)\s]+\.ipynb)(?:#([^)\s]+))?\)")


def _cells(name: str) -> list[dict]:
    return json.loads((NOTEBOOKS / f"{name}.ipynb").read_text())["cells"]


def _markdown(name: str) -> list[str]:
    return ["".join(c["source"]) for c in _cells(name) if c["cell_type"] == "markdown"]


def _prose(name: str) -> list[str]:
    """The Markdown the limits count: all but the Sources cell."""
    return [t for t in _markdown(name) if not t.lstrip().lower().startswith(("## sources", "# sources"))]


def _count(text: str) -> int:
    return len(re.findall(r"[A-Za-z0-9']+", text))


def slug(heading: str) -> str:
    """A heading's anchor as MyST makes it (`myst_heading_anchors`): lower case, punctuation
    dropped but for `-` and `_`, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading).strip().lower().replace(" ", "-")


@pytest.mark.parametrize("name", PAGES)
def test_a_page_is_within_the_limits(name):
    prose = _prose(name)
    assert sum(_count(t) for t in prose) <= PAGE_WORDS, name
    assert sum(t.count("<details") for t in prose) <= FOLDS, name
    over = [_count(re.sub(r"(?s)<details>.*?</details>", "", t)) for t in prose]
    assert max(over) <= CELL_WORDS, (name, over)


@pytest.mark.parametrize("name", PAGES + COURSE)
def test_every_fold_says_what_is_inside_and_holds_it(name):
    for text in _prose(name):
        assert text.count("<details") == text.count("</details>"), name
        for summary, inside in re.findall(r"(?s)<details><summary>(.*?)</summary>(.*?)</details>", text):
            assert len(summary.split()) >= 2 and not summary.lower().startswith("under the hood"), (name, summary)
            assert _count(inside) >= 10, (name, summary)


@pytest.mark.parametrize("name", REFERENCE + ["which_policy"])
def test_a_reference_page_is_prose_and_printouts_and_ends_with_its_sources(name):
    """No figure or control on a reference page: its code cells only print (issue 30: 07's long
    tables moved here, one click away, from the page they made 2,971 words long)."""
    cells = _cells(name)
    for c in cells:
        if c["cell_type"] == "code":
            kinds = {o["output_type"] for o in c.get("outputs", [])}
            assert kinds == {"stream"}, (name, c["source"][:1], kinds)
            assert "fig" not in "".join(c["source"]), (name, c["source"][:1])
    assert "".join(cells[-1]["source"]).startswith("## Sources\n"), name
    assert "".join(cells[0]["source"]).startswith("# "), name


@pytest.mark.parametrize("name", PAGES)
def test_every_source_line_names_a_version_and_a_test_that_exists(name):
    entries = _entries("".join(_cells(name)[-1]["source"]))
    assert entries, name
    for entry in entries:
        if entry.lstrip("-* ").lower().startswith(("course page", "this course")):
            continue
        assert VERSIONED.search(entry), (name, entry)
        cited = CITED.findall(entry.rpartition(" / ")[2])
        assert cited, (name, entry)
        for file, test in cited:
            assert (ROOT / "tests" / file).exists(), (name, file)
            if test:
                assert test in _tests_in(ROOT / "tests" / file), (name, file, test)


@pytest.mark.parametrize("name", PAGES + COURSE)
def test_every_link_lands_on_a_page_that_exists(name):
    glossary = NOTEBOOKS / "glossary.ipynb"
    anchors = None
    if glossary.exists():     # the glossary is another branch's file until the lead merges both
        anchors = {slug(m) for t in _markdown("glossary") for m in re.findall(r"^#+\s+(.+)$", t, re.M)}
    for text in _markdown(name):
        for target, anchor in LINK.findall(text):
            if target == "glossary.ipynb" and anchors is None:
                continue      # checked once both branches are merged; the other links are checked now
            assert (NOTEBOOKS / target).exists(), (name, target)
            if target == "glossary.ipynb":
                assert anchor in anchors, (name, anchor)


def test_every_reference_page_is_one_click_from_a_course_page():
    linked = {t for path in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb") for text in _markdown(path.stem)
              for t, _ in LINK.findall(text)}
    assert [p for p in PAGES if f"{p}.ipynb" not in linked and not p[:2].isdigit()] == []


def test_the_guide_links_each_page_it_draws_on_and_they_link_it():
    text = "\n".join(_markdown("which_policy"))
    for page in ("04_missed_slots", "05_overlap", "06_faults"):
        assert f"]({page}.ipynb)" in text, page
        assert "](which_policy.ipynb)" in "\n".join(_markdown(page)), page
    for policy in ("snap", "release", "all", "once", "allow", "skip", "buffer-one", "replace", "forbid"):
        assert f"`{policy}`" in text, policy


def test_the_closing_page_follows_the_running_example_through_every_page():
    text = "\n".join(_prose("08_the_whole_course"))
    assert "the report every 15 minutes" in text and "the\nbackup at 09:00" in text
    for path in sorted(NOTEBOOKS.glob("0[0-7]_*.ipynb")):
        assert f"]({path.name})" in text, path.name
    assert "07_cron_time_zones" in COURSE and "](08_the_whole_course.ipynb)" in _markdown("07_cron_time_zones")[-2]


def test_05_defines_forbid_before_the_panel_that_asks_about_it():
    """Issue 30, item 10: `forbid` was defined after 05's questions and lanes that use it."""
    cells = _cells("05_overlap")
    panel = next(i for i, c in enumerate(cells) if (c.get("metadata", {}).get("emqsim") or {}).get("figure"))
    before = " ".join("".join(c["source"]) for c in cells[:panel] if c["cell_type"] == "markdown")
    before = re.sub(r"(?s)<details>.*?</details>", "", before)
    for policy in ("allow", "skip", "buffer-one", "replace", "forbid"):
        assert re.search(rf"^- `{re.escape(policy)}`[^:\n]*: \w", before, re.M), policy


def _above_first_panel(name: str) -> str:
    """A page's Markdown above its first panel, folds left out: what a reader has met when the
    figure first shows."""
    cells = _cells(name)
    panel = next(i for i, c in enumerate(cells) if (c.get("metadata", {}).get("emqsim") or {}).get("figure"))
    return re.sub(r"(?s)<details>.*?</details>", "", "\n\n".join(
        "".join(c["source"]) for c in cells[:panel] if c["cell_type"] == "markdown"))


def test_04_names_each_lane_before_the_panel_that_asks_about_it():
    """Issue 30, item 10: 04's first question named Hangfire Strict only in a lane label."""
    before = _above_first_panel("04_missed_slots").replace("**", "")
    for lane, who in (("all", "Hangfire Strict"), ("snap", "BullMQ 6.7.0"), ("release", "EchoMQ"),
                      ("once", "Kubernetes CronJob"), ("once + deadline", "APScheduler 3")):
        assert re.search(rf"^- `{re.escape(lane)}`: {re.escape(who)}", before, re.M), lane


#: the course pages a reader of 04 has read before it
BEFORE_04 = ["00_start_here", "01_cron_vs_interval", "02_one_row_rewritten", "03_start_to_start"]
_WORD = r"[A-Za-z0-9][\w.]*[A-Za-z0-9]|\w"


def _has(word: str, text: str, case: int = re.I) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(word)}(?![\w-])", text, case) is not None


def test_04_says_what_each_lanes_system_is_where_it_lists_the_lanes():
    """Issue 30: 04's lane labels (`missed_slots.LABELS`) name Hangfire Strict, Kubernetes,
    APScheduler and BullMQ's legacy releases, and the list above the figure only repeated the
    names ("`all`: Hangfire Strict."): a first-time reader, who had met BullMQ and EchoMQ on 00
    and none of the others, was not told what they are. Each lane's item above the figure holds
    every word of its label; each name in a label that no earlier page uses stands in bold there
    (the page defines it) and is followed by what it is, after a comma or a colon or in
    parentheses."""
    from emqsim.lessons.missed_slots import LABELS, POLICIES

    above = _above_first_panel("04_missed_slots")
    items = {m[1]: " ".join(m[2].split()) for m in re.finditer(r"^- `([^`]+)`: (.*?)(?=^- |\n\n|\Z)", above, re.S | re.M)}
    met = " ".join(" ".join(_prose(name)) for name in BEFORE_04)
    missing, unexplained = [], []
    for policy in POLICIES:
        lane, who = LABELS[policy].split("\n", 1)
        item = items.get(lane, "")
        words = re.findall(_WORD, who)
        missing += [(lane, w) for w in words if not _has(w, item.replace("**", ""))]
        defined = " ".join(m[1] for m in re.finditer(r"\*\*([^*]+)\*\*\s?[,:(]", item))
        unexplained += [(lane, w) for w in words if w[0].isupper() and not _has(w, met, 0) and not _has(w, defined, 0)]
    assert missing == [], f"label words not in the lane's item above 04's figure: {missing}"
    assert unexplained == [], f"names 04's lanes bring in, not said in bold with what they are: {unexplained}"


def test_05_says_whose_names_stand_under_its_lanes_before_the_figure():
    """A reader's read (issue 30, item 5): 05's lane labels (`overlap.PEERS`: "Temporal AllowAll",
    "APScheduler max_instances=1", ...) named Temporal and APScheduler before the page said what
    they are, in a fold of section 3. Each system a label names stands above the figure, folds
    left out, and each one new to the reader there is followed by what it is."""
    from emqsim.lessons.overlap import PEERS

    above = " ".join(_above_first_panel("05_overlap").split())
    systems = {who.split()[0] for label in PEERS.values() for who in label.split(" \u00b7 ") if who}
    assert systems == {"Kubernetes", "Temporal", "APScheduler"}
    assert sorted(s for s in systems if not _has(s, above, 0)) == []
    assert "`max_instances=1`" in above
    for name, what in (("Temporal", "a workflow engine"), ("APScheduler 3", "a Python scheduler")):
        assert f"{name}, {what}" in above, name


@pytest.mark.parametrize("name", REFERENCE)
def test_a_reference_page_names_whose_figure_it_means(name):
    """ref_crashes said "Each row of the figure is one job" and ref_missed_slots "Every move of the
    figure", on pages that draw none (h70r): a reference page's figure is always a course page's,
    named by its number ("page 06's figure", "04's figure")."""
    bare = [m[0] for t in _prose(name)
            for m in re.finditer(r"(?<![0-9]'s )(?<![0-9]s )\b(the|this) figure(?:'s)?\b", t)]
    assert bare == [], (name, bare)


def test_every_page_calls_a_course_page_a_page():
    """The course says "page 03" ("Page 3 of 8" under each title), the reference pages and
    course_pages_checked said "notebook 03" for the same page (h70r): one name, "page"."""
    said = {p.stem: re.findall(r"\bnotebooks? 0\d\b", "\n".join(
        "".join(c["source"]) for c in json.loads(p.read_text())["cells"] if c["cell_type"] == "markdown"))
        for p in sorted(NOTEBOOKS.glob("*.ipynb"))}
    assert {k: v for k, v in said.items() if v} == {}
