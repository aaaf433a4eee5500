"""kill -9 a projection runner mid-stream, restart it: the views equal a rebuild from scratch.

The runner runs as `fallenctl projections run` in its own process (in-process runner over a
SQLite store, or the Redis consumer-group runner over a Redis store) while this test appends
games to the same store.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore
from services.platform.store.sqlite import SqliteEventStore
from services.projections.open_views import open_view_store
from services.projections.viewstore import ViewStore
from tests.support.projections_check import assert_equal_to_rebuild, drive, more
from tests.support.projections_play import play, runner_for

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 60.0


def start_runner(store_url: str, views_url: str, kind: str) -> subprocess.Popen[bytes]:
    """Start `fallenctl projections run` for the test engines."""
    env = dict(os.environ, FALLEN_EXTRA_GAMES="toy=tests.support.toy_game:RULES")
    env["PYTHONPATH"] = str(ROOT)
    cmd = [
        sys.executable, "-m", "services.cli.main", "projections", "run",
        "--store", store_url, "--views", views_url, "--runner", kind,
    ]  # fmt: skip
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL)


async def applied_events(views: ViewStore) -> int:
    """Return how many events the view store's game records count as applied."""
    total = 0
    for gid in await views.games():
        total += int((await views.load_game(gid) or {}).get("events", 0))
    return total


async def wait_for(predicate, what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(params=["inprocess", "redis"])
async def setup(request, tmp_path: Path):
    """Yield (kind, store, store URL, views, views URL)."""
    kind: str = request.param
    store: EventStore
    if kind == "redis":
        url = request.getfixturevalue("redis_url")
        prefix = f"k{uuid.uuid4().hex[:10]}"
        store = RedisEventStore(url, prefix=prefix)
        store_url, views_url = f"{url}?prefix={prefix}", f"{url}?prefix={prefix}v"
    else:
        store = SqliteEventStore(tmp_path / "events.db")
        store_url = f"sqlite:///{tmp_path / 'events.db'}"
        views_url = f"sqlite:///{tmp_path / 'views.db'}"
    views = open_view_store(views_url)
    yield kind, store, store_url, views, views_url
    await views.close()
    await store.close()


async def test_given_a_runner_killed_mid_stream_when_restarted_then_views_equal_a_rebuild(setup):
    kind, store, store_url, views, views_url = setup
    runner = runner_for(store)
    # given many stored events, and the runner started on them
    ids = await drive(runner, "a", seed=11, fallen_steps=200)
    rng = random.Random(12)
    for i in range(150):
        ids.append(f"x{i}")
        await play(runner, "toy", ids[-1], rng)
    head = await store.head_position()
    proc = start_runner(store_url, views_url, kind)
    try:
        # when it is killed -9 part-way through
        await wait_for(lambda: _some(views, head), "the runner to apply some events")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        done_at_kill = await applied_events(views)
        assert 0 < done_at_kill < head
        # and the games go on while it is down
        await more(runner, ids, seed=13, steps=5)
        # then a restarted runner catches up to views equal to a rebuild from scratch
        proc = start_runner(store_url, views_url, kind)
        total = await store.head_position()
        await wait_for(lambda: _all(views, total), "the restarted runner to catch up")
        await assert_equal_to_rebuild(store, views, ids)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)


async def _some(views: ViewStore, head: int) -> bool:
    n = await applied_events(views)
    return 0 < n < head


async def _all(views: ViewStore, total: int) -> bool:
    return await applied_events(views) >= total
