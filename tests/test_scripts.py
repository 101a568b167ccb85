"""The Lua files keep BullMQ's conventions, and their error codes match the Python enum."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from emqsim.scripts import Err, ScriptError, script_files

LUA = resources.files("emqsim").joinpath("lua")
FILES = sorted(p.name for p in LUA.iterdir() if p.name.endswith(".lua"))


def test_every_verb_the_engine_needs_is_a_file():
    assert set(script_files()) == {"register", "upsert", "cancel", "advance", "enqueue", "fire", "finish"}


@pytest.mark.parametrize("name", FILES)
def test_file_is_named_verb_dash_fixed_key_count(name):
    src = LUA.joinpath(name).read_text()
    fixed = int(re.fullmatch(r"[a-z]+-(\d+)\.lua", name).group(1))
    listed = {int(k) for k in re.findall(r"^\s+KEYS\[(\d+)\]", src, re.M)}
    assert listed == set(range(1, fixed + 1)), f"{name} header lists KEYS {sorted(listed)}"


@pytest.mark.parametrize("name", FILES)
def test_header_codes_match_the_enum_and_the_returns(name):
    src = LUA.joinpath(name).read_text()
    header, body = src.split("]]", 1)
    declared = {int(c): n for c, n in re.findall(r"^\s+(-\d+)\s+(ERR_[A-Z]+)", header, re.M)}
    returned = {int(c) for c in re.findall(r"return (-\d+)", body)}
    assert returned == set(declared), f"{name}: returns {sorted(returned)}, header lists {sorted(declared)}"
    for code, label in declared.items():
        assert Err(code).name == label


@pytest.mark.parametrize("name", FILES)
def test_scripts_never_read_the_clock(name):
    src = LUA.joinpath(name).read_text().split("]]", 1)[1]
    assert "'TIME'" not in src and '"TIME"' not in src


def test_every_enum_code_is_used_by_some_script():
    used = set()
    for name in FILES:
        used |= {int(c) for c in re.findall(r"return (-\d+)", LUA.joinpath(name).read_text())}
    assert used == {e.value for e in Err}


def test_a_refused_call_raises_naming_the_code(store):
    with pytest.raises(ScriptError, match="ERR_SCORE"):
        store.scripts.run("advance", [store.keys.repeat, store.keys.record("x")], ["x", "soon"])
    with pytest.raises(ScriptError, match="ERR_ARITY"):
        store.scripts.run("fire", [store.keys.repeat, store.keys.pending, store.keys.marker], [1, "0"])
    with pytest.raises(ScriptError, match="ERR_ARITY"):
        store.scripts.run("finish", [store.keys.pending, store.keys.job("J1")], [1, "J1", 5])
    assert store.client.exists(store.keys.repeat) == 0  # nothing half-written
