"""Memory that does not grow with use: the same cells run again and again in one namespace
(the loop `python benchmarks/bench_memory.py` runs in a real kernel for every notebook) hold
the process to the course's bound. A run used to keep its embedded fakeredis server
(fakeredis files each `FakeRedis()` server in a process-wide map): +0.5 MB a run."""

from __future__ import annotations

import json
from pathlib import Path
import subprocess
import sys

import bench_memory

BENCHMARKS = Path(bench_memory.__file__).parent

CELLS = ["from emqsim import Every, Schedule, at, simulate",
         "for _ in range(20):\n    simulate(Schedule('r', Every('15m')), start=at('2026-11-30 09:00'), fires=50)",
         "from emqsim.engine.sim import PumpDesign\n"
         "with PumpDesign(Schedule('b', Every('1m')), start=at('2026-11-30 09:00')) as sim:\n"
         "    sim.run(fires=50)"]


def test_re_running_cells_stays_within_the_bound():
    code = (f"import json, sys; sys.path.insert(0, {str(BENCHMARKS)!r}); from bench_memory import in_process; "
            f"print(json.dumps(in_process({CELLS!r}, 8)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    sizes = json.loads(done.stdout)
    first, last = sizes[0], sizes[-1]
    assert last <= first * 1.05 and last - first < 8, [f"{s:.1f}" for s in sizes]  # MB
    assert bench_memory.BOUND == 1.2


def test_a_store_frees_its_embedded_server(monkeypatch):
    import gc
    import weakref

    from emqsim import Store

    monkeypatch.delenv("EMQSIM_REDIS_URL", raising=False)   # the embedded server, also where CI sets one
    store = Store()
    server = weakref.ref(store.client.connection_pool.connection_kwargs["server"])
    store.client.set("k", "v")
    store.close()
    del store
    gc.collect()
    assert server() is None


def test_the_bench_line():
    assert bench_memory.line("03", 123.4, 130.1) == "03  first 123.4 MB  after 10  130.1 MB  1.05x"
    assert bench_memory.line("02", 200.0, 230.0, 10, (190.0, 199.5)) == \
        "02  first 200.0 MB  after 10  230.0 MB  1.15x  · collected: 190.0 -> 199.5 MB  1.05x"


def test_the_reader_s_reading_collects_nothing_first():
    """Issue 32: the goal is met as a reader meets it, so the kernel's size is read with the
    collector left to itself; the forced reading is the one beside it."""
    assert "gc" not in bench_memory.RSS_CODE and "_gc.collect()" in bench_memory.FORCED_CODE


def test_a_new_panel_of_a_lesson_closes_the_one_before():
    """A cell run again made a new panel and kept the old one's widgets (33 more a run of 03)."""
    import gc

    from ipywidgets.widgets import widget

    from emqsim.figures import catalogue
    from emqsim.figures.view import Figure

    catalogue.figure("03 slip over cycles").panel()
    gc.collect()
    before = len(widget._instances), sum(isinstance(o, Figure) for o in gc.get_objects())
    for _ in range(3):
        fig = catalogue.figure("03 slip over cycles")
        fig.panel()
        fig.panel()   # the panel cell alone run again: the figure's image stays for the new one
    del fig
    gc.collect()
    assert (len(widget._instances), sum(isinstance(o, Figure) for o in gc.get_objects())) == before


def test_a_dropped_lesson_model_that_holds_a_run_is_freed():
    """Notebook 02's model keeps its run open (the slider walks it on); a first EVALSHA answered
    NOSCRIPT left that error inside the embedded server, its traceback holding the model's own
    frames, so every re-run of the cell kept a model, its figure and its server (1.43x over ten)."""
    import gc
    import weakref

    from emqsim.figures import catalogue

    model = catalogue.model("02 one row rewritten")
    model.frame(fires=4)
    gone = weakref.ref(model)
    del model
    gc.collect()
    assert gone() is None


def test_a_panel_a_cell_ended_with_lets_go_of_its_figure_when_the_cell_runs_again():
    """IPython's `Out` keeps every panel a cell ended with; a closed panel kept its mover, its
    questions and its widgets' callbacks, each reaching the figure and its model's frames, so
    each run of 03's cells kept three more figures (1.65x over ten runs in a kernel)."""
    import gc
    import weakref

    from emqsim.figures import catalogue

    out = []   # what IPython's Out holds
    fig = catalogue.figure("03 start-to-start")
    gone = weakref.ref(fig)
    out.append(fig.panel())
    del fig
    out.append(catalogue.figure("03 start-to-start").panel())
    gc.collect()
    assert gone() is None
    assert out[0]._repr_mimebundle_() == {"text/plain": "a panel closed when its cell ran again"}


def test_closing_a_store_frees_its_embedded_server_s_keys_now_and_leaves_a_handed_in_one(monkeypatch):
    """The keys of a closed store's own server go at once (reference counts), not at the next
    full collection; a store given a client of the reader's own never empties that server."""
    import fakeredis

    from emqsim.engine.store import ENV, Store

    monkeypatch.delenv(ENV, raising=False)     # the embedded server, even where CI names a real one

    own = Store()
    own.client.set("x", "1")
    client = own.client
    own.close()
    assert client.dbsize() == 0
    theirs = fakeredis.FakeRedis()
    theirs.set("kept", "1")
    Store(client=theirs).close()
    assert theirs.get("kept") == b"1"


def test_the_memory_bench_leaves_no_key_on_a_shared_server(tmp_path, monkeypatch):
    """`make bench` reads the kernels' memory with `EMQSIM_REDIS_URL` set when the reader set it:
    a kernel killed outright cannot delete its run's keys (a `make bench` left 2,004 on the
    server), so the bench asks the kernel to shut down, as Lab's Shut Down does."""
    from servers import redis_server

    from emqsim.engine.store import ENV

    with redis_server(tmp_path) as server:
        monkeypatch.setenv(ENV, server.url)
        kernel = bench_memory.Kernel(tmp_path)
        try:
            kernel.run(f"{CELLS[0]}\n{CELLS[2].split(chr(10))[0]}\n"
                       "sim = PumpDesign(Schedule('b', Every('1m')), start=at('2026-11-30 09:00'))\n"
                       "sim.run(fires=3)")
            assert server.keys(), "the run's keys are on the server while the kernel holds it"
        finally:
            kernel.close()
        assert server.keys() == []
