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

from ..errors import InputError

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
    check(client)
    return client


PROBE = "return {type(cmsgpack) == 'table' and cmsgpack.unpack('\\145\\1')[1] or 0, cjson.encode({})}"


def check(client) -> None:
    """One script that shows the server's Lua has this project's modules: fakeredis logs a module
    it cannot load and carries on without it (no cmsgpack, its own cjson), so that is refused
    here in one line instead of failing inside BullMQ's scripts."""
    try:
        got = client.eval(PROBE, 0)
    except Exception as exc:          # a fakeredis without Lua says why in its own words
        raise InputError(f"the embedded Lua cannot run scripts ({' '.join(str(exc).split())[:200]}); "
                         "expected fakeredis[lua]", "client") from None
    if got != [1, b"{}"]:
        raise InputError(f"the embedded Lua did not load emqsim's cmsgpack and cjson from {LUA} "
                         f"(found cmsgpack {'missing' if not got or got[0] != 1 else 'loaded'}, "
                         f"cjson.encode({{}}) = {got[1] if got else None!r}); expected both, LUA_PATH "
                         f"{os.environ.get('LUA_PATH')!r}", "client")
