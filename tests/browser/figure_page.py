"""What the browser tests do on a page: find the live figures, move a control, wait for the
kernel's answer, read the readout, the image and what every control shows.

A live figure is the widget box of `emqsim.figures.controls.Panel`: a row per control of its
model (a `SelectionSlider` per slider, `ToggleButtons` or a `Dropdown` per choice, `Text` per
text control), the readout in an HTML widget as `<pre id=model.readout_id>`, and one
`img.widget-image` (the figure, PNG bytes from the kernel). The readout's id names the
figure (`figure_title`); each control's description is its model label, so what the
controls show maps back to the model's values (`shown_values`) and the readout the kernel
gives can be compared with the model's own. Sliders are noUiSlider handles
(`.widget-slider .noUi-handle`, `aria-valuenow` follows the handle); the speed control of a
Play button (class `emqsim-speed`) moves no figure and is left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from emqsim.figures import catalogue
from emqsim.figures.controls import PLAY_CLASS, PLAYED_CLASS, SPEED_CLASS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
FIGURE_SLIDERS = f".widget-slider:not(.{SPEED_CLASS})"
TOGGLES = ".widget-toggle-buttons"
DROPDOWNS = ".widget-dropdown"
MOVE_MS = 20_000     # the kernel redraws in well under a second; 20 s allows a loaded machine

# the state of one live figure, read in the page in one go: image, readout, and each control
# (in page order) with its label and what it shows
_STATE_JS = f"""(root) => {{
  const img = root.querySelector('img.widget-image');
  const pre = root.querySelector('.widget-html-content pre[id]');
  const label = (e) => {{ const l = e.querySelector('.widget-label'); return l ? l.innerText.trim() : ''; }};
  const controls = [...root.querySelectorAll(
      '.widget-slider:not(.{SPEED_CLASS}), .widget-toggle-buttons, .widget-dropdown, .widget-text')]
    .map(e => {{
      if (e.matches('.widget-slider')) {{
        const r = e.querySelector('.widget-readout');
        return {{kind: 'slider', label: label(e), shown: r ? r.innerText.trim() : ''}};
      }}
      if (e.matches('.widget-toggle-buttons')) {{
        const b = e.querySelector('.widget-toggle-button.mod-active');
        return {{kind: 'toggle', label: label(e), shown: b ? b.innerText.trim() : ''}};
      }}
      if (e.matches('.widget-dropdown')) {{
        const s = e.querySelector('select');
        return {{kind: 'dropdown', label: label(e), shown: s && s.selectedIndex >= 0
                 ? s.options[s.selectedIndex].text : ''}};
      }}
      return {{kind: 'text', label: label(e), shown: e.querySelector('input').value}};
    }});
  return {{
    src: img ? img.getAttribute('src') : null,
    texts: [...root.querySelectorAll('.widget-html-content')].map(e => e.innerText.trim()),
    readout: pre ? pre.innerText : null,
    readout_id: pre ? pre.id : null,
    controls: controls,
  }};
}}"""


@dataclass
class Move:
    label: str          # the control's description
    before: str         # what the control showed before the move
    after: str
    texts_before: list
    texts_after: list
    src_before: str
    src_after: str
    state: dict = field(default_factory=dict)   # the figure's whole state after the move


def state(figure) -> dict:
    return figure.evaluate(_STATE_JS)


def _plain(text: str) -> str:
    """A label as the package writes it (the browser shows a drop-down's spaces as nbsp)."""
    return text.replace("\xa0", " ").strip()


def figure_title(readout_id: str) -> str:
    """The catalogue title of the figure whose readout element has this id."""
    found = [t for t in catalogue.SOURCES if catalogue.model(t).readout_id == readout_id]
    assert len(found) == 1, f"readout id {readout_id!r} names {found or 'no figure'} in the catalogue"
    return found[0]


def shown_values(model, controls: list[dict]) -> dict:
    """The model's values for what the controls show, matched by the controls' labels."""
    by_label = {_plain(c["label"]): c for c in controls}
    values: dict = {}
    for c in model.controls:
        label = c.label or c.name
        assert label in by_label, f"the panel shows no control labelled {label!r}: {sorted(by_label)}"
        shown = _plain(by_label[label]["shown"])
        if c.kind == "text":
            values[c.name] = shown
            continue
        matches = [v for lab, v in model.positions(c.name, values) if _plain(lab) == shown]
        assert matches, f"{label} shows {shown!r}, none of {[lab for lab, _ in model.positions(c.name, values)]}"
        values[c.name] = matches[0]
    return values


def expected_readout(figure) -> tuple[str, str, dict]:
    """(what the page's readout says, what the model says for the values the controls show,
    those values)."""
    now = state(figure)
    model = catalogue.model(figure_title(now["readout_id"]))
    values = shown_values(model, now["controls"])
    return now["readout"], model.frame(**values).readout, values


def move(page, figure, slider, key: str = "ArrowRight") -> Move:
    """Focus the slider's handle, press `key` once (ArrowLeft when already at the end), and wait
    until both the figure's image and its readout text have changed."""
    handle = slider.locator(".noUi-handle")
    label = slider.locator(".widget-label").first.inner_text().strip()
    value = slider.locator(".widget-readout").first
    before_value = value.inner_text().strip()
    at_end = handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax")
    if key == "ArrowRight" and at_end:
        key = "ArrowLeft"
    before = state(figure)
    handle.focus()
    handle.press(key)
    try:
        _wait_changed(page, figure, before)
    except PlaywrightTimeout:
        now = state(figure)
        raise AssertionError(
            f"slider {label!r} moved {before_value!r} -> {value.inner_text().strip()!r} with {key}, but in "
            f"{MOVE_MS} ms the image {'changed' if now['src'] != before['src'] else 'did not change'} and the "
            f"readout {'changed' if now['texts'] != before['texts'] else 'did not change'}: {now['texts']}") from None
    page.wait_for_timeout(100)  # a second message (readout, then image) may still be in flight
    after = state(figure)
    return Move(label, before_value, value.inner_text().strip(), before["texts"], after["texts"],
                before["src"], after["src"], after)


def choose(page, figure, select) -> Move:
    """Pick the next option of a drop-down (the previous one at the end) and wait until the
    figure's image and readout have changed."""
    label = select.locator("xpath=..").locator(".widget-label").first.inner_text().strip()
    options = select.locator("option").all_inner_texts()
    current = select.evaluate("s => s.selectedIndex")
    target = current + 1 if current + 1 < len(options) else current - 1
    return _pick(page, figure, label, options[current], options[target], f"drop-down {label!r}",
                 lambda: select.select_option(index=target))


def toggle(page, figure, buttons) -> Move:
    """Press the next button of a row of toggle buttons (the previous one at the end) and wait
    until the figure's image and readout have changed."""
    label = buttons.locator(".widget-label").first.inner_text().strip()
    all_buttons = buttons.locator(".widget-toggle-button")
    texts = [t.strip() for t in all_buttons.all_inner_texts()]
    current = all_buttons.evaluate_all("bs => bs.findIndex(b => b.classList.contains('mod-active'))")
    target = current + 1 if current + 1 < len(texts) else current - 1
    return _pick(page, figure, label, texts[current], texts[target], f"the buttons of {label!r}",
                 lambda: all_buttons.nth(target).click())


def _pick(page, figure, label: str, old: str, new: str, what: str, act) -> Move:
    """Pick `new` (was `old`) with `act()`, and wait until the image and readout have changed."""
    before = state(figure)
    act()
    try:
        _wait_changed(page, figure, before)
    except PlaywrightTimeout:
        raise AssertionError(f"{what} set to {new!r}: in {MOVE_MS} ms the figure and its readout did not "
                             "both change") from None
    page.wait_for_timeout(100)  # a second message (readout, then image) may still be in flight
    after = state(figure)
    return Move(label, old, new, before["texts"], after["texts"], before["src"], after["src"], after)


def _wait_changed(page, figure, before: dict) -> None:
    page.wait_for_function(
        """([root, before]) => {
             const img = root.querySelector('img.widget-image');
             const texts = [...root.querySelectorAll('.widget-html-content')].map(e => e.innerText.trim());
             return img && img.getAttribute('src') !== before.src
                    && JSON.stringify(texts) !== JSON.stringify(before.texts);
           }""",
        arg=[figure.element_handle(), before], timeout=MOVE_MS)


def play_moves_slider(page, figure) -> tuple[str, str]:
    """Press the figure's Play button, wait until the slider it drives has moved on and the image
    changed, press pause; returns the slider's position before and after."""
    slider = figure.locator(f".{PLAYED_CLASS}").first
    handle = slider.locator(".noUi-handle")
    if handle.get_attribute("aria-valuenow") == handle.get_attribute("aria-valuemax"):
        handle.focus()
        handle.press("Home")   # at the end Play would have nowhere to go
        page.wait_for_function("([h, v]) => h.getAttribute('aria-valuenow') !== v",
                               arg=[handle.element_handle(), handle.get_attribute("aria-valuemax")],
                               timeout=MOVE_MS)
        page.wait_for_timeout(500)
    before_now = handle.get_attribute("aria-valuenow")
    before = state(figure)
    button = figure.locator(f".{PLAY_CLASS} button").first   # play, then pause: one button
    button.click()
    page.wait_for_function(
        """([handle, now, root, src]) => handle.getAttribute('aria-valuenow') !== now
             && root.querySelector('img.widget-image').getAttribute('src') !== src""",
        arg=[handle.element_handle(), before_now, figure.element_handle(), before["src"]], timeout=MOVE_MS)
    button.click()
    return before_now, handle.get_attribute("aria-valuenow")


# -- the questions and the challenge of a panel (emqsim.figures.ask) ---------------------------

from emqsim.figures.ask import CHALLENGE_CLASS, CHECK_CLASS, FEEDBACK_CLASS, QUESTION_CLASS, SHOW_CLASS  # noqa: E402
from emqsim.lessons.questions import feedback  # noqa: E402


def plain_feedback(q, key: str, right: str) -> str:
    """The feedback line as a page shows it: the mark, then the model's sentence (code marks dropped)."""
    return ("\u2713 " if key == right else "\u2717 ") + feedback(q, key, right).replace("`", "")


def lab_answer(page, figure, n: int, q, key: str) -> str:
    """Pick option `key` of the panel's question `n` (its radio input), press Check with the
    keyboard, wait for the feedback line to change; returns what it says."""
    box = figure.locator(f".{QUESTION_CLASS}").nth(n)
    out = box.locator(f".{FEEDBACK_CLASS}")
    before = out.inner_text()
    box.locator("input[type=radio]").nth([o.key for o in q.shown()].index(key)).check()
    button = box.locator(f"button.{CHECK_CLASS}")
    button.focus()
    button.press("Enter")
    page.wait_for_function("([e, t]) => e.innerText !== t && e.innerText.trim() !== ''",
                           arg=[out.element_handle(), before], timeout=MOVE_MS)
    return out.inner_text().strip()


def lab_show_me(page, figure, n: int, readout: str) -> None:
    """Press Show me of question `n` and wait until the figure's image changed, unless the figure
    already shows the frame Show me moves to (its `readout`): Play, paused on a loaded machine a
    few steps on, can stop there, and the image then has nothing to change (a fresh clone's
    `make test` in the background of a script waited 20 s for it on 02)."""
    before = state(figure)
    figure.locator(f".{QUESTION_CLASS}").nth(n).locator(f"button.{SHOW_CLASS}").click()
    if before["readout"] == readout:
        return
    page.wait_for_function("([root, src]) => root.querySelector('img.widget-image').getAttribute('src') !== src",
                           arg=[figure.element_handle(), before["src"]], timeout=MOVE_MS)


def nearest_met(model, now: dict) -> dict:
    """Of the value sets the static site renders, the nearest to `now` (fewest steps) that meets
    the model's challenge."""
    def steps(v):
        total = 0
        for c in model.controls:
            if v[c.name] == now.get(c.name):
                continue
            if c.kind == "slider":
                at = [x for _, x in model.positions(c.name, v)]
                total += abs(at.index(v[c.name]) - at.index(now[c.name])) if now[c.name] in at else len(at)
            else:
                total += 1
        return total

    values, _ = model.reachable()
    met = [v for v in values if model.challenge.check(model.frame(**v))]
    return min(met, key=steps)


def _wait_shows(figure, label: str, want: str, timeout_ms: int = MOVE_MS) -> None:
    """Until the control labelled `label` shows `want` (a dependent drop-down waits for the kernel)."""
    for _ in range(timeout_ms // 100):
        shown = {_plain(c["label"]): _plain(c["shown"]) for c in state(figure)["controls"]}
        if shown.get(label) == want:
            return
        figure.page.wait_for_timeout(100)
    raise AssertionError(f"{label} shows {shown.get(label)!r}, not {want!r}, after {timeout_ms} ms")


def lab_reach(page, figure, title: str) -> dict:
    """Move the panel's controls, the way a reader does (keys, clicks, typing), to the nearest
    position that meets the figure's challenge; wait until its line ticks. Returns those values."""
    model = catalogue.model(title)
    now = shown_values(model, state(figure)["controls"])
    goal = nearest_met(model, now)
    for c in model.controls:
        if goal[c.name] == now[c.name]:
            continue
        label = c.label or c.name
        want = model.label(c.name, goal)
        if c.kind == "slider":
            row = figure.locator(FIGURE_SLIDERS).filter(has=page.locator(".widget-label", has_text=label)).first
            at = [x for _, x in model.positions(c.name, goal)]
            diff = at.index(goal[c.name]) - at.index(now[c.name])
            handle = row.locator(".noUi-handle")
            handle.focus()
            for _ in range(abs(diff)):
                handle.press("ArrowRight" if diff > 0 else "ArrowLeft")
        elif c.kind == "text":
            box = figure.locator(".widget-text").filter(has=page.locator(".widget-label", has_text=label)).first
            box.locator("input").fill(goal[c.name])
            box.locator("input").press("Enter")
        else:
            toggles = figure.locator(TOGGLES).filter(has=page.locator(".widget-label", has_text=label))
            if toggles.count():
                toggles.first.locator(".widget-toggle-button", has_text=want).first.click()
            else:
                select = figure.locator(DROPDOWNS).filter(
                    has=page.locator(".widget-label", has_text=label)).first.locator("select")
                # a dependent drop-down (07's day, after its zone) gets its options from the
                # kernel: they are read until the one wanted is there
                for _ in range(MOVE_MS // 100):
                    texts = [_plain(t) for t in select.locator("option").all_inner_texts()]
                    if want in texts:
                        break
                    page.wait_for_timeout(100)
                assert want in texts, f"{label}: no option {want!r} after {MOVE_MS} ms: {texts}"
                select.select_option(index=texts.index(want))
        _wait_shows(figure, label, goal[c.name] if c.kind == "text" else want)
        now = {**now, c.name: goal[c.name]}
    page.wait_for_function(  # the widget's HTML is replaced on each change: look it up each time
        "([root, sel]) => { const e = root.querySelector(sel); return !!e && e.getAttribute('data-met') === '1'; }",
        arg=[figure.element_handle(), f".{CHALLENGE_CLASS} [data-met]"], timeout=MOVE_MS)
    return goal
