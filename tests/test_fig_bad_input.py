"""Bad values given to any figure of the catalogue: each control refuses them with one
emqsim.InputError naming the control and what it accepts, and the figure keeps its state
(values, frame, picture), so the next move still works. Also: every control's every
position gives a frame with a readout, drawn without error."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from figure_walk import model as shared_model  # noqa: E402

from emqsim import InputError  # noqa: E402
from emqsim.figures import catalogue  # noqa: E402

NAN = float("nan")
TITLES = list(catalogue.SOURCES)


@pytest.fixture(scope="module")
def figures():
    return {}


def _figure(figures, title):
    if title not in figures:
        figures[title] = catalogue.figure(title, shared_model(title))   # frames computed once per process
    return figures[title]


def _bad(good) -> list:
    """Values of the wrong kind or out of range for a control whose good value is `good`."""
    common = [True, False, NAN, [good], {"v": good}, b"x", object(), None]
    if isinstance(good, str):
        return common + [5, 5.0, "nope \u00e9", good + "x", good.upper() + "!", "\uff11\uff10:\uff11\uff10"]
    return common + [float(good), good + 0.5, -10**30, 10**30, "nope", str(good), -1, 2**64]


def _state(fig):
    return dict(fig.values), fig.frame.readout, fig.png()


@pytest.mark.parametrize("title", TITLES)
def test_each_bad_value_is_refused_and_changes_nothing(figures, title):
    fig = _figure(figures, title)
    before = _state(fig)
    refused = 0
    for control in fig.model.controls:
        if control.kind == "text":
            bads = [5, 5.0, None, True, [control.default], b"x"]
        else:
            bads = [b for b in _bad(fig.values[control.name])
                    if not any(b is v or (type(b) is type(v) and b == v)
                               for _, v in fig.model.positions(control.name, fig.values))]
        for bad in bads:
            with pytest.raises(InputError) as info:
                fig.update(**{control.name: bad})
            message = str(info.value)
            assert "\n" not in message and len(message) < 600, message
            assert message.startswith((control.name, control.label)), message
            refused += 1
        assert _state(fig) == before, f"{title}: a refused {control.name} changed the figure"
    assert refused >= 10
    with pytest.raises(InputError, match=r"^no control 'nope'"):
        fig.update(nope=1)


@pytest.mark.parametrize("title", TITLES)
def test_a_good_value_beside_a_bad_one_is_not_stored(figures, title):
    """Check first, then keep: update(a=good, b=bad) leaves a as it was."""
    fig = _figure(figures, title)
    controls = [c for c in fig.model.controls if c.kind != "text"]
    before = _state(fig)
    for good in controls:
        other = [v for _, v in fig.model.positions(good.name, fig.values) if v != fig.values[good.name]]
        if not other:
            continue
        for bad in fig.model.controls:
            if bad is good:
                continue
            with pytest.raises(InputError):
                fig.update(**{good.name: other[0], bad.name: object()})
            assert _state(fig) == before, f"{title}: {good.name} was kept though {bad.name} was refused"


@pytest.mark.parametrize("title", TITLES)
def test_every_position_of_every_control_draws_with_a_readout(figures, title):
    """Each control walked over its positions (the others at their defaults): a readout each
    time, and the main slider changes the picture as it moves."""
    fig = _figure(figures, title)
    model = fig.model
    start = dict(fig.values)
    main = model.main()
    pictures = set()
    for control in model.controls:
        positions = model.positions(control.name, fig.values)
        step = max(1, len(positions) // 12)
        for _, value in positions[::step]:
            text = fig.update(**{control.name: value})
            assert isinstance(text, str) and text.strip(), (title, control.name, value)
            if control is main:
                pictures.add(fig.png())
        fig.update(**{control.name: start[control.name]})
    if main is not None:
        assert len(pictures) > 1, f"{title}: moving {main.name} never changed the picture"
    assert fig.values == start
