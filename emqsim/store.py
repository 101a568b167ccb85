"""Where the state lives: an embedded fakeredis server, or a real Redis/Valkey.

`EMQSIM_REDIS_URL` picks a real server; each `Store` then takes a queue name of its
own and deletes that queue's keys on close, so runs never see each other's rows.
Without it every `Store` gets a fresh fakeredis server, isolated by construction.
"""

from __future__ import annotations

import itertools
import os

import redis

from .keys import Keys
from .scripts import Scripts

ENV = "EMQSIM_REDIS_URL"
_serial = itertools.count(1)


def connect(url: str | None = None) -> redis.Redis:
    """A client for `url`, else for $EMQSIM_REDIS_URL, else a new embedded fakeredis server."""
    url = url or os.environ.get(ENV)
    if url:
        return redis.Redis.from_url(url)
    import fakeredis  # imported late: it costs about 0.35 s

    return fakeredis.FakeRedis()


class Store:
    """A client, the queue's keys and the scripts loaded on that client."""

    def __init__(self, queue: str = "demo", url: str | None = None, client: redis.Redis | None = None):
        self.url = url or os.environ.get(ENV)
        self.client = client or connect(self.url)
        self.real = self.url is not None and client is None
        if self.real:  # a shared server: a queue name nobody else is using
            queue = f"{queue}-{os.getpid()}-{next(_serial)}"
        self.keys = Keys(queue)
        self.scripts = Scripts(self.client)
        self.backend = "redis" if self.real else "fakeredis"

    def close(self) -> None:
        """Delete this queue's keys from a real server; an embedded one just goes away."""
        if self.real:
            batch = list(self.client.scan_iter(match=self.keys.pattern, count=1000))
            for i in range(0, len(batch), 500):
                self.client.delete(*batch[i : i + 500])
        self.client.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
