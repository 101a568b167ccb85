"""What every lesson model shares: its declared controls, checked values, and cached frames.

A lesson model is the experiment behind one figure. It declares the controls a reader can
move (`Control`: a slider over fixed positions, a choice, or free text with presets) and
answers `frame(**values)` with plain data (numbers, times, the readout text), computed by
the engine and never drawn here. The same frame feeds the notebook's widgets, the static
site's pre-rendered slider and the tests, so all three show one answer.

`frame` checks every value against the control's positions before computing anything,
fills the controls not given with their defaults, and caches what it computed: moving a
slider back is free, and the static site can render every position without recomputing.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..engine.errors import InputError, one_of

#: control kinds: a slider walks ordered positions; a choice picks one of a few; text is free
KINDS = ("slider", "choice", "text")


#: a Play pass, first position to last at the default speed, takes at most this long (real ms): a
#: first-time reader sees the whole idea in one pass (02's first figure took 46 s, 154 ticks of 300 ms)
PASS_MS = 20_000
#: and a tick lasts at least this long (real ms), so each frame is seen
TICK_FLOOR_MS = 100


@dataclass(frozen=True)
class Play:
    """A Play button for a slider: `step` positions per tick (up to `max_step` with the speed
    control), `interval` real ms between ticks at most (`tick`), `label` naming the speed
    control's unit."""

    step: int = 1
    max_step: int | None = None
    interval: int = 400
    label: str = "positions per step"
    #: the longest a pass may take (real ms); None where each tick is a text to read (a script
    #: call of 02's and 03's step figures), which `interval` paces for reading, whatever the count
    pass_ms: int | None = PASS_MS

    def tick(self, count: int) -> int:
        """The real ms between ticks over `count` positions, for the site's player and Lab's
        alike: `interval`, shortened so a pass takes `pass_ms` at most, never under TICK_FLOOR_MS."""
        ticks = -(-(count - 1) // self.step)
        if ticks < 1 or self.pass_ms is None:
            return self.interval
        return min(self.interval, max(TICK_FLOOR_MS, self.pass_ms // ticks))


@dataclass(frozen=True)
class Control:
    """One thing a reader moves. `positions` are (label, value) pairs in order; a text control's
    positions are its presets (what the static site offers), and any string is accepted.
    `options`, if given, computes the positions from the values of the controls declared
    before this one (a day list that depends on the zone chosen); `main` marks the slider the
    static site always renders at every position."""

    name: str
    kind: str
    positions: tuple[tuple[str, object], ...]
    default: object
    label: str = ""
    play: Play | None = None
    main: bool = False
    options: Callable[..., Sequence[tuple[str, object]]] | None = field(default=None, compare=False)

    def __post_init__(self):
        one_of(self.kind, KINDS, "kind")
        if not self.positions and self.options is None:
            raise InputError(f"control {self.name!r} has no positions", "positions")
        if self.play is not None and self.kind != "slider":
            raise InputError(f"control {self.name!r}: only a slider has a Play button", "play")

    def positions_for(self, values: dict) -> tuple[tuple[str, object], ...]:
        """The positions given the values of the controls before this one."""
        if self.options is None:
            return self.positions
        return tuple(self.options(**values))

    def values_for(self, values: dict) -> list:
        return [value for _, value in self.positions_for(values)]

    def check(self, value, values: dict):
        """`value` if it is one of the positions (any text for a text control), else one
        InputError naming the accepted ones."""
        if self.kind == "text":
            if not isinstance(value, str):
                raise InputError(f"{self.name} {value!r} is not text; e.g. {self.default!r}", self.name)
            return value
        positions = self.positions_for(values)
        try:
            return one_of(value, [v for _, v in positions], self.name)
        except InputError:
            pass
        def show(lab, v):
            return repr(v) if str(v) == lab else f"{v!r} ({lab})"

        if len(positions) > 8:
            accepted = (f"one of the {len(positions)} positions from {show(*positions[0])} "
                        f"to {show(*positions[-1])}")
        else:
            accepted = "one of " + ", ".join(show(*p) for p in positions)
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        # a value the control shows elsewhere (a restart before the outage) is named as it is shown
        label = next((lab for lab, v in self.positions if type(v) is type(value) and v == value), None)
        if label is not None and label != str(value):
            shown = f"{shown} ({label})"
        raise InputError(f"{self.label or self.name} {shown} is refused; give {accepted}", self.name)


def slider(name: str, values: Sequence, default=None, *, label: str = "", fmt: Callable[[object], str] = str,
           play: Play | None = None, main: bool = False, depends: Callable | None = None) -> Control:
    """A slider over `values` in order, each labelled by `fmt(value)`; the first is the default.
    `depends(**earlier)` gives the values a reader may reach given the controls declared before
    (a restart at or after the outage's start), so no position shows a refusal."""
    values = tuple(values)
    options = None
    if depends is not None:
        def options(**earlier):
            return tuple((fmt(v), v) for v in depends(**earlier))
    return Control(name, "slider", tuple((fmt(v), v) for v in values), values[0] if default is None else default,
                   label or name, play, main, options)


def choice(name: str, options: Sequence, default=None, *, label: str = "",
           fmt: Callable[[object], str] = str, depends: Callable | None = None) -> Control:
    """A choice among `options` (values, or (label, value) pairs); `depends(**earlier)` gives
    the options from the controls declared before, when they change with them."""
    pairs = tuple(o if isinstance(o, tuple) else (fmt(o), o) for o in options)
    first = pairs[0][1] if pairs else None
    return Control(name, "choice", pairs, first if default is None else default, label or name, options=depends)


def text(name: str, default: str, presets: Sequence[str] = (), *, label: str = "") -> Control:
    """Free text (a cron expression); `presets` are the values offered where no kernel runs."""
    presets = tuple(dict.fromkeys((default, *presets)))
    return Control(name, "text", tuple((p, p) for p in presets), default, label or name)


class Model:
    """A lesson's figure as data. A subclass sets `controls` and implements `compute(**values)`,
    returning a frame: any object with a `readout` string (a dataclass, usually)."""

    controls: tuple[Control, ...] = ()
    #: the id of the readout element in the notebook panel and on the static site
    readout_id = "readout"
    #: frames kept; the static site walks every position of the main slider once
    cache_size = 512
    #: what the figure asks before it tells (`emqsim.lessons.questions`), and its goal
    questions: tuple = ()
    challenge = None

    def __init__(self):
        self._frames: OrderedDict = OrderedDict()

    # -- values ------------------------------------------------------------------------------

    def positions(self, name: str, values: dict) -> tuple[tuple[str, object], ...]:
        """A control's (label, value) positions, given the values of the controls before it."""
        earlier: dict = {}
        for c in self.controls:
            if c.name == name:
                return c.positions_for(earlier)
            if c.name in values:
                earlier[c.name] = values[c.name]
        raise InputError(f"no control {name!r}; this figure has {[c.name for c in self.controls]}", "control")

    def label(self, name: str, values: dict) -> str:
        """How the control `name` shows its value in `values` (the slider's readout)."""
        value = values[name]
        for label, v in self.positions(name, values):
            if v == value and type(v) is type(value):
                return label
        return str(value)

    def control(self, name: str) -> Control:
        for c in self.controls:
            if c.name == name:
                return c
        raise InputError(f"no control {name!r}; this figure has {[c.name for c in self.controls]}", "control")

    def defaults(self) -> dict:
        """Every control at its default, a dependent control at the first of its positions if its
        default is not among them."""
        return self.values()

    def values(self, base: dict | None = None, **changes) -> dict:
        """`base` (the defaults if None) with `changes`, every value checked, in control order.
        A dependent control whose value is no longer among its positions falls back to its
        default, or to the first position."""
        unknown = sorted(set(changes) - {c.name for c in self.controls})
        if unknown:
            raise InputError(f"no control {unknown[0]!r}; this figure has {[c.name for c in self.controls]}",
                             unknown[0])
        base = dict(base or {})
        out: dict = {}
        for c in self.controls:
            if c.name in changes:
                out[c.name] = c.check(changes[c.name], out)
                continue
            value = base.get(c.name, c.default)
            allowed = c.values_for(out) if c.kind != "text" else None
            if allowed is not None and not any(value == a and type(value) is type(a) for a in allowed):
                value = c.default if any(c.default == a and type(c.default) is type(a) for a in allowed) else allowed[0]
            out[c.name] = value
        return out

    # -- frames ------------------------------------------------------------------------------

    def frame(self, **changes):
        """The frame for the defaults with `changes`; checked, computed once, then cached."""
        values = self.values(None, **changes)
        return self.frame_at(values)

    def frame_at(self, values: dict):
        """The frame for a complete, already checked set of values (see `values`)."""
        key = tuple(values[c.name] for c in self.controls)
        hit = self._frames.get(key)
        if hit is not None:
            self._frames.move_to_end(key)
            return hit
        made = self.compute(**values)
        self._frames[key] = made
        if len(self._frames) > self.cache_size:
            self._frames.popitem(last=False)
        return made

    def compute(self, **values):  # pragma: no cover - every lesson defines it
        raise NotImplementedError

    def describe(self, frame) -> str:
        """What a sighted reader reads off the figure at `frame`, in a sentence or two: the
        image's alt text on the static site and in the panel (no internal ids). Every lesson of
        the catalogue says it in its own words; a model that does not gives its readout's first
        line, the outcome the readout leads with."""
        lines = frame.readout.strip().splitlines()
        return lines[0] if lines else ""

    # -- what a reader can reach -------------------------------------------------------------

    def main(self) -> Control | None:
        """The slider the static site renders at every position."""
        for c in self.controls:
            if c.main:
                return c
        sliders = [c for c in self.controls if c.kind == "slider"]
        return sliders[0] if sliders else None

    def reachable(self, limit: int = 600) -> tuple[list[dict], list[str]]:
        """The value sets the static site renders, and the names of the controls held at their
        default. Every position of the main slider; each other control at each of its positions
        while the product stays within `limit`, the largest ones held at their defaults first."""
        main = self.main()
        others = [c for c in self.controls if c is not main]
        defaults = self.defaults()
        size = {c.name: len(self.positions(c.name, defaults)) for c in self.controls}
        held: list[str] = []
        while True:  # counted at the defaults first: listing a huge product would take minutes
            count = 1
            for c in self.controls:
                count *= 1 if c.name in held else size[c.name]
            free = [c for c in others if c.name not in held]
            if count <= limit or not free:
                break
            held.append(max(free, key=lambda c: size[c.name]).name)
        while True:  # dependent positions may differ from the defaults': check the real count
            combos = self._combos(main, others, held)
            free = [c for c in others if c.name not in held]
            if len(combos) <= limit or not free:
                return combos, held
            held.append(max(free, key=lambda c: size[c.name]).name)

    def _combos(self, main, others, held) -> list[dict]:
        out: list[dict] = [{}]
        for c in self.controls:
            grown = []
            for partial in out:
                values = self.values(None, **partial)
                if c is not main and c.name in held:
                    grown.append({**partial, c.name: values[c.name]})
                    continue
                for v in c.values_for({k: values[k] for k in values if k in partial}):
                    grown.append({**partial, c.name: v})
            out = grown
        return [self.values(None, **combo) for combo in out]


def spoken(items) -> str:
    """'a', 'a and b', 'a, b and c': a list as a sentence says it."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""


__all__ = ["Control", "Model", "Play", "choice", "slider", "spoken", "text"]
