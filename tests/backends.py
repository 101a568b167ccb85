"""The backends every storage test runs on (huey/rq style): fakeredis always, a real
Redis/Valkey when EMQSIM_REDIS_URL is set, and a Redis Cluster when EMQSIM_CLUSTER_URL is
set (`redis+cluster://HOST:PORT`; CI sets both, .ci/cluster starts the cluster)."""

from __future__ import annotations

import os

import pytest

from emqsim.engine.store import ENV, Store, embedded

CLUSTER_ENV = "EMQSIM_CLUSTER_URL"
BACKENDS = ["fakeredis", "redis", "cluster"]


def url_of(backend: str) -> str | None:
    """The URL a backend runs on (None for fakeredis); skips the test when it is not set."""
    if backend == "fakeredis":
        return None
    var = {"redis": ENV, "cluster": CLUSTER_ENV}[backend]
    url = os.environ.get(var)
    if not url:
        pytest.skip(f"{var} is not set: no {'Redis Cluster' if backend == 'cluster' else 'real Redis'} "
                    "to test against")
    return url


_opened: list[Store] = []


def make_store(backend: str) -> Store:
    url = url_of(backend)
    if url is None:
        return Store(client=embedded())
    store = Store(url=url)
    _opened.append(store)
    return store


def close_opened() -> None:
    """Close every real-server store made since the last call (closing twice is harmless), so
    a test that hands its store to a PumpDesign leaves no keys behind (conftest, after each test)."""
    while _opened:
        _opened.pop().close()
