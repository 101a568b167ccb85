"""Takes three of fakeredis's own costs off each script call, changing no answer.

fakeredis (checked on the versions in `CHECKED`) compiles a script's Lua source again on
every EVAL/EVALSHA, rebuilds the set of Lua globals before every `redis.call` to catch a
script that set one, and runs a full `collectgarbage()` after every script. `speed(client)`
gives that client's embedded server a runtime that:

- compiles each script once and keeps the compiled chunk, keyed by its source (the SHA
  names the same text; a source that does not compile is left to fakeredis, so the error
  reads as it always did);
- checks the globals once before and once after each script (fakeredis's own check at
  the end stays) instead of before every call inside it: a script that sets a global
  still fails with fakeredis's message, later (at its end rather than at its next call);
- leaves garbage to Lua's incremental collector instead of a full collection per script.

`redis.call` still runs through fakeredis's own command code, so a counter wrapped around
it (`emqsim.bench`) still sees every call. Outside the versions it was checked on, or when
the private parts it relies on are missing, `speed` does nothing and says so once.
"""

from __future__ import annotations

import warnings

CHECKED = ("2.41.0",)   # fakeredis versions this adapter was read against and tested on
MARK = "_emqsim_fakelua"
enabled = True          # False: `speed` leaves every client as it is (the tests compare both)
_warned = False


def _parts():
    """fakeredis's private pieces the adapter uses, or None (with the reason) when absent."""
    try:
        import fakeredis
        from fakeredis.commands_mixins import scripting_mixin as sm
    except ImportError as exc:
        return None, f"fakeredis is not importable ({exc})"
    version = getattr(fakeredis, "__version__", None)
    if version not in CHECKED:
        return None, f"fakeredis {version} is not one of the versions it was checked on ({', '.join(CHECKED)})"
    needed = ("_get_server_runtime", "_lua_redis_call", "_lua_redis_pcall")
    if not all(hasattr(sm.ScriptingCommandsMixin, n) for n in needed) \
            or not hasattr(sm, "_check_for_lua_globals") or not hasattr(sm, "LUA_MODULE"):
        return None, f"fakeredis {version} lacks the parts it wraps"
    return sm, ""


def _say_once(reason: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(f"emqsim.engine.fakelua: not applied: {reason}; scripts run at fakeredis's own speed",
                      RuntimeWarning, stacklevel=3)


def _server_of(client):
    """(the FakeServer behind `client`, its Lua modules), or (None, None) for any other client.
    Clients made without `server=` share one server per host and port, found on a connection."""
    pool = getattr(client, "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None) or {}
    server = kwargs.get("server")
    if server is None and "lua_modules" in kwargs:   # only fakeredis pools carry lua_modules
        server = getattr(pool.make_connection(), "_server", None)
    return server, kwargs.get("lua_modules")


class _Modules:
    """Stands in for a fakeredis socket when the runtime is made before any script ran."""

    def __init__(self, modules):
        self.load_lua_modules = set(modules or ())


class _ScriptRuntime:
    """What fakeredis's EVAL sees as the server's runtime: compiled once, no full GC."""

    def __init__(self, lua, sm, expected):
        self._lua, self._sm, self._expected = lua, sm, expected
        self._compiled: dict = {}
        self.table_from = lua.table_from
        self.globals = lua.globals

    def execute(self, source):
        if source == "collectgarbage()":   # fakeredis's clean-up after every script
            return None
        chunk = self._compiled.get(source)
        if chunk is None:
            try:
                chunk = self._lua.compile(source)
            except self._sm.LUA_MODULE.LuaSyntaxError:
                return self._lua.execute(source)   # raises, worded as fakeredis words it
            self._compiled[source] = chunk
        # a global left by an earlier failed script is reported before this one writes
        self._sm._check_for_lua_globals(self._lua, self._expected)
        return chunk()

    def __getattr__(self, name):
        return getattr(self._lua, name)


class _CallRuntime:
    """What `redis.call` sees: the real tables, and no globals to compare on each call."""

    def __init__(self, lua):
        self.table_from = lua.table_from

    @staticmethod
    def globals():
        return {}


def speed(client):
    """`client`, its embedded fakeredis server fitted with the faster runtime (once per
    server); a real server's client, or any client when the adapter cannot apply, as it is."""
    if not enabled:
        return client
    server, modules = _server_of(client)
    if server is None or type(server).__module__.split(".")[0] != "fakeredis":
        return client
    if getattr(server, MARK, False):
        return client
    sm, reason = _parts()
    if sm is None:
        _say_once(reason)
        return client
    lua = sm.ScriptingCommandsMixin._get_server_runtime(_Modules(modules), server)
    expected = server._lua_expected_globals
    current = server._lua_current_socket
    call_rt = _CallRuntime(lua)

    def call(op, *args):
        return current[0]._lua_redis_call(call_rt, expected, op, *args)

    def pcall(op, *args):
        return current[0]._lua_redis_pcall(call_rt, expected, op, *args)

    redis_table = lua.globals().redis
    redis_table.call, redis_table.pcall = call, pcall
    server._lua_runtime = _ScriptRuntime(lua, sm, expected)
    setattr(server, MARK, True)
    return client
