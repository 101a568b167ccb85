"""The widgets of every live figure: one generic panel, and Play with its speed control.

`Panel` builds a figure's widgets from the controls its lesson model declares (a slider,
buttons or a drop-down, a text box) and keeps them in step with the figure; no figure has
a panel of its own.

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

from ..engine.errors import InputError

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


def drag_path(values, count: int = 20) -> list:
    """Slider positions up and down the values, `count` of them: what a reader's drag visits."""
    up = list(values)
    lap = up + up[-2:0:-1] if len(up) > 1 else up
    return [lap[i % len(lap)] for i in range(count)]


def readout_html(text: str, ident: str) -> str:
    """A readout as preformatted text with an id a browser test can find."""
    import html

    return f'<pre id="{ident}" style="margin:0">{html.escape(text)}</pre>'


#: a choice with at most this many short options is a row of buttons, else a drop-down
BUTTONS = 4


class Panel:
    """The widgets of any figure, built from its model's declared controls and wired to it:
    each move sets that control on the `Figure` (model.frame, then view.draw), shows the
    readout (an element with the model's `readout_id`, for browser tests) and refreshes the
    image. A slider with `play` gets a Play button and a speed control. The panel watches its
    figure, so a later cell's `fig.update(...)` moves the widgets too: what they show is
    always what the figure drew."""

    def __init__(self, figure):
        import ipywidgets as w

        self.figure = figure
        self._quiet = False
        model = figure.model
        self.widgets: dict = {}
        self.players: dict = {}
        rows = []
        for c in model.controls:
            widget = self._widget(w, c, model.positions(c.name, figure.values), figure.values[c.name])
            self.widgets[c.name] = widget
            if c.play is not None:
                p = c.play
                player = play(widget, step=p.step, max_step=p.max_step, interval=p.interval, label=p.label,
                              width="240px")
                self.players[c.name] = player
                rows.append(w.HBox([player.play, widget, player.speed]))
            else:
                rows.append(widget)
        self.readout = w.HTML()
        self._show(figure.frame.readout)
        for name, widget in self.widgets.items():
            widget.observe(lambda change, name=name: self.on_move(name, change["new"]), names="value")
        figure.watch(self.sync)
        self.box = w.VBox([*rows, self.readout, figure.live.image])
        replaced = _OPEN.get(type(model))   # a cell run again: the panel it showed before goes
        _OPEN[type(model)] = self
        if replaced is not None:
            replaced.close(keep_image=replaced.figure is figure)

    def close(self, keep_image: bool = False) -> None:
        """Close every widget of this panel and let go of its figure, so neither outlives the
        output that showed them (the kernel keeps each widget until it is closed, and IPython's
        `Out` keeps a panel a cell ended with). `keep_image`: the figure's image stays open for
        a newer panel of the same figure."""
        if self.figure is None:
            return
        image = self.figure.live.image if self.figure.live._image is not None else None
        self.figure.unwatch(self.sync)
        for player in self.players.values():
            _close(player.link, player.box)
        _close(*(c for c in self.box.children if c is not image or not keep_image))
        _close(self.box.layout)
        self.box.close()
        if image is not None and not keep_image:
            self.figure.live._image = None
        self.figure, self.widgets, self.players = None, {}, {}

    @staticmethod
    def _widget(w, c, positions, value):
        positions = list(positions)
        label = c.label or c.name
        if c.kind == "text":
            return w.Text(value=value, description=label, continuous_update=False,
                          style={"description_width": "initial"})
        if c.kind == "slider":
            return w.SelectionSlider(options=positions, value=value, description=label, continuous_update=True,
                                     style={"description_width": "initial"}, layout=w.Layout(width="520px"))
        if len(positions) <= BUTTONS and all(len(lab) <= 24 for lab, _ in positions):
            return w.ToggleButtons(options=positions, value=value, description=label)
        return w.Dropdown(options=positions, value=value, description=label,  # long labels shown whole
                          layout=w.Layout(width="max-content"))

    def on_move(self, name: str, value) -> str:
        """A control moved: set it on the figure; `sync` (called by the figure) does the rest."""
        if self._quiet:
            return self.figure.frame.readout
        if isinstance(value, str) and self.figure.model.control(name).kind == "text":
            value = value.strip()
        return self.figure.update(**{name: value})

    def sync(self, figure) -> str:
        """The figure changed (a move here, or a notebook cell's `fig.update(...)`): every widget
        shows the figure's values again (a dependent choice its new positions), and the readout
        and the image follow. The widgets' own events are silenced meanwhile."""
        self._quiet = True
        try:
            for c in figure.model.controls:
                widget = self.widgets[c.name]
                if c.options is not None:
                    positions = list(figure.model.positions(c.name, figure.values))
                    if list(widget.options) != positions:
                        widget.options = positions
                if widget.value != figure.values[c.name]:
                    widget.value = figure.values[c.name]
        finally:
            self._quiet = False
        return self._show(figure.frame.readout)

    def _show(self, text: str) -> str:
        self.readout.value = readout_html(text, self.figure.model.readout_id)
        self.figure.live.refresh()
        return text

    def _repr_mimebundle_(self, **kw):
        return self.box._repr_mimebundle_(**kw)


#: the panel last shown for each lesson model (by class), closed when a newer one is made
_OPEN: dict[type, Panel] = {}


def _close(*widgets) -> None:
    """Close widgets and all they hold: children, and the layout and style widgets each has."""
    for widget in widgets:
        for part in (*getattr(widget, "children", ()), getattr(widget, "layout", None), getattr(widget, "style", None)):
            if part is not None and hasattr(part, "close"):
                _close(part)
        widget.close()


def panel(figure) -> Panel:
    """The widgets around `figure` (see `Panel`); it displays as its widget box."""
    return Panel(figure)
