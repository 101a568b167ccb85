"""Takes fakeredis's own costs off each command and script call, changing no answer.

fakeredis (checked on the versions in `CHECKED`) compiles a script's Lua source again on
every EVAL/EVALSHA, rebuilds the set of Lua globals before every `redis.call` to catch a
script that set one, runs a full `collectgarbage()` after every script, and reads each
`redis.call`'s arguments against its command's signature position by position, even the
many that are plain bytes and need nothing. `speed(client)` gives that client's embedded
server a runtime that:

- compiles each script once and keeps the compiled chunk, keyed by its source (the SHA
  names the same text; a source that does not compile is left to fakeredis, so the error
  reads as it always did);
- checks the globals once before and once after each script (fakeredis's own check at
  the end stays) instead of before every call inside it: a script that sets a global
  still fails with fakeredis's message, later (at its end rather than at its next call);
- leaves garbage to Lua's incremental collector instead of a full collection per script;
- looks each `redis.call` command up once per server (`_Calls`) and reads its arguments
  with the signature's own rule restricted to the positions that are not plain bytes
  (`_Planned`): the same conversions, key reads, type errors and short-cuts, in the same
  order. A command name it does not know and a container command (`CLIENT ...`) go
  through fakeredis's own `redis.call`, an argument Lua cannot pass meets fakeredis's own
  conversion, and `redis.pcall` is left as it was, so every error reads as it did.

Outside scripts, a command sent by the client goes to the socket's own command handler
(`_Direct`) instead of being packed into RESP bytes that the socket then parses back into
the same fields; the reply comes back through the socket's queue as before. Pipelines and
transactions, a socket that CLIENT KILL closed, and a server made unreachable keep
fakeredis's own path. `preload` fills a server's script cache as SCRIPT LOAD does.

Each call still runs through fakeredis's own command code (`_run_command`: the command, its
key writes, WATCH and keyspace notifications), so a counter wrapped around that
(`benchmarks/bench_speed.py`) sees every call. Outside the versions it was checked on, or when the private
parts it relies on are missing, `speed` does nothing, silently: a notebook's stderr is part of
what nbval compares, so a word there would fail every notebook on a fakeredis release the lock
does not name. `state()` says which it is, for `emqsim --version` and `make bench`.
"""

from __future__ import annotations

import functools

CHECKED = ("2.41.0",)   # fakeredis versions this adapter was read against and tested on (the lock's)
MARK = "_emqsim_fakelua"
enabled = True          # False: `speed` leaves every client as it is (the tests compare both)


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
    try:
        from fakeredis import _commands, _helpers, _msgs
        from fakeredis._core import CommandItem  # noqa: F401  (read by _Planned)
        from fakeredis._socket._base import BaseFakeSocket
    except ImportError:
        return None, f"fakeredis {version} lacks the parts it wraps"
    from fakeredis._clients._sync import FakeRedisConnection
    needed = ((FakeRedisConnection, ("send_command", "read_response")),
              (sm.ScriptingCommandsMixin, ("_get_server_runtime", "_lua_redis_call", "_lua_redis_pcall",
                                           "_convert_redis_result")),
              (sm, ("_check_for_lua_globals", "LUA_MODULE", "_convert_redis_arg")),
              (BaseFakeSocket, ("_run_command", "_name_to_func", "_process_command")),
              (_commands, ("Signature", "Key", "SUPPORTED_COMMANDS", "COMMANDS_WITH_SUB")),
              (_commands.Signature, ("apply", "check_arity")), (_commands.Key, ("UNSPECIFIED",)),
              (_helpers, ("decode_command_bytes", "SimpleError")),
              (_msgs, ("WRONGTYPE_MSG", "FLAG_DO_NOT_CREATE")))
    if not all(hasattr(owner, n) for owner, names in needed for n in names):
        return None, f"fakeredis {version} lacks the parts it wraps"
    return sm, ""


def state() -> str:
    """One line: the fakeredis version found and whether the adapter applies to it."""
    if not enabled:
        return "fakeredis speed-up: off (switched off)"
    sm, reason = _parts()
    if sm is None:
        return f"fakeredis speed-up: off ({reason}; scripts run at fakeredis's own speed)"
    import fakeredis

    return f"fakeredis speed-up: on (fakeredis {fakeredis.__version__})"


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


class _Planned:
    """A command's fakeredis Signature whose `apply` visits only the positions that are not plain
    bytes (keys and typed arguments): `Signature.apply`'s two passes with the no-op steps left
    out. Every other attribute is the signature's own."""

    LONGEST = 64   # plans kept per argument count up to this many arguments (longer: made each call)

    def __init__(self, sig):
        from fakeredis import _msgs
        from fakeredis._commands import Key
        from fakeredis._core import CommandItem
        from fakeredis._helpers import SimpleError

        self.__dict__.update(sig.__dict__)
        self._sig, self._key, self._item, self._msgs, self._error = sig, Key, CommandItem, _msgs, SimpleError
        self._fixed = tuple((i, t) for i, t in enumerate(sig.fixed) if t is not bytes)
        self._typed = tuple(j for j, t in enumerate(sig.repeat) if t is not bytes)
        self._plans: dict[int, tuple] = {}

    def __getattr__(self, name):   # anything fakeredis reads that is not copied
        return getattr(self._sig, name)

    def _plan(self, n: int) -> tuple:
        if not self._typed:
            return self._fixed
        plan = self._plans.get(n)
        if plan is None:
            f, r = len(self.fixed), len(self.repeat)
            plan = self._fixed + tuple((i, self.repeat[(i - f) % r]) for i in range(f, n)
                                       if (i - f) % r in self._typed)
            if n <= self.LONGEST:
                self._plans[n] = plan
        return plan

    def apply(self, args, db, version):
        self._sig.check_arity(args, version)
        plan = self._plan(len(args))
        key, args_list = self._key, list(args)
        for i, type_ in plan:   # first pass: typed arguments converted, a missing key's short-cut
            if isinstance(type_, key):
                if type_.missing_return is not key.UNSPECIFIED and args_list[i] not in db:
                    return (type_.missing_return,)
            else:
                args_list[i] = type_.decode(args_list[i])
        items = []
        msgs = self._msgs
        for i, type_ in plan:   # second pass: keys read, their types checked
            if isinstance(type_, key):
                arg = args_list[i]
                item = db.get(arg)
                default = None
                if type_.type_ is not None and item is not None and type(item.value) is not type_.type_:
                    raise self._error(msgs.WRONGTYPE_MSG)
                if (msgs.FLAG_DO_NOT_CREATE not in self.flags and type_.type_ is not None and item is None
                        and type_.type_ is not bytes):
                    default = type_.type_()
                args_list[i] = self._item(arg, db, item, default=default)
                items.append(args_list[i])
        return args_list, items


class _Calls:
    """`redis.call` for one server: the command looked up once per name, its arguments read by
    `_Planned`, then fakeredis's own `_run_command` and result conversion, as `_lua_redis_call`
    does them; anything else goes to `_lua_redis_call` itself."""

    def __init__(self, sm, current, call_rt, expected):
        from fakeredis._commands import COMMANDS_WITH_SUB, SUPPORTED_COMMANDS
        from fakeredis._helpers import decode_command_bytes

        self._current, self._rt, self._expected = current, call_rt, expected
        self._convert = sm._convert_redis_arg
        self._decode, self._sub, self._known = decode_command_bytes, COMMANDS_WITH_SUB, SUPPORTED_COMMANDS
        self._found: dict[bytes, tuple[str, _Planned]] = {}

    def _lookup(self, sock, op):
        if type(op) is not bytes:
            return None
        cmd = self._decode(op)
        if cmd in self._sub or cmd not in self._known:
            return None
        func, sig = sock._name_to_func(cmd)   # raises for a command this server type lacks
        if func is None:
            return None
        found = self._found[op] = (sig.func_name, _Planned(sig))
        return found

    def __call__(self, op, *args):
        sock = self._current[0]
        found = self._found.get(op)
        if found is None:
            found = self._lookup(sock, op)
            if found is None:
                return sock._lua_redis_call(self._rt, self._expected, op, *args)
        name, sig = found
        convert = self._convert
        result = sock._run_command(getattr(sock, name), sig, [convert(a) for a in args], True)
        return sock._convert_redis_result(self._rt, result)


@functools.cache
def _direct_class():
    """`_Direct`, made once (it subclasses fakeredis's connection, imported late)."""
    from fakeredis._clients._sync import FakeRedisConnection

    class _Direct(FakeRedisConnection):
        """A connection whose single commands reach the socket as the fields its parser would
        have made of them: the command name split at spaces as redis-py splits it ('SCRIPT
        LOAD'), every argument encoded by the client's own encoder."""

        def send_command(self, *args, **kwargs):
            sock = self._sock
            if sock is None or sock._paused or sock._killed or not sock._server.connected:
                return super().send_command(*args, **kwargs)   # connects, or raises as before
            first = args[0]
            if isinstance(first, str):
                args = (*first.encode().split(), *args[1:])
            elif b" " in first:
                args = (*first.split(), *args[1:])
            encode = self.encoder.encode
            fields = [encode(a) for a in args]
            try:
                sock._process_command(fields)
            except BaseException:   # as redis-py's send does: the connection is dropped, the error raised
                self.disconnect()
                raise

    return _Direct


def preload(client, sources) -> bool:
    """Put each Lua source in `client`'s embedded server's script cache, under its SHA-1, as
    SCRIPT LOAD puts it there; False (nothing done) when the adapter does not apply."""
    import hashlib

    if not enabled:
        return False
    server, _ = _server_of(client)
    cache = getattr(server, "script_cache", None)
    if not getattr(server, MARK, False) or not isinstance(cache, dict):
        return False
    for source in sources:
        raw = source.encode()
        cache[hashlib.sha1(raw).hexdigest().encode()] = raw
    return True


def speed(client):
    """`client`, its embedded fakeredis server fitted with the faster runtime (once per
    server); a real server's client, or any client when the adapter cannot apply, as it is."""
    if not enabled:
        return client
    server, modules = _server_of(client)
    if server is None or type(server).__module__.split(".")[0] != "fakeredis":
        return client
    if getattr(server, MARK, False):
        _direct(client)
        return client
    sm, _ = _parts()
    if sm is None:   # silent: see the module's docstring; `state()` names the reason
        return client
    lua = sm.ScriptingCommandsMixin._get_server_runtime(_Modules(modules), server)
    expected = server._lua_expected_globals
    current = server._lua_current_socket
    call_rt = _CallRuntime(lua)

    call = _Calls(sm, current, call_rt, expected)

    def pcall(op, *args):
        return current[0]._lua_redis_pcall(call_rt, expected, op, *args)

    redis_table = lua.globals().redis
    redis_table.call, redis_table.pcall = call, pcall
    server._lua_runtime = _ScriptRuntime(lua, sm, expected)
    setattr(server, MARK, True)
    _direct(client)
    return client


def release(client) -> None:
    """Break the cycle an embedded server is (the server, its Lua runtime, the runtime's Python
    callbacks back into the server) when its store closes, so its memory is freed now rather than
    at Python's next full collection: the runtime and what fakeredis or this adapter cached on
    the server are dropped (fakeredis makes them again if the server is used). On a fakeredis
    the adapter was not checked on, nothing is touched."""
    server, _ = _server_of(client)
    if server is None or type(server).__module__.split(".")[0] != "fakeredis" or _parts()[0] is None:
        return
    runtime = vars(server).get("_lua_runtime")
    lua = getattr(runtime, "_lua", runtime)
    if lua is not None:   # the Lua side's references back into Python: `redis.call` and the like
        getattr(runtime, "_compiled", {}).clear()
        lua.execute("redis = nil; server = nil; collectgarbage()")
    for name in [n for n in vars(server) if n.startswith("_lua_") or n == MARK]:
        delattr(server, name)


def _direct(client) -> None:
    """The client's pool makes `_Direct` connections from now on (a pool of a class of its own,
    a connection already made: left as they are)."""
    from fakeredis._clients._sync import FakeRedisConnection

    pool = client.connection_pool
    if getattr(pool, "connection_class", None) is FakeRedisConnection:
        pool.connection_class = _direct_class()
