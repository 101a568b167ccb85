"""The static site in a real browser, from disk (file://), with no kernel and no server: every
live figure's player shows its controls; each slider moved with the keyboard, each choice
picked anew, swaps the picture and the readout, and the readout is the model's for what the
controls now show (what the kernel shows for the same values). A held control is disabled
and says so; Play walks its slider. No page logs an error or asks the network for anything.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: no playwright package")

from conftest import NOTEBOOKS  # noqa: E402

from emqsim.site import pages  # noqa: E402
from emqsim.figures import catalogue  # noqa: E402

PAGES = sorted(NOTEBOOKS.glob("*.ipynb"))
LOAD_MS = 30_000
PLAY_MS = 10_000

# a player's state, read in the page in one go
_STATE_JS = """(root) => ({
  title: root.dataset.figure,
  frame: root.getAttribute('data-frame'),
  src: root.querySelector('img.emqsim-frame').getAttribute('src'),
  readout: root.querySelector('pre.emqsim-readout').textContent,
  readout_id: root.querySelector('pre.emqsim-readout').id,
  controls: [...root.querySelectorAll('.emqsim-control')].map(row => {
    const input = row.querySelector('input.emqsim-slider, select.emqsim-choice');
    const shown = input.tagName === 'SELECT' ? input.options[input.selectedIndex].text
                                             : row.querySelector('output.emqsim-value').textContent;
    return {name: row.dataset.name, kind: row.dataset.kind, shown: shown, disabled: input.disabled,
            note: row.dataset.held === '1'};
  }),
})"""


def state(player) -> dict:
    return player.evaluate(_STATE_JS)


def shown_values(model, controls: list[dict]) -> dict:
    """The model's values for the position labels the controls show (matched by name)."""
    shown = {c["name"]: c["shown"] for c in controls}
    values: dict = {}
    for c in model.controls:
        matches = [v for label, v in model.positions(c.name, values) if label == shown[c.name]]
        assert matches, f"{c.name} shows {shown[c.name]!r}, not one of its positions"
        values[c.name] = matches[0]
    return values


def check(player, model, before: dict, what: str) -> dict:
    """After a move: a new picture, and the model's readout for what the controls show."""
    after = state(player)
    values = shown_values(model, after["controls"])
    expected = model.frame(**values).readout
    assert after["src"] != before["src"], f"{after['title']}: {what}: the picture did not change"
    assert after["readout"] == expected, (f"{after['title']}: {what}: the readout is not the model's "
                                          f"for {values}:\n page:  {after['readout']!r}\n model: {expected!r}")
    if model.frame(**shown_values(model, before["controls"])).readout != expected:
        assert after["readout"] != before["readout"], f"{after['title']}: {what}: the readout did not change"
    return after


def wait_moved(page, player, before: dict) -> None:
    page.wait_for_function("([root, frame]) => root.getAttribute('data-frame') !== frame",
                           arg=[player.element_handle(), before["frame"]], timeout=LOAD_MS)


@pytest.fixture
def site_page(browser_context):
    """A page that records what it logs as errors and every request it makes."""
    p = browser_context.new_page()
    p.errors, p.requests = [], []
    p.on("console", lambda m: p.errors.append(m.text) if m.type == "error" else None)
    p.on("pageerror", lambda e: p.errors.append(str(e)))
    p.on("request", lambda r: p.requests.append(r.url))
    yield p
    p.close()


@pytest.mark.parametrize("path", PAGES, ids=[p.stem for p in PAGES])
def test_site_page_sliders_work_without_a_kernel(static_site: Path, site_page, artifacts, path):
    import nbformat

    page = site_page
    titles = pages.panel_titles(nbformat.read(path, as_version=4))
    page.goto((static_site / f"{path.stem}.html").as_uri(), timeout=LOAD_MS)
    players = page.locator(".emqsim-player")
    assert players.count() == len(titles)
    for n, title in enumerate(titles):
        player = players.nth(n)
        player.wait_for(state="attached")
        page.wait_for_function("root => root.getAttribute('data-ready') === '1'", arg=player.element_handle(),
                               timeout=LOAD_MS)
        player.scroll_into_view_if_needed()
        model = catalogue.model(title)
        values, held = model.reachable()
        now = state(player)
        assert now["title"] == title and now["readout_id"] == model.readout_id
        assert [c["name"] for c in now["controls"]] == [c.name for c in model.controls]
        # the page opens at the defaults, with the model's readout for them
        assert shown_values(model, now["controls"]) == model.defaults()
        assert now["readout"] == model.frame().readout
        # a held control is disabled, and the page says it is held, once (issue 30: it said so twice)
        assert [c["name"] for c in now["controls"] if c["disabled"]] == held
        assert [c["name"] for c in now["controls"] if c["note"]] == held
        if held:
            assert player.inner_text().lower().count("held at its default on this page") == 1
        moved = 0
        for k, c in enumerate(model.controls):
            if c.name in held:
                continue
            row = player.locator(f'.emqsim-control[data-name="{c.name}"]')
            before = state(player)
            if c.kind == "slider":
                handle = row.locator("input.emqsim-slider")
                at_end = handle.evaluate("r => Number(r.value) >= Number(r.max)")
                handle.focus()
                key = "ArrowLeft" if at_end else "ArrowRight"
                handle.press(key)
                what = f"{c.name} {key}"
            else:
                select = row.locator("select")
                options = select.locator("option").count()
                if options < 2:
                    continue
                current = select.evaluate("s => s.selectedIndex")
                select.select_option(index=current + 1 if current + 1 < options else current - 1)
                what = f"{c.name} picked anew"
            wait_moved(page, player, before)
            after = check(player, model, before, what)
            assert after["controls"][k]["shown"] != before["controls"][k]["shown"], what
            moved += 1
        assert moved, f"{title}: no control could be moved"
        if n == 0:
            player.screenshot(path=artifacts / f"site-{path.stem}.png")
        play = player.locator("button.emqsim-play")
        for b in range(play.count()):
            before = state(player)
            play.nth(b).click()
            wait_moved(page, player, before)
            play.nth(b).click()   # pause
            page.wait_for_function("root => !root.hasAttribute('data-playing')", arg=player.element_handle(),
                                   timeout=PLAY_MS)
            check(player, model, before, "Play")
    assert page.errors == []
    assert [u for u in page.requests if not u.startswith(("file:", "data:"))] == []


# -- the questions and the challenge, with no kernel ---------------------------------------------

SHOT = "01_cron_vs_interval"
DESKTOP, PHONE = {"width": 1366, "height": 900}, {"width": 390, "height": 844}
ASKING = [p for p in PAGES if p.stem[:2] in {"01", "02", "03", "04", "05", "06", "07"}]


def site_answer(page, box, q, key: str) -> str:
    """Pick option `key` with the keyboard's space bar, press Check with Enter; the feedback after."""
    out = box.locator(".emqsim-feedback")
    before = out.inner_text()
    radio = box.locator(f'input[type=radio][value="{key}"]')
    radio.focus()
    radio.press("Space")
    assert radio.is_checked()
    box.locator("button.emqsim-check").press("Enter")
    page.wait_for_function("([e, t]) => e.innerText !== t", arg=[out.element_handle(), before], timeout=LOAD_MS)
    return out.inner_text().strip()


def site_reach(page, player, table: dict) -> int:
    """Move the player's controls with the keyboard (sliders) and the drop-downs to the nearest
    frame the build found meeting the challenge; returns that frame."""
    bits = table["challenge"]["bits"]
    frames = table["frames"]
    here = frames[int(player.get_attribute("data-frame"))][2]
    goal = min((n for n, b in enumerate(bits) if b == "1"),
               key=lambda n: sum(abs(a - b) for a, b in zip(frames[n][2], here)))
    for k, c in enumerate(table["controls"]):
        want = frames[goal][2][k]
        row = player.locator(f'.emqsim-control[data-name="{c["name"]}"]')
        label = c["positions"][want][0]
        if c["kind"] == "slider":
            handle = row.locator("input.emqsim-slider")
            for _ in range(len(c["positions"]) + 1):
                if row.locator("output.emqsim-value").inner_text() == label:
                    break
                at = [p[0] for p in c["positions"]].index(row.locator("output.emqsim-value").inner_text())
                handle.press("ArrowRight" if want > at else "ArrowLeft")
        elif not c["held"]:
            row.locator("select").select_option(value=str(want))
    page.wait_for_function("([root, n]) => root.getAttribute('data-frame') === String(n)",
                           arg=[player.element_handle(), goal], timeout=LOAD_MS)
    return goal


@pytest.mark.parametrize("path", ASKING, ids=[p.stem for p in ASKING])
def test_site_page_asks_and_ticks_without_a_kernel(static_site: Path, site_page, artifacts, path):
    """The page's first player: its first question answered wrong and its second right, with the
    model's feedback; Show me moves to the model's frame; the controls reach the challenge."""
    import json

    from emqsim.lessons.questions import PICK_FIRST, feedback

    page = site_page
    page.goto((static_site / f"{path.stem}.html").as_uri(), timeout=LOAD_MS)
    player = page.locator(".emqsim-player").first
    page.wait_for_function("root => root.getAttribute('data-ready') === '1'", arg=player.element_handle(),
                           timeout=LOAD_MS)
    table = json.loads(player.locator("script.emqsim-data").text_content())
    model = catalogue.model(table["title"])
    boxes = player.locator("fieldset.emqsim-question")
    assert boxes.count() == len(model.questions) >= 2
    for n, q in enumerate(model.questions):   # one labelled group each, its prompt the legend
        assert boxes.nth(n).locator("legend").inner_text().endswith(q.prompt.replace("`", ""))
        assert boxes.nth(n).locator(".emqsim-feedback").get_attribute("aria-live") == "polite"
    box = boxes.nth(0)
    box.locator("button.emqsim-check").click()
    assert box.locator(".emqsim-feedback").inner_text() == PICK_FIRST
    q = model.questions[0]
    right = q.right(model)
    wrong = next(k for k in q.keys() if k != right)
    said = site_answer(page, box, q, wrong)
    assert said == "\u2717 " + feedback(q, wrong, right).replace("`", "")
    assert box.locator(".emqsim-feedback").get_attribute("data-right") == "0"
    q, box = model.questions[1], boxes.nth(1)
    right = q.right(model)
    assert site_answer(page, box, q, right) == "\u2713 " + feedback(q, right, right).replace("`", "")
    assert box.locator(".emqsim-feedback").get_attribute("data-right") == "1"
    before = state(player)
    box.locator("button.emqsim-show-me").click()
    if before["frame"] != str(table["questions"][1]["show"]):
        wait_moved(page, player, before)
    now = state(player)
    assert now["frame"] == str(table["questions"][1]["show"])
    assert now["readout"] == q.frame(model).readout
    assert shown_values(model, now["controls"]) == model.values(None, **q.show_me)
    # the challenge line follows the frame shown; moving the controls reaches it
    line = player.locator("p.emqsim-challenge")
    met = table["challenge"]["bits"][int(now["frame"])] == "1"
    assert line.get_attribute("data-met") == ("1" if met else "0")
    if not met:
        assert line.inner_text() == f"Challenge: {model.challenge.goal}".replace("`", "")
    goal = site_reach(page, player, table)
    assert line.get_attribute("data-met") == "1"
    assert line.inner_text().startswith("\u2713 Challenge met: ")
    assert model.challenge.check(model.frame(**shown_values(model, state(player)["controls"])))
    assert state(player)["frame"] == str(goal)
    if path.stem == SHOT:
        boxes.nth(0).locator("button.emqsim-check").click()   # both feedback lines showing
        for size, tag in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(size)
            page.wait_for_timeout(200)
            player.screenshot(path=artifacts / f"site-question-challenge-{tag}.png")
    assert page.errors == []
    assert [u for u in page.requests if not u.startswith(("file:", "data:"))] == []
