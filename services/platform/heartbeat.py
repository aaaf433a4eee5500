"""Liveness for processes without a gRPC port: a file touched on a timer, checked by age.

Usage: ``python -m services.platform.heartbeat [PATH] [MAX_AGE_S]``. PATH defaults to
$FALLEN_HEARTBEAT_FILE; the check exits 0 only if the file was touched less than
MAX_AGE_S (default 15) seconds ago.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ENV = "FALLEN_HEARTBEAT_FILE"
DEFAULT_MAX_AGE_S = 15.0


def beat(path: str | None = None) -> None:
    """Touch the heartbeat file (no-op when neither path nor $FALLEN_HEARTBEAT_FILE is set)."""
    target = path or os.environ.get(ENV)
    if target:
        Path(target).touch()


def age(path: str, now: float | None = None) -> float | None:
    """Return seconds since the file was last touched, or None if it does not exist."""
    try:
        mtime = Path(path).stat().st_mtime
    except OSError:
        return None
    return (time.time() if now is None else now) - mtime


def main(argv: Sequence[str]) -> int:
    """Exit 0 when the heartbeat is fresh, 1 when stale or missing, 2 on a usage error."""
    if len(argv) > 2:
        print("usage: python -m services.platform.heartbeat [PATH] [MAX_AGE_S]")
        return 2
    path = argv[0] if argv else os.environ.get(ENV, "")
    if not path:
        print(f"no heartbeat file: give PATH or set {ENV}")
        return 2
    max_age = float(argv[1]) if len(argv) > 1 else DEFAULT_MAX_AGE_S
    seconds = age(path)
    if seconds is None:
        print(f"STALE: {path} does not exist")
        return 1
    if seconds > max_age:
        print(f"STALE: {path} is {seconds:.0f} s old (max {max_age:.0f} s)")
        return 1
    print(f"ALIVE: {path} is {seconds:.1f} s old")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
