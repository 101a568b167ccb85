"""The README fits on a page or two and sends a reader on; every page it and docs/ link to is there.

Issue 31: the README had grown to 727 lines, most of it benchmark output and notes on how
figures were measured. It now says what emqsim is, the two commands, the three ways in, the
notebooks and where to read more; the rest is in docs/."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_readme_is_at_most_200_lines():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_the_readme_has_the_two_commands_and_the_three_ways_in():
    text = (ROOT / "README.md").read_text()
    heads = re.findall(r"^## (.+)$", text, re.M)
    assert heads[:3] == ["Two commands", "The notebooks", "Three ways in"]
    assert "make lab " in text and "make test " in text


def test_the_readme_lists_every_docs_page():
    text = (ROOT / "README.md").read_text()
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in text, page.name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_local_link_of_a_page_exists(page):
    missing = [link for link in LINK.findall(page.read_text())
               if "://" not in link and not link.startswith("#")
               and not (page.parent / link.split("#")[0]).exists()]
    assert missing == []
