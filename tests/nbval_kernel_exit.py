"""A pytest plugin for the notebook run: nbval ends each notebook's kernel as a kernel ends
when its reader closes it, by a shutdown request, not by killing it.

nbval 0.11 stops a kernel with `shutdown_kernel(now=True)`, which kills the process: nothing
it holds is cleaned up. A page's live figure keeps its simulation's store open for the reader
to move (02's keeps a thousand fires), and on a real Redis (`EMQSIM_REDIS_URL`) its keys were
left on the server after every notebook run. A shutdown request lets the kernel's interpreter
exit, and the store's clean-up at exit removes them (JupyterLab closes a kernel the same way).
`make test-notebooks` loads it with `-p nbval_kernel_exit`; tests/test_notebook_keys.py holds
the server empty after a run."""

from __future__ import annotations

import logging

from nbval.kernel import RunningKernel

#: seconds a kernel has to exit after the request before it is killed after all
GRACE = 30


def _stop(self) -> None:
    logging.getLogger(__name__).debug("Stopping kernel by a shutdown request")
    self.kc.stop_channels()
    self.km.shutdown_wait_time = GRACE
    self.km.shutdown_kernel(now=False)
    del self.km


RunningKernel.stop = _stop
