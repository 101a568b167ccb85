"""A long `emqsim trace` shows its progress on stderr when stderr is a terminal, and says
nothing when it is not. Only the parts that do not depend on the wall clock are asserted:
the fires made, the total, the virtual date reached (the rate and time left are tqdm's)."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios

from emqsim.progress import bar
from emqsim.engine.timefmt import at

T0 = at("2026-11-30 09:00")
CMD = [sys.executable, "-m", "emqsim", "trace", "--every", "15m", "--run", "4m"]
ENV = {k: v for k, v in os.environ.items() if k != "EMQSIM_REDIS_URL"}


def _on_a_pty(args: list[str], columns: int = 120) -> tuple[int, str, bytes]:
    """Run the command with stderr on a pseudo-terminal; (status, what the terminal got, stdout)."""
    master, slave = pty.openpty()
    if columns:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    p = subprocess.Popen(CMD + args, stdout=subprocess.PIPE, stderr=slave, env=ENV)
    os.close(slave)
    seen, out = b"", b""
    streams = {master: "pty", p.stdout.fileno(): "out"}
    while streams:
        ready, _, _ = select.select(list(streams), [], [], 60)
        assert ready, "the command hung"
        for fd in ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:          # the pty's other end is closed
                chunk = b""
            if not chunk:
                del streams[fd]
            elif fd == master:
                seen += chunk
            else:
                out += chunk
    os.close(master)
    return p.wait(), seen.decode(), out


def test_not_a_terminal_gets_nothing_on_stderr():
    done = subprocess.run(CMD + ["--fires", "300"], capture_output=True, env=ENV)
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout.decode().splitlines()[-1].startswith("registry rows 1 · next run")


def test_a_terminal_sees_the_fires_and_the_virtual_date():
    status, seen, out = _on_a_pty(["--fires", "300"])
    assert status == 0
    lines = [s.strip() for s in seen.replace("\r", "\n").split("\n") if s.strip()]
    assert lines[0].startswith("emqsim: 0/300 fires · virtual 2026-11-30 09:00 UTC · ")
    # the final state is drawn once before the bar is cleared: fire 300 was released at
    # 09:00 + 299 x 15 min = 2026-12-03 11:45
    assert any(s.startswith("emqsim: 300/300 fires · virtual 2026-12-03 11:45 UTC · ") for s in lines)
    assert all(s.startswith("emqsim: ") and s.endswith(" left") for s in lines)
    assert seen.endswith("\r")                        # cleared: the table follows on its own
    assert out.decode().splitlines()[-1] == "registry rows 1 · next run 12:00:00 · duplicates 0 · lost 0"


def test_a_run_until_a_time_counts_virtual_days():
    status, seen, _ = _on_a_pty(["--until", "2026-12-10T09:00:00Z"])
    lines = [s.strip() for s in seen.replace("\r", "\n").split("\n") if s.strip()]
    assert status == 0
    assert lines[0].startswith("emqsim: 0 fires · virtual 2026-11-30 09:00 UTC ·   0% · ")
    assert any(s.startswith("emqsim: 961 fires · virtual 2026-12-10 09:00 UTC · 100% · ") for s in lines)


def test_a_terminal_with_no_size_still_gets_the_bar():
    # a pty nobody sized reports 0 columns and rows: tqdm alone would draw nothing
    status, seen, _ = _on_a_pty(["--fires", "10"], columns=0)
    assert status == 0
    assert "emqsim: 10/10 fires · virtual 2026-11-30 11:15 UTC · " in seen


def test_the_callback_only_counts_what_the_simulation_reports():
    class Tty:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, s):
            self.text += s

        def flush(self):
            pass

    t = Tty()
    with bar(start=T0, fires=4, stream=t) as report:
        for n in (1, 2, 3, 4):
            report(n, T0 + (n - 1) * 900_000)
    assert "emqsim: 4/4 fires · virtual 2026-11-30 09:45 UTC · " in t.text
    with bar(start=T0, fires=4, stream=open(os.devnull, "w")) as report:
        assert report is None


def test_the_bullmq_design_reports_progress_too():
    status, seen, out = _on_a_pty(["--fires", "20", "--design", "bullmq"])
    assert status == 0
    # job 20 of a 15-minute chain from 09:00 is taken at 09:00 + 19 x 15 min = 13:45
    assert "emqsim: 20/20 fires · virtual 2026-11-30 13:45 UTC · " in seen
    assert out.decode().splitlines()[-1].startswith("registry rows 1 · next run 14:00:00")
