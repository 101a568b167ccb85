"""The course as a static site: one HTML page per notebook, with its figures, and an index.

For readers who will never install anything: `make html` (``python -m emqsim.site``)
converts each notebook with the outputs it was saved with (no notebook is executed) and
writes `site/index.html` linking the pages. The pages work offline, with no kernel:
figures are PNGs embedded in the page, and the template leaves out every script that
would come from a CDN (require.js, MathJax, Mermaid, the widget renderer).

A live figure's panel cell (cell metadata ``{"emqsim": {"figure": TITLE}}``) gets a player
instead of the widget, which cannot run without a kernel: the figure's frames drawn in
advance by its own model and view, with sliders that swap them (`emqsim.site.player`).
A widget output in a cell without that metadata keeps a short note saying where it runs.
"""

from __future__ import annotations

import argparse
import copy
import html
import re
import sys
from pathlib import Path

from . import player as site_player

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
  div.emqsim-player { border-left: 4px solid #0072B2; padding: 0.3em 0.8em; font-family: sans-serif; }
  div.emqsim-control { display: flex; align-items: center; gap: 0.6em; margin: 0.3em 0; flex-wrap: wrap; }
  div.emqsim-control .emqsim-label { min-width: 7em; }
  div.emqsim-control input.emqsim-slider { width: 420px; max-width: 60vw; }
  div.emqsim-control input.emqsim-speed { width: 100px; }
  div.emqsim-control output { font-family: monospace; min-width: 5em; }
  div.emqsim-control .emqsim-held-note, p.emqsim-held, p.emqsim-about { color: #555; font-style: italic; font-size: 0.9em; }
  div.emqsim-player pre.emqsim-readout { margin: 0.4em 0; white-space: pre-wrap; word-break: normal;
                                        overflow-wrap: break-word; font-family: monospace; }
  div.emqsim-player img.emqsim-frame { max-width: 100%; height: auto; display: block; }
  fieldset.emqsim-question { border: 1px solid #bbb; border-radius: 4px; margin: 0.5em 0; padding: 0.4em 0.8em; }
  fieldset.emqsim-question legend { padding: 0 0.3em; }
  fieldset.emqsim-question label.emqsim-option { display: block; margin: 0.2em 0; cursor: pointer; }
  div.emqsim-buttons { display: flex; gap: 0.6em; margin: 0.4em 0; }
  div.emqsim-buttons button { font: inherit; padding: 0.2em 0.8em; }
  div.emqsim-feedback[data-right="1"], p.emqsim-challenge[data-met="1"] { color: #1a7f37; }
  div.emqsim-feedback[data-right="0"] { color: #b35900; }
  p.emqsim-challenge { border: 1px dashed #888; border-radius: 4px; padding: 0.3em 0.8em; }
</style>
{%- endblock html_head_css -%}
{%- block body_header -%}
{{ super() }}
<nav class="emqsim-nav"><a href="index.html">&larr; all notebooks</a></nav>
{%- endblock body_header -%}
{%- block body_footer -%}
</main>
{%- if resources.emqsim_player_js %}
<script>
{{ resources.emqsim_player_js }}
</script>
{%- endif %}
</body>
{%- endblock body_footer -%}
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
kernel and no network: each live figure's sliders step through frames drawn in advance.
To change what a page holds fixed, or to run the code, open the notebooks in JupyterLab
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


def figure_of(cell) -> str | None:
    """The catalogue title of the live figure a panel cell shows, from its cell metadata."""
    from ..figures.catalogue import CELL_KEY

    meta = cell.get("metadata", {}).get(CELL_KEY)
    title = meta.get("figure") if isinstance(meta, dict) else None
    return title if isinstance(title, str) and title else None


def panel_titles(nb) -> list[str]:
    """The titles of the live figures whose panels the notebook shows, in cell order."""
    return [t for cell in nb.cells if cell.cell_type == "code" and (t := figure_of(cell))]


def _offline_copy(nb, players: dict | None = None):
    """The notebook as a page shows it: no saved widget state (nothing on the page could
    render it); a panel cell's widget output replaced by the figure's player (`players`, by
    title), any other widget output (with its "VBox(children=..." text) by the note that
    says where the live figure runs."""
    nb = copy.deepcopy(nb)
    nb.metadata.pop("widgets", None)
    players = players or {}
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        title = figure_of(cell)
        player = players.get(title) if title else None
        outputs, placed = [], False
        for out in cell.get("outputs", []):
            if WIDGET_VIEW in out.get("data", {}):
                if player is None:
                    out["data"] = {"text/html": _LIVE_HTML}
                elif placed:
                    continue
                else:
                    out = _html_output(player.html())
                    placed = True
            outputs.append(out)
        if player is not None and not placed:
            outputs.append(_html_output(player.html()))
        cell["outputs"] = outputs
    return nb


def _html_output(markup: str):
    """An HTML display output holding `markup`."""
    import nbformat

    return nbformat.v4.new_output("display_data", data={"text/html": markup})


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


def build(notebooks: Path | str = "notebooks", out: Path | str = "site", *, jobs: int | None = None,
          log=None) -> list[Path]:
    """Write one page per notebook in `notebooks` and `index.html` into `out`; returns the
    pages, index last. The live figures are rendered first, in `jobs` processes (one per
    CPU if None); `log(text)` hears how long that took. Raises ValueError when there is no
    notebook to convert, or a panel cell names a figure the catalogue does not have."""
    import nbformat

    from ..figures.catalogue import SOURCES

    src, out = Path(notebooks), Path(out)
    paths = sorted(src.glob("*.ipynb"))
    if not paths:
        raise ValueError(f"notebooks folder {str(src)!r} holds no .ipynb file; give the course's notebooks/")
    books = {path: nbformat.read(path, as_version=4) for path in paths}
    titles = []
    for path, nb in books.items():
        for title in panel_titles(nb):
            if title not in SOURCES:
                raise ValueError(f"{path.name}: a panel cell names the figure {title!r}; "
                                 f"the catalogue has {sorted(SOURCES)}")
            titles.append(title)
    players = site_player.players(titles, jobs=jobs)
    if log is not None:  # no clock read: the site is the same whenever it is built
        frames = sum(len(p.frames) for p in players.values())
        log(f"{len(players)} live figures, {frames} frames rendered")
        for player in players.values():
            log(f"  {player.summary()}")
    out.mkdir(parents=True, exist_ok=True)
    exp = exporter()
    script = site_player.script()
    stems = {p.stem for p in paths}
    written, items = [], []
    for path, nb in books.items():
        resources = {"metadata": {"name": path.stem}}
        if panel_titles(nb):
            resources["emqsim_player_js"] = script
        body, _ = exp.from_notebook_node(_offline_copy(nb, players), resources=resources)
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
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes drawing the live figures' frames (default: one per CPU)")
    args = parser.parse_args(argv)
    if args.jobs is not None and args.jobs < 1:
        print(f"emqsim.site: error: --jobs {args.jobs} must be 1 or more", file=sys.stderr)
        return 2
    try:
        pages = build(args.notebooks, args.out, jobs=args.jobs, log=print)
    except ValueError as exc:
        print(f"emqsim.site: error: {exc}", file=sys.stderr)
        return 2
    index = pages[-1]
    total = sum(p.stat().st_size for p in pages)
    for p in pages[:-1]:
        print(f"  {p.name}: {p.stat().st_size / 1e6:.1f} MB")
    print(f"{len(pages) - 1} pages and {index} written ({total / 1e6:.1f} MB); "
          f"open {index.resolve().as_uri()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
