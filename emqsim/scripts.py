"""The Lua scripts of `emqsim/lua/`, loaded once per client, and their error codes.

Each script is one file named `verb-<fixed keys>.lua` with a header that lists its
KEYS, ARGV and returns (BullMQ's convention). Scripts check every argument before
the first write and answer a negative code instead of raising inside Lua, so a bad
call never leaves a half-written registry; `Err` names those codes.
"""

from __future__ import annotations

from enum import IntEnum
from importlib import resources

import redis


class Err(IntEnum):
    """Negative returns shared by every script (a test checks the Lua headers agree)."""

    ERR_SCORE = -1   # a score or time argument is not a number
    ERR_NAME = -2    # a name or id argument is empty
    ERR_ARITY = -3   # keys and arguments do not come in matching groups
    ERR_FIELDS = -4  # a record's field/value list is empty, odd or incomplete


class ScriptError(ValueError):
    """A script refused its arguments; nothing was written."""

    def __init__(self, verb: str, code: int):
        self.verb, self.code = verb, Err(code)
        super().__init__(f"script {verb!r} refused its arguments: {self.code.name}")


def script_files() -> dict[str, str]:
    """verb -> Lua source, for every `verb-N.lua` shipped in the package."""
    out = {}
    for entry in resources.files("emqsim").joinpath("lua").iterdir():
        if entry.name.endswith(".lua"):
            out[entry.name.rsplit("-", 1)[0]] = entry.read_text()
    return out


class Scripts:
    """The registered scripts of one client; `run` maps negative codes to `ScriptError`."""

    def __init__(self, client: redis.Redis):
        self._scripts = {verb: client.register_script(src) for verb, src in script_files().items()}

    def run(self, verb: str, keys: list[str], args: list, client=None):
        result = self._scripts[verb](keys=keys, args=args, client=client)
        if isinstance(result, int) and result < 0:
            raise ScriptError(verb, result)
        return result

    def sha(self, verb: str) -> str:
        return self._scripts[verb].sha
