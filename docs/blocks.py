"""Write each output block of the README and docs/ from the command that prints it.

Why: a figure pasted by hand goes stale the day the code changes, and nobody can tell which
commit printed it. So every fenced block that shows a program's output follows a marker naming
the command, and this script runs the command and writes the block:

    <!-- output of: emqsim trace --every 15m --fires 4 -->
    ```console
    $ emqsim trace --every 15m --fires 4
    ...what it prints...
    ```

A command marked `slow` (the benchmarks: minutes, and numbers that depend on the machine) is
run only with `--slow`; a command that should fail says so (`· exit 2`). A slow block opens with a line saying at which commit, on how many cores
and at what load it was printed. The others are exact (the simulator's clock is virtual), and
`tests/test_docs.py` holds each block to what its command prints now.

    python docs/blocks.py            # the exact blocks
    python docs/blocks.py --slow     # the benchmarks too (make bench's time, about 10 minutes)
    python docs/blocks.py --check    # exit 1, naming each block that differs; writes nothing

Prior art: cog (nedbat/cog) regenerates marked spans of a file from code, and the Rust book's
mdbook `{{#include}}` pulls program output into pages; this is the smallest form of both.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))

#: a marker, then the fenced block it owns (its language, its text)
BLOCK = re.compile(r"^<!-- output of: (?P<command>.+?)(?: · exit (?P<exit>\d+))?(?P<slow> · slow)? -->\n"
                   r"```(?P<lang>[a-z]*)\n(?P<text>.*?)^```$", re.M | re.S)
#: any fenced block, for the check that every output block has its marker
FENCE = re.compile(r"^```(?P<lang>[a-z]*)\n(?P<text>.*?)^```$", re.M | re.S)
#: a block that shows what a program prints; any other listing says what it is (sh, text, ...)
OUTPUT_LANGS = ("", "console")


@dataclass(frozen=True)
class Block:
    page: Path
    command: str
    slow: bool
    exit: int
    lang: str
    text: str
    start: int
    end: int

    @property
    def where(self) -> str:
        line = self.page.read_text(encoding="utf-8").count("\n", 0, self.start) + 1
        return f"{_shown(self.page)}:{line}"


def _shown(page: Path) -> str:
    """A page's path as a message names it: from the repository's root when it is inside."""
    return str(page.relative_to(ROOT)) if page.is_relative_to(ROOT) else str(page)


def blocks(page: Path) -> list[Block]:
    """The marked output blocks of one page, in order."""
    text = page.read_text(encoding="utf-8")
    return [Block(page, m["command"], bool(m["slow"]), int(m["exit"] or 0), m["lang"], m["text"], m.start(), m.end())
            for m in BLOCK.finditer(text)]


def unmarked(page: Path) -> list[str]:
    """Output-looking fences (no language, or `console`) that no marker owns: `page:line` each."""
    text = page.read_text(encoding="utf-8")
    owned = {text.index("\n", b.start) + 1 for b in blocks(page)}   # each marker's fence
    return [f"{_shown(page)}:{text.count(chr(10), 0, m.start()) + 1}"
            for m in FENCE.finditer(text) if m["lang"] in OUTPUT_LANGS and m.start() not in owned]


def _env(slow: bool) -> dict:
    """The command's environment: this Python's scripts first on PATH (so `emqsim` and `python`
    are the checkout's), no colour and a fixed width; an exact block runs on the embedded server
    (as a reader's first run does), a benchmark on `EMQSIM_REDIS_URL` too when it is set."""
    env = dict(os.environ)
    if not slow:
        env.pop("EMQSIM_REDIS_URL", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(COLUMNS="100", NO_COLOR="1", PYTHONHASHSEED="0")
    return env


def _header() -> str:
    """Where a slow block was printed: the commit, the cores, the load when it began."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip() or "unknown"
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return f"# printed at commit {commit}, {os.cpu_count()} cores, load average {load:.1f} at the start\n"


def run(block: Block) -> str:
    """What the block should hold now: the command's stdout (and for a console block, the
    command first, as a reader would type it). Raises RuntimeError, naming the block, when the
    command fails."""
    done = subprocess.run(block.command, shell=True, cwd=ROOT, env=_env(block.slow), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    if done.returncode != block.exit and not block.slow:
        raise RuntimeError(f"{block.where}: `{block.command}` exited {done.returncode}, not {block.exit}: "
                           f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}")
    out = done.stdout if done.stdout.endswith("\n") or not done.stdout else done.stdout + "\n"
    if block.lang == "console":
        out = f"$ {block.command}\n" + out + done.stderr
    return _header() + out if block.slow else out


def write(pages=PAGES, *, slow: bool = False, check: bool = False, log=print) -> list[str]:
    """Rewrite (or with `check`, compare) each marked block; returns the blocks that differed."""
    differ = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for block in reversed(blocks(page)):   # from the end, so earlier offsets hold
            if block.slow and not slow:
                continue
            new = run(block)
            if new == block.text:
                continue
            differ.append(block.where)
            if not check:
                head = text[block.start:block.end].split("\n", 2)
                text = text[:block.start] + f"{head[0]}\n{head[1]}\n{new}```" + text[block.end:]
        if not check:
            page.write_text(text, encoding="utf-8")
    for where in differ:
        log(f"{'differs' if check else 'rewrote'}: {where}")
    return differ


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", action="store_true", help="run the benchmarks' blocks too")
    parser.add_argument("--check", action="store_true", help="compare only; exit 1 if a block differs")
    parser.add_argument("pages", nargs="*", type=Path, help="only these pages (default: the README and docs/)")
    args = parser.parse_args(argv)
    try:
        differ = write([p.resolve() for p in args.pages] or PAGES, slow=args.slow, check=args.check)
    except RuntimeError as error:
        print(f"docs/blocks.py: {error}", file=sys.stderr)
        return 2
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main())
