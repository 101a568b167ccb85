"""The course as a static site: one HTML page per notebook, with its figures, and an index.

For readers who will never install anything: `make html` (``python -m emqsim.site``)
converts each notebook with the outputs it was saved with (nothing is executed) and
writes `site/index.html` linking the pages. The pages work offline, with no kernel:
figures are PNGs embedded in the page, and the template leaves out every script that
would come from a CDN (require.js, MathJax, Mermaid, the widget renderer). A live
figure's widget cannot run without a kernel; its place holds a short note, and the
static rendering saved just above it carries the picture.
"""

from __future__ import annotations

import argparse
import copy
import html
import re
import sys
from pathlib import Path

#: what a live figure's place says on a static page
LIVE_NOTE = ("Live figure: its sliders need a running kernel. Open this notebook in JupyterLab "
             "(make lab) or Voila (make present) to move it; the picture above is its first rendering.")

# The `lab` template, minus what an offline page cannot load. Its CSS is inlined by nbconvert.
_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_css -%}
<style type="text/css">
  nav.emqsim-nav { max-width: 1000px; margin: 1em auto 0; padding: 0 1em; font-family: sans-serif; }
  p.emqsim-live { border-left: 4px solid #0072B2; padding: 0.3em 0.8em; color: #333; font-style: italic; }
</style>
{%- endblock html_head_css -%}
{%- block body_header -%}
{{ super() }}
<nav class="emqsim-nav"><a href="index.html">&larr; all notebooks</a></nav>
{%- endblock body_header -%}
"""
_TEMPLATE_NAME = "emqsim_site.html.j2"

_INDEX = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{title}</title>
<style type="text/css">
  body {{ max-width: 50em; margin: 2em auto; padding: 0 1em; font-family: sans-serif; line-height: 1.5; }}
  li {{ margin: 0.6em 0; }}
  .file {{ color: #666; font-family: monospace; font-size: 0.9em; }}
</style>
</head>
<body>
<h1>{title}</h1>
<p>The notebooks of the course as they were last run, figures included. The pages need no
kernel and no network. To move the sliders, open the notebooks in JupyterLab
(<code>make lab</code>) or as apps in Voila (<code>make present</code>).</p>
<ol>
{items}
</ol>
</body>
</html>
"""


def title_of(nb) -> str:
    """The first Markdown heading of a notebook, without its #s and formatting marks."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            m = re.match(r"^#+\s+(.+?)\s*#*\s*$", line)
            if m:
                return re.sub(r"[*_`]", "", m[1])
    return ""


WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
_LIVE_HTML = f'<p class="emqsim-live">{html.escape(LIVE_NOTE)}</p>'


def _offline_copy(nb):
    """The notebook as a page shows it: no saved widget state (nothing on the page could
    render it), and each widget output (with its "VBox(children=..." text) replaced by the
    note that says where the live figure runs."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if WIDGET_VIEW in out.get("data", {}):
                out["data"] = {"text/html": _LIVE_HTML}
    return nb


def _link_pages(body: str, pages: set[str]) -> str:
    """A Markdown link to another notebook of the course points at its page instead."""
    def swap(m):
        stem = m[2]
        return f'{m[1]}{stem}.html{m[3]}' if stem in pages else m[0]

    return re.sub(r'(href=")([^"/#?]+)\.ipynb((?:#[^"]*)?")', swap, body)


def exporter():
    """nbconvert's HTML exporter with the offline `lab` template (imports nbconvert: slow)."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    return HTMLExporter(template_name="lab", template_file=_TEMPLATE_NAME,
                        extra_loaders=[DictLoader({_TEMPLATE_NAME: _TEMPLATE})],
                        embed_images=True)


def build(notebooks: Path | str = "notebooks", out: Path | str = "site") -> list[Path]:
    """Write one page per notebook in `notebooks` and `index.html` into `out`; returns the
    pages, index last. Raises ValueError when there is no notebook to convert."""
    import nbformat

    src, out = Path(notebooks), Path(out)
    paths = sorted(src.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"notebooks folder {str(src)!r} holds no .ipynb file; give the course's notebooks/")
    out.mkdir(parents=True, exist_ok=True)
    exp = exporter()
    stems = {p.stem for p in paths}
    written, items = [], []
    for path in paths:
        nb = nbformat.read(path, as_version=4)
        body, _ = exp.from_notebook_node(_offline_copy(nb), resources={"metadata": {"name": path.stem}})
        page = out / f"{path.stem}.html"
        page.write_text(_link_pages(body, stems), encoding="utf-8")
        written.append(page)
        title = title_of(nb) or path.stem
        items.append(f'<li><a href="{html.escape(page.name)}">{html.escape(title)}</a> '
                     f'<span class="file">{html.escape(path.name)}</span></li>')
    index = out / "index.html"
    index.write_text(_INDEX.format(title="emqsim: the course", items="\n".join(items)), encoding="utf-8")
    return [*written, index]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m emqsim.site",
                                     description="Write the notebooks, with their saved outputs, as a static site.")
    parser.add_argument("notebooks", nargs="?", default="notebooks", help="folder of .ipynb files (notebooks)")
    parser.add_argument("--out", default="site", help="folder to write the pages into (site)")
    args = parser.parse_args(argv)
    try:
        pages = build(args.notebooks, args.out)
    except ValueError as exc:
        print(f"emqsim.site: error: {exc}", file=sys.stderr)
        return 2
    index = pages[-1]
    print(f"{len(pages) - 1} pages and {index} written; open {index.resolve().as_uri()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
