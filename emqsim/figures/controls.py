"""Play and speed: the controls shared by every figure that unfolds over time.

A figure that steps through time (minutes on a clock, fires elapsed) gets a Play button
that walks its slider forward and a speed control for how far each tick jumps, so an
instructor can let it run in front of a class instead of dragging. The button is linked
to the slider in the browser (`jslink`): each tick moves the slider there, the slider's
change reaches the kernel as a drag would, and the panel's own callback redraws the
figure; a reader can still drag the slider, and Play resumes from where it is.

The speed control carries the CSS class `SPEED_CLASS`, the button `PLAY_CLASS` and the
slider it drives `PLAYED_CLASS`, so a browser test can tell a figure's sliders from the
speed control (which moves no figure) and knows which slider Play should move.
"""

from __future__ import annotations

from ..errors import InputError, one_of

PLAY_CLASS = "emqsim-play"
SPEED_CLASS = "emqsim-speed"
PLAYED_CLASS = "emqsim-played"


def _whole(value, what: str, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InputError(f"{what} {value!r} must be a whole number, at least {low}", what)
    return value


class Player:
    """A Play button linked to `slider`, and a speed control setting its step.

    A selection slider (options) is driven through its index; a number slider through its
    value. `step` is how many positions a tick jumps (the speed control starts there and
    reaches `max_step`); `interval` is the time between ticks, in real milliseconds.
    """

    def __init__(self, slider, *, step: int = 1, max_step: int | None = None, interval: int = 300,
                 label: str = "steps per tick", width: str | None = None):
        import ipywidgets as w

        step = _whole(step, "step", 1)
        interval = _whole(interval, "interval (ms)", 10)
        if hasattr(slider, "options"):
            self.attr, low, high = "index", 0, len(slider.options) - 1
        elif hasattr(slider, "min") and hasattr(slider, "max"):
            self.attr, low, high = "value", slider.min, slider.max
        else:
            raise InputError(f"slider {type(slider).__name__} has neither options nor min/max; "
                             "give an IntSlider or a SelectionSlider")
        max_step = max(step, (high - low) // 10, 1) if max_step is None else _whole(max_step, "max_step", step)
        self.slider = slider
        self.play = w.Play(value=getattr(slider, self.attr), min=low, max=high, step=step, interval=interval,
                           description="play")
        self.play.add_class(PLAY_CLASS)
        self.speed = w.IntSlider(value=step, min=1, max=max_step, step=1, description=label,
                                 continuous_update=True, style={"description_width": "initial"},
                                 layout=w.Layout(width=width) if width else w.Layout())
        self.speed.add_class(SPEED_CLASS)
        slider.add_class(PLAYED_CLASS)
        self.link = w.jslink((self.play, "value"), (slider, self.attr))
        self.speed.observe(self.on_speed, names="value")
        self.box = w.HBox([self.play, self.speed])

    def on_speed(self, change) -> int:
        """The speed control moved: each tick of Play now jumps this many positions."""
        self.play.step = change["new"]
        return self.play.step


def play(slider, **options) -> Player:
    """Play + speed for `slider` (see `Player`); show `.box`, or `.play` and `.speed` apart."""
    return Player(slider, **options)


def choice(value, allowed, what: str):
    """`value` if it is one of a control's positions, else an InputError naming them. The
    type counts: 15.0 or True is not the position 15 or 1 (a slider gives whole numbers)."""
    return one_of(value, allowed, what)


def drag_path(values, count: int = 20) -> list:
    """Slider positions up and down the values, `count` of them: what a reader's drag visits."""
    up = list(values)
    lap = up + up[-2:0:-1] if len(up) > 1 else up
    return [lap[i % len(lap)] for i in range(count)]


def readout_html(text: str, ident: str) -> str:
    """A readout as preformatted text with an id a browser test can find."""
    import html

    return f'<pre id="{ident}" style="margin:0">{html.escape(text)}</pre>'


class Panel:
    """What every figure's panel shares: a readout with an id a browser test can find, a
    figure refreshed after each move, and a notebook display of its widget box. A subclass
    sets `READOUT`, builds `self.box` and `self.readout`, and keeps `self.view`."""

    READOUT = "readout"

    def _show(self, text: str) -> str:
        self.readout.value = readout_html(text, self.READOUT)
        self.view.live.refresh()
        return text

    def _repr_mimebundle_(self, **kw):
        return self.box._repr_mimebundle_(**kw)
