"""Build the engine's compiled modules (services/native.py says which and why).

python -m services.native_build build [--if-stale] [mypy args]   compile them into build/native/lib
python -m services.native_build status                            how they load now
python -m services.native_build clean                             remove what build made
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Sequence

from services.native import GROUP, LIB, MANIFEST, MODULES, ROOT, digests, source_of, status


def build(extra_mypy_args: Sequence[str] = ()) -> None:
    """Compile MODULES with mypyc into LIB and write the manifest (needs a C compiler)."""
    from mypyc.build import mypycify  # a build-time dependency (mypy), never at runtime
    from setuptools import setup

    os.chdir(ROOT)
    MANIFEST.unlink(missing_ok=True)
    paths = [str(source_of(m).relative_to(ROOT)) for m in MODULES]
    extensions = mypycify([*extra_mypy_args, *paths], group_name=GROUP, target_dir="build/native")
    setup(
        name="fallen-native",
        ext_modules=extensions,
        script_args=[
            *("-q", "build_ext", "--build-lib", str(LIB.relative_to(ROOT))),
            *("--build-temp", "build/native/temp"),
        ],
    )
    manifest = {"abi": sys.implementation.cache_tag, "sources": digests()}
    MANIFEST.write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def clean() -> None:
    """Remove the compiled extensions, the shared library and the manifest."""
    shutil.rmtree(LIB, ignore_errors=True)
    MANIFEST.unlink(missing_ok=True)


def main(argv: Sequence[str]) -> int:
    """python -m services.native_build [build [--if-stale] [mypy args] | status | clean]."""
    command, *rest = argv or ["build"]
    if command == "status":
        print(status())
        return 0
    if command == "clean":
        clean()
        return 0
    if command == "build":
        if rest[:1] == ["--if-stale"]:
            rest = rest[1:]
            if status() == "compiled":
                print("engine modules: compiled, up to date")
                return 0
        build(rest)
        print(f"engine modules: {len(MODULES)} compiled")
        return 0
    print(main.__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
