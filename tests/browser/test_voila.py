"""One notebook as a Voila app (what `make present` serves): the code is hidden, the live figure
renders, and its slider moves it. Voila's page asks a CDN for Font Awesome, which fails
offline and is harmless, so console errors alone fail nothing here."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from figure_page import FIGURE_SLIDERS, expected_readout, move  # noqa: E402

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
    page.screenshot(path=artifacts / "voila-01_cron_vs_interval.png")
