"""A classroom: 30 `emqsim trace` processes at once against one redis-server. Each prints
exactly its fakeredis trace, and no key is left on the server afterwards (traces are short,
so this stays quick on a 2-core CI machine)."""

from __future__ import annotations

import pytest

from emqsim import cli
from emqsim.engine.store import ENV
from servers import emqsim, needs_redis_server, redis_server

STUDENTS = 30


def lesson(i: int) -> list[str]:
    """Student i's command: every student picks other numbers, a few crash their pump."""
    args = ["trace", "--every", f"{5 + i}m", "--run", f"{i % 7}m", "--fires", "25"]
    if i % 3 == 0:
        args += ["--rule", "finish"]
    if i % 5 == 0:
        args += ["--crash-after-enqueue", "4", "--pump", "atomic" if i % 2 else "two-step"]
    if i % 4 == 1:
        args += ["--format", "json"]
    return args


@needs_redis_server
def test_thirty_students_on_one_server(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv(ENV, raising=False)
    expected = []
    for i in range(STUDENTS):
        assert cli.main(lesson(i)) == 0
        out, err = capsys.readouterr()
        assert err == ""
        expected.append(out)
    assert len(set(expected)) == STUDENTS

    with redis_server(tmp_path) as server:
        procs = [emqsim(*lesson(i), url=server.url) for i in range(STUDENTS)]
        results = []
        try:
            for p in procs:
                results.append(p.communicate(timeout=180))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.communicate()
        for i, (p, (out, err)) in enumerate(zip(procs, results)):
            assert (i, p.returncode, err) == (i, 0, "")
            assert out == expected[i], f"student {i}: {lesson(i)}"
        assert server.keys() == []
        assert server.client.info("stats")["total_connections_received"] >= STUDENTS
