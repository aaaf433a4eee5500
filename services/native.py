"""The engine's hot modules compiled to C with mypyc, and the guard that never runs stale ones.

`make setup` and the image build run `python -m services.native_build`: mypyc compiles
MODULES (the engine kernel, the playout loop, the fair draws and Fallen's rules) into one
C extension per module plus one shared library (`fallen_native__mypyc`), all under
`build/native/lib/` (build outputs stay out of the source folders), and records the
SHA-256 of every compiled source in `build/native/manifest.json`.
The sources stay the code: the compiled modules behave the same (the tests run on them;
docs/native.md).

On the first import of `services`, `install()` decides, for all of them at once:
- compiled, when the manifest matches every source: a finder loads each of MODULES from
  `build/native/lib/`;
- pure Python, when `FALLEN_NATIVE=0`, when nothing is built, or when a source changed
  since the build (a warning names it). All or none: compiled modules call each other
  directly in C, so a mix would still run the old code of a changed module.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent  # the folder holding the `services` package
BUILD = ROOT / "build" / "native"
LIB = BUILD / "lib"  # the compiled extensions, in their package folders, and the shared library
MANIFEST = BUILD / "manifest.json"
GROUP = "fallen_native"  # the shared library in LIB: fallen_native__mypyc.<abi>.so
_FALLEN = (
    "abilities balance bot cards challenge creatures decks derived dice_faces effects engine "
    "equipment explain final_battle flow resources rewards rolls setup skills state story "
    "triggers view windows wounds"
)
MODULES: tuple[str, ...] = (
    "services.dice.fair",
    "services.rules.engine.state",
    "services.rules.engine.flow",
    "services.rules.engine.engine",
    "services.rules.engine.chance",
    "services.rules.engine.dealer",
    "services.rules.engine.zones",
    "services.rules.playout",
    *(f"services.rules.fallen.{name}" for name in _FALLEN.split()),
)


def source_of(module: str) -> Path:
    """Return the source file of a compiled module."""
    return ROOT.joinpath(*module.split(".")).with_suffix(".py")


def digests() -> dict[str, str]:
    """Return the SHA-256 of every compiled module's source."""
    return {m: hashlib.sha256(source_of(m).read_bytes()).hexdigest() for m in MODULES}


def compiled_of(module: str) -> Path:
    """Return where the compiled extension of a module is built for this interpreter."""
    return LIB.joinpath(*module.split(".")).with_suffix(importlib.machinery.EXTENSION_SUFFIXES[0])


def _built() -> list[Path]:
    """Return the compiled extensions present for this interpreter."""
    return [p for m in MODULES if (p := compiled_of(m)).exists()]


def status() -> str:
    """Return how the engine modules load: "compiled", or "pure (why)"."""
    if os.environ.get("FALLEN_NATIVE", "1") == "0":
        return "pure (FALLEN_NATIVE=0)"
    if not _built():
        return "pure (not built: make setup, or python -m services.native_build)"
    try:
        manifest = json.loads(MANIFEST.read_text())
    except (OSError, ValueError):
        return f"pure (no readable manifest {MANIFEST.name}: rebuild)"
    if manifest.get("abi") != sys.implementation.cache_tag:
        return f"pure (built for {manifest.get('abi')}, not {sys.implementation.cache_tag})"
    recorded = manifest.get("sources", {})
    for module, digest in digests().items():
        if recorded.get(module) != digest:
            return f"pure (stale: {source_of(module).relative_to(ROOT)} changed since the build)"
    return "compiled"


class _Compiled(importlib.abc.MetaPathFinder):
    """Imports MODULES from their compiled extensions in LIB (compiled mode)."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MODULES:
            return None
        return importlib.util.spec_from_file_location(fullname, compiled_of(fullname))


_MODE: str | None = None


def _load_shared() -> None:
    """Import the shared library from LIB, which is not on sys.path."""
    name = f"{GROUP}__mypyc"
    path = LIB / f"{name}{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    if name in sys.modules or not path.exists():
        return
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)


def install() -> str:
    """Decide once how the engine modules load (see the module doc); return the status."""
    global _MODE
    if _MODE is None:
        _MODE = status()
        if _MODE == "compiled":
            _load_shared()
            sys.meta_path.insert(0, _Compiled())
        elif "stale" in _MODE or "manifest" in _MODE or "built for" in _MODE:
            warnings.warn(f"engine modules: {_MODE}", RuntimeWarning, stacklevel=2)
    return _MODE
