"""`python benchmarks/bench_memory.py` (part of `make bench`): does a reader's kernel grow as the cells are run again?

For each notebook of notebooks/, a fresh Jupyter kernel (what a reader has) runs every
code cell once and reports its resident size, then runs them all nine more times, and one
line per notebook says `NN  first 123.4 MB  after 10  130.1 MB  1.05x`. The course's goal is
at most 1.2x: what a run leaves behind (an embedded server per Store, a figure) must go
away with it. It is measured twice, in two kernels: as a reader meets it, with Python's
collector left to itself (the goal holds there), and with a collection forced before each
reading (what is held, not what is merely not collected yet). `--runs N` changes the ten; a notebook name or number picks notebooks.
Nothing is asserted here (tests/test_memory.py holds a small loop to the bound).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
RUNS = 10
BOUND = 1.2          # the goal: after ten runs, at most 1.2x the size after the first
CELL_TIMEOUT = 600   # seconds a cell may take before the bench gives up on that notebook
#: what the kernel runs to report its size, as the reader's kernel is (nothing collected first)
RSS_CODE = "import os as _os; print(int(open('/proc/self/statm').read().split()[1]) * _os.sysconf('SC_PAGE_SIZE'))"
#: the same after a forced collection: what is held
FORCED_CODE = "import gc as _gc; _gc.collect(); " + RSS_CODE


def rss_mb() -> float:
    """This process's resident size in MB (Linux: /proc/self/statm)."""
    import os

    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def code_cells(path: Path) -> list[str]:
    """The sources of a notebook's code cells, in order."""
    nb = json.loads(path.read_text())
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


def line(name: str, first: float, after: float, runs: int = RUNS, forced: tuple[float, float] | None = None) -> str:
    """One notebook's line: as a reader meets it, then (if measured) with a forced collection."""
    out = f"{name}  first {first:.1f} MB  after {runs}  {after:.1f} MB  {after / first:.2f}x"
    if forced is not None:
        out += f"  · collected: {forced[0]:.1f} -> {forced[1]:.1f} MB  {forced[1] / forced[0]:.2f}x"
    return out


class Kernel:
    """One fresh IPython kernel in notebooks/, as JupyterLab starts it for a reader."""

    def __init__(self, cwd: Path = NOTEBOOKS):
        from jupyter_client.manager import start_new_kernel

        self.manager, self.client = start_new_kernel(kernel_name="python3", cwd=str(cwd))

    def run(self, code: str) -> str:
        """Run `code`; its printed text, or RuntimeError naming the error it raised."""
        out: list[str] = []
        errors: list[str] = []

        def hook(msg):
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
            elif kind == "error":
                errors.append(f"{content['ename']}: {content['evalue']}")

        reply = self.client.execute_interactive(code, timeout=CELL_TIMEOUT, output_hook=hook, allow_stdin=False)
        if reply["content"]["status"] != "ok" or errors:
            raise RuntimeError(errors[0] if errors else reply["content"].get("ename", "error"))
        return "".join(out)

    def rss_mb(self, forced: bool = False) -> float:
        return int(self.run(FORCED_CODE if forced else RSS_CODE).split()[-1]) / 2**20

    def close(self) -> None:
        """Shut the kernel down as Lab's Shut Down does: asked, not killed, so runs left open
        delete their keys on the way out (a killed kernel leaves them on a shared server)."""
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


def measure(path: Path, runs: int = RUNS, forced: bool = False) -> tuple[float, float]:
    """(MB after one run of every code cell, MB after `runs`), in one fresh kernel; `forced`
    collects before each reading."""
    cells = code_cells(path)
    kernel = Kernel(path.parent)
    try:
        sizes = []
        for _ in range(runs):
            for code in cells:
                kernel.run(code)
            sizes.append(kernel.rss_mb(forced))
        return sizes[0], sizes[-1]
    finally:
        kernel.close()


def in_process(cells: list[str], runs: int, forced: bool = False) -> list[float]:
    """Run `cells` `runs` times in one fresh namespace of this process; MB after each run
    (the kernel's loop without a kernel: what the unit test drives)."""
    import gc

    namespace: dict = {"__name__": "__main__"}
    sizes = []
    for _ in range(runs):
        for code in cells:
            exec(compile(code, "<cell>", "exec"), namespace)
        if forced:
            gc.collect()
        sizes.append(rss_mb())
    return sizes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python benchmarks/bench_memory.py",
                                description="A kernel's size over repeated runs of every notebook's cells.")
    p.add_argument("notebooks", nargs="*", help="names or numbers (00, 03_start_to_start); default all")
    p.add_argument("--runs", type=int, default=RUNS, help=f"runs of every cell per kernel (default {RUNS})")
    args = p.parse_args(argv)
    if args.runs < 2:
        p.error(f"--runs {args.runs} must be 2 or more")
    paths = sorted(NOTEBOOKS.glob("*.ipynb"))
    if args.notebooks:
        paths = [q for q in paths if any(q.stem.startswith(n) for n in args.notebooks)]
        if not paths:
            p.error(f"no notebook in {NOTEBOOKS} starts with {', '.join(args.notebooks)}")
    print(f"emqsim bench_memory · two fresh kernels per notebook · {args.runs} runs of every code cell · "
          f"goal at most {BOUND}x with the collector left to itself", flush=True)
    status = 0
    for path in paths:
        try:
            first, after = measure(path, args.runs)
            collected = measure(path, args.runs, forced=True)
        except RuntimeError as exc:
            print(f"{path.stem[:2]}  a cell failed: {exc}", flush=True)
            status = 1
            continue
        print(line(path.stem[:2], first, after, args.runs, collected), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
