"""The one-row view: its artists follow the model's frames, and the generic panel drives it."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest

from emqsim.figures import catalogue
from emqsim.figures.one_row_rewritten import RegistryRowsView, deep
from emqsim.figures.style import new_figure
from emqsim.figures.view import Figure
from emqsim.lessons.one_row_rewritten import RegistryRowsModel


@pytest.fixture(scope="module")
def fig():
    f = catalogue.figure("02 one row rewritten")
    yield f
    f.model.close()


def test_first_drawing_is_the_registration(fig):
    v = fig.view
    assert isinstance(v, RegistryRowsView) and fig.values == {"fires": 0}
    assert v.cursor.get_xdata() == [0, 0]
    assert v.jobs_dot.get_data() == ([0], [0]) and v.rows_dot.get_data() == ([0], [1])
    assert v.row_box.get_text() == "cursor at 0 fires: row reports -> 09:00 on 2026-11-30\nlatest job none yet"
    assert v.ax.get_xlim() == (0.0, 10_000.0) and v.ax.get_ylim() == (0.0, 10_500.0)
    # one row stands half way between no job and one job on the jobs' log axis, where no stop
    # puts the jobs' dot (at 50 fires on a phone it sat on the square, issue 30)
    assert v.ax_rows.get_ylim() == (0.0, pytest.approx(4.8953, abs=1e-4))
    (_, y0), (_, y1) = v.ax.transData.transform([(0, 0), (0, 1)])
    assert v.ax_rows.transData.transform((0, 1))[1] == pytest.approx((y0 + y1) / 2)
    assert v.ax.get_title() == "One row, rewritten each fire (reports, every 15 min)"
    assert (v.live.fig.get_figwidth(), v.live.fig.get_figheight()) == (9.0, 3.6)


def test_artist_data(fig):
    v = fig.view
    text = fig.update(fires=4)
    assert text == ("after 4 fires · ZCARD 1 · jobs 4 · row reports -> 10:00 on 2026-11-30 · "
                    "last job JOB0SUdY9CNxTc minted 09:45:00 on 2026-11-30")
    assert v.cursor.get_xdata() == [4, 4]
    assert v.jobs_line.get_xdata().tolist() == [0, 1, 2, 3, 4]
    assert v.jobs_line.get_ydata().tolist() == [0, 1, 2, 3, 4]
    assert v.rows_line.get_xdata().tolist() == [0, 1, 2, 3, 4]
    assert v.rows_line.get_ydata().tolist() == [1, 1, 1, 1, 1]
    assert v.jobs_dot.get_data() == ([4], [4])
    assert v.rows_dot.get_data() == ([4], [1])
    assert v.row_box.get_text() == ("cursor at 4 fires: row reports -> 10:00 on 2026-11-30\n"
                                    "latest job JOB0SUdY9CNxTc (09:45:00)")
    fig.update(fires=100)
    assert v.cursor.get_xdata() == [100, 100]
    assert v.jobs_line.get_ydata().tolist() == list(range(101))
    assert v.rows_line.get_ydata().tolist() == [1] * 101


def test_only_the_moving_marks_are_redrawn_and_the_picture_moves(fig):
    v = fig.view
    assert set(v.live.moving) == set(v.moving)
    assert all(a.get_animated() for a in v.moving)
    fig.update(fires=1)
    one = fig.png()
    assert one[:8] == b"\x89PNG\r\n\x1a\n"
    fig.update(fires=100)
    assert fig.png() != one
    fig.update(fires=1)
    assert fig.png() == one


def test_axis_follows_the_models_span():
    f, ax = new_figure()
    fig = Figure(RegistryRowsModel(top=20), RegistryRowsView(ax))
    assert fig.view.live.fig is f
    assert fig.view.ax.get_xlim() == (0.0, 20.0) and fig.view.ax.get_ylim() == (0.0, 21.0)
    fig.update(fires=20)
    assert fig.view.jobs_line.get_ydata().tolist() == list(range(21))
    fig.model.close()


def test_panel(fig):
    fig.update(fires=0)
    p = fig.panel()
    slider, player = p.widgets["fires"], p.players["fires"]
    assert slider.description == "fires elapsed" and slider.value == 0
    assert slider.options[slider.index] == ("0", 0) and slider.options[-1] == ("10,000", 10_000)
    assert (player.play.max, player.play.step, player.speed.description) == (154, 1, "positions per step")
    assert player.link.target == (slider, "index")
    assert 'id="registry-rows-readout"' in p.readout.value
    slider.value = 4  # the observer sets the figure
    assert fig.values == {"fires": 4} and fig.view.cursor.get_xdata() == [4, 4]
    assert ("after 4 fires · ZCARD 1 · jobs 4 · row reports -&gt; 10:00 on 2026-11-30 · "
            "last job JOB0SUdY9CNxTc minted 09:45:00 on 2026-11-30</pre>") in p.readout.value
    slider.value = 0
    assert "after 0 fires · ZCARD 1 · jobs 0 · row reports -&gt; 09:00 on 2026-11-30 · no job yet</pre>" \
        in p.readout.value
    assert p.box.children[-3:] == (fig.live.image, p.ask.line, p.readout)  # the challenge under the figure


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_first_fires_are_readable_on_the_axis(layout):
    """Issue 30: the slider's first 60 positions (fires 0 to 60 of 10,000) were squashed into
    the axis' first 0.6%; on a log axis fire 60 stands past a third of its width and each of
    the first fires apart from the next by at least 3% of it."""
    f = catalogue.figure("02 one row rewritten", layout=layout)
    ax = f.view.ax
    x0, x1 = ax.transAxes.transform([(0, 0), (1, 0)])[:, 0]

    def at(fires):
        return (ax.transData.transform((fires, 1))[0] - x0) / (x1 - x0)

    assert at(0) == pytest.approx(0, abs=1e-6) and at(10_000) == pytest.approx(1, abs=1e-6)
    assert at(60) > 1 / 3
    assert min(at(k + 1) - at(k) for k in range(3)) > 0.03
    f.update(fires=2)
    assert list(f.view.jobs_line.get_xdata()) == [0, 1, 2]
    f.model.close()


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_zcard_square_reads_off_its_own_axis(layout):
    """Issue 30: the ZCARD square, at 1 on the right axis, stood level with "30" on the jobs
    axis and was read off it. At each stop the square sits at the model's ZCARD in the rows
    axis' data, that axis (its label, numbers and spine) is in the square's colour and not in
    the jobs' colour, and the count is written beside the square, inside the axes."""
    from emqsim.figures import style
    from emqsim.figures.style import ink, ROLE
    from matplotlib.colors import to_hex

    f = catalogue.figure("02 one row rewritten", layout=layout)
    v = f.view
    r = v.ax.figure.canvas.get_renderer()
    square, jobs = to_hex(v.rows_dot.get_color()), to_hex(v.jobs_dot.get_color())
    assert square != jobs and ink(square) != ink(jobs)
    assert deep(square) == "#005D92" and style.contrast(deep(square), "#FFFFFF") >= 7.0
    try:
        for fires in (0, 1, 4, 50, 1000, 10_000):
            f.update(fires=fires)
            size = f.model.state(fires).size
            assert v.rows_dot.axes is v.ax_rows and v.rows_dot.get_data() == ([fires], [size])
            assert v.rows_value.axes is v.ax_rows and tuple(v.rows_value.xy) == (fires, size)
            assert " ".join(v.rows_value.get_text().split()) == f"{size} row (ZCARD)" and to_hex(v.rows_value.get_color()) == ink(square).lower()
            box, inside = v.rows_value.get_window_extent(r), v.ax.get_window_extent(r)
            assert inside.x0 <= box.x0 and box.x1 <= inside.x1
            assert to_hex(v.ax_rows.yaxis.label.get_color()) == ink(square).lower()
            # its numbers in a deeper shade of the square's colour (a lone "1" read soft on a phone)
            assert {to_hex(t.get_color()) for t in v.ax_rows.get_yticklabels()} == {deep(square).lower()}
            assert to_hex(v.ax_rows.spines["right"].get_edgecolor()) == square
            assert {to_hex(t.get_color()) for t in v.ax.get_yticklabels()} == {ink(jobs).lower()}
            assert to_hex(v.ax.spines["left"].get_edgecolor()) == jobs
            assert not v.ax_rows.spines["left"].get_visible()
    finally:
        f.model.close()


def _served_as_shown(fig, layout: str):
    """The frame the site serves (drawn and compressed as it is), box-averaged down to the width
    the site shows it at, as the browser does on a phone (0.32 of its pixels): RGB floats 0-1,
    and the factor from the figure's pixels to these."""
    import io

    import numpy as np
    from PIL import Image

    from emqsim.figures import style
    from emqsim.site import player

    f = fig.view.ax.figure
    im = Image.open(io.BytesIO(player.compress(fig.png(), player.text_cores(f)))).convert("RGB")
    k = style.SHOWN_PX[layout] / im.size[0]
    shown = im.resize((round(im.size[0] * k), round(im.size[1] * k)), Image.BOX)
    return np.asarray(shown) / 255.0, k


@pytest.mark.parametrize("layout", ["normal", "narrow"])
def test_the_right_axis_numbers_stand_apart_and_read(layout):
    """Issue 30: the right axis' 0 and 1 were squeezed into the plot's foot, under an em apart,
    and on a phone its "1", a lone stroke the browser blends with white at a third of its
    pixels, read 4.98:1, the course's softest figure text. At the site's pixels, in both
    layouts: the two numbers' boxes stand at least an em apart, and each one's darkest pixel,
    in the frame as served and shown, reads at 5.5:1 or more on white."""
    from matplotlib.colors import to_hex

    from emqsim.figures import style
    from tests.test_colour import _darkest_blend

    with style.at_shown_width():
        f = catalogue.figure("02 one row rewritten", layout=layout)
    try:
        found = []
        for fires in (0, 4, 10_000):
            f.update(fires=fires)
            v = f.view
            fig = v.ax.figure
            fig.canvas.draw()
            r = fig.canvas.get_renderer()
            labels = {t.get_text(): t for t in v.ax_rows.get_yticklabels() if t.get_visible() and t.get_text()}
            assert sorted(labels) == ["0", "1"]
            zero, one = (labels[k].get_window_extent(r) for k in ("0", "1"))
            em = labels["1"].get_fontsize() * fig.dpi / 72
            if one.y0 - zero.y1 < em:
                found.append(("under an em apart", fires, round((one.y0 - zero.y1) / em, 2)))
            img, k = _served_as_shown(f, layout)
            for text, t in labels.items():
                b = t.get_window_extent(r)
                seen = _darkest_blend(img, (b.x0 * k, b.y0 * k, b.x1 * k, b.y1 * k), t.get_color(), style.LIGHT_BG)
                ratio = style.contrast(to_hex(seen), style.LIGHT_BG)
                if ratio < style.TEXT_CONTRAST:
                    found.append(("soft", fires, text, round(ratio, 2)))
        assert found == []
    finally:
        f.model.close()
