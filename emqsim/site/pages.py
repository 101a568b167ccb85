"""The course as a static site in the course-book format: a Sphinx book (sphinx-book-theme,
myst-nb: Jupyter Book 1.x's own stack) with a contents sidebar, previous/next, search, a
phone layout, light and dark themes.

For readers who will never install anything: `make html` (``python -m emqsim.site``)
renders each notebook with the outputs it was saved with (myst-nb executes nothing) and
writes `site/index.html` and a page per notebook. The pages work offline, from disk or a
local server: the theme's fonts, icons and scripts are its own files, and no page names a
remote URL (no MathJax, require.js or widget renderer from a CDN).

A live figure's panel cell (cell metadata ``{"emqsim": {"figure": TITLE}}``) gets a player
instead of the widget, which cannot run without a kernel: the figure's frames drawn in
advance by its own model and view, with sliders that swap them (`emqsim.site.player`).
The player goes into the notebook copy Sphinx reads as an HTML output, so the book needs no
extension of ours; its pictures are written next to the pages afterwards. A widget output in
a cell without that metadata keeps a short note saying where it runs.
"""

from __future__ import annotations

import argparse
import copy
import html
import re
import shutil
import sys
import tempfile
from pathlib import Path

from ..engine.extras import MissingExtra, need
from ..lessons.course import page_label
from . import player as site_player

#: what a live figure's place says on a static page
LIVE_NOTE = ("Live figure: its sliders need the notebook running. Open this notebook in JupyterLab "
             "(make lab) or Voila (make present) to move it; the picture above is its first rendering.")

#: the book's title, on every page's header and the index
TITLE = "emqsim: the course"
#: the book's author, as CITATION.cff names the project's authors (the theme prints "By ...")
AUTHOR = "The emqsim authors"
#: words a reader takes in a minute, for a page's reading time
WORDS_PER_MINUTE = 200

_INDEX = """# {title}

The notebooks of the course as they were last run, figures included. The pages run in your
browser, with nothing behind them and no network: each live figure's sliders step through
frames drawn in advance.
To change what a page holds fixed, or to run the code, get the project and open the notebooks
in JupyterLab, the notebook editor (`make lab`), or in Voila, which shows each notebook as a page
of figures and controls without its code (`make present`).

{groups}"""

#: the index's groups, in reading order: heading, the line under it, and whether a page
#: (by file name) belongs there; a page goes under the first group that takes it
GROUPS = (
    ("The course", "Read these in order: each page uses what the ones before it showed.",
     lambda stem: in_course(stem + ".ipynb")),
    ("After the course", "Which policy to pick, then each page's depth, the code behind it and other "
     "schedulers. Read any of them, once its course page is read.",
     lambda stem: not stem.startswith("glossary")),
    ("Glossaries", "The course's words in its own sense, each with the page that shows it.",
     lambda stem: True),
)

_GROUP = """## {heading}

{line}

{listing}

```{{toctree}}
:maxdepth: 1
:caption: {heading}
:hidden:

{items}
```
"""

#: the Sphinx settings of the book (written as the conf.py of the folder Sphinx reads)
CONF = {
    "project": TITLE,
    "author": AUTHOR,
    "html_title": TITLE,
    "extensions": ["myst_nb", "sphinx_togglebutton"],
    "html_theme": "sphinx_book_theme",
    # the saved outputs are what the site shows: nothing is run
    "nb_execution_mode": "off",
    # no widget renderer from a CDN: the players replace the widgets
    "nb_ipywidgets_js": {},
    # a cell's printouts in one box: a print after the command line's own output was saved as a
    # stream of its own, and a stream holding only a newline showed as an empty box (07, h66r)
    "nb_merge_streams": True,
    "myst_enable_extensions": ["colon_fence"],
    # a link such as glossary.ipynb#enqueue-latency lands on the heading "## enqueue latency"
    "myst_heading_anchors": 2,
    "html_static_path": ["_static"],
    "html_css_files": ["emqsim-player.css"],
    # in the head, async: the controls work before the theme's scripts and the pictures arrive
    "html_js_files": [["emqsim-player.js", {"async": "async", "fetchpriority": "high"}]],
    # the notebooks are not copied into the site a second time
    "html_copy_source": False,
    "html_show_sourcelink": False,
    "html_theme_options": {"home_page_in_toc": True, "use_download_button": False,
                           "show_toc_level": 2, "navigation_with_keys": False,
                           # sphinx-book-theme 1.4.0 on pydata-sphinx-theme 0.20.0 adds a header bar
                           # across the top holding a second search field; the sidebar has one
                           "navbar_persistent": []},
    # light or dark as the reader's system says, until the reader picks one
    "html_context": {"default_mode": "auto"},
    "exclude_patterns": ["_build", "**.ipynb_checkpoints"],
    "suppress_warnings": ["myst.header", "misc.highlighting_failure"],
}


def about_of(nb) -> str:
    """What a page teaches, in one line of plain words: the notebook's own metadata
    (``{"emqsim": {"about": ...}}``), the one place the index and any other listing read it."""
    return str(nb.metadata.get("emqsim", {}).get("about", "")).strip()


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
        if cell.cell_type == "markdown":
            cell.source = without_lab_only(cell.source)
        if cell.cell_type != "code":
            continue
        title = figure_of(cell)
        cell.source = without_test_marks(cell.source)
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


#: prose that invites what only a kernel can do (type a cron expression, drag a control the
#: site holds): the notebook marks it, the site leaves it out rather than offer what it cannot run
LAB_ONLY = re.compile(r"<!-- lab-only -->.*?<!-- /lab-only -->", re.S)


def in_course(path) -> bool:
    """Whether a notebook is one of the course's numbered pages (00_..., 01_...)."""
    return bool(re.match(r"\d\d_", Path(path).name))


#: the pages read right after the course's own, first of those beside it: "Which policy when"
#: sums up the course's choices, and stood last of sixteen in the index
AFTER_COURSE = ("which_policy",)


def group_of(path) -> int:
    """Which of the index's `GROUPS` a page stands under (its place in that tuple)."""
    return next(i for i, (_, _, takes) in enumerate(GROUPS) if takes(Path(path).stem))


def in_reading_order(paths) -> list:
    """`paths` as the index and the book's navigation list them: group by group (`GROUPS`);
    within a group, `AFTER_COURSE` first, then the rest in their order."""
    paths = list(paths)

    def rank(path) -> tuple[int, int]:
        stem = Path(path).stem
        return group_of(path), AFTER_COURSE.index(stem) if stem in AFTER_COURSE else len(AFTER_COURSE)
    return sorted(paths, key=rank)      # stable: each group keeps its order


def reading_minutes(nb) -> int:
    """Minutes a first reading of a page takes: its prose's words (folds included, as the site
    shows it) at `WORDS_PER_MINUTE`, rounded up."""
    words = sum(len(re.findall(r"[\w'`*]+", without_lab_only(c.source))) for c in nb.cells
                if c.cell_type == "markdown")
    return max(1, -(-words // WORDS_PER_MINUTE))


def page_number(path) -> int:
    """A course page's number: the two digits its file name starts with (03_... is 3)."""
    return int(Path(path).name[:2])


def where_line(nb, place: str | None) -> str:
    """The line under a page's title: its place in the course (`page_label`) and its reading
    time."""
    place = f"{place} \u00b7 " if place else ""
    return f"*{place}about {reading_minutes(nb)} min read*"


def with_where(nb, line: str):
    """`nb` with `line` as a paragraph right under its first heading."""
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        lines = cell.source.split("\n")
        for i, text in enumerate(lines):
            if re.match(r"^#+\s+", text):
                cell.source = "\n".join([*lines[:i + 1], "", line, "", *lines[i + 1:]])
                return nb
    return nb


def without_lab_only(source: str) -> str:
    """A Markdown cell as the site shows it: without the spans marked lab-only."""
    return LAB_ONLY.sub("", source)


def without_test_marks(source: str) -> str:
    """A code cell as a reader needs it: the notebook test's marks (`# NBVAL_IGNORE_OUTPUT`)
    tell the test what to compare and the reader nothing."""
    return "\n".join(line for line in source.split("\n") if not line.lstrip().startswith("# NBVAL_"))


def _html_output(markup: str):
    """An HTML display output holding `markup`."""
    import nbformat

    return nbformat.v4.new_output("display_data", data={"text/html": markup})


def book_source(books: dict, players: dict, folder: Path) -> None:
    """Write what Sphinx reads into `folder`: each notebook's offline copy, the index with
    the contents, conf.py and the player's script and stylesheet."""
    import nbformat

    folder.mkdir(parents=True, exist_ok=True)
    course = [path for path in books if in_course(path)]
    listing: list[list[str]] = [[] for _ in GROUPS]
    items: list[list[str]] = [[] for _ in GROUPS]
    last = max((page_number(path) for path in course), default=0)
    for path in in_reading_order(books):
        nb = books[path]
        place = page_label(page_number(path), last) if path in course else None
        nbformat.write(with_where(_offline_copy(nb, players), where_line(nb, place)), folder / path.name)
        where = f"{place[0].lower() + place[1:]}, " if place else ""
        group = group_of(path)
        listing[group].append(f"- {{doc}}`{title_of(nb) or path.stem} <{path.stem}>` ({where}about "
                              f"{reading_minutes(nb)} min read): {about_of(nb)}")
        items[group].append(path.stem)
    groups = "\n".join(_GROUP.format(heading=heading, line=line, listing="\n".join(listing[i]),
                                      items="\n".join(items[i]))
                        for i, (heading, line, _) in enumerate(GROUPS) if items[i])
    (folder / "index.md").write_text(_INDEX.format(title=TITLE, groups=groups), encoding="utf-8")
    (folder / "conf.py").write_text("".join(f"{k} = {v!r}\n" for k, v in CONF.items()), encoding="utf-8")
    static = folder / "_static"
    static.mkdir(exist_ok=True)
    for name in ("player.js", "player.css"):
        (static / f"emqsim-{name}").write_text(site_player.served(name), encoding="utf-8")


#: what Sphinx and the theme copy that no page loads: source maps, the theme's translations
#: (used when a book is built in another language), the build's stamp and the empty sources
PRUNE = ("_static/**/*.map", "_static/locales", ".buildinfo", "_sources", "_static/scripts/fontawesome.js*")

_SCRIPT = re.compile(r"<script(?P<attrs>[^>]*)>.*?</script>\s*", re.S)
_PLAYER_JS = "emqsim-player.js"


def unblock(page: str) -> str:
    """A page whose head holds up neither its parsing nor its players. Sphinx's scripts sit in
    the head and each waits for every stylesheet (half a megabyte of theme: seconds on a slow
    link) before the browser may read on to the content; moved to the end of the body, they
    run in the same order once the content, players included, has been read. The player's
    async script moves to the top of the head, so it is asked for first. The theme's first
    inline script (it sets light or dark before the page paints) stays; FontAwesome's 1.5 MB
    script goes: the theme's stylesheet draws the same icons from its own web font."""
    head_end, body_end = page.find("</head>"), page.rfind("</body>")
    if head_end < 0 or body_end < 0:
        return page
    moved, first = [], []

    def take(m):
        attrs = m["attrs"]
        if "fontawesome.js" in attrs:
            return ""
        if _PLAYER_JS in attrs:
            first.append(m[0].strip())
            return ""
        if "data-cfasync" in attrs or "defer" in attrs:
            return m[0]
        moved.append(m[0].strip())
        return ""

    head = _SCRIPT.sub(take, page[:head_end])
    charset = head.find(">", head.find("<meta charset")) + 1 if "<meta charset" in head else head.find("<head>") + 6
    head = head[:charset] + "".join(f"\n{t}" for t in first) + head[charset:]
    body = page[head_end:body_end]
    return head + body + "".join(f"{t}\n" for t in moved) + page[body_end:]


#: the theme's search button names itself "Search" while it shows "Search Ctrl+K": a speech
#: user saying what they see would miss it (axe: label-content-name-mismatch, serious)
_SEARCH_LABEL = ('search-button__button pst-js-only" title="Search" aria-label="Search"',
                 'search-button__button pst-js-only" title="Search"')


#: the theme asks for its two deferred scripts (100 kB) at the top of the head, where on a
#: slow link they share the line with the page itself; the script tags at the end still load them
_PRELOAD = re.compile(r'<link rel="preload" as="script" href="[^"]*"\s*/?>\s*')


_CELL = re.compile(r"<t([dh])\b.*?</t\1>", re.S)
_LITERAL = re.compile(r'(<span class="pre">)([^<]*)(</span>)')
#: the longest name in a table's code kept whole on a phone: longer ones (`concurrencyPolicy`, a
#: seed file's path), whole, held 05's and course_pages_checked's tables wider than its column
SHORT_NAME = 12
#: a break opportunity after each of these in a name (a path, a file, a Lua script's name), and
#: between the humps of a camel-case one (getJobScheduler|Every|Next|Millis)
_JOINTS = re.compile(r"([/_.\-](?=[^/_.\-])|(?<=[a-z])(?=[A-Z]))")


def breakable(page: str) -> str:
    """Inline code in a table's cells with a break opportunity (`<wbr>`) after each `/`, `_`, `.`
    and `-` and between a camel-case name's humps: on a phone course_pages_checked's seed file
    names, kept whole, held the first column 364 px wide and pushed the next one out of its
    358 px column (and `getJobSchedulerEveryNextMillis.lua` another's). Words never break, only
    names at their joints. A short name with joints (`SHORT_NAME`: `buffer-one`) gets none and
    stays one chip (`emqsim-whole`, kept on one line by player.css): a phone broke it in two.
    The tests' ids in a page's Sources, plain text there, break at their joints too (`_test_id`),
    and so do a long name in the prose and in a heading; a short one there is left as it is.
    Highlighted code breaks after its punctuation and in a string after a slash: the theme's
    `overflow-wrap: anywhere` otherwise breaks a line of code inside a name."""
    def jointed(n):
        return n[1] + _JOINTS.sub(r"\1<wbr>", n[2]) + n[3]

    def literal(n):
        if len(n[2]) <= SHORT_NAME and _JOINTS.search(n[2]):
            return f'<span class="pre emqsim-whole">{n[2]}{n[3]}'
        return jointed(n)
    page = _CELL.sub(lambda m: _LITERAL.sub(literal, m[0]), page)
    # Sources: its code names as in a table (08's "RecurringJobEntity.c / s", h69r), its tests' ids
    page = _SOURCES.sub(lambda m: _TEXT.sub(lambda t: _TEST_ID.sub(_test_id, t[0]), _LITERAL.sub(literal, m[0])),
                        page)
    # and a long name in the prose: ref_storage broke storeJobScheduler inside "Scheduler" (h70r)
    page = _LITERAL.sub(lambda n: n[0] if len(n[2]) <= SHORT_NAME else jointed(n), page)
    # and in a heading's text (glossary_policies' "startingDeadlineSec|onds", h71r)
    page = _HEADING.sub(lambda h: h[1] + _LONG_WORD.sub(lambda w: _JOINTS.sub(r"\1<wbr>", w[0]), h[2]), page)
    # highlighted code breaks after a dot, a bracket or a comma and after a string's slashes, not
    # anywhere in a name (04 broke "readout" before its last letter, ref_scripts a Lua path inside
    # "advance", h71r)
    return _HIGHLIGHT.sub(lambda b: _STRING.sub(lambda t: t[1] + t[2].replace("/", "/<wbr>") + t[3],
                                                _PUNCT.sub(r"\1<wbr>", b[0])), page)


#: a heading's own text (not its attributes, not its link) and a word in it long enough to break
_HEADING = re.compile(r"(<h[1-6][^>]*>)([^<]+)")
_LONG_WORD = re.compile(r"[\w\-./]{%d,}" % (SHORT_NAME + 1))
#: a highlighted code block, the punctuation it may break after, and its strings
_HIGHLIGHT = re.compile(r'<div class="highlight"><pre>.*?</pre>', re.S)
_PUNCT = re.compile(r'(<span class="[op]">[^<]*[.(\[{,]</span>)')
_STRING = re.compile(r'(<span class="s\w*">)([^<]*)(</span>)')
#: a page's Sources section, where the tests that check each claim are named by their ids
_SOURCES = re.compile(r'<section id="sources">.*?</section>', re.S)
#: the text between two tags (never a tag's attribute)
_TEXT = re.compile(r"(?<=>)[^<]+")
#: a test's id as Sources writes it, in plain text: tests/test_peer_hangfire.py::test_relaxed_is_not_snap
_TEST_ID = re.compile(r"\btests/[\w/.\-]+(?:::\w+)?")
#: the joints of a test's id: after `/`, `_`, `.` and `::`
_ID_JOINT = re.compile(r"(::|[/_.](?=\w))")


def _test_id(m) -> str:
    """One test id with a break opportunity at each joint: on a phone 08's Sources broke
    `test_apscheduler_...` inside a word (issue 30)."""
    return _ID_JOINT.sub(r"\1<wbr>", m[0])


def finish(page: str) -> str:
    """A page as Sphinx wrote it, made fast on a slow link (`unblock`, no early preloads), its
    search button named by what it shows and the names in its tables breakable (`breakable`)."""
    return breakable(_PRELOAD.sub("", unblock(page)).replace(*_SEARCH_LABEL))


def prune(out: Path) -> None:
    """Delete from the built site what no page loads (`PRUNE`), to keep the site small."""
    for pattern in PRUNE:
        for path in sorted(out.glob(pattern), reverse=True):
            shutil.rmtree(path) if path.is_dir() else path.unlink()


def build(notebooks: Path | str = "notebooks", out: Path | str = "site", *, jobs: int | None = None,
          log=None) -> list[Path]:
    """Write one page per notebook in `notebooks` and `index.html` into `out`; returns the
    pages, index last. The live figures are rendered first, in `jobs` processes (one per
    CPU if None); `log(text)` hears how long that took. Raises ValueError when there is no
    notebook to convert, or a panel cell names a figure the catalogue does not have, and
    RuntimeError when Sphinx fails."""
    src, out = Path(notebooks), Path(out)
    paths = sorted(src.glob("*.ipynb"))
    if not paths:   # said before nbformat and Sphinx are loaded (seconds)
        raise ValueError(f"notebooks folder {str(src)!r} holds no .ipynb file; give the course's notebooks/")
    import nbformat
    from sphinx.cmd.build import build_main

    from ..figures.catalogue import SOURCES

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
    # myst-nb writes the outputs it extracts beside `out`; the pages have them by then
    extracted = out.resolve().parent / "jupyter_execute"
    leave = extracted.exists()
    with tempfile.TemporaryDirectory(prefix="emqsim-book-") as tmp:
        book = Path(tmp) / "book"
        book_source(books, players, book)
        code = build_main(["-b", "html", "-q", "-E", "-d", str(Path(tmp) / "doctrees"), str(book), str(out)])
        if code != 0:
            raise RuntimeError(f"sphinx-build failed with exit status {code}")
    if not leave:
        shutil.rmtree(extracted, ignore_errors=True)
    prune(out)
    shutil.rmtree(out / site_player.FRAMES_URL, ignore_errors=True)   # no picture of an earlier build stays
    for page in out.glob("*.html"):
        page.write_text(finish(page.read_text(encoding="utf-8")), encoding="utf-8")
    for player in players.values():
        player.write_images(out / site_player.FRAMES_URL, out / site_player.NARROW_URL)
    return [*(out / f"{path.stem}.html" for path in paths), out / "index.html"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m emqsim.site",
                                     description="Write the notebooks, with their saved outputs, as a static site.")
    parser.add_argument("notebooks", nargs="?", default="notebooks", help="folder of .ipynb files (notebooks)")
    parser.add_argument("--out", default="site", help="folder to write the pages into (site)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes drawing the live figures' frames (default: one per CPU)")
    args = parser.parse_args(argv)
    try:
        need("site", "the course's site")
        need("lab", "the course's site (its figures)")
    except MissingExtra as exc:
        print(f"emqsim.site: error: {exc}", file=sys.stderr)
        return 2
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
