"""fallenctl bench redis-memory: Redis bytes per finished game, by kind of key."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections import defaultdict
from typing import Annotated, Any

import typer

from benchmarks.app import bench_app

KEY_KIND = re.compile(r"^[^:]+:\{[^}]+\}:([a-z]+)")


async def _memory_by_kind(url: str, prefix: str) -> dict[str, int]:
    """Return MEMORY USAGE summed per key kind (feed, stream, cmds, heads, ...) of a prefix.

    Only the event store's keys carry the prefix; projection views live under their own.
    """
    import redis.asyncio as aioredis

    client = aioredis.from_url(url, decode_responses=True)
    totals: dict[str, int] = defaultdict(int)
    async for key in client.scan_iter(match=f"{prefix}:*", count=1000):
        match = KEY_KIND.match(key)
        kind = match.group(1) if match else "other"
        totals[kind] += int(await client.memory_usage(key, samples=0) or 0)
    await client.aclose()
    return dict(totals)


async def _play(url: str, game: str, games: int) -> dict[str, Any]:
    """Play bot games through gRPC on a Redis store; return bytes per finished game."""
    import grpc
    from fallen.projections.v1 import projections_pb2_grpc
    from fallen.rules.v1 import rules_pb2_grpc

    from services.app import serve
    from services.bots.driver import play_game
    from services.bots.policies import random_legal
    from services.platform.store.redis import RedisEventStore
    from services.rules.registry import load

    prefix = f"mem{time.time_ns()}"
    store = RedisEventStore(url, prefix=prefix)
    backend = await serve(store, "127.0.0.1:0")
    seats = {seat: f"p-{seat}" for seat in load(game).seats}
    events = 0
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}") as ch:
            stub = rules_pb2_grpc.RulesServiceStub(ch)
            views = projections_pb2_grpc.ProjectionServiceStub(ch)
            policies = {seat: random_legal for seat in seats}
            for i in range(games):
                await play_game(stub, views, game, seats, policies, f"m{i}")
        events = await store.head_position()
    finally:
        await backend.stop()
        await store.close()
    by_kind = await _memory_by_kind(url, prefix)
    total = sum(by_kind.values())
    return {
        "bench": "redis-memory",
        "game": game,
        "games": games,
        "events_per_game": round(events / games, 1),
        "bytes_per_game": round(total / games),
        "bytes_per_event": round(total / max(events, 1), 1),
        "bytes_per_game_by_kind": {k: round(v / games) for k, v in sorted(by_kind.items())},
    }


@bench_app.command("redis-memory")
def bench_redis_memory(
    game: Annotated[str, typer.Argument(help="fallen, worlds or land")] = "fallen",
    games: Annotated[int, typer.Option(help="Finished games to measure")] = 5,
    redis_url: Annotated[str | None, typer.Option(help="Redis to use; default: start one")] = None,
) -> None:
    """Redis memory per finished game (events stored once, command records with a TTL)."""
    from services.platform.localservers import redis_server

    os.environ.setdefault("FALLEN_DEV", "1")
    if redis_url:
        typer.echo(json.dumps(asyncio.run(_play(redis_url, game, games))))
        return
    with redis_server() as url:
        typer.echo(json.dumps(asyncio.run(_play(url, game, games))))
