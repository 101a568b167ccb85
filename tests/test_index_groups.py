"""The site's index as a course index (issue 30): a first-time student found a flat list of
twenty-five links, each with only its place and reading time. The index groups the pages under
headings (the course in order, then the pages after it, then the glossaries) and says under each
title, in one line, what the page teaches: the line each notebook holds in its metadata
(`{"emqsim": {"about": ...}}`), one place for the index and anything else that lists pages.

Built with `book_source` into a folder, as the site's build does, without Sphinx: what is
checked is the Markdown the book reads.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from emqsim.site import pages

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
HEADINGS = ["The course", "After the course", "Glossaries"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    books = {p: nbformat.read(p, as_version=4) for p in NOTEBOOKS}
    folder = tmp_path_factory.mktemp("book")
    pages.book_source(books, {}, folder)
    return (folder / "index.md").read_text(encoding="utf-8")


def sections(index: str) -> dict[str, list[str]]:
    """Heading -> the page names listed under it, in order."""
    out: dict[str, list[str]] = {}
    head = None
    for line in index.splitlines():
        if line.startswith("## "):
            head = line[3:]
            out[head] = []
        m = re.match(r"^- \{doc\}`[^`]*<(\w+)>`", line)
        if m:
            assert head, f"{m[1]} is listed before any heading"
            out[head].append(m[1])
    return out


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_page_says_what_it_teaches_in_one_line(nb):
    about = pages.about_of(nbformat.read(nb, as_version=4))
    assert about and "\n" not in about and about.endswith(".")
    assert len(about) <= 110, f"{nb.stem}: {len(about)} characters, {about!r}"
    assert "](" not in about and "`" not in about, f"{nb.stem}: plain words, no links or code: {about!r}"


def test_the_index_groups_the_pages_under_three_headings(index):
    got = sections(index)
    assert list(got) == HEADINGS
    course = [p.stem for p in NOTEBOOKS if pages.in_course(p)]
    assert got["The course"] == course and course[0] == "00_start_here" and len(course) == 9
    assert got["After the course"][0] == "which_policy"
    assert sorted(got["After the course"][1:]) == sorted(p.stem for p in NOTEBOOKS
                                                         if p.stem.startswith("ref_") or p.stem == "course_pages_checked")
    assert got["Glossaries"] == ["glossary", "glossary_policies", "glossary_time"]


def test_each_page_is_listed_once_with_its_line(index):
    listed = [name for names in sections(index).values() for name in names]
    assert sorted(listed) == sorted(p.stem for p in NOTEBOOKS)
    for nb in NOTEBOOKS:
        book = nbformat.read(nb, as_version=4)
        line = next(x for x in index.splitlines() if f"<{nb.stem}>`" in x)
        assert line.endswith(pages.about_of(book)), line
        assert f"about {pages.reading_minutes(book)} min read" in line
    assert "- {doc}`Cron vs interval <01_cron_vs_interval>` (page 1 of 8, about " in index


def test_the_contents_follow_the_index(index):
    """The sidebar's contents and previous/next follow the index: one toctree per heading, each
    listing that heading's pages in its order."""
    trees = re.findall(r"```\{toctree\}\n(.*?)```", index, re.S)
    assert [re.search(r":caption: (.*)", t)[1] for t in trees] == HEADINGS
    assert [[x for x in t.splitlines() if x and not x.startswith(":")] for t in trees] == list(sections(index).values())
    assert [n for t in sections(index).values() for n in t] == [p.stem for p in pages.in_reading_order(NOTEBOOKS)]
