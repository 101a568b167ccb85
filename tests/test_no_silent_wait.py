"""No silent waits: a drag computes only its latest position, and a long walk says how far it is.

Measured before this test: notebook 02's drag to 10,000 fires waited 21.7 s in Lab, the slider
at 10,000 and the figure at 1,300, because the kernel computed and drew every position the
drag had passed, one after another. The panel's callback now hands each move to a `Mover`: in
a kernel (an event loop runs) the work is a task that yields between chunks, so the slider
messages that arrive meanwhile only replace the pending move.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

from emqsim.figures import catalogue  # noqa: E402
from emqsim.figures.controls import Panel  # noqa: E402
from emqsim.figures.view import Figure, View  # noqa: E402
from emqsim.lessons.model import Model, slider  # noqa: E402


@dataclass(frozen=True)
class WalkFrame:
    fires: int
    readout: str


class Walker(Model):
    """A model that runs fire by fire, as notebook 02's does: `walk(n)` makes the fires not made."""

    readout_id = "walker-readout"
    controls = (slider("fires", range(0, 10_001, 100), 0, main=True),)

    def __init__(self):
        super().__init__()
        self.reached = 0
        self.walks: list[int] = []
        self.computed: list[int] = []

    def walk(self, n: int) -> int:
        self.walks.append(n)
        self.reached = max(self.reached, n)
        return self.reached

    def compute(self, fires):
        self.walk(fires)
        self.computed.append(fires)
        return WalkFrame(fires, f"after {fires:,} fires")


class WalkView(View):
    width, height = 3.0, 2.0

    def __init__(self, ax=None):
        super().__init__(ax)
        self.line, = self.ax.plot([], [])
        self.ax.set_xlim(0, 10_000)
        self.track(self.line)

    def draw(self, frame):
        self.line.set_data([0, frame.fires], [0, 1])


class Ticks:
    """A clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float):
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _settled(panel) -> bool:
    mover = getattr(panel, "mover", None)
    return mover is None or not mover.busy


def _panel(clock=None) -> tuple[Figure, Panel]:
    fig = Figure(Walker(), WalkView())
    panel = Panel(fig)
    if clock is not None:
        panel.mover.clock = clock
    return fig, panel


def test_without_an_event_loop_a_move_is_drawn_at_once():
    fig, panel = _panel()
    panel.widgets["fires"].value = 300
    assert fig.values == {"fires": 300} and "after 300 fires" in panel.readout.value
    assert fig.model.walks == [0, 250, 300, 300] and panel.mover.drawn == 1


def test_a_drag_in_a_kernel_computes_only_its_latest_position():
    """Positions arriving while a long walk runs replace each other; the figure then shows the
    slider's last one, and the slider is never pulled back to one it passed."""
    fig, panel = _panel()
    slider = panel.widgets["fires"]
    seen: list[str] = []

    async def drag():
        slider.value = 10_000                       # the walk starts: 40 chunks of 250 fires
        for _ in range(3):
            await asyncio.sleep(0)                  # a few chunks run
        for v in range(1_000, 5_001, 100):          # the rest of the drag arrives meanwhile
            slider.value = v
        seen.append(slider.value)
        while not _settled(panel):
            await asyncio.sleep(0)

    asyncio.run(drag())
    assert fig.model.computed == [0, 5_000]         # the defaults, then the latest position only
    assert seen == [5_000]
    assert fig.values == {"fires": 5_000} and slider.value == 5_000
    assert "after 5,000 fires" in panel.readout.value
    assert panel.mover.drawn == 1                   # 10,000 abandoned, 41 positions coalesced
    assert fig.model.reached < 10_000               # the walk to 10,000 stopped between chunks


def test_a_walk_over_patience_says_how_far_it_has_come():
    from emqsim.figures.controls import CHUNK, PATIENCE, made_of

    fig, panel = _panel(clock=Ticks(0.125))
    said: list[str] = []
    panel.mover.progress = lambda text: said.append(text) or panel._say(text)
    panel.widgets["fires"].value = 1_000
    # read at the start (0.125), then after each chunk: 0.125 and 0.25 later are within patience
    assert PATIENCE == 0.3 and CHUNK == 250
    assert said == [made_of(750, 1_000), made_of(1_000, 1_000)]
    assert said[0] == "computing: 750 of 1,000 fires made"
    assert "after 1,000 fires" in panel.readout.value     # then the figure, drawn once


def test_a_quick_walk_says_nothing():
    fig, panel = _panel(clock=Ticks(0.01))
    said: list[str] = []
    panel.mover.progress = said.append
    panel.widgets["fires"].value = 1_000
    assert said == [] and "after 1,000 fires" in panel.readout.value


def test_an_error_in_a_kernel_move_is_shown_in_the_readout():
    from emqsim.figures.controls import Mover

    fig, panel = _panel()
    mover = Mover(fig, panel._say)

    async def bad():
        mover.move(fires=123)                       # not a position of the slider
        while mover.busy:
            await asyncio.sleep(0)

    asyncio.run(bad())
    assert "InputError: fires 123 is refused" in panel.readout.value and not mover.busy
    assert fig.values == {"fires": 0}


def test_notebook_02s_drag_to_10000_is_one_walk_with_its_progress():
    """Every tenth position of 02's slider, then 10,000, sent at once. The quick moves are drawn
    as they come; the first long one (600 -> 950 fires, two chunks) becomes a task, the seven
    moves sent before it runs coalesce, and it walks to 10,000 only, saying how far it is."""
    fig = catalogue.figure("02 one row rewritten")
    panel = Panel(fig)
    panel.mover.clock = Ticks(0.5)   # every look at the clock is half a second on: over patience
    said: list[str] = []
    panel.mover.progress = said.append
    slider = panel.widgets["fires"]
    sent = [v for _, v in slider.options][::10] + [10_000]

    async def drag():
        for v in sent:
            slider.value = v
        while not _settled(panel):
            await asyncio.sleep(0)

    asyncio.run(drag())
    assert sent[8:11] == [350, 600, 950] and len(sent) == 17
    assert fig.values == {"fires": 10_000} and fig.model.reached == 10_000
    assert panel.mover.drawn == 10                  # 0 is where it was; 10 ... 600, then 10,000
    assert [s for s in said if " of 10,000 " not in s][-1] == "computing: 600 of 600 fires made"
    assert said[-2:] == ["computing: 9,850 of 10,000 fires made", "computing: 10,000 of 10,000 fires made"]
    assert "after 10000 fires · ZCARD 1 · jobs 10000 · row reports -&gt; 13:00 on 2027-03-14" in panel.readout.value
    fig.model.close()
