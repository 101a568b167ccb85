"""Short pages: a reader meets a figure at least every 200 words, and no notebook asks more than
1,500 words of reading before its folded depth.

Body text is a notebook's Markdown outside `<details>` blocks (the folded "Under the hood"
depth), outside fenced code blocks and HTML tags, and outside the final `## Sources` cell. A
word is a run of non-blank characters holding a letter or a digit (a table's `|` or a
bullet's `-` is none). A run is the body between two interactive elements, a panel cell (a
code cell whose metadata names a figure, `{"emqsim": {"figure": TITLE}}`); the notebook's
start and end bound its first and last run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))

#: at most this many body words between two interactive elements (and so in one cell)
RUN_BUDGET = 200
#: at most this many body words in a notebook
NOTEBOOK_BUDGET = 1500

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
    """The notebook's runs: (where it ends: the id of the panel cell, or "end"), its words, and
    each cell's (id, words) in it."""
    out, cells_in, total = [], [], 0
    for cell in cells:
        if is_panel(cell):
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
             {"cell_type": "markdown", "id": "s", "source": ["## Sources\n\n- many words here"]}]
    assert runs(cells) == [("p1", 2, [("m1", 2)]), ("end", 1, [("m2", 1)])]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_markdown_cell_is_over_budget(path):
    over = [(cell_id, n) for _, _, cells_in in runs(_cells(path)) for cell_id, n in cells_in if n > RUN_BUDGET]
    assert over == [], f"{path.name}: cells over {RUN_BUDGET} body words (id, words): {over}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_run_of_body_text_between_two_interactive_elements_is_over_budget(path):
    over = [f"{n} words before {end} (cells {cells_in})" for end, n, cells_in in runs(_cells(path))
            if n > RUN_BUDGET]
    assert over == [], f"{path.name}: runs over {RUN_BUDGET} words: {over}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_notebook_is_over_budget(path):
    total = sum(n for _, n, _ in runs(_cells(path)))
    assert total <= NOTEBOOK_BUDGET, f"{path.name}: {total} body words, over {NOTEBOOK_BUDGET}"
