"""A question before each reveal (issue 30): a page does not tell, above a figure, what the
figure's first question asks. h71r read 02's opening, "The registry keeps **one row per
schedule**", right above "From fire 50 to fire 100, what does Redis gain?" (right: "50 jobs, and
still one row"): the page had answered before the reader moved the slider.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_02_asks_before_it_says_the_registry_keeps_one_row():
    cells = json.loads((ROOT / "notebooks" / "02_one_row_rewritten.ipynb").read_text())["cells"]
    first = next(i for i, c in enumerate(cells) if c.get("metadata", {}).get("emqsim", {}).get("figure"))
    above = "\n".join("".join(c["source"]) for c in cells[:first] if c["cell_type"] == "markdown")
    above = re.sub(r"^#{1,6} .*$", "", above, flags=re.M)       # the page's title is its name, not a reveal
    plain = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", above).replace("*", "")
    assert not re.search(r"\bone row\b|\bper schedule\b|no list of future runs", plain, re.I), plain
    assert "?" in plain         # it asks instead
