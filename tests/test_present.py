"""Presenter mode and the shared Play + speed controls.

`emqsim.present(True)` must make every figure of the catalogue larger (text, lines,
markers, the figure itself) and `present(False)` must put every size back; no test may
leave presenter mode on for the next one.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

import ipywidgets as w
import matplotlib.pyplot as plt
import pytest
from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.text import Text

import emqsim
from emqsim.figures import catalogue, style
from emqsim.figures.style import DARK_CSS
from emqsim.figures.controls import (PLAY_CLASS, PLAYED_CLASS, SPEED_CLASS, Player, play, presenter_css,
                                     readout_html)

RC_KEYS = ["font.size", "lines.linewidth", "lines.markersize", "axes.linewidth", "xtick.major.width",
           "ytick.major.width", "xtick.major.size", "grid.linewidth", "patch.linewidth"]


#: figures with marks drawn at a fixed size, so not every mark grows: figure -> what stays put
FIXED_MARKS: dict[str, str] = {}


@pytest.fixture(autouse=True)
def normal_sizes_after():
    """Whatever a test does, the next one starts with the normal sizes."""
    yield
    style.present(False)


def _rc() -> dict:
    return {k: plt.rcParams[k] for k in RC_KEYS}


def test_present_switches_scale_and_rcparams_and_restores_them():
    normal_scale, normal_rc = style.scale(), _rc()
    assert normal_scale == {"font": 11.0, "line": 2.0, "marker": 7.0}
    assert not style.presenting()

    emqsim.present()  # the package-level call, on by default
    assert style.presenting()
    assert style.scale() == {"font": 18.0, "line": 4.0, "marker": 12.0}
    rc = _rc()
    assert (rc["font.size"], rc["lines.linewidth"], rc["lines.markersize"]) == (18.0, 4.0, 12.0)
    assert (rc["axes.linewidth"], rc["xtick.major.width"], rc["grid.linewidth"]) == (1.6, 1.6, 1.4)

    emqsim.present(False)
    assert not style.presenting()
    assert style.scale() == normal_scale
    assert _rc() == normal_rc


def test_present_twice_is_the_same_as_once():
    style.present(True)
    once = (style.scale(), _rc())
    style.present(True)
    assert (style.scale(), _rc()) == once


def test_scale_is_a_copy():
    style.scale()["font"] = 99
    assert style.scale()["font"] == 11.0


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_present_rejects_anything_but_a_bool(bad):
    with pytest.raises(ValueError, match=r"^present\(.*\): give True \(presenter mode\) or False"):
        style.present(bad)
    assert not style.presenting()


def test_new_figure_is_larger_in_presenter_mode():
    fig, _ = style.new_figure(9.0, 3.2)
    assert tuple(fig.get_size_inches()) == (9.0, 3.2)
    style.present(True)
    big, _ = style.new_figure(9.0, 3.2)
    assert tuple(round(v, 6) for v in big.get_size_inches()) == (12.15, 4.32)
    plt.close(fig)
    plt.close(big)


@pytest.mark.parametrize("value, on", [("1", True), ("yes", True), (" ON ", True), ("0", False), ("", False),
                                       ("off", False), ("False", False), (None, False)])
def test_which_values_of_the_environment_variable_ask_for_presenter_mode(value, on):
    assert style.asked_for(value) is on


@pytest.mark.parametrize("value, on", [("1", True), ("off", False)])
def test_environment_variable_starts_a_kernel_in_presenter_mode(value, on):
    env = {**os.environ, style.ENV: value}
    out = subprocess.run([sys.executable, "-c", "from emqsim.figures import style; print(style.presenting())"],
                         env=env, capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == str(on)


# -- every figure of the catalogue ---------------------------------------------------------------

def _build(title: str, presenter: bool):
    style.present(presenter)
    figure = catalogue.figure(title)
    style.present(False)
    fig = figure.live.fig
    fig.canvas.draw()
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    lines = [ln for ln in fig.findobj(Line2D) if ln.get_visible() and len(ln.get_xdata())]
    return {
        "size": tuple(fig.get_size_inches()),
        "fonts": [t.get_fontsize() for t in texts],
        "widths": [ln.get_linewidth() for ln in lines if ln.get_linestyle() not in ("None", "")]
                  + [float(lw) for c in fig.findobj(Collection) for lw in c.get_linewidths() if lw > 0],
        "markers": [ln.get_markersize() for ln in lines if ln.get_marker() not in (None, "None", "", " ")],
    }


@pytest.fixture(scope="module")
def built():
    """Each figure built once in normal mode and once in presenter mode."""
    try:
        return {title: (_build(title, False), _build(title, True)) for title in catalogue.SOURCES}
    finally:
        style.present(False)


def test_catalogue_is_covered():
    assert set(FIXED_MARKS) <= set(catalogue.SOURCES)


@pytest.mark.parametrize("title", list(catalogue.SOURCES))
def test_figure_grows_in_presenter_mode(built, title):
    normal, big = built[title]
    assert big["size"][0] > normal["size"][0] and big["size"][1] > normal["size"][1]
    fonts, big_fonts = normal["fonts"], big["fonts"]
    assert fonts and big_fonts, f"{title}: no text"
    assert min(big_fonts) > min(fonts) and max(big_fonts) > max(fonts), title
    assert statistics.median(big_fonts) > statistics.median(fonts), title
    # the thickest line and the ink of all of them (a faint guide of fixed width may stay)
    assert normal["widths"] and big["widths"], f"{title}: no line"
    assert max(big["widths"]) > max(normal["widths"]), title
    assert sum(big["widths"]) > sum(normal["widths"]), title
    if normal["markers"]:
        assert max(big["markers"]) > max(normal["markers"]), title


@pytest.mark.parametrize("title", [
    pytest.param(t, marks=pytest.mark.xfail(reason=f"fixed size: {FIXED_MARKS[t]}", strict=True))
    if t in FIXED_MARKS else t for t in catalogue.SOURCES])
def test_every_text_and_line_grows(built, title):
    """Mark by mark, where both builds draw the same marks: nothing keeps a fixed size.
    Every text grows; every drawn line grows. (A figure listed in FIXED_MARKS is expected to
    fail here; once fixed, drop it from the list.)"""
    normal, big = built[title]
    smallest_big_font = min(big["fonts"])
    assert smallest_big_font > min(normal["fonts"])
    assert min(big["widths"]) > min(normal["widths"]), f"{title}: a line keeps width {min(normal['widths'])}"


# -- Play + speed ---------------------------------------------------------------------------------

def test_play_drives_a_number_slider_by_value():
    slider = w.IntSlider(value=3, min=0, max=100)
    p = play(slider)
    assert isinstance(p, Player) and p.attr == "value"
    assert (p.play.value, p.play.min, p.play.max, p.play.step, p.play.interval) == (3, 0, 100, 1, 300)
    assert (p.speed.value, p.speed.min, p.speed.max) == (1, 1, 10)
    assert p.link.source == (p.play, "value") and p.link.target == (slider, "value")
    assert PLAY_CLASS in p.play._dom_classes and SPEED_CLASS in p.speed._dom_classes
    assert PLAYED_CLASS in slider._dom_classes
    assert p.box.children == (p.play, p.speed)
    p.speed.value = 7  # the observer runs on_speed
    assert p.play.step == 7
    assert p.on_speed({"new": 2}) == 2 and p.play.step == 2


def test_play_drives_a_selection_slider_by_index():
    slider = w.SelectionSlider(options=[("a", 10), ("b", 20), ("c", 30), ("d", 40)], value=30)
    p = play(slider, step=2, max_step=3, interval=500, label="letters per step", width="200px")
    assert p.attr == "index"
    assert (p.play.value, p.play.min, p.play.max, p.play.step, p.play.interval) == (2, 0, 3, 2, 500)
    assert (p.speed.value, p.speed.max, p.speed.description, p.speed.layout.width) == (2, 3, "letters per step",
                                                                                      "200px")
    assert p.link.target == (slider, "index")


@pytest.mark.parametrize("kw, msg", [
    ({"step": 0}, "step 0 must be a whole number, 1 or more"),
    ({"step": 1.5}, "step 1.5 must be a whole number, 1 or more"),
    ({"interval": 5}, r"interval \(ms\) 5 must be a whole number, 10 or more"),
    ({"step": 4, "max_step": 2}, "max_step 2 must be a whole number, 4 or more"),
])
def test_play_rejects_bad_options(kw, msg):
    with pytest.raises(ValueError, match=f"^{msg}$"):
        play(w.IntSlider(), **kw)


def test_play_needs_a_slider():
    with pytest.raises(ValueError, match="^slider Text has neither options nor min/max; give an IntSlider"):
        play(w.Text())


def test_a_declared_play_gets_a_button_and_speed_beside_its_slider():
    """The generic panel gives a slider declared with `play` its Play button and speed control,
    linked to the slider's index, in one row: notebook 01's now slider."""
    figure = catalogue.figure("01 cron vs interval")
    p = figure.panel()
    now, player = p.widgets["now"], p.players["now"]
    assert player.link.target == (now, "index")
    assert player.play.value == now.index == 48  # 08:48 on a 08:00-10:00 minute axis
    assert (player.play.max, player.speed.description) == (120, "min per step")
    row = next(c for c in p.box.children if now in getattr(c, "children", ()))
    assert player.play in row.children and player.speed in row.children


# -- the page around the figures: readouts, alt text, presenter style, the Voila templates ---------

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = ROOT / "share" / "voila" / "templates"


def test_a_readout_is_monospace_live_and_carries_the_alt_text():
    html = readout_html("a < b\n  col", "r1", alt='one "two"')
    assert html == ('<pre id="r1" class="emqsim-readout" role="status" aria-live="polite" tabindex="0" '
                    'data-alt="one &quot;two&quot;" style="margin:0;font-family:var(--jp-code-font-family, '
                    'ui-monospace, monospace);font-size:var(--jp-code-font-size, 13px);line-height:1.35;'
                    'white-space:pre-wrap;overflow-wrap:anywhere;text-indent:3ch each-line hanging;'
                    'width:0;min-width:100%;overflow-x:auto">a &lt; b\n  col</pre>')


def test_a_panel_puts_its_alt_text_in_its_readout_on_every_move():
    figure = catalogue.figure("04 missed slots")
    p = figure.panel()
    assert 'data-alt="Pump down 09:30 to 10:10: 09:37, 09:52 and 10:07 missed; snap runs once at 10:10,' in p.readout.value
    p.widgets["up"].value = p.widgets["up"].options[41][1]   # 10:11
    assert 'data-alt="Pump down 09:30 to 10:11: 09:37, 09:52 and 10:07 missed; snap runs once at 10:11,' in p.readout.value


def test_the_panel_puts_the_figure_right_under_its_controls_and_keeps_it_within_the_window():
    figure = catalogue.figure("05 an overlapping run")
    p = figure.panel()
    kids = list(p.box.children)
    image = kids.index(figure.live.image)
    assert kids[image + 1:] == [*p.ask.below, p.readout]     # the challenge, then the readout
    assert all(not isinstance(k, w.HTML) or presenter_css() not in k.value for k in kids)   # not presenting
    assert kids[image - 1] is not None and DARK_CSS in kids[image - 1].value   # the dark theme's rule just before
    layout = figure.live.image.layout
    assert (layout.max_height, layout.max_width, layout.width, layout.align_self) == ("72vh", "100%", "auto",
                                                                                       "flex-start")


def test_presenter_mode_puts_its_page_style_first_in_the_panel():
    style.present(True)
    p = catalogue.figure("05 an overlapping run").panel()
    first = p.box.children[0]
    assert isinstance(first, w.HTML) and first.value == f"<style>{presenter_css()}</style>"
    assert "--jp-content-font-size1: 20px" in presenter_css() and "--jp-widgets-font-size: 18px" in presenter_css()


def test_the_voila_templates_ask_nothing_from_outside_and_share_the_presenter_style():
    lab = Path(sys.prefix) / "share" / "jupyter" / "voila" / "templates" / "lab" / "index.html.j2"
    cdn = [line.strip() for line in lab.read_text().splitlines() if "cdn.jsdelivr.net" in line]
    assert len(cdn) == 2   # the two Font Awesome links of Voila's lab template, which ours drops
    ours = (TEMPLATES / "emqsim" / "index.html.j2").read_text()
    assert all(f"replace('{link}', '')" in ours for link in cdn)
    for folder in ("emqsim", "emqsim-present"):   # no other address anywhere in them
        for f in (TEMPLATES / folder).iterdir():
            urls = [line for line in f.read_text().splitlines() if "://" in line]
            assert all(line.strip().startswith("| replace('<link") for line in urls), (f, urls)
    assert (TEMPLATES / "emqsim-present" / "present.css").resolve() == \
        ROOT / "emqsim" / "figures" / "present.css"


def test_make_present_serves_the_course_template():
    def dry(*args):
        return subprocess.run(["make", "-n", "present", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=60, check=True).stdout

    assert "--template=emqsim-present" in dry() and f"JUPYTER_PATH={ROOT}/share" in dry()
    assert "--template=emqsim " in dry("PRESENT=0").replace("\\\n", " ")
