"""The README fits on a page or two and sends a reader on; every page it and docs/ link to is there.

Issue 31: the README had grown to 727 lines, most of it benchmark output and notes on how
figures were measured. It now says what emqsim is, the two commands, the three ways in, the
notebooks and where to read more; the rest is in docs/."""

from __future__ import annotations

import re
import sys
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


# Output blocks: each written by the command that prints it (docs/blocks.py), never pasted.
sys.path.insert(0, str(ROOT / "docs"))
import blocks as docs_blocks  # noqa: E402

EXACT = [b for page in docs_blocks.PAGES for b in docs_blocks.blocks(page) if not b.slow]
SLOW = [b for page in docs_blocks.PAGES for b in docs_blocks.blocks(page) if b.slow]


def test_every_output_block_names_the_command_that_prints_it():
    """A fence with no language or `console` shows a program's output, so a marker names the
    command (an example that is no output says what it is: `sh`, `text`, ...)."""
    assert [w for page in docs_blocks.PAGES for w in docs_blocks.unmarked(page)] == []
    assert len(EXACT) >= 6 and len(SLOW) >= 4   # the README's trace, docs/cli.md's five; the benchmarks


@pytest.mark.parametrize("block", EXACT, ids=lambda b: b.where)
def test_an_exact_block_is_what_its_command_prints_now(block):
    assert docs_blocks.run(block) == block.text, f"{block.where}: run `python docs/blocks.py`"


@pytest.mark.parametrize("block", SLOW, ids=lambda b: b.where)
def test_a_benchmark_block_says_where_it_was_printed(block):
    """Timings depend on the machine: the block's first line, written by docs/blocks.py, gives
    the commit, the cores and the load; the command it names is one the repository has."""
    assert re.fullmatch(r"# printed at commit [0-9a-f]{7,}, \d+ cores, load average \d+\.\d at the start",
                        block.text.split("\n", 1)[0]), f"{block.where}: run `python docs/blocks.py --slow`"
    script = block.command.split()[1]
    assert block.command.startswith("python ") and (ROOT / script).is_file(), block.command


def test_a_changed_block_is_found_and_rewritten(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Before.\n\n<!-- output of: python -c \"print(6 * 7)\" -->\n```console\n$ stale\n```\n"
                    "\nAfter.\n", encoding="utf-8")
    assert docs_blocks.write([page], check=True, log=lambda _: None) == [f"{page}:3"]
    docs_blocks.write([page], log=lambda _: None)
    assert page.read_text(encoding="utf-8") == ("Before.\n\n<!-- output of: python -c \"print(6 * 7)\" -->\n"
                                                "```console\n$ python -c \"print(6 * 7)\"\n42\n```\n\nAfter.\n")
    assert docs_blocks.write([page], check=True, log=lambda _: None) == []
