"""The compiled engine modules (mypyc): built by make setup, same games as the sources."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from services import native
from services.rules.engine.api import Setup
from services.rules.playout import play
from services.rules.registry import load

ROOT = Path(__file__).resolve().parents[3]


def digest() -> str:
    """Return the digest of the events of three seeded Fallen playouts."""
    rules = load("fallen")
    seats = {s: "p-" + s for s in rules.seats}
    h = hashlib.sha256()
    for i in range(3):
        p = play(rules, Setup(seats, rules.new_game_options({})), f"n-{i}", f"n{i}")
        for e in p.events:
            h.update(json.dumps([e.type, e.data, e.visibility], sort_keys=True).encode())
    return h.hexdigest()


# The same digest in a new process, and where that process loaded the kernel's flow from.
DIGEST = """
from services.rules.engine import flow
from tests.unit.rules.test_native import digest
print(digest(), flow.__file__)
"""


def _digest_in_subprocess(**env: str) -> tuple[str, str]:
    out = subprocess.run(
        [sys.executable, "-c", DIGEST],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return out[0], out[1]


def test_given_make_setup_then_the_engine_modules_load_as_asked() -> None:
    # given the checkout as make setup left it: compiled, unless FALLEN_NATIVE=0 asks for
    # the sources
    pure = os.environ.get("FALLEN_NATIVE") == "0"
    # then every engine module loaded is the compiled one (or, when asked, its source)
    assert native.install() == ("pure (FALLEN_NATIVE=0)" if pure else "compiled"), (
        "run make setup to rebuild the engine modules"
    )
    for module in native.MODULES:
        __import__(module)
        loaded = sys.modules[module].__file__ or ""
        assert loaded.endswith(".py") == pure, (module, loaded)


def test_given_the_same_seeds_when_played_compiled_and_from_source_then_the_events_match() -> None:
    # given three seeded playouts in this process
    here = digest()
    # when the same games are played from the sources and as this process loads them
    pure, pure_file = _digest_in_subprocess(FALLEN_NATIVE="0")
    same, _ = _digest_in_subprocess()
    # then both give the same events as this process
    assert pure_file.endswith("flow.py")
    assert pure == same == here


def test_given_a_changed_source_then_every_module_loads_from_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the switch unset and a manifest whose digest of one source no longer matches it
    monkeypatch.delenv("FALLEN_NATIVE", raising=False)
    manifest = {"abi": sys.implementation.cache_tag, "sources": native.digests()}
    manifest["sources"]["services.rules.engine.flow"] = "0" * 64
    path = tmp_path / ".native.json"
    path.write_text(json.dumps(manifest))
    monkeypatch.setattr(native, "MANIFEST", path)
    monkeypatch.setattr(native, "_built", lambda: [path])  # as if extensions were built
    # when the status is read
    status = native.status()
    # then the engine runs from source, naming the changed file
    assert status == "pure (stale: services/rules/engine/flow.py changed since the build)"


def test_given_a_build_for_another_python_then_it_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given the switch unset and a manifest written by another interpreter
    monkeypatch.delenv("FALLEN_NATIVE", raising=False)
    path = tmp_path / ".native.json"
    path.write_text(json.dumps({"abi": "cpython-39", "sources": native.digests()}))
    monkeypatch.setattr(native, "MANIFEST", path)
    monkeypatch.setattr(native, "_built", lambda: [path])
    # then the sources are used
    assert native.status().startswith("pure (built for cpython-39")


def test_given_no_build_or_the_switch_off_then_the_status_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # given nothing built (the switch unset), then the switch set to 0
    monkeypatch.delenv("FALLEN_NATIVE", raising=False)
    monkeypatch.setattr(native, "_built", lambda: [])
    assert native.status().startswith("pure (not built")
    monkeypatch.setenv("FALLEN_NATIVE", "0")
    assert native.status() == "pure (FALLEN_NATIVE=0)"
