"""Every glossary entry is reached from a page (issue 30, "a glossary page"): an entry that no
page links is a definition no reader is sent to, as `startingDeadlineSeconds` was while every page
wrote it only as code."""

from __future__ import annotations

import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
GLOSSARIES = sorted(NOTEBOOKS.glob("glossary*.ipynb"))


def _markdown(path: Path) -> str:
    return "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                     if c["cell_type"] == "markdown")


def anchors(path: Path) -> dict[str, str]:
    """{anchor: term} of a glossary page: an explicit `<a id>` where the heading has one, else the
    heading in lower case with spaces as hyphens (how the site and Lab name it)."""
    out = {}
    for m in re.finditer(r"^## (.+)$", _markdown(path), re.M):
        head = m[1]
        if head.strip().lower() == "sources":
            continue
        explicit = re.search(r'<a id="([^"]+)">', head)
        term = re.sub(r"<!--.*?-->|<[^>]+>", "", head).strip()
        out[explicit[1] if explicit else term.lower().replace(" ", "-")] = term
    return out


def test_the_anchor_reader():
    assert anchors(NOTEBOOKS / "glossary_policies.ipynb")["startingdeadlineseconds"] == "startingDeadlineSeconds"
    assert anchors(NOTEBOOKS / "glossary.ipynb")["enqueue-latency"] == "enqueue latency"


def test_every_glossary_entry_is_linked_from_a_page():
    pages = "\n".join(_markdown(p) for p in sorted(NOTEBOOKS.glob("*.ipynb")) if p not in GLOSSARIES)
    linked = set(re.findall(r"\]\((glossary[a-z_]*\.ipynb#[^)\s]+)\)", pages))
    missing = [f"{g.name}#{a}" for g in GLOSSARIES for a in anchors(g) if f"{g.name}#{a}" not in linked]
    assert "glossary_policies.ipynb#startingdeadlineseconds" not in missing
    assert missing == [], f"glossary entries no page links: {missing}"
