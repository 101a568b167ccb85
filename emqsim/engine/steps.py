"""Every `redis.call` a Lua script makes, with its line and reply and the keys after it, as data.

The course says a scheduler is one sorted-set member whose score a script rewrites; this is
how a reader watches it happen. `recording(client, pattern)` wraps the embedded server's Lua
runtime while it is open: each script that runs is noted with its source, and each
`redis.call` inside it with the script's line (Lua's own `debug.getinfo` of the caller), the
command, its reply, and the keys matching `pattern` read back right after it (through the same
`redis.call`, so inside the script, as Redis itself would see them). Nothing is changed: the
script gets the original call's reply. Only the embedded fakeredis can be watched from inside;
a real server's scripts run where Python cannot see them.

The recorded steps are plain data (`Call`, `Keys`), so a lesson turns them into frames and the
static site walks them without a kernel. Prior art: Redis's own Lua debugger (`redis-cli
--ldb`) steps a script line by line against a server; this records one pass to replay.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from .errors import InputError

#: a key's contents as read back: ("zset", ((member, score), ...)), ("hash", ((field, value), ...)),
#: ("list", (item, ...)), ("string", value), ("stream", n entries), ("set", (member, ...))
Keys = dict[str, tuple[str, object]]


@dataclass(frozen=True)
class Call:
    """One `redis.call`: which script (its label), the line it stands on, the command and its
    reply as text, and the keys after it."""

    script: str
    line: int
    command: tuple[str, ...]
    reply: object
    keys: Keys
    error: str | None = None


@dataclass
class Recording:
    """What ran while a recording was open: the keys before the first script, each script's
    label and source in order, and every call."""

    before: Keys = field(default_factory=dict)
    scripts: list[tuple[str, str]] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)

    def source(self, label: str) -> str:
        return next(src for name, src in self.scripts if name == label)


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, (bytes, bytearray)) else str(value)


def _plain(value, lua_type):
    """A reply from inside Lua as Python data: tables to lists (or {"ok": ...}/{"err": ...})."""
    if lua_type(value) in ("table", b"table"):
        if value[b"ok"] is not None:
            return {"ok": _text(value[b"ok"])}
        if value[b"err"] is not None:
            return {"err": _text(value[b"err"])}
        return [_plain(value[i], lua_type) for i in range(1, len(value) + 1)]
    if isinstance(value, (bytes, bytearray)):
        return _text(value)
    return value


def _server(client):
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", None) or {}
    server = kwargs.get("server")
    if server is None or type(server).__module__.split(".")[0] != "fakeredis":
        raise InputError("only the embedded fakeredis can be watched from inside a script "
                         "(unset EMQSIM_REDIS_URL, or give a Store() without a URL)", "client")
    return server


class _Runtime:
    """The server's Lua runtime with `execute` noted (the source of each script that runs)."""

    def __init__(self, inner, on_script):
        self._inner, self._on_script = inner, on_script

    def execute(self, source, *args):
        if _text(source) != "collectgarbage()":   # fakeredis's clean-up after each script
            self._on_script(source)
        return self._inner.execute(source, *args)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def _read(call, pattern: bytes) -> Keys:
    """The keys matching `pattern`, each read with the command for its type, through `call`."""
    out: Keys = {}
    for raw in sorted(_plain_list(call(b"KEYS", pattern))):
        key = _text(raw)
        kind = call(b"TYPE", raw)
        kind = _text(kind[b"ok"] if not isinstance(kind, (bytes, str)) else kind)
        if kind == "zset":
            flat = _plain_list(call(b"ZRANGE", raw, b"0", b"-1", b"WITHSCORES"))
            out[key] = ("zset", tuple((_text(flat[i]), _text(flat[i + 1])) for i in range(0, len(flat), 2)))
        elif kind == "hash":
            flat = _plain_list(call(b"HGETALL", raw))
            out[key] = ("hash", tuple(sorted((_text(flat[i]), _text(flat[i + 1])) for i in range(0, len(flat), 2))))
        elif kind == "list":
            out[key] = ("list", tuple(_text(v) for v in _plain_list(call(b"LRANGE", raw, b"0", b"-1"))))
        elif kind == "set":
            out[key] = ("set", tuple(sorted(_text(v) for v in _plain_list(call(b"SMEMBERS", raw)))))
        elif kind == "stream":
            out[key] = ("stream", int(call(b"XLEN", raw)))
        elif kind == "string":
            out[key] = ("string", _text(call(b"GET", raw)))
        else:
            out[key] = (kind, None)
    return out


def _plain_list(table) -> list:
    return [table[i] for i in range(1, len(table) + 1)] if not isinstance(table, list) else table


@contextmanager
def recording(client, pattern: str, labels: dict[str, str] | None = None):
    """Record every script run on `client`'s embedded server while open (see the module).
    `pattern` picks the keys read back after each call (a queue's `emq:{q}:*`); `labels` names
    a script by its source (verb file names), others are "script N"."""
    server = _server(client)
    client.eval("return 0", 0)   # the server's runtime exists from here on
    labels = dict(labels or {})
    rec = Recording()
    runtime = server._lua_runtime
    lua_globals = runtime.globals()
    table = lua_globals.redis
    original = table.call
    getinfo = lua_globals.debug.getinfo
    lua_type = lua_globals.type
    key_pattern = pattern.encode()
    current: list[str] = []

    def on_script(source):
        text = _text(source)
        label = labels.get(text) or f"script {len(rec.scripts) + 1}"
        rec.scripts.append((label, text))
        current[:] = [label]

    def call(*args):
        info = getinfo(2, b"l")   # 1 is this function (C), 2 the script's line that called it
        line = int(info[b"currentline"]) if info is not None else 0
        if not rec.calls and not rec.before:
            rec.before.update(_read(original, key_pattern))
        try:
            reply = original(*args)
        except Exception as exc:   # the script's own error: noted, then raised as it was
            rec.calls.append(Call(current[0] if current else "script", line, tuple(_text(a) for a in args),
                                  None, _read(original, key_pattern), error=str(exc).splitlines()[0]))
            raise
        rec.calls.append(Call(current[0] if current else "script", line, tuple(_text(a) for a in args),
                              _plain(reply, lua_type), _read(original, key_pattern)))
        return reply

    table.call = call
    server._lua_runtime = _Runtime(runtime, on_script)
    try:
        yield rec
    finally:
        table.call = original
        server._lua_runtime = runtime
