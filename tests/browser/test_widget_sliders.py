"""Every slider of every live figure in JupyterLab and in Voila (`make present`'s page), at
1366x900 and on a 390x844 phone, with its knob at the first stop and the last (issue 30: "a
slider knob collides with its label"; the site's own check is in test_site_student.py).

Each slider shows its label whole, has a track several knobs long, and its knob keeps at least
6 CSS px from its label and touches no other label, readout or button of the figure. On a phone
a Play row kept on one line squeezed the figure's slider to 10 px, its label gone and its knob
against the speed control's label; the row now wraps (emqsim.figures.controls.ROW). In Voila no
readout or control reaches past the window's right edge (05's readout table ran off a phone)."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import NOTEBOOKS  # noqa: E402
from test_lab import WIDGET_OUTPUTS, kernel_ready, run_all, strip_outputs, widget_outputs  # noqa: E402
from test_present_voila import RENDER_MS, present  # noqa: E402,F401  (the fixture: `make present`'s Voila)

DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}
#: least room between a knob and its own label, CSS px (as on the site)
LABEL_GAP = 6
#: a track at least this many knobs long (presenter mode's speed control had 24 px for a 22 px knob;
#: in Lab on a phone, behind the cells' prompt column, the speed track has 3.6)
TRACK_KNOBS = 3
WITH_PANELS = [p for p in sorted(NOTEBOOKS.glob("*.ipynb")) if widget_outputs(p)]

# one slider's parts and every other text or button of its figure, as rectangles
_PARTS_JS = """s => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  let panel = s;
  for (let a = s.parentElement; a; a = a.parentElement) if (a.matches('.widget-vbox')) panel = a;
  const label = s.querySelector('.widget-label');
  const others = [...panel.querySelectorAll('.widget-label, .widget-readout, button')]
    .filter(e => !s.contains(e) && e.getBoundingClientRect().width > 0)
    .map(e => [(e.innerText || e.title || e.className).trim().slice(0, 30), box(e)]);
  return {label: label ? label.innerText.trim() : '', label_box: label ? box(label) : null,
          clipped: label ? label.scrollWidth > label.clientWidth + 1 : true,
          knob: box(s.querySelector('.noUi-handle')), track: box(s.querySelector('.noUi-target')),
          readout: box(s.querySelector('.widget-readout')), others, width: innerWidth};
}"""


# the readouts and controls of the figures that reach past the window's right edge
_WIDE_JS = """() => [...document.querySelectorAll('pre.emqsim-readout, .widget-slider, .widget-play, .widget-toggle-buttons')]
  .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
  .map(e => [e.tagName + '.' + e.className.split(' ').slice(-1)[0], Math.round(e.getBoundingClientRect().right)])"""


def _meets(a, b) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def slider_faults(page, where: str) -> list[str]:
    """What is wrong with each slider on the page, its knob at Home and at End (none: [])."""
    faults = []
    sliders = page.locator(".widget-slider")
    for i in range(sliders.count()):
        s = sliders.nth(i)
        s.scroll_into_view_if_needed()
        handle = s.locator(".noUi-handle")
        for key in ("Home", "End"):
            handle.focus()
            handle.press(key)
            page.wait_for_timeout(100)
            m = s.evaluate(_PARTS_JS)
            name = f"{where} {m['label']!r} at {key}"
            knob, label = m["knob"], m["label_box"]
            if not m["label"] or m["clipped"] or label[2] - label[0] < 1:
                faults.append(f"{name}: label hidden or cut")
            elif label[1] < knob[3] and knob[1] < label[3] and knob[0] - label[2] < LABEL_GAP:
                faults.append(f"{name}: knob {knob[0] - label[2]:.1f} px from its label")
            if m["track"][2] - m["track"][0] < TRACK_KNOBS * (knob[2] - knob[0]):
                faults.append(f"{name}: track {m['track'][2] - m['track'][0]:.0f} px")
            if _meets(knob, m["readout"]):
                faults.append(f"{name}: knob over its readout")
            if knob[2] > m["width"] or knob[0] < 0:
                faults.append(f"{name}: knob off the window")
            faults += [f"{name}: knob over {text!r}" for text, b in m["others"] if _meets(knob, b)]
    return faults


@pytest.fixture
def lab_tab(lab, page):
    yield page
    page.close()
    lab.shutdown_kernels()


@pytest.mark.parametrize("path", WITH_PANELS, ids=[p.stem for p in WITH_PANELS])
def test_sliders_in_lab_keep_clear_of_their_labels(lab, lab_tab, path):
    page = lab_tab
    strip_outputs(lab.root / path.name)
    page.set_viewport_size(DESKTOP)
    page.goto(lab.url(f"/lab/tree/{path.name}?reset"), timeout=60_000)
    page.wait_for_selector(".jp-Notebook", timeout=60_000)
    kernel_ready(page)
    run_all(page)
    page.wait_for_function("([sel, n]) => document.querySelectorAll(sel).length >= n",
                           arg=[WIDGET_OUTPUTS, widget_outputs(path)], timeout=60_000)
    faults = []
    for size, viewport in (("1366x900", DESKTOP), ("390x844", PHONE)):
        page.set_viewport_size(viewport)
        if viewport is PHONE:   # a reader on a phone folds Lab's file browser away, as here
            page.locator(".jp-SideBar.jp-mod-left .lm-TabBar-tab.lm-mod-current").click()
            page.wait_for_function("() => !document.querySelector('#jp-left-stack') || "
                                   "document.querySelector('#jp-left-stack').offsetWidth === 0")
        page.wait_for_timeout(500)
        faults += slider_faults(page, f"Lab {size} {path.stem}")
    assert faults == [], "\n".join(faults)


@pytest.mark.parametrize("path", WITH_PANELS, ids=[p.stem for p in WITH_PANELS])
def test_sliders_in_voila_keep_clear_of_their_labels(present, page, path):
    faults = []
    for size, viewport in (("1366x900", DESKTOP), ("390x844", PHONE)):
        page.set_viewport_size(viewport)
        page.goto(present.url(f"/voila/render/{path.name}"), timeout=RENDER_MS)
        page.wait_for_function(f"document.querySelectorAll('img.widget-image').length >= {widget_outputs(path)}",
                               timeout=RENDER_MS)
        page.wait_for_timeout(500)
        faults += slider_faults(page, f"Voila {size} {path.stem}")
        wide = page.evaluate(_WIDE_JS)
        faults += [f"Voila {size} {path.stem}: {e} ends at {right} px, past the window" for e, right in wide]
    assert faults == [], "\n".join(faults)
