"""A Ctrl-C while `python -m emqsim` is still importing gets the same one line and status 130
as a Ctrl-C mid-run: the package imports almost nothing until the command's handlers are in.

To land the signal inside an import every time, the child gets a `sitecustomize` (on its
PYTHONPATH, written here) whose import hook, on the named module, touches a file and waits:
the test sends SIGINT once the file is there.

A signal can also land where the interpreter turns the handler's KeyboardInterrupt into
another error: once, under load, a SIGTERM inside `ssl`'s `from _ssl import RAND_egd` (an
ImportError `ssl` catches) surfaced as "TypeError: expected a message argument" and printed
a traceback. The second hook does what that import did, so the test lands there every time."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from servers import ROOT, _default_signals, finished, wait_for

HOOK = textwrap.dedent("""
    import os, sys, time
    class _Slow:
        def find_spec(self, name, path=None, target=None):
            if name == os.environ["SLOW_MODULE"]:
                open(os.environ["SLOW_MARK"], "w").close()
                time.sleep(20)
            return None
    sys.meta_path.insert(0, _Slow())
""")

#: the stop, arriving while an import runs, turned into another error as CPython's IMPORT_FROM did
TURNING = textwrap.dedent("""
    import os, sys, time
    class _Turning:
        def find_spec(self, name, path=None, target=None):
            if name == os.environ["SLOW_MODULE"]:
                open(os.environ["SLOW_MARK"], "w").close()
                try:
                    time.sleep(20)
                except KeyboardInterrupt:
                    raise TypeError(os.environ["TURNED_INTO"]) from None
            return None
    sys.meta_path.insert(0, _Turning())
""")


def _stopped_in_import(tmp_path, hook: str, module: str, sig: signal.Signals, **env_more: str):
    """`python -m emqsim trace` with `hook` as its sitecustomize, sent `sig` once it is inside
    the import of `module`; its exit status, stdout and stderr."""
    (tmp_path / "sitecustomize.py").write_text(hook)
    mark = tmp_path / "mark"
    env = {k: v for k, v in os.environ.items() if k != "EMQSIM_REDIS_URL"}
    env.update(PYTHONPATH=str(tmp_path), SLOW_MODULE=module, SLOW_MARK=str(mark), **env_more)
    proc = subprocess.Popen([sys.executable, "-m", "emqsim", "trace", "--every", "15m", "--fires", "1000000"],
                            cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_default_signals)
    try:
        wait_for(lambda: mark.exists() or proc.poll() is not None, 60, f"the child importing {module}")
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(sig)
    except BaseException:
        finished(proc)
        raise
    return finished(proc)


@pytest.mark.parametrize("module", ["emqsim.cli", "argparse", "emqsim.engine.cadence", "redis",
                                    "emqsim.engine.sim"])
def test_a_ctrl_c_while_importing_is_one_line_and_130(tmp_path, module):
    assert _stopped_in_import(tmp_path, HOOK, module, signal.SIGINT) == (130, "", "emqsim: stopped by SIGINT\n")


@pytest.mark.parametrize("turned", ["TypeError", "ValueError"])
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_turned_into_another_error_is_still_one_line(tmp_path, sig, turned):
    """The stop decides, whatever error it became: one line and 128 + the signal, not a
    traceback (TypeError) nor an "error:" line with status 2 (a ValueError the command reads as
    bad input)."""
    hook = TURNING.replace("raise TypeError", f"raise {turned}")
    got = _stopped_in_import(tmp_path, hook, "emqsim.engine.sim", sig, TURNED_INTO="expected a message argument")
    assert got == (128 + sig, "", f"emqsim: stopped by {sig.name}\n")


def test_importing_the_package_loads_no_engine_until_a_name_is_used():
    code = ("import sys, emqsim; before = 'emqsim.engine.sim' in sys.modules; emqsim.Every; "
            "print(before, 'emqsim.engine.cadence' in sys.modules, emqsim.Every.__module__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["False", "True", "emqsim.engine.cadence"]
