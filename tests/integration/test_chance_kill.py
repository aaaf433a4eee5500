"""SIGKILL `fallenctl serve` at random moments while bots play, on SQLite and on Redis
(appendfsync always): every game ends and verifies, none stalls waiting for chance, no draw
is left unused and no acknowledged command is lost. And two rules processes on one Redis
store, each sent every command at once: every game verifies with no unused draw.

Kills per store: FALLEN_KILLS (default 26, so the two stores give more than 50).
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services.platform.localservers import free_port
from services.platform.store.factory import open_store
from tests.fixtures.servers import _redis_pings, _stop, _wait_until
from tests.support.chaos import Served, Tally, check_store, play_toy

KILLS = int(os.environ.get("FALLEN_KILLS", "26"))
PLAYERS = 3
UPTIME_S = (0.0, 0.6)


@pytest.fixture(autouse=True)
def dev_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign the bots' tokens with the development secret the served processes use."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)


@pytest.fixture(scope="module")
def fsync_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Yield the URL of a redis-server of our own with appendonly yes, appendfsync always."""
    binary = shutil.which("redis-server")
    assert binary, "redis-server must be on PATH (apt-get install -y redis-server)"
    port = free_port()
    workdir = tmp_path_factory.mktemp("fsync-redis")
    log = workdir / "redis.log"
    cmd = [
        binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
        "--appendonly", "yes", "--appendfsync", "always", "--dir", str(workdir),
        "--logfile", str(log),
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    try:
        _wait_until(lambda: _redis_pings(port), proc, "redis-server", log)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        _stop(proc)


@pytest.fixture(params=["sqlite", "redis"])
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """Yield a fresh store URL of each kind."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'events.db'}"
    else:
        yield f"{request.getfixturevalue('fsync_redis')}?prefix=kill{uuid.uuid4().hex[:8]}"


async def bots(target: str, name: str, tally: Tally, stop: asyncio.Event) -> None:
    """Play toy games back to back until stopped (the game in hand is finished)."""
    n = 0
    while not stop.is_set():
        n += 1
        await play_toy([target], f"{name}-{n}", tally)


async def test_killing_the_server_at_random_never_stalls_loses_or_rerolls(store_url):
    # given a served store and bots playing on it
    server = Served(store_url)
    rng = random.Random(11)  # kill timing only; chance comes from the dice service
    tally, stop = Tally(), asyncio.Event()
    started = time.monotonic()
    await asyncio.to_thread(server.start)
    target = f"127.0.0.1:{server.port}"
    players = [asyncio.create_task(bots(target, f"b{i}", tally, stop)) for i in range(PLAYERS)]
    try:
        # when the server is killed with SIGKILL at random moments and restarted
        while server.kills < KILLS:
            # kill while the bots are playing: after the restarted server's first answer
            acked = len(tally.acked)
            deadline = time.monotonic() + 60
            while len(tally.acked) == acked and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            await asyncio.sleep(rng.uniform(*UPTIME_S))
            server.kill()
            await asyncio.to_thread(server.start)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*players), 300)
    finally:
        stop.set()
        for p in players:
            p.cancel()
        server.stop()
    took = time.monotonic() - started
    # then every game ended and verifies, none stalled, no draw unused, no ack lost
    store = open_store(store_url)
    found = await check_store(store, tally)
    await store.close()
    print(
        f"\nkill test {store_url.split(':')[0]}: {server.kills} kills, {found.games} games, "
        f"{len(tally.acked)} acked commands, {tally.retries} retried calls, {took:.0f} s; "
        f"{found.to_json()}"
    )
    assert server.kills >= KILLS and found.games >= PLAYERS
    assert tally.stalls == [] and tally.refused == []
    assert found.failures == [] and found.ended == found.verified == found.games
    assert found.unused_draws == 0 and found.lost_acks == []


async def test_two_rules_processes_racing_on_one_redis_store_leave_no_unused_draw(fsync_redis):
    # given two servers on one Redis store
    url = f"{fsync_redis}?prefix=race{uuid.uuid4().hex[:8]}"
    one, two = Served(url), Served(url)
    await asyncio.gather(asyncio.to_thread(one.start), asyncio.to_thread(two.start))
    targets = [f"127.0.0.1:{one.port}", f"127.0.0.1:{two.port}"]
    tally = Tally()
    try:
        # when every command of 8 games is sent to both at once (same command id)
        await asyncio.wait_for(
            asyncio.gather(*(play_toy(targets, f"race-{i}", tally, race=True) for i in range(8))),
            300,
        )
    finally:
        one.stop()
        two.stop()
    # then every game verifies with no unused draw
    store = open_store(url)
    found = await check_store(store, tally)
    await store.close()
    print(f"\nrace test: {found.to_json()}, {len(tally.acked)} commands sent twice")
    assert tally.stalls == [] and tally.refused == []
    assert found.failures == [] and found.verified == found.games == 8
    assert found.unused_draws == 0 and found.lost_acks == []
