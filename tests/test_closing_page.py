"""The closing page shows its content (issue 30): 08 followed the running example through the
course inside five folds, so a reader saw five fold titles and a summary. Its retelling is now
the page itself, under headings, with few folds if any."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "notebooks" / "08_the_whole_course.ipynb"
WORD = re.compile(r"[A-Za-z0-9']+")


def test_the_closing_page_retells_the_course_unfolded():
    cells = json.loads(PAGE.read_text())["cells"]
    md = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
          and not "".join(c["source"]).lstrip().startswith("## Sources")]
    total = sum(len(WORD.findall(t)) for t in md)
    shown = sum(len(WORD.findall(re.sub(r"(?s)<details\b.*?</details>", " ", t))) for t in md)
    assert sum(t.count("<details") for t in md) <= 2
    assert shown >= 0.8 * total, f"08: {shown} of {total} words visible"
    for page in sorted((ROOT / "notebooks").glob("0[0-7]_*.ipynb")):   # a visible section links each page
        assert any(f"]({page.name})" in re.sub(r"(?s)<details\b.*?</details>", " ", t) for t in md), page.name
