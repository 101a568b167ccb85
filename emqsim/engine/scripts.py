"""The Lua scripts of `emqsim/engine/lua/`, loaded once per client, and their error codes.

Each script is one file named `verb-<fixed keys>.lua` with a header that lists its
KEYS, ARGV and returns (BullMQ's convention). Scripts check every argument before
the first write and answer a negative code instead of raising inside Lua, so a bad
call never leaves a half-written registry; `Err` names those codes. The checks are
shared (`lua/includes/args.lua`): a time or score is whole ms in [0, MAX_MS), since
Lua's tonumber takes "nan", "inf" and "1.5", which ZADD would refuse mid-script.
`ms_arg` is the same check in Python, run before a script is called.

A rule several scripts share (the wake marker's) lives once in `lua/includes/NAME.lua`;
a script pulls it in with a line `--- @include "NAME"` (BullMQ's convention), which is
replaced by the include's body when the scripts are loaded, so Redis only ever sees
whole scripts.
"""

from __future__ import annotations

import functools

import math
import numbers
import re
from enum import IntEnum
from importlib import resources

import redis

from .errors import MAX_MS, InputError

#: items (fires, pickups) one fast-forward script call handles at most: its keys and
#: arguments go through one Lua unpack, whose stack is bounded
FORWARD = 500

# Every time or score a script takes is a whole number of Unix ms in [0, MAX_MS) (errors.py):
# past 2**53 a double (Lua's number, Redis's score) skips whole numbers. A parked score is "+inf"."


class Err(IntEnum):
    """Negative returns shared by every script (a test checks the Lua headers agree)."""

    ERR_SCORE = -1   # a score or time argument is not whole ms in [0, MAX_MS) (or "+inf" where parked)
    ERR_NAME = -2    # a name or id argument is empty
    ERR_ARITY = -3   # keys and arguments do not come in matching groups
    ERR_FIELDS = -4  # a record's field/value list is empty, odd or incomplete, or a number field is bad
    ERR_FLAG = -5    # a flag or state is not one of the values it may take


class ScriptError(ValueError):
    """A script refused its arguments; nothing was written."""

    def __init__(self, verb: str, code: int):
        self.verb, self.code = verb, Err(code)
        super().__init__(f"script {verb!r} refused its arguments: {self.code.name}")


def ms_arg(what: str, value, *, parked: bool = False) -> str:
    """`value` as the text a script takes for a time or score, or one InputError naming `what`
    and the range: checked in Python before any script runs, so a bad value never reaches Redis.
    With `parked`, infinity (schedule.INF) is allowed too and travels as "+inf"."""
    if type(value) is int and 0 <= value < MAX_MS:   # the common case, as the test below takes it
        return str(value)
    if parked and isinstance(value, float) and value == math.inf:
        return "+inf"
    if isinstance(value, numbers.Integral) and not isinstance(value, bool) and 0 <= value < MAX_MS:
        return str(int(value))
    accepted = f"a whole number of ms, 0 <= {what} < 2**53 ({MAX_MS})" + (", or INF (parked)" if parked else "")
    return _refuse(what, value, accepted)


def name_arg(what: str, value) -> str:
    """A name or id a script takes: non-empty text, else one InputError naming `what`."""
    if isinstance(value, str) and value:
        return value
    return _refuse(what, value, "non-empty text")


def _refuse(what: str, value, accepted: str):
    try:
        shown = repr(value)
    except ValueError:  # an int too long for Python to print
        shown = f"(a {value.bit_length()}-bit integer)"
    if len(shown) > 60:
        shown = shown[:40] + f"... ({len(shown)} characters)"
    raise InputError(f"{what} {shown} is refused: use {accepted}", what)


INCLUDE = re.compile(r'^--- @include "([a-z_]+)"[ \t]*$', re.M)


def include(source: str, seen: tuple[str, ...] = ()) -> str:
    """`source` with every `--- @include "NAME"` line replaced by `lua/includes/NAME.lua`
    (itself resolved the same way; each include is pulled in once per script)."""
    folder = resources.files("emqsim.engine").joinpath("lua", "includes")
    done = list(seen)

    def body(m: re.Match) -> str:
        name = m.group(1)
        if name in done:
            return ""
        path = folder.joinpath(f"{name}.lua")
        if not path.is_file():
            raise FileNotFoundError(f"include {name!r} is not a file in emqsim/engine/lua/includes")
        done.append(name)
        text = path.read_text()
        return include(text, tuple(done)).rstrip("\n")

    return INCLUDE.sub(body, source)


def script_files(resolved: bool = True) -> dict[str, str]:
    """verb -> Lua source, for every `verb-N.lua` shipped in the package (with its
    includes resolved, unless `resolved=False`). Read once per process: every Store loads
    them, and a lesson may build dozens of stores."""
    return dict(_script_files(resolved))


def file_names() -> dict[str, str]:
    """verb -> its file's name (`advance` -> `advance-2.lua`), for a reader shown the script."""
    return {entry.name.rsplit("-", 1)[0]: entry.name
            for entry in resources.files("emqsim.engine").joinpath("lua").iterdir() if entry.name.endswith(".lua")}


@functools.lru_cache(maxsize=2)
def _script_files(resolved: bool) -> tuple[tuple[str, str], ...]:
    out = []
    for entry in resources.files("emqsim.engine").joinpath("lua").iterdir():
        if entry.name.endswith(".lua"):
            text = entry.read_text()
            out.append((entry.name.rsplit("-", 1)[0], include(text) if resolved else text))
    return tuple(out)


class Scripts:
    """The registered scripts of one client; `run` maps negative codes to `ScriptError`."""

    def __init__(self, client: redis.Redis):
        self._scripts = {verb: client.register_script(src) for verb, src in script_files().items()}

    def run(self, verb: str, keys: list[str], args: list, client=None):
        result = self._scripts[verb](keys=keys, args=args, client=client)
        if isinstance(result, int) and result < 0:
            raise ScriptError(verb, result)
        return result

    def source(self, verb: str) -> str:
        """The Lua this client runs for `verb` (includes resolved)."""
        return self._scripts[verb].script

    def replace(self, verb: str, source: str) -> None:
        """Run `source` for `verb` from now on: a variant for a lesson or a test that shows what
        a wrong rule does; the shipped files are untouched."""
        client = self._scripts[verb].registered_client
        self._scripts[verb] = client.register_script(include(source))

    def sha(self, verb: str) -> str:
        return self._scripts[verb].sha
