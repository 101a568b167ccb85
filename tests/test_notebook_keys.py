"""A notebook run against a real Redis leaves no key there: the notebook stage's kernels end
by a shutdown request (tests/nbval_kernel_exit.py), so each page's open stores clean up.
02 is the page whose live figure holds the most keys (a thousand fires' jobs)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from servers import ROOT, needs_redis_server, redis_server

PAGE = "02_one_row_rewritten.ipynb"


def _notebook_run(url: str, *plugin: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "EMQSIM_REDIS_URL": url, "PYTHONPATH": str(ROOT / "tests")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "--nbval", PAGE, "--nbval-cell-timeout=200",
                           "--nbval-sanitize-with", "sanitize.cfg", "-p", "no:cacheprovider", *plugin],
                          cwd=ROOT / "notebooks", env=env, capture_output=True, text=True, timeout=600)


@needs_redis_server
@pytest.mark.parametrize("plugin, left", [(("-p", "nbval_kernel_exit"), 0), ((), "some")],
                         ids=["shutdown-request", "killed"])
def test_a_notebook_run_leaves_no_key_on_the_server(tmp_path, plugin, left):
    """With the plugin the server holds 0 keys after the run. Without it (nbval's own kill) the
    keys stay: the second case shows the check can fail, and why the plugin is there."""
    pytest.importorskip("nbval")
    with redis_server(tmp_path) as server:
        done = _notebook_run(server.url, *plugin)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        keys = server.client.dbsize()
    assert keys == 0 if left == 0 else keys > 0
