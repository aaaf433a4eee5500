"""Assemble the matchmaker: its state, pools, the gRPC mount and its background loop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Callable, Coroutine
from typing import Any

from services.matchmaking.engine import Matchmaker
from services.matchmaking.follow import FeedFollower
from services.matchmaking.modes import load_modes
from services.matchmaking.pools import Pools, parse_pools
from services.matchmaking.service import mount
from services.matchmaking.state import MatchState, MemoryState
from services.matchmaking.timers import check_all
from services.platform.grpcx.server import Mount
from services.platform.store.base import EventStore

log = logging.getLogger("fallen.matchmaking")
TICK_S = 0.2
TIMER_EVERY = 5  # ticks between two turn-timer sweeps


def open_state(url: str) -> MatchState:
    """Return the state a URL names: 'memory' or redis://host:port/db."""
    if url == "memory":
        return MemoryState()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from services.matchmaking.redis_state import RedisState

        return RedisState(url)
    raise ValueError(f"matchmaking state must be memory or redis://..., not {url[:40]!r}")


def state_url_for(store_url: str) -> str:
    """Return the default state of a store: Redis when the store is Redis, else memory."""
    explicit = os.environ.get("FALLEN_MATCHMAKING_STATE")
    if explicit:
        return explicit
    return store_url.split("?", 1)[0] if store_url.startswith("redis") else "memory"


async def run_loop(
    mm: Matchmaker, follower: FeedFollower, pools: Pools, store: EventStore, stop: asyncio.Event
) -> None:
    """Match, follow the feed and run turn timers until stop is set."""
    n = 0
    while not stop.is_set():
        try:
            await mm.tick()
            await follower.poll()
            if n % TIMER_EVERY == 0:
                await check_all(mm.state, store, pools, mm.modes, time.time())
        except Exception:
            log.exception("matchmaking tick failed")
        n += 1
        try:
            await asyncio.wait_for(stop.wait(), TICK_S)
        except TimeoutError:
            pass


def matchmaking(
    store: EventStore, state: MatchState, pools_spec: str
) -> tuple[Mount, Callable[[], Coroutine[Any, Any, None]], Pools, Matchmaker]:
    """Return the service mount, its background job, the pools (endpoints may be filled in
    later, e.g. '*' once the server's own port is known) and the matchmaker."""
    pools = Pools(parse_pools(pools_spec))
    mm = Matchmaker(state, load_modes(), pools)
    follower = FeedFollower(store, state)

    async def job() -> None:
        stop = asyncio.Event()
        try:
            await run_loop(mm, follower, pools, store, stop)
        finally:
            stop.set()
            with contextlib.suppress(Exception):  # the store may be closing too
                await follower.checkpoint(force=True)
            await pools.close()
            await state.close()

    return mount(mm), job, pools, mm
