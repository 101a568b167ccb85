"""Bad values given to a figure's update(), for every figure of the catalogue: each raises
emqsim.InputError naming the control, and leaves the view as it was, so the next update
(and the one after a good move) still works (issue 10, part 4)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402

from emqsim import InputError  # noqa: E402
from emqsim.figures.catalogue import FIGURES  # noqa: E402

NAN = float("nan")


@pytest.fixture(scope="module")
def views():
    return {name: make() for name, make in FIGURES.items()}


def _keys(view) -> dict:
    """Each control the view's moves set, with one good value for it."""
    keys: dict = {}
    for move in view.moves():
        for k, v in move.items():
            keys.setdefault(k, v)
    return keys


def _bad(good) -> list:
    """Values of the wrong kind or out of range for a control whose good value is `good`."""
    common = [True, False, NAN, [good], {"v": good}, b"x", object()]
    if isinstance(good, str):
        return common + [5, 5.0, "nope", "", good + "x", good.upper() + "!"]
    return common + [float(good), good + 0.5, -10**30, 10**30, "nope", str(good) + "q", -1, 2**64]


def _state(view):
    """What a view shows without a move: its readout, or (registry rows) the cursor's text."""
    try:
        return view.update()
    except TypeError:   # update(fires) has no default: its readout is the state
        return view.readout


@pytest.mark.parametrize("name", list(FIGURES))
def test_each_bad_value_is_refused_and_changes_nothing(views, name):
    v = views[name]
    keys = _keys(v)
    assert keys, f"{name} has no moves"
    before = _state(v)
    refused = 0
    for key, good in keys.items():
        for bad in _bad(good):
            with pytest.raises(InputError) as info:
                v.update(**{key: bad})
            assert "\n" not in str(info.value)
            refused += 1
            assert _state(v) == before, f"{name}: update({key}={bad!r}) changed the view"
    assert refused >= 14
    # the view still moves after all that
    moves = v.moves()
    assert isinstance(v.update(**moves[len(moves) // 2]), str)
    assert isinstance(v.update(**moves[0]), str)


@pytest.mark.parametrize("name", list(FIGURES))
def test_a_good_value_beside_a_bad_one_is_not_stored(views, name):
    """Check first, then store: update(a=good, b=bad) leaves a as it was."""
    v = views[name]
    keys = _keys(v)
    if len(keys) < 2:
        pytest.skip("one control")
    before = _state(v)
    moves = v.moves()
    other = next(m for m in moves[1:] if any(m[k] != moves[0].get(k) for k in m))
    for key in keys:
        for good_key, good in other.items():
            if good_key == key:
                continue
            with pytest.raises(InputError):
                v.update(**{good_key: good, key: "nope" if not isinstance(keys[key], str) else 5})
            assert _state(v) == before, f"{name}: {good_key} was stored though {key} was refused"


def test_now_far_off_the_axis_is_refused_not_drawn(views):
    """update(now=...) far outside the axis crashed the renderer; now it is refused, naming now."""
    v = views["01 cron vs interval"]
    before = v.update()
    for now in (0, 10**15, -10**15, v.start - 1, v.end + 1):
        with pytest.raises(InputError, match=r"^now -?\d+ must be whole Unix ms on the axis"):
            v.update(now=now)
    assert v.update() == before
    assert v.update(now=v.end).startswith("now ")


def test_floats_and_bools_are_not_slider_positions(views):
    v = views["03 start-to-start"]
    for bad in (1.0, True):
        with pytest.raises(InputError, match=r"^run \(min\) "):
            v.update(run=bad)
    assert v.update(run=1) == v.update()


def test_fullwidth_and_arabic_indic_times_are_refused(views):
    """Only ASCII digits are read: '１０:１０' was taken for 10:10."""
    v = views["04 missed slots"]
    before = v.update()
    for bad in ("\uff11\uff10:\uff11\uff10", "\u0661\u0660:\u0661\u0660"):
        with pytest.raises(InputError, match=r"^pump up .* is not a time; give HH:MM"):
            v.update(up=bad)
    assert v.update() == before
