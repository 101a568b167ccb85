"""Code a reader can read: the site shows a code cell in a box that scrolls sideways, so a
comment running past its edge is cut mid-sentence and the reader sees half of what it
explains ("... the figure below stays where you put it" on every page's first cell, issue 30).
The box shows about 40 characters on a 390 px phone (measured on the built site) and more on
the desktop. Comments are prose: each comment line of a course page's code cells fits in
`COMMENT_WIDTH`, the phone's; every line of a page's first code cell, the one every reader
meets, fits in `WIDTH`. Longer code lines elsewhere (a call with its arguments) may scroll.
"""

from __future__ import annotations

import io
import json
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
#: characters of a comment line: what the site's code box shows on a 390 px phone
COMMENT_WIDTH = 40
#: characters of a line of a page's first code cell (imports run longer than a phone's 40)
WIDTH = 60


def code_cells(path: Path) -> list[str]:
    cells = json.loads(path.read_text())["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]


def long_comment_lines(source: str, width: int = COMMENT_WIDTH) -> list[str]:
    """The lines of `source` holding a comment (alone or after code) longer than `width`; the
    notebook test's own marks (`# NBVAL_...`, which the site drops) are not read."""
    lines = source.split("\n")
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT and not tok.string.startswith("# NBVAL_"):
            line = lines[tok.start[0] - 1]
            if len(line) > width:
                found.append(line)
    return found


def test_the_finder_reads_comments_not_strings():
    src = ('x = 1   # ' + "a" * 40 + '\n# short\ns = "# ' + "b" * 70 + '"\n# NBVAL_IGNORE_OUTPUT' + "c" * 60)
    assert long_comment_lines(src) == ['x = 1   # ' + "a" * 40]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_comment_line_is_wider_than_a_phone(path):
    over = [line for src in code_cells(path) for line in long_comment_lines(src)]
    assert over == [], f"{path.name}: comment lines over {COMMENT_WIDTH} characters: {over}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_first_code_cell_fits_a_phone(path):
    cells = code_cells(path)
    if not cells:
        pytest.skip(f"{path.name} has no code cell")
    over = [line for line in cells[0].split("\n") if len(line) > WIDTH]
    assert over == [], f"{path.name}: its first code cell has lines over {WIDTH} characters: {over}"
