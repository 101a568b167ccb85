"""Each `redis.call` of BullMQ's real scripts, with its line, command and reply, as plain data.

For the course's stepping figure: while `recording(driver)` is open, the driver's scripts run
through `lua/record.lua` (this project's wrapper: the script's text runs unmodified as its own
chunk, `redis.call` wrapped while it runs), and each script call is appended to the list the
context yields:

    {"script": "moveToActive-11.lua", "keys": [...], "args": [...], "reply": ...,
     "calls": [{"line": 187, "command": "ZADD", "args": [...], "reply": ...}, ...]}

Lines are the script file's own (1 is its first line). Texts are str (bytes where a value is
not UTF-8, as msgpacked arguments are), numbers int or float, a status {"ok": ...}, an error
{"err": ...}. The embedded runtime only: a real Redis keeps `redis` read-only, so there the
driver is left as it is and `recording` says so with an InputError.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

from redis.exceptions import ResponseError

from ..errors import InputError
from .driver import _arg

WRAPPER = (Path(__file__).resolve().parent / "lua" / "record.lua").read_text()


def _text(b: bytes):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def plain(tagged):
    """A tagged value (record.lua) as plain Python data."""
    kind = tagged[0].decode()
    if kind == "s":
        return _text(tagged[1])
    if kind == "n":
        f = float(tagged[1])
        return int(f) if f.is_integer() and abs(f) < 2 ** 63 else f
    if kind in ("t", "f"):
        return kind == "t"
    if kind == "nil":
        return None
    if kind in ("ok", "err", "raised"):
        return {kind: tagged[1].decode("utf-8", "replace")}
    return [plain(x) for x in tagged[1:]]


def as_reply(tagged):
    """A tagged script reply as redis-py hands the real one to the driver (Redis's conversion:
    numbers truncated to integers, false as nil, true as 1)."""
    kind = tagged[0].decode()
    if kind == "s":
        return tagged[1]
    if kind == "n":
        return int(float(tagged[1]))
    if kind == "t":
        return 1
    if kind in ("f", "nil"):
        return None
    if kind == "ok":
        return tagged[1]
    if kind in ("err", "raised"):
        raise ResponseError(tagged[1].decode("utf-8", "replace"))
    return [as_reply(x) for x in tagged[1:]]


def _is_embedded(client) -> bool:
    return type(client).__module__.startswith("fakeredis")


@contextmanager
def recording(driver):
    """Record every script call `driver` makes inside the block; yields the list it fills."""
    if not _is_embedded(driver.client):
        raise InputError("recording a script's redis.call's needs the embedded fakeredis (a real Redis "
                         "keeps `redis` read-only)", "driver")
    log: list[dict] = []
    names = {name.rsplit("-", 1)[0]: name for name in driver.texts}
    original = driver.run

    def run(script: str, keys: list, args: list):
        name = names[script]
        keys = [_arg(k) for k in keys]
        args = [a if isinstance(a, bytes) else _arg(a) for a in args]
        raw = driver.client.eval(WRAPPER, len(keys), *keys, *args, driver.texts[name], name)
        reply, calls = raw
        log.append({"script": name, "keys": keys, "args": [_text(a.encode() if isinstance(a, str) else a)
                                                            for a in args],
                    "reply": plain(reply),
                    "calls": [{"line": int(c[1]), "command": plain(c[2])[0].upper() if len(c[2]) > 1 else "",
                               "args": plain(c[2])[1:], "reply": plain(c[3])} for c in calls[1:]]})
        return as_reply(reply)

    had = "run" in vars(driver)
    driver.run = run
    try:
        yield log
    finally:
        if had:
            driver.run = original
        else:
            del driver.run
