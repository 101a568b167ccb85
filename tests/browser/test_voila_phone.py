"""Voila on a 390x844 phone (issue 30, a reviewer's second pass): the live panels of 03 (a slider,
choices, a drop-down of long names) and 05 (five lanes, a readout of long lines) fit the phone's
column. Each readout wraps inside its box (they ran 376-1166 px in a 356 px box, cut at the right),
no panel is wider than its box (a drop-down and the picture's margins made the output area scroll
sideways, which cut the labels' first letters), and every control's label shows whole."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import _copy_notebooks, voila_serving  # noqa: E402

from emqsim.figures.controls import PANEL_CLASS, READOUT_CLASS  # noqa: E402

PHONE = {"width": 390, "height": 844}
RENDER_MS = 180_000          # Voila runs the whole notebook before it shows the page
PAGES = ("03_start_to_start", "05_overlap")

# per panel: its readouts' and its own scroll and client widths, and each shown label's text
# against its box and the window (the text's own rectangle, which overflow does not change)
_MEASURE_JS = f"""() => [...document.querySelectorAll('.{PANEL_CLASS}')].map(p => {{
  const range = document.createRange();
  return {{
    panel: [p.scrollWidth, p.clientWidth],
    output: [p.parentElement.scrollWidth, p.parentElement.clientWidth],
    readouts: [...p.querySelectorAll('pre.{READOUT_CLASS}')].map(e => [e.scrollWidth, e.clientWidth]),
    labels: [...p.querySelectorAll('.widget-label')].filter(e => e.offsetParent && e.textContent.trim())
      .map(e => {{ range.selectNodeContents(e); const t = range.getBoundingClientRect(), b = e.getBoundingClientRect();
                  return [e.textContent, Math.round(t.left - b.left), Math.round(b.right - t.right),
                          Math.round(t.left), Math.round(innerWidth - t.right)]; }}),
  }};
}})"""


def assert_panels_fit(name: str, panels: list) -> None:
    """Each measured panel (`_MEASURE_JS`) fits its column: readouts wrap inside their boxes, the
    panel and its output area scroll no sideways, every label shows whole (1 px of rounding)."""
    for n, p in enumerate(panels):
        for sw, cw in p["readouts"]:
            assert sw <= cw + 1, (name, n, "readout", sw, cw)
        assert p["panel"][0] <= p["panel"][1] + 1, (name, n, "panel", p["panel"])
        assert p["output"][0] <= p["output"][1] + 1, (name, n, "output area", p["output"])
        for text, left, right, in_left, in_right in p["labels"]:
            assert min(left, right, in_left, in_right) >= -1, (name, n, text, left, right, in_left, in_right)


@pytest.fixture(scope="module")
def voila_all(tmp_path_factory):
    """Voila on 127.0.0.1 serving a copy of every notebook, with Voila's own page."""
    tmp = tmp_path_factory.mktemp("voila-phone")
    root = _copy_notebooks(tmp / "notebooks")
    with voila_serving(root, root, tmp / "voila.log") as server:
        yield server


@pytest.mark.parametrize("name", PAGES)
def test_on_a_phone_voila_panels_fit_their_column(voila_all, page, artifacts, name):
    page.set_viewport_size(PHONE)
    page.goto(voila_all.url(f"/voila/render/{name}.ipynb"), timeout=RENDER_MS)
    page.locator(f".{PANEL_CLASS} img.widget-image").last.wait_for(state="attached", timeout=RENDER_MS)
    page.wait_for_function(f"() => [...document.querySelectorAll('.{PANEL_CLASS} img.widget-image')]"
                           ".every(i => i.complete && i.naturalWidth > 0)", timeout=RENDER_MS, polling=200)
    page.wait_for_timeout(1000)      # the narrow layout's picture, asked for by the width's watcher
    panels = page.evaluate(_MEASURE_JS)
    assert panels, name
    assert_panels_fit(name, panels)
    page.locator(f".{PANEL_CLASS}").first.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"voila-phone-{name}.png")
