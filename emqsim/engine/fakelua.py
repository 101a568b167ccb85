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
- checks the globals after each script (fakeredis's own check at
  the end stays), and before a script only when the one before did not reach that check
  (it failed), instead of before every call inside it: a script that sets a global
  still fails with fakeredis's message, later (at its end rather than at its next call);
  each check is one Lua walk of the globals table (`_CLEAN`), and only when it finds a
  new global does fakeredis's own check read them all into Python (`_Globals`);
- leaves garbage to Lua's incremental collector instead of a full collection per script;
- looks each `redis.call` command up once per server (`_Calls`) and reads its arguments
  with the signature's own rule restricted to the positions that are not plain bytes
  (`_Planned`): the same conversions, key reads, type errors and short-cuts, in the same
  order. A command name it does not know and a container command (`CLIENT ...`) go
  through fakeredis's own `redis.call`, an argument Lua cannot pass meets fakeredis's own
  conversion, and `redis.pcall` is left as it was, so every error reads as it did;
- runs each such call through `_Calls._run`: `_run_command`'s steps for a script's call on
  a redis server under RESP2, without the branches that cannot apply there (dragonfly's; the
  keyspace notifications when nobody subscribes; waking blocked clients when none waits).
  When `_run_command` has been replaced (a counter wrapped around it), calls go through it.

Outside scripts, a command sent by the client goes to the socket's own command handler
(`_Direct`) instead of being packed into RESP bytes that the socket then parses back into
the same fields; the reply comes back through the socket's queue as before. Pipelines and
transactions, a socket that CLIENT KILL closed, and a server made unreachable keep
fakeredis's own path. `preload` fills a server's script cache as SCRIPT LOAD does.

`runner(client, source)` is for a caller that runs the same few scripts many times (the
BullMQ driver, `bullmq_scripts/driver.py`): EVALSHA's fields handed to a socket of its own,
or, where no ACL rule, subscriber, transaction or reply setting can intervene, the script
handed to fakeredis's own `eval` with the command time set as a command sets it; the reply
read from it, no redis-py command path between (tests/test_bullmq_scripts_fast.py holds its
answers and keys equal to the plain path's).

Each call still runs fakeredis's own command code (the command, its key writes, WATCH and
keyspace notifications), and a counter wrapped around `_run_command`
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
        from fakeredis._core import _database
        from fakeredis._socket._base import BaseFakeSocket
        from fakeredis.model import Hash
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
              (BaseFakeSocket, ("_keyspace_notifications", "_subkey_notifications")),
              (_database, ("Item", "CommandItem", "Database")), (_database.Database, ("schedule_expiry", "wake_all")),
              (Hash, ("take_expired_fields",)),
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


#: Lua's own walk of its globals: true when every one is among `expected` (a table), so the
#: common case costs one call instead of copying every global's name into Python
_CLEAN = """
local next, G = next, _G
return function(expected)
    for k in next, G do
        if not expected[k] then return false end
    end
    return true
end
"""


class _Globals:
    """The globals table as fakeredis's end-of-script check reads it: `keys()` asks Lua first and,
    when no global was added, answers with no names (so the check finds nothing new, as it would
    have, without copying the expected names into a set); otherwise with the real names, so the check reports and clears them in its own
    words. Everything else is the table itself."""

    def __init__(self, table, clean, expected, checked=None):
        self._table, self._clean, self._expected = table, clean, expected
        self._checked = checked if checked is not None else [True]

    def keys(self):
        self._checked[0] = True   # clean now, or about to be cleared by the caller (fakeredis's check)
        return () if self._clean() else self._table.keys()

    def __getitem__(self, key):
        return self._table[key]

    def __setitem__(self, key, value):
        self._table[key] = value

    def __getattr__(self, name):
        return getattr(self._table, name)


class _ScriptRuntime:
    """What fakeredis's EVAL sees as the server's runtime: compiled once, no full GC, the globals
    compared in Lua."""

    def __init__(self, lua, sm, expected, calls=None):
        self._lua, self._sm, self._expected, self.calls = lua, sm, expected, calls
        self.flat = None   # `_FLAT`, compiled when a runner first needs it
        self._compiled: dict = {}
        self.table_from = lua.table_from
        walk = lua.execute(_CLEAN)
        seen: list = [None, None]   # (the expected names' count, their Lua table)

        def clean() -> bool:
            if seen[0] != len(expected):
                seen[:] = [len(expected), lua.table_from({k: True for k in expected})]
            return bool(walk(seen[1]))

        self._clean = clean
        # False while a chunk has run and fakeredis's end-of-script check has not read the globals
        # since (the chunk failed, or its caller does not check): the next script checks first
        self._checked = [True]
        self._view = _Globals(lua.globals(), clean, expected, self._checked)

    def globals(self):
        return self._view

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
        # a global left by an earlier failed script is reported before this one writes (after a
        # script that ended well fakeredis's own check has already read them: nothing to walk)
        if not self._checked[0] and not self._clean():
            self._sm._check_for_lua_globals(self._lua, self._expected)
        if self.calls is not None:
            self.calls.mode = None
        self._checked[0] = False
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
        self._made: dict[int, tuple] = {}
        self._nfixed = len(sig.fixed)

    def __getattr__(self, name):   # anything fakeredis reads that is not copied
        return getattr(self._sig, name)

    def _plan(self, n: int) -> tuple:
        """((position, type), ...) of the arguments to read for `n` arguments."""
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

    def _steps(self, n: int) -> tuple:
        """The plan for `n` arguments with each step's decisions made once: the first pass's steps
        in position order ((position, decode, None) to convert, (position, None, reply) for a
        key whose absence short-cuts the command), and the keys ((position, stored type, its
        default's maker or None))."""
        steps = self._made.get(n)
        if steps is None:
            key, create = self._key, self._msgs.FLAG_DO_NOT_CREATE not in self.flags
            plan = self._plan(n)
            first = tuple((i, None, t.missing_return) if isinstance(t, key) else (i, t.decode, None)
                          for i, t in plan if not isinstance(t, key) or t.missing_return is not key.UNSPECIFIED)
            keys = tuple((i, t.type_, t.type_ if create and t.type_ is not None and t.type_ is not bytes else None)
                         for i, t in plan if isinstance(t, key))
            steps = (first, keys)
            if n <= self.LONGEST:
                self._made[n] = steps
        return steps

    def apply(self, args, db, version):
        """`Signature.apply`: the arity checked, typed arguments converted and a missing key's
        short-cut taken (in position order), then each key read and its type checked. A key is
        read as `Database.get` reads it: an expired one is dropped, as its `__getitem__` drops it."""
        if len(args) != self._nfixed:
            self._sig.check_arity(args, version)
        first, keys = self._steps(len(args))
        args_list = list(args)
        stored = db._dict
        now = db.time
        for i, decode, missing in first:
            if decode is not None:
                args_list[i] = decode(args_list[i])
            else:
                item = stored.get(args_list[i])
                if item is None or (item.expireat is not None and item.expireat < now):
                    if item is not None:
                        del stored[args_list[i]]
                    return (missing,)
        items = []
        for i, type_, default in keys:   # second pass: keys read, their types checked
            arg = args_list[i]
            item = stored.get(arg)
            if item is not None and item.expireat is not None and item.expireat < now:
                del stored[arg]
                item = None
            if type_ is not None and item is not None and type(item.value) is not type_:
                raise self._error(self._msgs.WRONGTYPE_MSG)
            made = self._item(arg, db, item, default=default() if default is not None and item is None else None)
            args_list[i] = made
            items.append(made)
        return args_list, items


class _Calls:
    """`redis.call` for one server: the command looked up once per name, its arguments read by
    `_Planned`, then `_run` (fakeredis's `_run_command` for a script's call, as `_lua_redis_call`
    makes it, with the steps that cannot apply to it left out) and fakeredis's result conversion;
    anything else goes to `_lua_redis_call` itself."""

    def __init__(self, sm, current, call_rt, expected):
        from fakeredis import _msgs
        from fakeredis._commands import COMMANDS_WITH_SUB, SUPPORTED_COMMANDS
        from fakeredis._core._database import Item
        from fakeredis._helpers import SimpleError, decode_command_bytes
        from fakeredis._socket import _resp
        from fakeredis._socket._base import BaseFakeSocket
        from fakeredis.model import Hash

        self._current, self._rt, self._expected = current, call_rt, expected
        self._convert = sm._convert_redis_arg
        self._decode, self._sub, self._known = decode_command_bytes, COMMANDS_WITH_SUB, SUPPORTED_COMMANDS
        self._found: dict[bytes, tuple] = {}
        self._error, self._msgs, self._resp = SimpleError, _msgs, _resp
        self._pubsub_ok = BaseFakeSocket.ACCEPTED_COMMANDS_WHILE_PUBSUB
        self._genuine = _genuine_run_command()
        self._item, self._hash = Item, Hash
        from . import fastcalls

        self._direct, self._direct_table, self._miss = fastcalls, fastcalls.table(), fastcalls.MISS
        self._box = [None]   # this script's path: None (not known yet), 0 fakeredis's, 1 `_run`, 2 direct too
        self.call = self.closure()

    @property
    def mode(self):
        return self._box[0]

    @mode.setter
    def mode(self, value):
        self._box[0] = value

    def _mode(self, sock) -> int:
        """0: fakeredis's own `_run_command` for every call (another server type, or `_run_command`
        wrapped); 1: `_run`; 2: `_run` and the direct paths (`fastcalls`), when they are switched on
        and nothing else is due (`fastcalls.usable`). None of it can change while a script runs:
        WATCH, SUBSCRIBE and blocking commands cannot be called from one, and no other client's
        command runs meanwhile (the server's lock is held)."""
        if type(sock)._run_command is not self._genuine or sock._server.server_type != "redis":
            return 0
        return 2 if self._direct.enabled and self._direct.usable(sock) else 1

    def _lookup(self, sock, op):
        if type(op) is not bytes:
            return None
        cmd = self._decode(op)
        if cmd in self._sub or cmd not in self._known:
            return None
        func, sig = sock._name_to_func(cmd)   # raises for a command this server type lacks
        if func is None:
            return None
        flags, msgs = sig.flags, self._msgs
        found = self._found[op] = (sig.func_name, _Planned(sig), msgs.FLAG_NO_SCRIPT in flags,
                                   msgs.FLAG_SKIP_CONVERT_TO_RESP2 not in flags, msgs.FLAG_LEAVE_EMPTY_VAL not in flags,
                                   sig.name.encode(), self._direct_table.get(cmd))
        return found

    def __call__(self, op, *args):
        return self.call(op, *args)

    def closure(self):
        """`redis.call` as one function with what it reads bound once (the same steps as a method
        reading them off `self` each call, which is what a script's calls pay for)."""
        current, found_of, lookup, rt, expected = self._current, self._found.get, self._lookup, self._rt, self._expected
        convert, miss, table_from, mode_of, run = self._convert, self._miss, self._rt.table_from, self._mode, self._run
        box = self._box

        def call(op, *args):
            sock = current[0]
            found = found_of(op)
            if found is None:
                found = lookup(sock, op)
                if found is None:
                    return sock._lua_redis_call(rt, expected, op, *args)
            for a in args:   # a Lua number is written as fakeredis writes it; anything else it refuses
                if type(a) is not bytes:
                    args = [a if type(a) is bytes else f"{a:.17g}".encode() if type(a) in _NUMBERS else convert(a)
                            for a in args]
                    break
            mode = box[0]
            if mode is None:   # once a script: what it cannot change while it runs
                mode = box[0] = mode_of(sock)
            # inside a script `_resp_version` is the script's own `_script_resp`, 2 until redis.setresp(3)
            if mode and sock._script_resp == 2:
                direct = found[6]
                if direct is not None and mode == 2:
                    result = direct(sock, sock._db, args)
                    if result is not miss:
                        if sock._subkey_events:   # `_run_command` starts each command with none
                            sock._subkey_events = []
                        kind = type(result)
                        if kind is bytes or kind is int:
                            return result
                        if kind is list:   # HMGET's and the like: each item as `_convert_redis_result` makes it
                            for x in result:
                                if type(x) is not bytes:
                                    to_lua = sock._convert_redis_result
                                    return table_from([x if type(x) is bytes else to_lua(rt, x) for x in result])
                            return table_from(result)
                        return sock._convert_redis_result(rt, result)
                result = run(sock, found, args)
            else:   # another server type, RESP3, or `_run_command` wrapped (a counter): fakeredis's own
                result = sock._run_command(getattr(sock, found[0]), found[1], list(args), True)
            return sock._convert_redis_result(rt, result)

        return call

    def _run(self, sock, found, args):
        """`BaseFakeSocket._run_command(func, sig, args, from_script=True)` on a redis server
        under RESP2: the same steps in the same order; the dragonfly branches are not taken,
        and keyspace notifications are skipped only where fakeredis returns at once (no
        subscribers)."""
        name, sig, no_script, convert, remove_empty, event, _ = found
        items = ()
        sock._subkey_events = []
        try:
            ret = sig.apply(args, sock._db, sock.version)
            if no_script:
                raise self._error(self._msgs.COMMAND_IN_SCRIPT_MSG)
            if sock._pubsub and sig.name not in self._pubsub_ok:
                raise self._error(self._msgs.BAD_COMMAND_IN_PUBSUB_MSG)
            if len(ret) == 1:
                result = ret[0]
            else:
                args, items = ret
                result = getattr(sock, name)(*args)
                if convert:
                    kind = type(result)
                    if kind is not bytes and kind is not int and result is not None:
                        result = self._resp.convert_to_resp2(result, "redis", keep_doubles=False)
                        if not self._resp.valid_response_type(result, 2):
                            raise AssertionError(f"Invalid response type for {result}")
        except self._error as exc:
            result = exc
        for item in items:
            if item._modified:
                self._write(item, remove_empty)
            elif item._expireat_modified:
                item.writeback(remove_empty_val=remove_empty)
        server = sock._server
        if server.subscribers or server.psubscribers:
            sock._keyspace_notifications(items, event)
        if sock.version < (8, 8):   # `_subkey_notifications` before 8.8: expired fields taken, nothing sent
            sock._subkey_events = []
            hash_ = self._hash
            for item in items:
                if isinstance(item._value, hash_):
                    item._value.take_expired_fields()
        else:
            sock._subkey_notifications(items)
        return result

    def _write(self, item, remove_empty):
        """`CommandItem.writeback` of a modified item: the watchers told, and the database's
        blocked clients woken only when there are any (a `notify_all` with nobody waiting does
        nothing but check the lock), then the value stored as writeback stores it."""
        db, key = item.db, item.key
        watchers = db._watches.get(key)
        if watchers:
            for sock in watchers:
                sock.notify_watch()
        if db.condition._waiters or db._change_callbacks:
            db.wake_all()
        value = item._value
        if not isinstance(value, bytes) and (value is None or (not value and remove_empty)):
            db.pop(key, None)
            return
        stored = db.setdefault(key, self._item(None))
        stored.value = value
        stored.expireat = item._expireat
        db.schedule_expiry(key, item._expireat)


def _genuine_run_command():
    """fakeredis's own `BaseFakeSocket._run_command`, or None when it has been replaced (then
    every call goes through whatever replaced it)."""
    from fakeredis._socket._base import BaseFakeSocket

    f = BaseFakeSocket.__dict__.get("_run_command")
    if getattr(f, "__module__", None) == "fakeredis._socket._base" and \
            getattr(f, "__qualname__", None) == "BaseFakeSocket._run_command":
        return f
    return None


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


class _Digests:
    """Stands in for `hashlib` in fakeredis's scripting module, whose EVAL hashes the whole
    script again on every call (EVALSHA included: BullMQ's moveToFinished-14 is 40 kB, about
    a tenth of a pickup's cost). A script text `preload` put in a cache is hashed once: asked
    for the SHA-1 of bytes equal to it, it answers the digest it made (one entry a distinct
    text, whatever the number of servers); anything else is hashed by `hashlib` itself."""

    class _Done:
        def __init__(self, hexdigest: str):
            self._hex = hexdigest

        def hexdigest(self) -> str:
            return self._hex

    def __init__(self, real):
        self._real, self._known = real, {}

    def remember(self, raw: bytes) -> bytes:
        """The SHA-1 of `raw` (hex, as bytes), kept for its text."""
        done = self._known.get(raw)
        if done is None:
            if len(self._known) > 1024:
                self._known.clear()
            done = self._known[raw] = self._Done(self._real.sha1(raw).hexdigest())
        return done.hexdigest().encode()

    def sha1(self, data=b"", **kwargs):
        if type(data) is bytes and not kwargs:
            done = self._known.get(data)   # bytes keep their hash: EVALSHA's text is hashed by Python once
            if done is not None:
                return done
        return self._real.sha1(data, **kwargs)

    def __getattr__(self, name):
        return getattr(self._real, name)


@functools.cache
def _digests() -> _Digests:
    """The `_Digests` in fakeredis's scripting module (put there once; the answers are hashlib's)."""
    import hashlib

    from fakeredis.commands_mixins import scripting_mixin as sm

    if not isinstance(sm.hashlib, _Digests):
        sm.hashlib = _Digests(hashlib)
    return sm.hashlib


def preload(client, sources) -> bool:
    """Put each Lua source in `client`'s embedded server's script cache, under its SHA-1, as
    SCRIPT LOAD puts it there; False (nothing done) when the adapter does not apply."""
    if not enabled:
        return False
    server, _ = _server_of(client)
    cache = getattr(server, "script_cache", None)
    if not getattr(server, MARK, False) or not isinstance(cache, dict):
        return False
    digests = _digests()
    for source in sources:
        raw = source.encode()
        cache[digests.remember(raw)] = raw
    return True



def _command_starts(server) -> None:
    """What fakeredis's `_process_command` does under the server's lock before any command: the
    sockets closed since are cleaned up, and every database is stamped with the command's time
    (fakeredis's server clock, for key expiry: not the simulator's `now`)."""
    from fakeredis._socket import _base   # its clock, as a test that fakes it replaces it

    while True:
        try:
            weak_sock = server.closed_sockets.pop()
        except IndexError:
            break
        closed = weak_sock()
        if closed:
            closed._cleanup(server)
    now = _base.time.time()   # the command's time, read as fakeredis reads it
    for db in server.dbs.values():
        db.time = now

def runner(client, source: str):
    """A callable `(keys, args) -> reply` that runs `source` on `client`'s embedded server as
    `client.register_script(source)(keys=..., args=...)` does, for a caller that runs the same
    scripts many times (the BullMQ driver): the script is put in the server's cache once
    (`preload`), and each call hands its EVALSHA's fields straight to a socket of its own and
    takes the reply as the connection takes it, without redis-py's command path in between
    (pool, retries, response parsing: about a third of a trivial script's cost); where nothing
    else is due (`lean`), the command's own lookup, ACL check and argument reading are skipped
    too and fakeredis's `eval` is called with the script from the cache. A NOSCRIPT
    (the cache flushed) is answered by redis-py's own script object, which loads it again.
    Its `raw(numkeys, values)` takes KEYS and ARGV already encoded (by its `field`), keys first.
    None when the adapter does not apply (then use `register_script`)."""
    import hashlib

    if not enabled or not preload(client, [source]):
        return None
    script = client.register_script(source)
    pool = client.connection_pool
    conn = pool.make_connection()
    coder = conn.encoder
    encode, charset, errors = coder.encode, coder.encoding, coder.encoding_errors

    def field(v):   # the encoder's own answer: text encoded with its charset, bytes as they are
        kind = type(v)
        return v if kind is bytes else v.encode(charset, errors) if kind is str else encode(v)

    head = (b"EVALSHA", hashlib.sha1(source.encode()).hexdigest().encode())
    from fakeredis._helpers import SimpleError
    from fakeredis._socket import _base
    from fakeredis._socket._resp import convert_to_resp2 as to_resp2
    from fakeredis._socket._resp import valid_response_type as valid_reply
    from fakeredis._typing import RaiseErrorTypes as raised
    from redis.exceptions import NoScriptError

    def run(keys=(), args=()):
        values = [field(k) for k in keys]
        values += [field(a) for a in args]
        return raw(len(keys), values)

    def raw(numkeys, values):
        """`run` for a caller whose KEYS and ARGV are already the fields sent (bytes, as `field`
        makes them), keys first."""
        sock = conn._sock
        if sock is None or sock._paused or sock._killed or not sock._server.connected:
            return script(keys=values[:numkeys], args=values[numkeys:])   # connects, or fails, as redis-py does
        if sock._transaction is None and not (sock._reply_off or sock._reply_skip or sock._reply_skip_next):
            try:
                reply = lean(sock, numkeys, values)
            except BaseException:
                conn.disconnect()
                raise
            if reply is not _NOT_LEAN:
                if isinstance(reply, raised):
                    raise reply
                return conn._decode(reply)
        fields = [*head, str(numkeys).encode(), *values]
        if sock._transaction is not None or sock._reply_off or sock._reply_skip or sock._reply_skip_next:
            try:      # MULTI or CLIENT REPLY on this socket (nothing of the driver's does either)
                sock._process_command(fields)
            except BaseException:
                conn.disconnect()
                raise
            try:
                return conn.read_response()
            except NoScriptError:
                return script(keys=values[:numkeys], args=values[numkeys:])
        try:
            reply = evalsha(sock, fields)
        except BaseException:
            conn.disconnect()
            raise
        if isinstance(reply, raised):
            if isinstance(reply, NoScriptError):
                return script(keys=values[:numkeys], args=values[numkeys:])
            raise reply
        return conn._decode(reply)

    sha = head[1]

    def lean(sock, numkeys, values):
        """EVALSHA's steps where nothing but the script is due (a redis server, an ACL user with no
        rule that could refuse it, no subscriber, not a pubsub socket, the script in the cache, the
        adapter's runtime): the command time set as `_process_command` sets it, then `_run_command`'s steps for EVALSHA (no key arguments, so
        nothing to write back or notify of) around fakeredis's own `eval`. `_NOT_LEAN` otherwise."""
        server = sock._server
        script = server.script_cache.get(sha)
        if (script is None or sock._pubsub or server.server_type != "redis" or server.subscribers
                or server.psubscribers or not isinstance(getattr(server, "_lua_runtime", None), _ScriptRuntime)):
            return _NOT_LEAN
        user = server.acl._user_acl.get(sock._client_info.user)   # the ACL check passes an unrestricted user
        if user is not None and not (user.enabled and user.unrestricted()):
            return _NOT_LEAN
        with server.lock:
            _command_starts(server)
            sock._subkey_events = []
            try:
                result = sock.eval(script, numkeys, *values)
                version = sock._resp_version
                if version == 2:
                    result = to_resp2(result, "redis", keep_doubles=False)
                if not valid_reply(result, version):
                    raise AssertionError(f"Invalid response type for {result}")
            except SimpleError as exc:
                result = exc
            sock._subkey_notifications([])
        return sock._decode_result(result)

    def evalsha(sock, fields):
        """`_process_command(fields)` for this socket's EVALSHA, outside a transaction and with
        replies on, and the reply as `read_response` takes it off the queue (an error as the
        exception it raises): the same steps, without the queue between the two."""
        server = sock._server
        try:
            func, sig = sock._name_to_func("evalsha")
            server.acl.validate_command(sock._client_info.user, sock._client_info, fields)
            with server.lock:
                _command_starts(server)
                sig.check_arity(fields[1:], sock.version)
                result = sock._run_command(func, sig, fields[1:], False)
        except SimpleError as exc:
            result = exc
        return sock._decode_result(result)

    conn.connect()
    sock = conn._sock
    lookup = sock._name_to_func
    planned = {}

    def name_to_func(cmd):   # this socket's EVALSHA: its one typed argument read, not every argument
        func, sig = lookup(cmd)
        if cmd == "evalsha":
            sig = planned.get(id(sig)) or planned.setdefault(id(sig), _Planned(sig))
        return func, sig

    sock._name_to_func = name_to_func
    runtime = getattr(sock._server, "_lua_runtime", None)
    if isinstance(runtime, _ScriptRuntime):
        sock._convert_lua_result = _flat_replies(sock._convert_lua_result, runtime)
    run.raw, run.field = raw, field
    return run


_NUMBERS = frozenset((int, float))   # what fakeredis's `_convert_redis_arg` writes with "%.17g"
_NOT_LEAN = object()   # `runner`'s lean EVALSHA declined: the general steps run

#: a reply table's items in one call, or nil when fakeredis reads it otherwise (a status, an
#: error, a RESP3 double or map); stops at the first nil, as fakeredis's reading does
_FLAT = """
local unpack = unpack
return function(t)
    if t.ok ~= nil or t.err ~= nil or t.double ~= nil or t.map ~= nil then return nil end
    local n = 0
    while t[n + 1] ~= nil do n = n + 1 end
    if n > 4000 then return nil end
    return n, unpack(t, 1, n)
end
"""


def _flat_replies(convert, runtime):
    """fakeredis's `_convert_lua_result` (bound to one socket) with a script's array reply, and each
    array nested in it, read in one Lua call instead of one lookup per item and four probes;
    bytes items as they are, every other item (a number, a boolean) and every other shape (a
    status, an error, nested or not) by fakeredis's own."""
    flat = runtime.flat
    if flat is None:
        flat = runtime.flat = runtime._lua.execute(_FLAT)
    lua_type = runtime._sm.LUA_MODULE.lua_type

    def fast(result, nested=True):
        if lua_type(result) != "table":
            return convert(result, nested)
        got = flat(result)
        if got is None:
            return convert(result, nested)
        if type(got) is not tuple:   # n == 0: one value back, not a tuple
            return []
        return [x if type(x) is bytes else fast(x) for x in got[1:]]   # a nested table read the same way

    return fast


def reader(client):
    """A callable `(command, *args) -> reply` that answers a read (fastcalls' direct paths, all
    arguments bytes) from `client`'s embedded server's own values, with no command sent and no
    script run (so nothing is recorded or counted: for the driver's own checks, not for what a
    reader is shown). It answers `fastcalls.MISS` where a direct path would leave the command to
    fakeredis. None when the adapter does not apply."""
    from . import fastcalls

    if not enabled or not fastcalls.enabled:
        return None
    server, _ = _server_of(client)
    if not getattr(server, MARK, False):
        return None
    kwargs = getattr(client.connection_pool, "connection_kwargs", {})
    db = server.dbs[int(kwargs.get("db", 0) or 0)]
    table = fastcalls.table()
    lock = server.lock

    def read(command, *args):
        with lock:
            return table[command](None, db, args)

    return read


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
    redis_table.call, redis_table.pcall = call.call, pcall
    server._lua_runtime = _ScriptRuntime(lua, sm, expected, call)
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
