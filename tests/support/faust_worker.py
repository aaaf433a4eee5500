"""A faust projection worker in its own process, and waiting for what it applied."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

from services.projections.core import GameProjection
from services.projections.viewstore import ViewStore

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 90.0


def start_worker(
    bootstrap: str, store_url: str, views_url: str, app_id: str, prefix: str, *extra: str
) -> subprocess.Popen[bytes]:
    """Start one faust worker of the projection app (extra: more CLI options)."""
    env = dict(os.environ, FALLEN_EXTRA_GAMES="toy=tests.support.toy_game:RULES")
    env["PYTHONPATH"] = str(ROOT)
    cmd = [
        sys.executable, "-m", "services.cli.main", "projections", "faust",
        "--kafka", bootstrap, "--store", store_url, "--views", views_url,
        "--app-id", app_id, "--topic-prefix", prefix, *extra,
    ]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def stop_worker(worker: subprocess.Popen[bytes]) -> None:
    """Kill the worker (-9) if it still runs and reap it."""
    if worker.poll() is None:
        worker.kill()
        worker.wait(10)


async def applied(views: ViewStore) -> int:
    """Return how many events the game records of the view store count as applied, once
    every game's views are written for its record (a worker may commit a game's record
    while its views wait for the view interval); 0 while some game's views lag."""
    total = 0
    for gid in await views.games():
        rec = await views.load_game(gid) or {}
        if GameProjection.from_record(rec).version > int(rec.get("viewed", 0)):
            return 0
        total += int(rec.get("events", 0))
    return total


async def wait_for(predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    """Wait until the async predicate holds (TIMEOUT at most)."""
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")
