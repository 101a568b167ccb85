"""The Lua that BullMQ's scripts need, given to an embedded fakeredis server.

fakeredis's Lua has no `cmsgpack`, and its `cjson.encode` is Python's json.dumps, whose text
differs from Redis's lua-cjson (and that text is stored: a job's `opts`). This project's
`lua/cmsgpack.lua` and `lua/cjson.lua` close both. They reach the server through fakeredis's
public `FakeRedis(lua_modules=...)`: each name is `require`d when the server's Lua runtime is
made, so the folder must be on `LUA_PATH` by then (Lua reads it when a runtime starts);
`embedded()` puts it there, keeping whatever the variable already held. fakeredis sets
`cjson = {}` first and then `cjson = require('cjson')`, so ours replaces its own.
A real Redis has both modules natively and needs nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

LUA = Path(__file__).resolve().parent / "lua"
MODULES = ("cmsgpack", "cjson")
FAKE_VERSION = (7,)


def lua_path() -> None:
    """Put this package's lua/ folder first on LUA_PATH (once); ';;' keeps Lua's default."""
    entry = f"{LUA}/?.lua"
    current = os.environ.get("LUA_PATH")
    if current is None:
        os.environ["LUA_PATH"] = entry + ";;"
    elif entry not in current.split(";"):
        os.environ["LUA_PATH"] = entry + ";" + current


def embedded(fast: bool = True):
    """A client of a new fakeredis server of its own whose Lua has this project's cmsgpack and
    cjson; with `fast`, the engine's adapter (`fakelua.speed`: the same answers, less cost)."""
    import fakeredis

    lua_path()
    client = fakeredis.FakeRedis(server=fakeredis.FakeServer(version=FAKE_VERSION), version=FAKE_VERSION,
                                 lua_modules=set(MODULES))
    if fast:
        from ..fakelua import speed

        client = speed(client)
    return client
