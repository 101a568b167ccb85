"""What the browser tests do on a page: find the live figures, move a slider with the keyboard,
wait for the kernel's answer, read the readout and the image.

A live figure is a widget output holding one `img.widget-image` (the figure, as PNG bytes
from the kernel) and a readout in an HTML widget. Its sliders are noUiSlider handles
(`.widget-slider .noUi-handle`, `aria-valuenow` follows the handle); the speed control of
a Play button (class `emqsim-speed`, from `emqsim.figures.controls`) moves no figure and
is left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from emqsim.figures.controls import PLAY_CLASS, PLAYED_CLASS, SPEED_CLASS

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
FIGURE_SLIDERS = f".widget-slider:not(.{SPEED_CLASS})"
MOVE_MS = 20_000     # the kernel redraws in well under a second; 20 s allows a loaded machine

# the state of one live figure, read in the page in one go
_STATE_JS = """(root) => {
  const img = root.querySelector('img.widget-image');
  return {
    src: img ? img.getAttribute('src') : null,
    texts: [...root.querySelectorAll('.widget-html-content')].map(e => e.innerText.trim()),
  };
}"""


@dataclass
class Move:
    label: str          # the slider's description
    before: str         # the slider's readout (its value as shown) before the move
    after: str
    texts_before: list
    texts_after: list
    src_before: str
    src_after: str


def state(figure) -> dict:
    return figure.evaluate(_STATE_JS)


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
                before["src"], after["src"])


def choose(page, figure, select) -> Move:
    """Pick the next option of a drop-down (the previous one at the end) and wait until the
    figure's image and readout have changed."""
    label = select.locator("xpath=..").locator(".widget-label").first.inner_text().strip()
    options = select.locator("option").all_inner_texts()
    current = select.evaluate("s => s.selectedIndex")
    target = current + 1 if current + 1 < len(options) else current - 1
    before = state(figure)
    select.select_option(index=target)
    try:
        _wait_changed(page, figure, before)
    except PlaywrightTimeout:
        raise AssertionError(f"drop-down {label!r} set to {options[target]!r}: in {MOVE_MS} ms the figure "
                             f"and its readout did not both change") from None
    page.wait_for_timeout(100)
    after = state(figure)
    return Move(label, options[current], options[target], before["texts"], after["texts"],
                before["src"], after["src"])


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
