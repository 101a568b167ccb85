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

A drag sends every position it passes; a move that takes long would make each of them
wait its turn (notebook 02's drag to 10,000 fires once did, for 21.7 s). `Mover` keeps only
the latest position while one is computed, and a walk that lasts over `PATIENCE` seconds
says in the readout how far it has come.

On a phone (a panel at most `NARROW_PX` wide, measured in the browser) the panel shows its
figure in the narrow layout, drawn for that width, and renders only that layout on a move.
"""

from __future__ import annotations

import asyncio
import gc
import time

from ..engine.errors import InputError, whole

PLAY_CLASS = "emqsim-play"
SPEED_CLASS = "emqsim-speed"
PLAYED_CLASS = "emqsim-played"


class Player:
    """A Play button linked to `slider`, and a speed control setting its step.

    A selection slider (options) is driven through its index; a number slider through its
    value. `step` is how many positions a tick jumps (the speed control starts there and
    reaches `max_step`); `interval` is the time between ticks, in real milliseconds.
    """

    def __init__(self, slider, *, step: int = 1, max_step: int | None = None, interval: int = 300,
                 label: str = "positions per step", width: str | None = None):
        import ipywidgets as w

        step = whole(step, "step", low=1)
        interval = whole(interval, "interval (ms)", low=10)
        if hasattr(slider, "options"):
            self.attr, low, high = "index", 0, len(slider.options) - 1
        elif hasattr(slider, "min") and hasattr(slider, "max"):
            self.attr, low, high = "value", slider.min, slider.max
        else:
            raise InputError(f"slider {type(slider).__name__} has neither options nor min/max; "
                             "give an IntSlider or a SelectionSlider")
        max_step = max(step, (high - low) // 10, 1) if max_step is None else whole(max_step, "max_step", low=step)
        self.slider = slider
        self.play = w.Play(value=getattr(slider, self.attr), min=low, max=high, step=step, interval=interval,
                           description="play")
        self.play.add_class(PLAY_CLASS)
        self.speed = w.IntSlider(value=step, min=1, max=max_step, step=1, description=label,
                                 continuous_update=True, style={"description_width": "initial"},
                                 layout=w.Layout(width=width, max_width="100%") if width else w.Layout())
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


#: the readout's CSS class; its font is the code font everywhere, so its column tables stay aligned
READOUT_CLASS = "emqsim-readout"
#: monospace at the code font's size (presenter mode scales that size, see present.css); a line
#: wider than the column wraps inside it, its continuation indented under the line's start (on a
#: 390 px phone in Voila the readouts ran 376-1166 px wide in a 356 px box, cut at the right);
#: width 0 and at least the column: the widget's flex box would otherwise grow to the text's width
READOUT_STYLE = ("margin:0;font-family:var(--jp-code-font-family, ui-monospace, monospace);"
                 "font-size:var(--jp-code-font-size, 13px);line-height:1.35;white-space:pre-wrap;"
                 "overflow-wrap:anywhere;text-indent:3ch each-line hanging;"
                 "width:0;min-width:100%;overflow-x:auto")


def readout_html(text: str, ident: str, alt: str = "") -> str:
    """A readout as preformatted text in the code font, with an id a browser test can find; a
    polite live region, so a screen reader says the new readout after a move. `alt` (what the
    figure shows) rides along as `data-alt`: the widget library's image has no alt text of its
    own, and the course's Voila page copies it onto the image (emqsim-a11y.js). A table wider than
    the column scrolls, so the keyboard can reach it (tabindex 0; axe's scrollable-region-focusable)."""
    import html

    return (f'<pre id="{ident}" class="{READOUT_CLASS}" role="status" aria-live="polite" tabindex="0" '
            f'data-alt="{html.escape(alt)}" style="{READOUT_STYLE}">{html.escape(text)}</pre>')


def presenter_css() -> str:
    """Presenter mode's page style (present.css): prose, controls and readouts grow with the
    figures; the panel and the course's presenter Voila template both use this one file."""
    from importlib.resources import files

    return files("emqsim.figures").joinpath("present.css").read_text()


def presenter_style():
    """The style element presenter mode puts on the page, as a widget, or None out of it."""
    import ipywidgets as w

    from .style import presenting

    return w.HTML(f"<style>{presenter_css()}</style>") if presenting() else None


#: a figure's slider: this wide where there is room, never wider than its column (a phone)
SLIDER_WIDTH = "520px"
#: the speed control: room for its label and a track several knobs long (at 240 px presenter
#: mode's "min per step" left a 24 px track, the knob covering it)
SPEED_WIDTH = "360px"
#: Play, its slider and the speed control: one line where they fit, else each part on a line of
#: its own at its own width. Kept on one line, a 390 px phone squeezed the slider to 10 px, its
#: label hidden and its knob against the speed control's label (Lab and Voila, issue 30).
ROW = {"flex_flow": "row wrap", "align_items": "center"}

#: a choice with at most this many short options is a row of buttons, else a drop-down
BUTTONS = 4

#: a panel whose box is at most this wide (CSS px) shows its figure in the narrow layout, drawn
#: for a phone's width (the static site switches at the same width: emqsim.site.player.NARROW_MEDIA)
NARROW_PX = 600
#: the narrow layout's resolution in a kernel: two device pixels a CSS px where a phone shows it
#: (style.SHOWN_PX), where the site's frames have three (style.NARROW_DPI, 270): rendered at
#: 270 dpi, a move took longer than the figures' budget of 100 ms
KERNEL_NARROW_DPI = 180
#: the panel's box, and the hidden checkbox through which the browser says the box is narrow
PANEL_CLASS = "emqsim-panel"
NARROW_CLASS = "emqsim-narrow"
#: What tells the kernel the panel's width: a widget's HTML is set as the page's own markup, so
#: the load handler of a one-pixel picture watches the panel's box (a ResizeObserver) and clicks
#: the hidden checkbox whenever the box crosses NARROW_PX, which the widget library sends to the
#: kernel as any click. Each box is watched once, however often its views are drawn.
_MEASURE_JS = (
    "var b=this.closest('.{panel}');if(!b||b.dataset.emqsimWatched)return;b.dataset.emqsimWatched='1';"
    "var f=function(){{var c=b.querySelector('.{flag} input[type=checkbox]'),w=b.clientWidth;"
    "if(c&&w>0&&(w<={px})!==c.checked)c.click();}};"
    "if(window.ResizeObserver)new ResizeObserver(f).observe(b);f();")
_PIXEL = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"


def measure_html() -> str:
    """The markup of the widget that watches a panel's width (see `_MEASURE_JS`)."""
    import html

    js = _MEASURE_JS.format(panel=PANEL_CLASS, flag=NARROW_CLASS, px=NARROW_PX)
    return f'<img src="{_PIXEL}" alt="" width="1" height="1" style="display:block" onload="{html.escape(js)}">'


#: a move computing for longer than this (seconds, real time) shows its progress in the readout
PATIENCE = 0.3
#: fires a walking model makes between two looks at newer moves and the readout
CHUNK = 250


def made_of(made: int, asked: int) -> str:
    """How far a long walk has come, as the readout says it while the figure waits."""
    return f"computing: {made:,} of {asked:,} fires made"


class Mover:
    """Applies a panel's moves to its figure one at a time, coalescing those that arrive meanwhile.

    `move(**changes)` keeps the changes; if nothing is being computed they are applied at once.
    A quick move is applied in the callback itself (the kernel stays busy meanwhile, so the
    browser's widget keeps only its latest value for the next message). A walk of more than one
    chunk runs, in a kernel, as a task on its event loop that yields between chunks, so the
    slider messages that arrive meanwhile are read: they only replace the pending changes, and
    when the work in hand ends only the latest position is computed, never each one a drag
    passed. A model that runs fire by fire (it has `walk(n)` and `reached`, and its main slider
    counts fires) is walked `chunk` fires at a time; once the walk has taken `patience` seconds
    (`clock`, real time: the figure's own time stays virtual), `progress(text)` hears
    "computing: 1,250 of 10,000 fires made" after each chunk. A newer move stops the walk
    between two chunks (what was made is kept). In a kernel an error goes to the readout, where
    a reader sees it; without one (a test, a script) it is raised."""

    def __init__(self, figure, progress, *, clock=time.monotonic, patience: float = PATIENCE,
                 chunk: int = CHUNK):
        self.figure, self.progress, self.clock = figure, progress, clock
        self.patience, self.chunk = patience, whole(chunk, "chunk", low=1)
        self.pending: dict = {}
        self.busy = False
        self.drawn = 0   # moves drawn so far (a test counts them)
        self._task = None

    def move(self, **changes):
        """Take a move; returns the work (a generator, already run unless it became a task) or
        None if it joined the pending changes of the work in hand."""
        self.pending.update(changes)
        if self.busy:
            return None
        self.busy = True
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        work = self.work(shown=loop is not None)
        if loop is not None and self._long(self.pending):
            self._task = loop.create_task(self._drive(work))
        else:
            for _ in work:
                pass
        return work

    def _long(self, changes: dict) -> bool:
        """Whether these changes ask a walking model for more than one chunk of fires."""
        model = self.figure.model
        main = model.main()
        if not (hasattr(model, "walk") and hasattr(model, "reached") and main is not None):
            return False
        try:
            values = model.values(self.figure.values, **changes)
        except InputError:
            return False   # the work reports it
        return values[main.name] - model.reached > self.chunk

    @staticmethod
    async def _drive(work) -> None:
        for _ in work:
            await asyncio.sleep(0)   # let the kernel read the messages that arrived meanwhile

    def work(self, shown: bool = False):
        """The generator doing the work: yields between two chunks, ends when nothing is pending.
        With `shown` an error goes to `progress` (the readout) instead of being raised."""
        try:
            while self.pending:
                changes, self.pending = self.pending, {}
                values = self.figure.model.values(self.figure.values, **changes)
                yield from self._walk(values)
                if self.pending:
                    continue   # a newer move came in: draw that one instead
                self.figure.update(**changes)
                self.drawn += 1
        except Exception as exc:
            self.pending = {}
            if not shown:
                raise
            self.progress(f"{type(exc).__name__}: {exc}")
        finally:
            self.busy, self._task = False, None

    def _walk(self, values):
        model = self.figure.model
        main = model.main()
        if not (hasattr(model, "walk") and hasattr(model, "reached") and main is not None):
            return
        asked = values[main.name]
        started = self.clock()
        while model.reached < asked:
            if self.pending:
                return
            model.walk(min(asked, model.reached + self.chunk))
            if self.clock() - started > self.patience:
                self.progress(made_of(model.reached, asked))
            yield


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
        self.mover = Mover(figure, self._say)
        model = figure.model
        self.widgets: dict = {}
        self.players: dict = {}
        rows = []
        for c in model.controls:
            widget = self._widget(w, c, model.positions(c.name, figure.values), figure.values[c.name])
            self.widgets[c.name] = widget
            if c.play is not None:
                p = c.play
                player = play(widget, step=p.step, max_step=p.max_step, interval=p.tick(len(widget.options)),
                              label=p.label, width=SPEED_WIDTH)
                self.players[c.name] = player
                rows.append(w.HBox([player.play, widget, player.speed], layout=w.Layout(**ROW)))
            else:
                rows.append(widget)
        # the browser's word that the panel is narrow (a phone): the figure then shows its
        # narrow layout, a twin of the figure drawn for that width (see `_refresh`)
        self._twin = None
        self.narrow = w.Checkbox(value=False, description="narrow layout", indent=False,
                                 layout=w.Layout(display="none"))
        self.narrow.add_class(NARROW_CLASS)
        self.narrow.observe(lambda change: self._refresh(), names="value")
        self.readout = w.HTML()
        self._show(figure.frame.readout)
        for name, widget in self.widgets.items():
            widget.observe(lambda change, name=name: self.on_move(name, change["new"]), names="value")
        figure.watch(self.sync)
        from .ask import ask  # the model's questions above the figure, its challenge under it

        # the challenge is judged where the reader stops: not while one of these runs
        self.ask = ask(figure, plays=[p.play for p in self.players.values()])
        # the controls, then the figure with its axis right under them (a projector's 720 px hold
        # both; the width's watcher and the dark theme's rule, which show nothing, just before
        # it), its challenge, and the readout last
        style = presenter_style()
        measure = w.HTML(measure_html(), layout=w.Layout(height="0px", margin="0px", overflow="hidden"))
        self.box = w.VBox([*([style] if style else []), *self.ask.above, *rows, measure, self.narrow,
                           figure.live.theme(), figure.live.image,
                           *self.ask.below, self.readout])
        self.box.add_class(PANEL_CLASS)
        replaced = _OPEN.get(type(model))   # a cell run again: the panel it showed before goes
        _OPEN[type(model)] = self
        if replaced is not None:
            replaced.close(keep_image=replaced.figure is figure)
            # A cell run again leaves the figure it showed before (a matplotlib figure, its
            # cached layers, its model's frames) as garbage in cycles, which Python's collector
            # frees only at its next full pass, seldom in a large kernel: a reader re-running a
            # page grew 1.35x in ten runs (issue 32). Collected here, once per figure cell run
            # again, the kernel stays near its first size.
            gc.collect()

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
        # the mover, the questions and the closed widgets' callbacks each reach the figure and
        # its model's frames: IPython's `Out` would keep them all through this panel
        self.figure, self.widgets, self.players = None, {}, {}
        self.mover = self.ask = self.box = self.readout = self._twin = None

    @staticmethod
    def _widget(w, c, positions, value):
        positions = list(positions)
        label = c.label or c.name
        if c.kind == "text":
            return w.Text(value=value, description=label, continuous_update=False,
                          style={"description_width": "initial"})
        if c.kind == "slider":
            return w.SelectionSlider(options=positions, value=value, description=label, continuous_update=True,
                                     style={"description_width": "initial"},
                                     layout=w.Layout(width=SLIDER_WIDTH, max_width="100%"))
        if len(positions) <= BUTTONS and all(len(lab) <= 24 for lab, _ in positions):
            return w.ToggleButtons(options=positions, value=value, description=label)
        # long labels shown whole; never wider than the column: on a 390 px phone 03's "design"
        # ran 48 px past the panel, whose box then scrolled sideways and cut its labels' first
        # letters (its 2 px side margins past a column-wide box too); the closed list's name is
        # then cut at the column's edge, the list opens whole
        return w.Dropdown(options=positions, value=value, description=label,
                          layout=w.Layout(width="max-content", max_width="100%", margin="2px 0px"))

    def on_move(self, name: str, value) -> str:
        """A control moved: hand it to the mover, which sets it on the figure (at once, or after
        the move in hand; see `Mover`); `sync` (called by the figure) does the rest. Returns the
        readout as it stands."""
        if self._quiet:
            return self.figure.frame.readout
        if isinstance(value, str) and self.figure.model.control(name).kind == "text":
            value = value.strip()
        self.mover.move(**{name: value})
        return self.figure.frame.readout

    def sync(self, figure) -> str:
        """The figure changed (a move here, or a notebook cell's `fig.update(...)`): every widget
        shows the figure's values again (a dependent choice its new positions), and the readout
        and the image follow. The widgets' own events are silenced meanwhile."""
        self._quiet = True
        try:
            for c in figure.model.controls:
                if c.name in self.mover.pending:
                    continue   # the reader has moved it on meanwhile: leave it where they put it
                widget = self.widgets[c.name]
                if c.options is not None:
                    positions = list(figure.model.positions(c.name, figure.values))
                    if list(widget.options) != positions:
                        widget.options = positions
                        if c.name in self.players:   # Play walks only the positions offered, paced for them
                            self.players[c.name].play.max = len(positions) - 1
                            self.players[c.name].play.interval = c.play.tick(len(positions))
                if widget.value != figure.values[c.name]:
                    widget.value = figure.values[c.name]
        finally:
            self._quiet = False
        return self._show(figure.frame.readout)

    def _show(self, text: str) -> str:
        self.readout.value = readout_html(text, self.figure.model.readout_id,
                                          self.figure.model.describe(self.figure.frame))
        self._refresh()
        return text

    def twin(self):
        """The figure in the narrow layout at `KERNEL_NARROW_DPI`, over the same model (its
        frames computed once), made when a narrow box first asks for it."""
        if self._twin is None:
            from .style import laid_out

            with laid_out("narrow"):
                view = type(self.figure.view)()
            # at the resolution it is shown at before anything is placed: a view that measures
            # its texts to place the next one (05's "each run takes" and its value) measured at
            # another dpi overlapped them ("takes10 min" in Voila on a phone)
            view.ax.figure.set_dpi(KERNEL_NARROW_DPI)
            self._twin = type(self.figure)(self.figure.model, view)
        return self._twin

    def _refresh(self) -> bytes:
        """Render the figure as it stands into the image: only the layout the panel's width
        asks for is drawn (both on every move would double its cost)."""
        if self.figure is None:
            return b""
        if not self.narrow.value:
            return self.figure.live.refresh()
        twin = self.twin()
        twin.update(**self.figure.values)
        fig = twin.view.ax.figure
        if fig.dpi != KERNEL_NARROW_DPI:   # set here: pyplot letting go of a figure puts its dpi back
            fig.set_dpi(KERNEL_NARROW_DPI)
            twin.live.invalidate()
        data = twin.live.refresh()
        self.figure.live.image.value = data
        return data

    def _say(self, text: str) -> None:
        """A word from the mover (progress, or an error), in the readout; the figure waits."""
        self.readout.value = readout_html(text, self.figure.model.readout_id,
                                          self.figure.model.describe(self.figure.frame))

    def _repr_mimebundle_(self, **kw):
        """The widget box, and the figure as it stands as PNG beside it: a kernel shows the
        widget, a reader without one the picture, so the cell shows the figure once either way
        (the static site puts its player there instead)."""
        import base64

        if self.box is None:
            return {"text/plain": "a panel closed when its cell ran again"}
        bundle = self.box._repr_mimebundle_(**kw)
        data, meta = bundle if isinstance(bundle, tuple) else (bundle, {})
        data = dict(data)
        data["image/png"] = base64.b64encode(self.figure.live.refresh(level=6)).decode("ascii")
        if self.narrow.value:   # the static picture is the normal layout; a narrow box keeps its own
            self._refresh()
        return (data, meta) if isinstance(bundle, tuple) else data


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
