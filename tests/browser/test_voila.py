"""One notebook as a Voila app, with Voila's own page: the code is hidden, the live figure
renders, its slider moves it, its questions answer and its challenge ticks. Voila's own page asks
a CDN for Font Awesome, which fails offline and is harmless here, so console errors alone fail
nothing; the course's page (`make present`, tests/browser/test_present_voila.py) asks nothing."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from figure_page import (  # noqa: E402
    CHALLENGE_CLASS, FIGURE_SLIDERS, expected_readout, lab_answer, lab_reach, move, plain_feedback,
)

from emqsim.figures import catalogue  # noqa: E402
from emqsim.engine.timefmt import at  # noqa: E402

RENDER_MS = 90_000   # Voila runs the whole notebook before it shows the page (about 5 s here)
TITLE = "01 cron vs interval"


def test_voila_app_moves_the_figure(voila, page, artifacts):
    model = catalogue.model(TITLE)
    readout_id = model.readout_id
    page.goto(voila.url("/"), timeout=RENDER_MS)
    page.wait_for_selector("img.widget-image", state="attached", timeout=RENDER_MS)
    body = page.inner_text("body")
    assert "Error displaying widget" not in body and "Traceback" not in body
    assert "fig.panel()" not in body, "Voila should hide the code cells"
    assert "Cron vs interval" in body  # the prose stays

    figure = page.locator(".jupyter-widgets.widget-vbox", has=page.locator(f"#{readout_id}")).first
    figure.scroll_into_view_if_needed()
    assert page.inner_text(f"#{readout_id}") == model.frame(now=at("2026-11-30 08:48")).readout
    m = move(page, figure, figure.locator(FIGURE_SLIDERS).first)
    assert (m.label, m.before, m.after) == ("now", "08:48", "08:49")
    assert m.src_after != m.src_before
    assert page.inner_text(f"#{readout_id}") == model.frame(now=at("2026-11-30 08:49")).readout
    shown, expected, _ = expected_readout(figure)
    assert shown == expected
    # its questions: one answered wrong, one right; then the controls reach the challenge
    q = model.questions[0]
    right = q.right(model)
    wrong = next(k for k in q.keys() if k != right)
    assert lab_answer(page, figure, 0, q, wrong) == plain_feedback(q, wrong, right)
    q = model.questions[1]
    right = q.right(model)
    assert lab_answer(page, figure, 1, q, right) == plain_feedback(q, right, right)
    lab_reach(page, figure, TITLE)
    assert figure.locator(f".{CHALLENGE_CLASS}").inner_text().startswith("\u2713 Challenge met: ")
    shown, expected, _ = expected_readout(figure)
    assert shown == expected
    page.screenshot(path=artifacts / "voila-01_cron_vs_interval.png")


def test_on_a_phone_voila_shows_the_narrow_layout(voila, page, artifacts):
    """Issue 30: Voila on a 390x844 phone showed the desktop picture shrunk. The panel's box is
    measured in the browser and the kernel draws the narrow layout for it: the image's natural
    width is the narrow figure's at the kernel's resolution; at 1366 px it is the normal one's."""
    from emqsim.figures import controls

    narrow = catalogue.figure(TITLE, layout="narrow").view.ax.figure
    normal = catalogue.figure(TITLE).view.ax.figure
    want = {"phone": round(narrow.get_figwidth() * controls.KERNEL_NARROW_DPI),
            "desktop": round(normal.get_figwidth() * normal.dpi)}
    assert want["phone"] != want["desktop"]
    for size, viewport in (("phone", {"width": 390, "height": 844}), ("desktop", {"width": 1366, "height": 900})):
        page.set_viewport_size(viewport)
        page.goto(voila.url("/"), timeout=RENDER_MS)
        image = page.locator(f".{controls.PANEL_CLASS} img.widget-image").first
        image.wait_for(state="attached", timeout=RENDER_MS)
        page.wait_for_function("([i, w]) => i.complete && i.naturalWidth === w", arg=[image.element_handle(), want[size]],
                               timeout=RENDER_MS, polling=100)
        assert image.evaluate("i => i.naturalWidth") == want[size], size
        image.scroll_into_view_if_needed()
        page.screenshot(path=artifacts / f"voila-01-narrow-{size}.png")
