"""The course pages' disputes live in one book page, "Course pages vs the code"
(notebooks/course_pages_checked.ipynb): it cites the pages as this project keeps them
(../shared/seeds/, by file name), and the notebooks' main flow teaches the mechanism, linking
to it instead of arguing with pages a first-time reader never saw (issue 28)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "notebooks" / "course_pages_checked.ipynb"
SEEDS = ROOT.parent / "shared" / "seeds"
#: the three pages, by the file names the project keeps them under
FILES = ["000_4e4d0783031570fb.txt", "002_3e602704490e3d6e.txt", "004_8b6afe2d1e2ac98d.txt"]
LINK = "(course_pages_checked.ipynb)"


def _markdown(path: Path) -> list[tuple[str, str]]:
    return [(c["id"], "".join(c["source"])) for c in json.loads(path.read_text())["cells"]
            if c["cell_type"] == "markdown"]


def test_the_page_cites_the_seed_pages_by_file_name():
    text = "\n".join(t for _, t in _markdown(PAGE))
    assert text.startswith("# Course pages vs the code")
    assert sorted(set(re.findall(r"\b\d{3}_[0-9a-f]{16}\.txt\b", text))) == FILES
    assert "../shared/seeds/" in text
    if SEEDS.is_dir():                    # where the project's copies are at hand, they are these
        assert sorted(p.name for p in SEEDS.glob("*.txt")) == FILES


def test_the_page_says_which_echomq_the_pages_describe():
    text = " ".join(" ".join(t for _, t in _markdown(PAGE)).split())
    for fact in ("EchoMQ **v1**", "b9f34ed0", "registry/addRepeatableJob-2.lua", "registry/addJobScheduler-11.lua",
                 "`EchoMQ.Repeat.register/6`", "version 2.6.5", "no tags"):
        assert fact in text, fact


@pytest.mark.parametrize("name", ["01_cron_vs_interval", "03_start_to_start", "04_missed_slots", "06_faults"])
def test_main_flow_links_the_page_instead_of_arguing(name):
    cells = _markdown(ROOT / "notebooks" / f"{name}.ipynb")
    text = "\n".join(t for _, t in cells)
    assert LINK in text
    for phrase in ("page 002", "names the wrong script", "course pages disagree", "It is not EchoMQ code",
                   "labels this \"In EchoMQ\"", "publishes no version"):
        assert phrase not in text, (name, phrase)


ECHOMQ = json.loads((ROOT / "tests" / "oracles" / "recorded" / "echomq_facts.json").read_text())


def _cell(name: str, cell_id: str) -> str:
    cells = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text())["cells"]
    return " ".join("".join(next(c for c in cells if c["id"] == cell_id)["source"]).split())


def test_what_the_pages_say_of_echomq_is_its_code():
    """Issue 28, items 5, 9, 10, read from fiberfx at b9f34ed0 (tests/oracles/echomq_facts.py):
    mix.exs's version and no tag; the vendored v1 scripts and their v3 home; the consumer's park."""
    assert ECHOMQ["commit"] == "b9f34ed0" and ECHOMQ["tags"] == []
    page = " ".join(" ".join(t for _, t in _markdown(PAGE)).split())
    assert f"version {ECHOMQ['mix_exs_version']}, no tags" in page
    for name, home in ECHOMQ["v1_scripts"].items():
        assert f"`{home['v1']}`" in page and f"`{home['v3']}`" in page, name
    # said in 03's Sources, not in its opening, where it was an aside a first-time reader tripped on
    said = f"says version {ECHOMQ['mix_exs_version']}, but the repository has no tags"
    assert said in _cell("03_start_to_start", "e3f4a5b6") and "mix.exs" not in _cell("03_start_to_start", "ef3c2580")
    park = ECHOMQ["consumer_park"]
    assert park["wake_key"] and park["defp_park"] <= park["blpop"] <= park["defp_park"] + 3
    sources = _cell("00_start_here", "c0a1e5f3")
    assert f"`{park['file']}` lines {park['defp_park']}-{park['blpop']}: the consumer parks with `BLPOP emq:{{q}}:wake`" \
        in sources


def test_page_002s_snap_is_6_7_0s_with_offset_0():
    """Issue 28, item 6: page 002's `floor(now/every)*every + every` is exactly the snap 6.7.0
    computes (`Every.after(..., "offset")`, which tests/test_oracle_bullmq_releases.py holds to
    6.7.0's recorded answers) when the offset is 0; 5.80.1's ("offset-v5") parts from 6.7.0's
    only when offset > now mod every."""
    import random
    from emqsim.engine.cadence import Every
    rng = random.Random(28)
    for _ in range(2000):
        every = rng.choice([1000, 60_000, 900_000, 3_600_000, 1_500])
        now = rng.randrange(10**12, 2 * 10**12)
        prev = now - rng.randrange(2, 50) * every - rng.randrange(every)     # behind now: the snap applies
        cad = Every(every)
        assert cad.after(prev - prev % every, now, 0, "offset") == now // every * every + every
        phase = rng.randrange(every)
        differ = cad.after(prev, now, phase, "offset") != cad.after(prev, now, phase, "offset-v5")
        assert differ == (phase > now % every), (every, now, phase)


def test_every_link_to_the_page_calls_it_by_its_one_name():
    """06 linked it as "The course pages, checked" after the page and the sidebar became "Course
    pages vs the code" (issue 30): two names read as two pages. Every link's text is the heading."""
    texts = {(p.name, m) for p in sorted(PAGE.parent.glob("*.ipynb")) for _, t in _markdown(p)
             for m in re.findall(r"\[([^\]]+)\]\(course_pages_checked\.ipynb[#)]", t)}
    assert texts and {m for _, m in texts} == {"Course pages vs the code"}, sorted(texts)


def test_the_page_says_what_its_names_are_before_it_cites_them():
    """A reader arriving from a notebook met "module R4.02", a commit hash and `../shared/seeds`
    with no word on what they are (issue 30): the opening names the module, what a commit is and
    where the folder stands, before the table cites them."""
    opening = " ".join(_markdown(PAGE)[0][1].split("| file | page |")[0].split())
    assert 'module R4.02, "Schedulers & repeatable jobs"' in opening
    assert "a commit is one saved version of a repository" in opening
    assert "`../shared/seeds/`, beside the project" in opening


def test_the_course_pages_are_named_by_their_titles_not_their_file_numbers():
    """"Page 004", "page 002" and "page 000" read like this course's own pages 00 to 02 (issue
    30, h68r): the page names the three by short titles; the numbers stay in the file names."""
    text = " ".join(t for _, t in _markdown(PAGE))
    assert re.findall(r"\b[Pp]ages? 00[024]\b|\| 00[024]:|\b00[024] and 00[024]\b", text) == []
    for title in ("*Cron vs interval*", "*Start-to-start*", "*Anchored*"):
        assert title in text, title
