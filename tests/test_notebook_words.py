"""Short pages: a reader of a page with a live figure meets code, a printout or a figure at least
every 200 words, and no notebook asks more than 1,500 words of reading, folds included (issue
30); at most 5 folds a page, each saying in its summary what is inside and holding that inside it.

Body text is a notebook's Markdown outside `<details>` blocks (the folded "Under the hood"
depth), outside fenced code blocks and HTML tags, and outside the final `## Sources` cell. A
word is a run of non-blank characters holding a letter or a digit (a table's `|` or a
bullet's `-` is none). A run is the body between two code cells (a panel cell, whose metadata
names a figure, `{"emqsim": {"figure": TITLE}}`, or a cell whose code and printout the prose
reads); the notebook's start and end bound its first and last run. Counting only panels as
breaks pushed the prose after a page's last figure into folds, a chain of teasers whose point
was folded away (issue 30, item 4); a page of text with no live figure (00) is held to the
per-cell and per-page limits only.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: every page of the book, the reference pages beside the course included
PAGES = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: at most this many body words between two interactive elements (and so in one cell)
RUN_BUDGET = 200
#: at most this many words of Markdown in a notebook, folds included, its Sources excluded
NOTEBOOK_BUDGET = 1500
#: at most this many folds (`<details>`) a page
FOLDS = 5

_FOLDED = re.compile(r"<details\b.*?</details>", re.S | re.I)
_FENCED = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.S | re.M)
_TAG = re.compile(r"<[^>\n]+>")


def body(markdown: str) -> str:
    """The text a reader meets unfolded: no `<details>` block, code fence or HTML tag."""
    return _TAG.sub(" ", _FENCED.sub(" ", _FOLDED.sub(" ", markdown)))


def words(markdown: str) -> int:
    """The body words of one Markdown cell."""
    return sum(bool(re.search(r"[A-Za-z0-9]", t)) for t in body(markdown).split())


def is_sources(cell: dict) -> bool:
    return cell["cell_type"] == "markdown" and "".join(cell["source"]).lstrip().startswith("## Sources")


def is_panel(cell: dict) -> bool:
    meta = cell.get("metadata", {}).get("emqsim")
    return cell["cell_type"] == "code" and isinstance(meta, dict) and bool(meta.get("figure"))


def runs(cells: list[dict]) -> list[tuple[str, int, list[tuple[str, int]]]]:
    """The notebook's runs: (where it ends: the id of the code cell, or "end"), its words, and
    each cell's (id, words) in it."""
    out, cells_in, total = [], [], 0
    for cell in cells:
        if cell["cell_type"] == "code":
            out.append((cell["id"], total, cells_in))
            cells_in, total = [], 0
        elif cell["cell_type"] == "markdown" and not is_sources(cell):
            n = words("".join(cell["source"]))
            cells_in.append((cell["id"], n))
            total += n
    out.append(("end", total, cells_in))
    return out


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def test_the_counter_skips_folded_depth_fences_tags_and_marks():
    md = ("## A title\n\nOne two, `three` [four](x.ipynb).\n\n| a | b |\n|---|---|\n| 1 | - |\n\n"
          "```sh\nemqsim trace --fires 4\n```\n\n<details><summary>Under the hood: more</summary>\n\n"
          "many words folded away\n\n</details>\n\n- <b>five</b> 09:00")
    assert words(md) == 11   # A title One two three four a b 1 five 09:00
    cells = [{"cell_type": "markdown", "id": "m1", "source": ["one two"]},
             {"cell_type": "code", "id": "p1", "metadata": {"emqsim": {"figure": "T"}}, "source": []},
             {"cell_type": "markdown", "id": "m2", "source": ["three"]},
             {"cell_type": "markdown", "id": "m3", "source": ["four five"]},
             {"cell_type": "code", "id": "c1", "metadata": {}, "source": ["print(1)"]},
             {"cell_type": "markdown", "id": "m4", "source": ["six"]},
             {"cell_type": "markdown", "id": "s", "source": ["## Sources\n\n- many words here"]}]
    assert runs(cells) == [("p1", 2, [("m1", 2)]), ("c1", 3, [("m2", 1), ("m3", 2)]), ("end", 1, [("m4", 1)])]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_markdown_cell_is_over_budget(path):
    over = [(cell_id, n) for _, _, cells_in in runs(_cells(path)) for cell_id, n in cells_in if n > RUN_BUDGET]
    assert over == [], f"{path.name}: cells over {RUN_BUDGET} body words (id, words): {over}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_run_of_body_text_between_two_interactive_elements_is_over_budget(path):
    if not any(is_panel(c) for c in _cells(path)):
        pytest.skip(f"{path.name} is a page of text: no live figure to meet")
    over = [f"{n} words before {end} (cells {cells_in})" for end, n, cells_in in runs(_cells(path))
            if n > RUN_BUDGET]
    assert over == [], f"{path.name}: runs over {RUN_BUDGET} words: {over}"


# -- the limits the project's stop hook holds every page to (issue 30) --------------------------------

_HOOK_WORD = re.compile(r"[A-Za-z0-9']+")
_FOLD = re.compile(r"<details>\s*<summary>(?P<summary>.*?)</summary>(?P<inside>.*?)</details>", re.S)
#: a summary that says only that something is folded, not what
_VAGUE = re.compile(r"^(under the hood|more|details|read more|show|click to expand)\W*$", re.I)


def prose(cells: list[dict]) -> list[str]:
    """A page's Markdown cells, its `## Sources` cell left out (as the hook reads it)."""
    md = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
    return [t for t in md if not t.lstrip().lower().startswith(("## sources", "# sources"))]


def hook_words(text: str) -> int:
    """Words as the stop hook counts them: runs of letters, digits and apostrophes."""
    return len(_HOOK_WORD.findall(text))


def fold_faults(text: str) -> list[str]:
    """What is wrong with the folds of one Markdown cell: a fold not closed in its cell (its
    content renders outside it), one with no summary or a summary that does not say what is
    inside, one with nothing inside, one holding a heading (the site starts a section there,
    so the fold opens to nothing)."""
    faults, folds = [], list(_FOLD.finditer(text))
    if len(folds) != text.count("<details") or text.count("</details>") != len(folds):
        faults.append("a <details> without its <summary> first or its </details> in the same cell")
    for m in folds:
        summary = " ".join(re.sub(r"<[^>]+>", " ", m["summary"]).split())
        if hook_words(summary) < 3 or _VAGUE.match(summary):
            faults.append(f"the summary {summary!r} does not say what is inside")
        if hook_words(re.sub(r"<[^>]+>", " ", m["inside"])) == 0:
            faults.append(f"the fold {summary!r} opens to nothing")
        if re.search(r"^#{1,6} ", m["inside"], re.M):
            faults.append(f"the fold {summary!r} holds a heading")
        # its last words introduce what stands after it, outside: a reader who leaves it closed
        # meets a code cell and its output with no word about them (00's "The cell below says
        # ...", 06's "... by the restarted pump:", issue 30)
        tail = m["inside"].rstrip()
        if tail.endswith(":") or re.search(r"cell\s+below", tail[-200:]):
            faults.append(f"the fold {summary!r} ends introducing what stands outside it")
    return faults


def test_the_hook_counts_and_the_fold_checks():
    cells = [{"cell_type": "markdown", "source": ["## A title\n\nIt's one, `two` 09:00.\n\n"
                                                 "<details><summary>The keys, one by one</summary>\n\nthree four\n\n</details>"]},
             {"cell_type": "code", "source": ["x = 1"]},
             {"cell_type": "markdown", "source": ["## Sources\n\n- many words here"]}]
    # A title It's one two 09 00, details summary The keys one by one summary, three four details
    assert [hook_words(t) for t in prose(cells)] == [18]
    assert fold_faults(prose(cells)[0]) == []
    assert fold_faults("<details><summary>Under the hood</summary>\n\nx\n\n</details>") == [
        "the summary 'Under the hood' does not say what is inside"]
    assert fold_faults("<details><summary>What the table shows</summary>\n\n</details>") == [
        "the fold 'What the table shows' opens to nothing"]
    assert fold_faults("<details><summary>The scripts and their models</summary>\n\n## The scripts\n\nx\n</details>") == [
        "the fold 'The scripts and their models' holds a heading"]
    assert fold_faults("<details><summary>The scripts and their models</summary>\n\nx") != []
    assert fold_faults("<details><summary>Where the state lives</summary>\n\nThe cell\nbelow says which.\n</details>") == [
        "the fold 'Where the state lives' ends introducing what stands outside it"]
    assert fold_faults("<details><summary>What the ids say</summary>\n\nThe ids say it:\n\n</details>") == [
        "the fold 'What the ids say' ends introducing what stands outside it"]


def question_words(cells: list[dict]) -> int:
    """The words of a page's questions as the site shows them: each one's "Question N." and
    prompt, every option, and every option's feedback (a first-time reader who picks wrong and
    tries again reads them all; counting only the longest, 02 and 03 read under 1,500 where a
    reviewer counted 1,654 and 1,695, issue 30); and each challenge's line, its goal and, once met,
    why. A page counted without the questions read 1,470 words where the site showed a reader
    1,663 (issue 30); without the challenges, 02 and 03 read under 1,500 where h69r counted 1,578
    and 1,612."""
    from emqsim.figures import catalogue
    from emqsim.lessons.questions import challenge_line, feedback

    total = 0
    for cell in cells:
        if is_panel(cell):
            model = catalogue.model(cell["metadata"]["emqsim"]["figure"])
            for n, q in enumerate(model.questions, 1):
                right = q.right(model)
                total += hook_words(f"Question {n}. {q.prompt}") + sum(hook_words(o.text) for o in q.options)
                total += sum(hook_words(feedback(q, o.key, right)) for o in q.options)
            if model.challenge is not None:     # its line, the goal, then once met why (h69r, h73r)
                total += sum(hook_words(challenge_line(model.challenge, met)) for met in (False, True))
    return total


def test_a_page_s_questions_are_counted():
    cells = json.loads((ROOT / "notebooks" / "05_overlap.ipynb").read_text())["cells"]
    assert 150 < question_words(cells) < 400       # three questions, their options and feedback, two challenges
    assert question_words([c for c in cells if not is_panel(c)]) == 0


def test_every_option_s_feedback_is_counted(monkeypatch):
    """A reader who answers wrong first reads each option's feedback in turn, not only the longest."""
    from emqsim.figures import catalogue
    from emqsim.lessons.questions import question

    q = question("q", "How many?", [("a", "one", "one two three"), ("b", "two", "four five")],
                 answer=lambda frame: "a")

    class Model:
        questions, challenge = (q,), None

        def frame(self, **_):
            return None

    monkeypatch.setattr(catalogue, "model", lambda title: Model())
    cells = [{"cell_type": "code", "id": "p", "metadata": {"emqsim": {"figure": "T"}}, "source": []}]
    # "Question 1. How many?" 4, options 2, "Right. one two three" 4, "Not quite. four five" 4
    assert question_words(cells) == 14


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_page_is_over_1500_words_folds_and_questions_included(path):
    cells = _cells(path)
    md, asked = sum(hook_words(t) for t in prose(cells)), question_words(cells)
    assert md + asked <= NOTEBOOK_BUDGET, (f"{path.name}: {md} words of Markdown and {asked} of its questions, "
                                           f"over {NOTEBOOK_BUDGET}")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_page_has_more_than_5_folds_and_every_fold_says_what_it_holds(path):
    """Folds as the site renders them: every Markdown cell's `<details>`, the Sources cell's too
    (07 kept five in its prose and a sixth round its Sources: the site showed six, issue 30)."""
    texts = prose(_cells(path))
    shown = ["".join(c["source"]) for c in _cells(path) if c["cell_type"] == "markdown"]
    assert sum(t.count("<details") for t in shown) <= FOLDS, f"{path.name}: more than {FOLDS} folds"
    faults = [f for t in texts for f in fold_faults(t)]
    assert faults == [], f"{path.name}: {faults}"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_no_markdown_cell_is_over_200_words_outside_its_folds(path):
    over = [hook_words(re.sub(r"(?s)<details>.*?</details>", "", t)) for t in prose(_cells(path))]
    assert max(over) <= RUN_BUDGET, f"{path.name}: a cell of {max(over)} words outside its folds"
