"""The backends every storage test runs on (huey/rq style): fakeredis always, and a real
Redis/Valkey too when EMQSIM_REDIS_URL is set (CI sets it)."""

from __future__ import annotations

import os

import fakeredis
import pytest

from emqsim.store import ENV, Store

BACKENDS = ["fakeredis", "redis"]


def make_store(backend: str) -> Store:
    if backend == "fakeredis":
        return Store(client=fakeredis.FakeRedis())
    url = os.environ.get(ENV)
    if not url:
        pytest.skip(f"{ENV} is not set: no real Redis to test against")
    return Store(url=url)
