"""The glossary on the built site: every anchor a page links to is a heading of glossary.html
(Sphinx's `myst_heading_anchors`). A file named test_site* so that `make test-site`, which runs
the tests that build the site, runs it; the glossary's other tests need no build."""

from __future__ import annotations

import re

import pytest
from test_glossary import NOTEBOOKS, _markdown, entries


@pytest.mark.sphinx
def test_on_the_site_every_glossary_link_lands_on_its_heading():
    """The built site (myst_heading_anchors): each anchor a page links to is an id of glossary.html."""
    import site_build

    out, _ = site_build.site()
    ids = set(re.findall(r'\bid="([^"]+)"', (out / "glossary.html").read_text()))
    wanted = {m[1] for path in NOTEBOOKS.glob("*.ipynb") for cell in _markdown(path)
              for m in re.finditer(r"\]\(glossary\.ipynb#([\w-]+)\)", cell)}
    assert {"enqueue-latency", "misfire_grace_time"} <= ids
    assert sorted(wanted - ids) == []
    assert set(entries()) <= ids
