"""The classroom check's own parts (benchmarks/classroom.py), with no hub started: its
percentiles, its memory readers, what it sends of notebook 02, how it reads the kernel's
websocket, and its one line when a part is missing."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("classroom", ROOT / "benchmarks" / "classroom.py")
classroom = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(classroom)


def test_percentiles_agree_with_statistics_inclusive():
    rng = random.Random(27)
    for n in (2, 3, 7, 20, 101):
        values = [rng.uniform(0, 60) for _ in range(n)]
        cuts = statistics.quantiles(values, n=100, method="inclusive")
        for q in (1, 25, 50, 95, 99):
            assert classroom.percentile(values, q) == pytest.approx(cuts[q - 1])
    assert classroom.percentile([4.0], 95) == 4.0
    assert classroom.percentile(list(range(1, 21)), 50) == pytest.approx(statistics.median(range(1, 21)))
    with pytest.raises(ValueError):
        classroom.percentile([], 50)


def test_rss_from_status():
    status = "Name:\tpython3\nVmPeak:\t  900 kB\nVmRSS:\t   12345 kB\nRssAnon:\t 100 kB\n"
    assert classroom.rss_from_status(status) == 12345 * 1024
    assert classroom.rss_from_status("Name:\tzombie\nState:\tZ (zombie)\n") == 0
    with pytest.raises(ValueError):
        classroom.rss_from_status("VmRSS:\t 12 MB\n")


def test_rss_of_this_process_matches_psutil():
    psutil = pytest.importorskip("psutil")
    mine = classroom.rss_from_status(Path("/proc/self/status").read_text())
    assert mine == pytest.approx(psutil.Process().memory_info().rss, rel=0.2)


def test_children_from_proc_follows_the_tree(tmp_path):
    """Parent ids read after the last ')' of /proc/PID/stat: a command name may hold both."""
    def proc(pid, name, ppid):
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(f"{pid} ({name}) S {ppid} {pid} 0 0\n")
    proc(10, "hub", 1)
    proc(11, "node (proxy) x", 10)
    proc(12, "jupyterhub-singleuser", 10)
    proc(13, "ipykernel", 12)
    proc(20, "other", 1)
    (tmp_path / "self").mkdir()
    assert sorted(classroom.children_from_proc(10, tmp_path)) == [11, 12, 13]
    assert classroom.children_from_proc(13, tmp_path) == []


def test_children_from_proc_sees_a_real_child():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert child.pid in classroom.children_from_proc(os.getpid())
    finally:
        child.kill()
        child.wait()


def test_code_cells_in_order_without_empty_ones():
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["# title"]},
        {"cell_type": "code", "source": ["a = 1\n", "b = 2"]},
        {"cell_type": "code", "source": "  \n"},
        {"cell_type": "raw", "source": "x = 3"},
        {"cell_type": "code", "source": "print(a + b)"},
    ]}
    assert classroom.code_cells(nb) == ["a = 1\nb = 2", "print(a + b)"]


def test_notebook_02_has_a_figure_the_check_can_time():
    """The cells sent are the notebook's code cells, and one of them drew a figure (image/png)
    when the notebook was saved: the first-figure time has something to wait for."""
    nb = json.loads((ROOT / "notebooks" / classroom.NOTEBOOK).read_text())
    sent = classroom.code_cells(nb)
    code = [c for c in nb["cells"] if c["cell_type"] == "code" and "".join(c["source"]).strip()]
    assert sent == ["".join(c["source"]) for c in code]
    # a saved output is a message's content with its type beside it
    drew = [i for i, c in enumerate(code)
            if any(classroom.first_image({"header": {"msg_type": o["output_type"]}, "content": o})
                   for o in c.get("outputs", []))]
    assert drew


def test_websocket_messages_in_both_of_jupyter_servers_forms():
    msg = {"header": {"msg_type": "display_data", "msg_id": "m"}, "parent_header": {"msg_id": "p"},
           "metadata": {}, "content": {"data": {"image/png": "iVBOR", "text/plain": "<Figure>"}}, "channel": "iopub"}
    assert classroom.decode_ws_message(json.dumps(msg)) == msg
    assert classroom.first_image(msg)
    assert not classroom.first_image({**msg, "content": {"data": {"text/plain": "x"}}})
    assert not classroom.first_image({**msg, "header": {"msg_type": "stream"}})
    serialize = pytest.importorskip("jupyter_server.services.kernels.connection.base").serialize_binary_message
    binary = serialize({**msg, "buffers": [b"\x00\x01buffer", b"more"]})
    assert isinstance(binary, bytes)
    assert classroom.decode_ws_message(binary) == msg


def test_a_missing_hub_is_one_line_and_exit_zero(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "jupyterhub", None)
    assert classroom.main(["--students", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "emqsim[classroom]" in out[0]


def test_a_missing_proxy_is_one_line_and_exit_zero(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "jupyterhub", type(sys)("jupyterhub"))
    monkeypatch.setattr(classroom, "find_proxy", lambda: None)
    assert classroom.main(["--students", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and "npm ci" in out[0] and "classroom-proxy" in out[0]


def test_the_hub_config_loads_the_recipe_and_stays_on_this_machine(tmp_path):
    ports = {"public": 1, "hub": 2, "proxy_api": 3}
    text = classroom.hub_config(tmp_path, "/x/chp", ports, "t0ken", 20)
    assert text.startswith(f"load_subconfig({str(classroom.RECIPE)!r})")
    urls = [line.split("=", 1)[1].strip().strip('"') for line in text.splitlines()
            if line.split("=")[0].strip().endswith(("bind_url", "api_url"))]
    assert len(urls) == 3 and all(u.startswith("http://127.0.0.1:") for u in urls)
    assert f"{classroom.SCOPES!r}" in text and "'t0ken'" in text
