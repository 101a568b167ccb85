"""How each notebook page is laid out: a Summary and the way on at its end, each live figure shown
once, and after Run All every panel at the defaults its prose describes.

Read from the committed notebooks (sources and stored outputs), so no kernel is needed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from test_notebook_words import body  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _text(cell: dict) -> str:
    return "".join(cell["source"])


def _figure(cell: dict) -> str | None:
    meta = cell.get("metadata", {}).get("emqsim")
    return meta.get("figure") if cell["cell_type"] == "code" and isinstance(meta, dict) else None


def _images(cell: dict) -> int:
    return sum("image/png" in out.get("data", {}) for out in cell.get("outputs", []))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_a_notebook_ends_with_a_summary_and_a_link_to_the_next(path):
    cells = _cells(path)
    summary = _text(cells[-2])
    assert cells[-2]["cell_type"] == "markdown" and summary.startswith("## Summary\n"), \
        f"{path.name}: the cell before Sources is not '## Summary'"
    bullets = re.findall(r"^- ", body(summary), re.M)   # the recap in full may sit folded below
    assert 3 <= len(bullets) <= 5, f"{path.name}: its Summary has {len(bullets)} bullets, not 3 to 5"
    i = NOTEBOOKS.index(path)
    nxt = NOTEBOOKS[(i + 1) % len(NOTEBOOKS)].name   # the last one leads back to the start
    assert re.search(rf"\]\({re.escape(nxt)}\)", summary), f"{path.name}: its Summary does not link to {nxt}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_live_figure_shows_once(path):
    """A panel cell holds one output: the widget, with the figure as PNG beside it for a reader
    without a kernel (the site puts its player there); no other cell shows a still copy."""
    for cell in _cells(path):
        if cell["cell_type"] != "code":
            continue
        if _figure(cell):
            outs = cell.get("outputs", [])
            assert len(outs) == 1 and WIDGET_VIEW in outs[0].get("data", {}) and _images(cell) == 1, \
                f"{path.name} {cell['id']}: a panel cell should hold one widget output with its PNG"
        else:
            assert _images(cell) == 0, f"{path.name} {cell['id']}: a still copy of a figure outside its panel"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_moves_a_live_figure(path):
    """Printed examples come from the model (`model.frame(...)`), so after Run All each panel
    still shows its defaults, the state the prose around it describes."""
    cells = _cells(path)
    names = set()
    for cell in cells:
        if cell["cell_type"] == "code":
            names |= set(re.findall(r"^(\w+)\s*=\s*catalogue\.figure\(", _text(cell), re.M))
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        for name in names:
            assert not re.search(rf"\b{name}\.(update|panel\(\)\.widgets)\b|\b{name}\.values\[", _text(cell)), \
                f"{path.name} {cell['id']}: moves the live figure {name!r}"
        assert not re.search(r"\.widgets\[[^]]+\]\.value\s*=", _text(cell)), \
            f"{path.name} {cell['id']}: sets a panel's control"


def test_a_panel_displays_as_its_widget_with_the_figure_beside_it():
    import base64

    from emqsim.figures import catalogue

    fig = catalogue.figure("03 wake latency")
    data = fig.panel()._repr_mimebundle_()
    assert set(data) == {"text/plain", WIDGET_VIEW, "image/png"}
    assert base64.b64decode(data["image/png"])[:8] == b"\x89PNG\r\n\x1a\n"


def _saved_controls(nb: dict, cell: dict) -> dict:
    """What the panel's widgets showed when the notebook was saved, by their description: a
    slider's or a choice's label at its index, a text box's value; and the readout's HTML."""
    state = nb["metadata"]["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    shown: dict = {}

    def walk(model_id: str) -> None:
        s = state[model_id]["state"]
        name = state[model_id]["model_name"]
        if name in ("SelectionSliderModel", "ToggleButtonsModel", "DropdownModel") and "index" in s:
            shown[s["description"]] = s["_options_labels"][s["index"]]
        elif name == "TextModel":
            shown[s["description"]] = s["value"]
        elif name == "HTMLModel" and 'id="' in s.get("value", ""):
            shown.setdefault("readout", s["value"])
        for child in s.get("children", []):
            walk(child.removeprefix("IPY_MODEL_"))

    out = cell["outputs"][0]["data"][WIDGET_VIEW]
    walk(out["model_id"])
    return shown


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_after_run_all_every_panel_was_saved_at_its_defaults(path):
    """The executed notebook's saved widget state: every panel's controls and readout are at the
    model's defaults, the state the prose around the figure describes."""
    from emqsim.figures import catalogue
    from emqsim.figures.controls import readout_html

    nb = json.loads(path.read_text())
    for cell in nb["cells"]:
        title = _figure(cell)
        if not title:
            continue
        model = catalogue.model(title)
        values = model.defaults()
        expected = {(c.label or c.name): (values[c.name] if c.kind == "text" else model.label(c.name, values))
                    for c in model.controls}
        expected["readout"] = readout_html(model.frame().readout, model.readout_id, model.describe(model.frame()))
        shown = _saved_controls(nb, cell)
        assert {k: shown.get(k) for k in expected} == expected, f"{path.name}: {title!r} was saved off its defaults"
        close = getattr(model, "close", None)
        if close is not None:
            close()


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_page_opens_with_a_code_the_student_cannot_read(path):
    """Issue 30: 01 opened "*Course page R4.02.1 · Schedulers & repeatable jobs*" under its title,
    a label a student cannot place. A page's opening cell names no course page by its code; a
    page that teaches one says so in its Sources, plainly, with the link to the page that sets
    the course pages beside the code."""
    first = next(_text(c) for c in _cells(path) if c["cell_type"] == "markdown")
    assert not re.search(r"\bR\d\.\d\d", first), path.stem
    sources = [_text(c) for c in _cells(path) if _text(c).startswith("## Sources")]
    for text in (" ".join(t.split()) for t in sources):
        for code in re.findall(r"\bR\d\.\d\d(?:\.\d)?", text):
            assert re.search(rf"course page {re.escape(code)}\b.{{0,120}}?\bthis page teaches", text, re.I) \
                and "(course_pages_checked.ipynb)" in text, (path.stem, code)


def test_01_says_which_course_page_it_teaches():
    text = "".join(_text(c) for c in _cells(ROOT / "notebooks" / "01_cron_vs_interval.ipynb"))
    assert re.search(r"- Course page R4\.02\.1, .{0,100}? is what this page teaches", " ".join(text.split()))


#: how a matplotlib marker is named in prose
_MARK_NAMES = {"o": "circle", "D": "diamond", "s": "square"}


def test_07s_key_to_its_figure_is_visible_and_matches_the_marks_drawn():
    """Issue 30: 07's figure meets a student with diamonds, squares, crosses, a grey band and a
    dashed line, and the key to them sat in a fold. The cell above the figure says, outside any
    fold, what each mark means, naming each library with the mark the figure draws for it."""
    from emqsim.figures.cron_time_zones import LOOK

    cells = _cells(ROOT / "notebooks" / "07_cron_time_zones.ipynb")
    panel = next(i for i, c in enumerate(cells) if _figure(c))
    above = [c for c in cells[:panel] if c["cell_type"] == "markdown"]
    shown = re.sub(r"(?s)<details>.*?</details>", " ", "\n".join(map(_text, above))).lower()
    for mark in ("circle", "diamond", "square", "cross", "dashed line", "grey band"):
        assert mark in shown, mark
    said = {"debian": "debian cron", "cron-parser": "cron-parser", "croniter": "croniter"}
    for rule, (marker, _colour) in LOOK.items():
        name = _MARK_NAMES[marker]
        # the library's name stands within a few words after its mark's name
        assert re.search(rf"\b{name}\W+(?:\w+\W+){{0,4}}?\(?{re.escape(said[rule])}", shown), (rule, name)


def test_reports_is_the_every_15_minutes_schedule_on_every_page():
    """One name, one meaning: 00, 02 and 08 make `reports` the schedule every 15 minutes, and 01
    named its 09:00 cron `reports` too (h62r). No page nor lesson binds the name to a cron."""
    cron = re.compile(r"""\breports\s*=\s*Cron\(|Schedule\(\s*["']reports["']\s*,\s*Cron\(|`reports` on the cron""")
    found = [p.name for p in NOTEBOOKS if any(cron.search(_text(c)) for c in _cells(p))]
    found += [p.name for p in sorted((ROOT / "emqsim" / "lessons").glob("*.py")) if cron.search(p.read_text())]
    assert found == []


def test_a_command_line_trace_of_a_cron_names_its_schedule():
    """The command line's `trace` names a schedule `reports` unless told (`--name`), and 07's
    traces of daily crons printed `repeat:reports:...` ids (h63r). Every trace of a cron a page
    runs gives the schedule a name of its own."""
    unnamed = []
    for p in NOTEBOOKS:
        for c in _cells(p):
            if c["cell_type"] != "code":
                continue
            for call in re.findall(r"main\(\[(.*?)\]\)", _text(c), re.S):
                if '"trace"' in call and '"--cron"' in call and '"--name"' not in call:
                    unnamed.append((p.name, " ".join(call.split())[:60]))
    assert unnamed == []


def test_a_slot_derived_job_id_is_written_one_way():
    """06's second question wrote `repeat:<id>:<ms>`, its prose `repeat:<name>:<slot ms>` (h63r):
    every page and lesson writes the schedule's part as `<name>` (or the name itself) and the slot
    as `<slot ms>` (h64r then read `<ms>` and `<score>` on ref_bullmq_design)."""
    forms = set()
    texts = [_text(c) for p in sorted((ROOT / "notebooks").glob("*.ipynb")) for c in _cells(p)]
    texts += [p.read_text() for p in sorted((ROOT / "emqsim" / "lessons").glob("*.py"))]
    for text in texts:
        forms |= set(re.findall(r"\brepeat:(<[^>]*>|\w+):<([^>]*)>", text))
    assert {name for name, _ in forms} <= {"<name>", "reports"} and {slot for _, slot in forms} == {"slot ms"}, forms


#: a figure's mark named by its lightness: the dark theme turns every figure (style.DARK_CSS), so
#: "the black line" of the light page is drawn white on the dark one (h65r, issue 30: 01's "Black
#: line: now", 02's "dark dashed line", 05's "black x")
_LIGHTNESS = re.compile(r"\b(black|white|dark|light)(?:-| )(?:\w+ )?(line|ring|x|cross|dot|bar|square|"
                        r"diamond|dashes|dashed|dotted|blue|grey|gray)\b", re.I)


@pytest.mark.parametrize("path", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_the_prose_names_no_mark_by_a_lightness_the_dark_theme_turns(path):
    said = [m[0] for c in json.loads(path.read_text())["cells"] if c["cell_type"] == "markdown"
            for m in _LIGHTNESS.finditer(body("".join(c["source"])))]
    assert said == [], f"{path.name}: {said}"


def test_the_lightness_words_are_caught():
    assert [m[0] for m in _LIGHTNESS.finditer("**Black line**: now. The dark dashed line; a black x; the "
                                              "light blue line; a dark theme; the dotted line")] == [
        "Black line", "dark dashed line", "black x", "light blue line"]


def _title(page: str) -> str:
    cells = json.loads((ROOT / "notebooks" / page).read_text())["cells"]
    return "".join(cells[0]["source"]).splitlines()[0].lstrip("# ").strip()


def test_a_link_to_a_course_page_calls_it_by_its_title():
    """"[06 Faults]" and "[07 The day the wall clock jumps]" named pages the contents call "A crash
    between two writes" and "Cron in a time zone: ..." (h65r): a link that names a course page by
    its number says its title, or one of the title's two parts either side of its colon."""
    wrong = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        text = "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"]
                         if c["cell_type"] == "markdown")
        for number, said, page in re.findall(r"\[(\d\d) ([^\]]+)\]\((\d\d_[a-z_]+\.ipynb)\)", text):
            title = _title(page)
            names = {title.lower(), *(part.strip().lower() for part in title.split(":"))}
            if not page.startswith(number) or said.strip().lower() not in names:
                wrong.append((path.stem, f"{number} {said}", title))
    assert wrong == []


def test_no_sentence_starts_with_the_package_name_bullmq():
    """"bullmq 6.7.0 has no pump" began a sentence on ref_bullmq_design twice (h66r, h67r), and
    "**bullmq 6.7.0** keeps..." list items on 04 and the reference pages (h68r): where a sentence
    or a list item starts, the library is BullMQ. Sources lines (package names) aside."""
    said = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for c in json.loads(path.read_text())["cells"]:
            text = "".join(c["source"])
            if c["cell_type"] != "markdown" or text.startswith("## Sources"):
                continue
            said += [(path.stem, m[0]) for m in re.finditer(r"(?:^|[.!?]\s+|^\s*[-*]\s+(?:\*\*)?)bullmq\b[^.\n]{0,20}",
                                                            text, re.M)]
    assert said == []
