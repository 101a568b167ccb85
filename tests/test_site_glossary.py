"""The glossary on the built site: every anchor a page links to is a heading id of its glossary
page (Sphinx's `myst_heading_anchors`), once, and JupyterLab's extra anchors are not there. A file named test_site* so that `make test-site`, which runs
the tests that build the site, runs it; the glossary's other tests need no build."""

from __future__ import annotations

import re

import pytest
from test_glossary import GLOSSARIES, NOTEBOOKS, entries, glossary_links


@pytest.mark.sphinx
def test_on_the_site_every_glossary_link_lands_on_its_heading():
    """The built site (myst_heading_anchors): each `page#anchor` a page links to is an id of that
    glossary page's HTML, and no id is there twice (the lab-only anchors are left out)."""
    import site_build

    out, _ = site_build.site()
    ids = {}
    for name in GLOSSARIES:
        found = re.findall(r'\bid="([^"]+)"', (out / name.replace(".ipynb", ".html")).read_text())
        assert len(found) == len(set(found)), sorted(i for i in found if found.count(i) > 1)
        ids.update({f"{name}#{i}": i for i in found})
    wanted = {to for path in NOTEBOOKS.glob("*.ipynb") for _, to in glossary_links(path)}
    assert {"glossary.ipynb#enqueue-latency", "glossary_policies.ipynb#misfire_grace_time",
            "glossary.ipynb#bzpopmin", "glossary_policies.ipynb#bufferone"} <= set(ids)
    assert sorted(wanted - set(ids)) == []
    assert set(entries()) <= set(ids)
