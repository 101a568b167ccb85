"""BullMQ's own scripts, read from the pinned PyPI package at run time: the text is npm
bullmq 6.7.0's (compared live where tests/oracles/node_modules is installed, and by the
recorded SHA-256s always), and anything else found is one line naming what was found and
what is expected, before anything runs."""

from __future__ import annotations

import hashlib
import json
import sys
from importlib.metadata import PathDistribution
from pathlib import Path

import pytest

from emqsim.engine.bullmq_scripts import package
from emqsim.engine.errors import InputError

sys.path.insert(0, str(Path(__file__).resolve().parent / "oracles"))
import bullmq_commands  # noqa: E402
import bullmq_scripts  # noqa: E402

NOT_INSTALLED = package.available()
needs_package = pytest.mark.skipif(NOT_INSTALLED is not None, reason=str(NOT_INSTALLED))


@needs_package
def test_the_installed_text_is_the_recorded_hashes():
    texts = package.read()
    assert sorted(texts) == sorted(package.SHA256)
    assert {n: hashlib.sha256(t.encode()).hexdigest() for n, t in texts.items()} == package.SHA256


def test_the_recorded_hashes_are_npm_bullmq_6_7_0s():
    npm = bullmq_scripts.npm_scripts(package.SHA256)
    if npm is None:
        pytest.skip("tests/oracles/node_modules (npm ci) or node missing: the recorded SHA-256s stand")
    assert {n: s["version"] for n, s in npm.items()} == {n: "6.7.0" for n in package.SHA256}
    assert {n: hashlib.sha256(s["content"].encode()).hexdigest() for n, s in npm.items()} == package.SHA256
    # the number in each file name is the script's key count, as npm declares it
    assert {n: s["keys"] for n, s in npm.items()} == {n: int(n.rsplit("-", 1)[1][:-4]) for n in package.SHA256}


def test_each_pinned_script_is_in_npm_bullmq_6_7_0s_listing():
    listed = json.loads(bullmq_commands.RECORDING.read_text())["6.7.0"]
    assert [n for n in package.SHA256 if n not in listed] == []


# -- what is refused, in one line ---------------------------------------------------------------

def _fake_dist(tmp_path: Path, version: str, files: dict[str, bytes]) -> PathDistribution:
    """An installed-package stand-in: a dist-info folder with METADATA and RECORD, and files."""
    info = tmp_path / f"bullmq-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: bullmq\nVersion: {version}\n")
    rows = []
    for name, data in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        rows.append(f"{name},,")
    (info / "RECORD").write_text("\n".join(rows) + "\n")
    return PathDistribution(info)


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and isinstance(exc, InputError)
    return text


def test_a_missing_package_names_what_to_install(monkeypatch):
    monkeypatch.setattr(package, "DIST", "bullmq-emqsim-absent")
    with pytest.raises(package.ScriptsUnavailable) as err:
        package.read()
    text = _one_line(err.value)
    assert "is not installed" in text and "bullmq==3.4.4" in text and "--no-deps" in text


def test_another_version_is_refused(tmp_path):
    dist = _fake_dist(tmp_path, "3.5.0", {})
    with pytest.raises(package.ScriptsUnavailable) as err:
        package.read(distribution=dist)
    text = _one_line(err.value)
    assert "bullmq 3.5.0 is installed" in text and "expected bullmq==3.4.4" in text


def test_a_missing_script_is_refused(tmp_path):
    dist = _fake_dist(tmp_path, "3.4.4", {"bullmq/commands/other.lua": b"return 1"})
    with pytest.raises(package.ScriptsUnavailable) as err:
        package.read(["moveToActive-11.lua"], distribution=dist)
    text = _one_line(err.value)
    assert "has no bullmq/commands/moveToActive-11.lua" in text and package.SHA256["moveToActive-11.lua"] in text


def test_a_changed_script_is_refused(tmp_path):
    data = b"return 'not bullmq'"
    dist = _fake_dist(tmp_path, "3.4.4", {"bullmq/commands/getJobScheduler-1.lua": data})
    with pytest.raises(package.ScriptsUnavailable) as err:
        package.read(["getJobScheduler-1.lua"], distribution=dist)
    text = _one_line(err.value)
    assert hashlib.sha256(data).hexdigest() in text and package.SHA256["getJobScheduler-1.lua"] in text


def test_a_script_the_project_does_not_pin_is_refused():
    with pytest.raises(package.ScriptsUnavailable) as err:
        package.read(["obliterate-2.lua"])
    assert "obliterate-2.lua" in _one_line(err.value)


def test_an_unchanged_stand_in_is_read(tmp_path):
    """The stand-in itself works: the same checks pass on the real text (so the refusals above
    are the checks', not the stand-in's)."""
    if NOT_INSTALLED is not None:
        pytest.skip(NOT_INSTALLED)
    real = package.read(["getJobScheduler-1.lua"])["getJobScheduler-1.lua"]
    dist = _fake_dist(tmp_path, "3.4.4", {"bullmq/commands/getJobScheduler-1.lua": real.encode()})
    assert package.read(["getJobScheduler-1.lua"], distribution=dist) == {"getJobScheduler-1.lua": real}
