"""Every notebook in JupyterLab, in a real browser: run all cells, then move every control of
every live figure (sliders with the keyboard, buttons and drop-downs with the mouse, a cron
text box by typing) and check that the image changed and the readout is the model's for
what the controls now show: the same text `catalogue.model(title).frame(**values)` gives
here, in the test process. A figure with a Play button gets it pressed.

Notebooks are found in notebooks/ and figures in the page (a figure is named by its readout
element's id), so a new notebook or figure is covered as soon as it exists. One screenshot
per notebook goes to test-artifacts/. JupyterLab runs with the project's settings
(lab-settings/): its "Jupyter news?" pop-up must not show.
"""

from __future__ import annotations

import json
import re
import urllib.request

import nbformat
import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import NOTEBOOKS, VIEWPORT  # noqa: E402
from figure_page import (  # noqa: E402
    CHALLENGE_CLASS, DROPDOWNS, FIGURE_SLIDERS, QUESTION_CLASS, TOGGLES, WIDGET_VIEW, choose, expected_readout,
    figure_title, lab_answer, lab_reach, lab_show_me, move, plain_feedback, play_moves_slider, state, toggle,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from emqsim.figures import catalogue  # noqa: E402
from emqsim.figures.controls import PLAY_CLASS  # noqa: E402

RUN_ALL_MS = 180_000     # the slowest notebook (02: 10,000 fires) runs in about 10 s here
OPEN_MS = 60_000
NEWS_TEXT = "Jupyter news"
NEWS_WAIT_MS = 6_000     # the pop-up shows about a second after the app starts

#: an output area whose content is a rendered widget view
WIDGET_OUTPUTS = ".jp-Notebook .jp-OutputArea-output:has(> .jupyter-widgets)"
ERROR_TEXTS = ("Error displaying widget", "Traceback (most recent call last)")


def widget_outputs(path) -> int:
    """How many live-figure (widget) outputs the committed notebook holds."""
    nb = nbformat.read(path, as_version=4)
    return sum(WIDGET_VIEW in out.get("data", {}) for cell in nb.cells for out in cell.get("outputs", []))


def strip_outputs(path) -> None:
    """Clear the served copy's outputs and counts, so 'every cell numbered' means 'ran now'."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


def kernel_ready(page) -> None:
    """Wait until the notebook's kernel is connected and idle: the toolbar's indicator says idle
    before the kernel has even started, the status bar's 'Idle' only once it answers."""
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=OPEN_MS)
    page.wait_for_function(
        r"""() => [...document.querySelectorAll('.jp-StatusBar-Item')]
                 .some(e => /\|\s*Idle$/.test(e.textContent.trim()))""", timeout=OPEN_MS)


def _started(page, timeout: int) -> bool:
    """Has any code cell started ([*]) or run ([n]) within `timeout` ms?"""
    try:
        page.wait_for_function(
            r"""() => [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')]
                     .some(p => /^\[(\*|\d+)\]:$/.test(p.textContent.trim()))""", timeout=timeout)
        return True
    except PlaywrightTimeout:
        return False


def run_all(page) -> None:
    """Run every cell through the Run menu; wait until each code cell is numbered (or one failed).

    A click that lands while the kernel is still connecting runs nothing: it is tried again."""
    for attempt in range(3):
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator('.lm-Menu-item[data-command="runmenu:run-all"]').click()
        if _started(page, 15_000):
            break
    else:
        pytest.fail("Run > Run All Cells started no cell in 3 tries")
    page.wait_for_function(
        """() => {
             const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputPrompt')];
             const done = prompts.length > 0 && prompts.every(p => /^\\[\\d+\\]:$/.test(p.textContent.trim()));
             const failed = [...document.querySelectorAll('.jp-OutputArea-output')]
               .some(o => o.innerText.includes('Traceback (most recent call last)'));
             return done || failed;
           }""", timeout=RUN_ALL_MS)
    page.wait_for_selector('.jp-Notebook-ExecutionIndicator[data-status="idle"]', timeout=RUN_ALL_MS)


def errors_on_page(page) -> list[str]:
    """Error texts in any output: widget errors, tracebacks, error lines on stderr."""
    found = []
    for out in page.locator(".jp-Notebook .jp-OutputArea-output").all():
        text = out.inner_text()
        stderr = out.get_attribute("data-mime-type") == "application/vnd.jupyter.stderr"
        if any(e in text for e in ERROR_TEXTS) or (stderr and re.search(r"\b\w+Error\b", text)):
            found.append(text[:600])
    return found


NOTEBOOK_PATHS = sorted(NOTEBOOKS.glob("*.ipynb"))


@pytest.fixture
def lab_page(lab, page):
    """A page on the lab server; its kernel is stopped afterwards."""
    yield page
    page.close()
    lab.shutdown_kernels()


def check_readout(name: str, figure, what: str, settle_ms: int = 5_000) -> None:
    """The page's readout is the model's for the values the figure's controls show (given
    `settle_ms` for a kernel message still in flight)."""
    for _ in range(settle_ms // 250):
        shown, expected, values = expected_readout(figure)
        if shown == expected:
            return
        figure.page.wait_for_timeout(250)
    shown, expected, values = expected_readout(figure)
    assert shown == expected, (
        f"{name}, after {what}: the readout is not the model's for what the controls show ({values}) "
        f"(a cell's fig.update after the panel cell may have changed the figure behind the panel's "
        f"widgets):\n page:  {shown!r}\n model: {expected!r}")


def type_preset(page, figure, box, title: str) -> tuple[str, str]:
    """Type another of a text control's presets into its box, press Enter, wait for the new
    image and readout; returns (before, typed)."""
    label = box.locator(".widget-label").first.inner_text().strip()
    control = next(c for c in catalogue.model(title).controls if (c.label or c.name) == label)
    field = box.locator("input")
    before = field.input_value()
    typed = next(p for p, _ in control.positions if p != before)
    was = state(figure)
    field.fill(typed)
    field.press("Enter")
    page.wait_for_function(
        """([root, src]) => root.querySelector('img.widget-image').getAttribute('src') !== src""",
        arg=[figure.element_handle(), was["src"]], timeout=30_000)
    page.wait_for_timeout(100)
    return before, typed


#: the notebook whose first panel is photographed asking, at both sizes
SHOT = "01_cron_vs_interval"
DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}


def ask_and_reach(page, figure, title: str, name: str, artifacts) -> None:
    """The panel's first question answered wrong, its second right (the keyboard presses Check),
    Show me moves the figure there; then the controls are moved until the challenge ticks."""
    model = catalogue.model(title)
    questions = model.questions
    assert figure.locator(f".{QUESTION_CLASS}").count() == len(questions) >= 1
    q = questions[0]
    right = q.right(model)
    wrong = next(k for k in q.keys() if k != right)
    assert lab_answer(page, figure, 0, q, wrong) == plain_feedback(q, wrong, right)
    n = 1 if len(questions) > 1 else 0
    q = questions[n]
    right = q.right(model)
    assert lab_answer(page, figure, n, q, right) == plain_feedback(q, right, right)
    lab_show_me(page, figure, n, q.frame(model).readout)
    check_readout(name, figure, f"Show me of {q.id}")
    assert state(figure)["readout"] == q.frame(model).readout
    goal = lab_reach(page, figure, title)
    check_readout(name, figure, f"reaching the challenge at {goal}")
    line = figure.locator(f".{CHALLENGE_CLASS}").inner_text()
    assert line == "\u2713 Challenge met: " + model.challenge.explain.replace("`", ""), line
    if name == SHOT:
        for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(size)
            if tag == "phone":   # a phone has no room for the file browser: Ctrl+B folds it away
                page.keyboard.press("Control+b")
            page.wait_for_timeout(500)
            figure.locator(f".{QUESTION_CLASS}").nth(n).scroll_into_view_if_needed()
            page.screenshot(path=artifacts / f"lab-question-{tag}.png")
            figure.locator(f".{CHALLENGE_CLASS}").scroll_into_view_if_needed()
            page.screenshot(path=artifacts / f"lab-challenge-{tag}.png")
        page.keyboard.press("Control+b")
        page.set_viewport_size(VIEWPORT)


@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[p.stem for p in NOTEBOOK_PATHS])
def test_notebook_in_jupyterlab(lab, lab_page, artifacts, path):
    page = lab_page
    name = path.stem
    expected_widgets = widget_outputs(path)
    served = lab.root / path.name
    strip_outputs(served)

    page.goto(lab.url(f"/lab/tree/{path.name}?reset"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    kernel_ready(page)
    if any(c.cell_type == "code" for c in nbformat.read(path, as_version=4).cells):
        run_all(page)       # a page of prose only (course pages vs the code) has nothing to run
    assert errors_on_page(page) == []

    # each widget output renders as a widget (a failed one shows an error text instead)
    page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length >= n",
                           arg=[WIDGET_OUTPUTS, expected_widgets], timeout=OPEN_MS)
    figures = page.locator(WIDGET_OUTPUTS)
    assert figures.count() == expected_widgets

    first, titles, asked = None, [], False
    for f in range(figures.count()):
        figure = figures.nth(f)
        if figure.locator("img.widget-image").count() == 0:
            continue  # a widget output that is not a figure
        first = first if first is not None else figure
        figure.scroll_into_view_if_needed()
        title = figure_title(state(figure)["readout_id"])
        titles.append(title)
        moved = 0
        controls = figure.locator(f"{FIGURE_SLIDERS}, {TOGGLES}, {DROPDOWNS}")  # in page (model) order
        for i in range(controls.count()):
            control = controls.nth(i)
            kind = control.evaluate("e => e.matches('.widget-slider') ? 'slider' : "
                                    "e.matches('.widget-dropdown') ? 'drop-down' : 'buttons'")
            if kind == "slider":
                m = move(page, figure, control)
            elif kind == "drop-down":
                m = choose(page, figure, control.locator("select"))
            else:
                m = toggle(page, figure, control)
            what = f"{kind} {m.label!r} {m.before!r} -> {m.after!r}"
            assert m.src_after != m.src_before, f"{name} {title}: {what}: the figure did not redraw"
            assert m.texts_after != m.texts_before, f"{name} {title}: {what}: the readout did not change"
            check_readout(name, figure, what)
            moved += 1
        for i in range(figure.locator(".widget-text").count()):
            before, typed = type_preset(page, figure, figure.locator(".widget-text").nth(i), title)
            check_readout(name, figure, f"typing {typed!r} over {before!r}")
            moved += 1
        assert moved, f"{name}: the live figure {title!r} has no control"
        if figure == first:  # the picture of the notebook: its first figure, just moved
            figure.screenshot(path=artifacts / f"{name}-figure.png")
        if figure.locator(f".{PLAY_CLASS}").count():
            before, after = play_moves_slider(page, figure)
            assert float(after) > float(before), f"{name}: Play did not move the slider"
            check_readout(name, figure, "Play")
        if figure == first:
            ask_and_reach(page, figure, title, name, artifacts)
            asked = True
    nb = nbformat.read(path, as_version=4)
    named = [cell.metadata["emqsim"]["figure"] for cell in nb.cells if "emqsim" in cell.get("metadata", {})]
    assert titles == named, f"{name}: the page's live figures are not the panel cells' figures"
    assert asked or not named, f"{name}: no panel's questions were answered"
    assert errors_on_page(page) == []
    assert "Error displaying widget" not in page.locator(".jp-Notebook").inner_text()
    assert page.get_by_text(NEWS_TEXT).count() == 0, "JupyterLab asked about Jupyter news"

    if first is not None:
        first.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"{name}.png")


def test_no_news_pop_up(lab, page):
    """The project's settings (lab-settings/overrides.json) answer JupyterLab's "get notified
    about Jupyter news?" for the reader: never, and no update check either."""
    req = urllib.request.Request(lab.url("/lab/api/settings/@jupyterlab/apputils-extension:notification"),
                                 headers={"Authorization": f"token {lab.token}"})
    with urllib.request.urlopen(req, timeout=10) as r:
        schema = json.load(r)["schema"]["properties"]
    assert schema["fetchNews"]["default"] == "false" and schema["checkForUpdates"]["default"] is False
    page.goto(lab.url("/lab"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-LabShell", timeout=OPEN_MS)
    try:
        page.get_by_text(NEWS_TEXT).first.wait_for(timeout=NEWS_WAIT_MS)
    except PlaywrightTimeout:
        return
    pytest.fail("JupyterLab asked whether to fetch Jupyter news: lab-settings/overrides.json was not read")


#: axe findings in Lab that belong to the widget library itself (ipywidgets 8.1.9), which the
#: kernel cannot mend: a noUiSlider handle with no name (ipywidgets passes noUiSlider no handle
#: attributes), Play's icon-only buttons, an Image widget with no alt text (the model has no alt,
#: and its tooltip breaks the view: ImageView has no description). The course's Voila page names
#: all three (share/voila/templates/emqsim/emqsim-a11y.js); Lab has no page template to do so.
#: And JupyterLab 4.6's own: a code cell's editor (CodeMirror's content element) has no name, a
#: heading's collapse button has no name, the notebook's list viewport lacks its items' role.
UPSTREAM = {"aria-input-field-name": ".noUi-handle, .jp-InputArea-editor .cm-content",
            "button-name": ".widget-play button, .jp-collapseHeadingButton", "image-alt": "img.widget-image",
            "aria-required-children": ".jp-WindowedPanel-viewport"}
AXE = NOTEBOOKS.parent / "tests" / "browser" / "node_modules" / "axe-core" / "axe.min.js"


def test_a_panel_in_lab_is_labelled_live_and_passes_axe(lab, lab_page, capsys):
    """04 in Lab: each readout is a polite live region in the code font carrying the frame's alt
    text; every control has a visible label; axe, run on the notebook panel only (JupyterLab's own
    chrome left out), finds no serious or critical violation but the widget library's own
    (UPSTREAM, each checked to be one of those widgets). Prints the Tab stops from the top of the
    notebook to the first control, the order a keyboard reaches in Lab."""
    if not AXE.exists():
        pytest.skip("no tests/browser/node_modules/axe-core (cd tests/browser && npm ci --ignore-scripts)")
    page = lab_page
    path = NOTEBOOKS / "04_missed_slots.ipynb"
    strip_outputs(lab.root / path.name)
    page.goto(lab.url(f"/lab/tree/{path.name}?reset"), timeout=OPEN_MS)
    page.wait_for_selector(".jp-Notebook", timeout=OPEN_MS)
    kernel_ready(page)
    run_all(page)
    page.wait_for_selector("pre.emqsim-readout", timeout=OPEN_MS)
    figure = page.locator(WIDGET_OUTPUTS).first
    pre = figure.locator("pre.emqsim-readout")
    assert (pre.get_attribute("aria-live"), pre.get_attribute("role")) == ("polite", "status")
    model = catalogue.model("04 missed slots")
    assert pre.get_attribute("data-alt") == model.describe(model.frame())   # the lesson's words for the frame shown
    assert "monospace" in pre.evaluate("e => getComputedStyle(e).fontFamily")
    labels = figure.locator(f"{FIGURE_SLIDERS} .widget-label").all_inner_texts()
    assert labels == ["pump down", "pump up", "deadline"]
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("""async () => (await axe.run('.jp-Notebook')).violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => ({id: v.id, targets: v.nodes.map(n => n.target.join(' '))}))""")
    ours = []
    for v in found:
        where = UPSTREAM.get(v["id"])
        for target in v["targets"]:
            upstream = where is not None and page.locator(target).first.evaluate(
                "(e, sel) => e.matches(sel)", where)
            if not upstream:
                ours.append((v["id"], target))
    assert ours == [], ours
    with capsys.disabled():
        print("\n04 in Lab, axe's serious and critical findings, all upstream:",
              {v["id"]: len(v["targets"]) for v in found})
    # the keyboard's way in: Tab from the notebook's top until a figure control has the focus
    page.locator(".jp-Notebook .jp-Cell").first.click()
    page.keyboard.press("Escape")
    stops = []
    for _ in range(60):
        page.keyboard.press("Tab")
        what = page.evaluate("""() => { const e = document.activeElement;
            if (e.closest('.widget-slider, .widget-play, .widget-radio-box, .widget-button, .widget-dropdown'))
              return 'widget:' + (e.closest('.widget-slider') ? 'slider' : e.closest('.widget-play') ? 'play'
                     : e.closest('.widget-radio-box') ? 'radio' : e.closest('.widget-dropdown') ? 'dropdown' : 'button');
            return (e.className || e.tagName).toString().split(' ')[0]; }""")
        stops.append(what)
        if what.startswith("widget:"):
            break
    with capsys.disabled():
        print(f"\n04 in Lab: Tab stops to the first widget: {len(stops)}: {stops}")
    assert stops and stops[-1].startswith("widget:")
