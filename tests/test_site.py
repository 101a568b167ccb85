"""The static site (`make html`): a page per notebook with its saved figures, an index linking
them, nothing that needs a kernel or the network."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from emqsim import site

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PNG_IMG = re.compile(r'<img\s[^>]*src="data:image/png;base64,[A-Za-z0-9+/=]{100,}"')

pytestmark = pytest.mark.skipif(not NOTEBOOKS, reason="no notebooks/*.ipynb to build a site from")


class Refs(HTMLParser):
    """Every href and src on a page, and the scripts and stylesheets it would load."""

    def __init__(self):
        super().__init__()
        self.hrefs, self.loads = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.hrefs.append(a["href"])
        if tag in ("script", "img", "iframe") and a.get("src"):
            self.loads.append(a["src"])
        if tag == "link" and a.get("href"):
            self.loads.append(a["href"])


def refs(text: str) -> Refs:
    r = Refs()
    r.feed(text)
    return r


def saved(path: Path, mime: str) -> int:
    """How many outputs of the committed notebook carry `mime`."""
    nb = nbformat.read(path, as_version=4)
    return sum(mime in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    return out, site.build(ROOT / "notebooks", out)


def test_one_page_per_notebook_and_an_index(built):
    out, pages = built
    assert [p.name for p in pages] == [f"{nb.stem}.html" for nb in NOTEBOOKS] + ["index.html"]
    assert all(p.parent == out and p.stat().st_size > 0 for p in pages)


def test_index_links_every_page_and_every_link_resolves(built):
    out, _ = built
    index = (out / "index.html").read_text()
    hrefs = refs(index).hrefs
    assert hrefs == [f"{nb.stem}.html" for nb in NOTEBOOKS]
    assert all((out / h).is_file() for h in hrefs)
    for nb in NOTEBOOKS:  # each entry is titled with the notebook's first heading
        title = site.title_of(nbformat.read(nb, as_version=4))
        assert title and f">{title}</a>" in index.replace("&#x27;", "'").replace("&amp;", "&")


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_page_has_its_figures_and_no_widget_error(built, nb):
    out, _ = built
    page = (out / f"{nb.stem}.html").read_text()
    # every figure saved in the notebook is on the page, embedded
    assert len(PNG_IMG.findall(page)) == saved(nb, "image/png")
    if nb.stem != "00_start_here":
        assert saved(nb, "image/png") >= 1, f"{nb.name} was saved without its static figure"
    # each live figure's place says where it runs, instead of a widget error or a repr
    assert page.count('<p class="emqsim-live">') == saved(nb, "application/vnd.jupyter.widget-view+json")
    assert "Error displaying widget" not in page
    assert "VBox(children=" not in page
    assert 'href="index.html"' in page


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_page_works_offline(built, nb):
    out, _ = built
    page = (out / f"{nb.stem}.html").read_text()
    r = refs(page)
    remote = [u for u in r.loads if not u.startswith("data:")]
    assert remote == [], "the page would load these from elsewhere"
    assert "<script" not in page  # no require.js, MathJax, widget renderer
    assert "application/vnd.jupyter.widget-state+json" not in page
    for href in r.hrefs:  # links between pages resolve; links out are plain links
        if not href.startswith(("http://", "https://", "#", "mailto:")):
            assert (out / href.split("#")[0]).is_file(), href


def test_links_to_other_notebooks_point_at_their_pages():
    assert site._link_pages('<a href="01_x.ipynb#Top">', {"01_x"}) == '<a href="01_x.html#Top">'
    assert site._link_pages('<a href="other.ipynb">', {"01_x"}) == '<a href="other.ipynb">'


def test_title_of_reads_the_first_heading():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("# not a heading"),
                                         nbformat.v4.new_markdown_cell("Intro\n\n## *Cron* vs `interval` ##")])
    assert site.title_of(nb) == "Cron vs interval"
    assert site.title_of(nbformat.v4.new_notebook()) == ""


def test_no_notebook_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match=r"^notebooks folder '.*' holds no \.ipynb file; give the course's notebooks/$"):
        site.build(tmp_path, tmp_path / "out")
    assert site.main([str(tmp_path), "--out", str(tmp_path / "out")]) == 2
