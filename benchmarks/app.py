"""fallenctl bench: throughput and latency figures, each next to its raw baseline."""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from typing import Annotated, Any

import typer

bench_app = typer.Typer(help="Benchmarks; prints one JSON object per run.", no_args_is_help=True)


def _pct(samples: list[float], q: float) -> float:
    """Return the q-quantile (0-1) of samples in milliseconds."""
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


async def _append_rate(store: Any, n: int, batch: int) -> float:
    """Return appends/s of single-event appends with expected-version checks."""
    from services.platform.envelope import NewEvent

    start = time.perf_counter()
    version = 0
    stream = f"game-bench{time.time_ns()}"
    for i in range(n // batch):
        events = [NewEvent("BenchEvent", {"i": i, "j": j}) for j in range(batch)]
        res = await store.append(stream, version, events)
        version = res.version
    return n / (time.perf_counter() - start)


async def _raw_xadd_rate(url: str, n: int) -> float:
    """Return events/s of plain redis-py XADD, one round trip per event."""
    import redis.asyncio as aioredis

    client = aioredis.from_url(url)
    key = f"bench:raw:{time.time_ns()}"
    start = time.perf_counter()
    for i in range(n):
        await client.xadd(key, {"env": json.dumps({"i": i})})
    rate = n / (time.perf_counter() - start)
    await client.aclose()
    return rate


@bench_app.command("store")
def bench_store(
    events: Annotated[int, typer.Option(help="Events per measurement")] = 5000,
    redis_url: Annotated[str | None, typer.Option(help="Redis to use; default: start one")] = None,
) -> None:
    """Appends/s on SQLite and Redis with expected-version checks, vs raw XADD."""
    from services.platform.localservers import redis_server
    from services.platform.store.redis import RedisEventStore
    from services.platform.store.sqlite import SqliteEventStore

    async def run(url: str) -> dict[str, Any]:
        with tempfile.TemporaryDirectory() as tmp:
            sqlite = SqliteEventStore(os.path.join(tmp, "bench.db"))
            sqlite_rate = await _append_rate(sqlite, events, 1)
            await sqlite.close()
        redis_store = RedisEventStore(url, prefix=f"bench{time.time_ns()}")
        redis_rate = await _append_rate(redis_store, events, 1)
        await redis_store.close()
        raw = await _raw_xadd_rate(url, events)
        return {
            "bench": "store",
            "events": events,
            "sqlite_appends_per_s": round(sqlite_rate),
            "redis_appends_per_s": round(redis_rate),
            "raw_xadd_per_s": round(raw),
            "redis_vs_raw_xadd": round(redis_rate / raw, 3),
        }

    if redis_url:
        result = asyncio.run(run(redis_url))
    else:
        with redis_server() as url:
            result = asyncio.run(run(url))
    typer.echo(json.dumps(result))


@bench_app.command("dice")
def bench_dice(
    rolls: Annotated[int, typer.Option(help="Calls per measurement")] = 2000,
    concurrency: Annotated[int, typer.Option(help="Calls in flight")] = 1,
) -> None:
    """Rolls/s and p50/p99 through gRPC, vs a raw grpc.aio echo on the same server."""
    os.environ.setdefault("FALLEN_DEV", "1")
    typer.echo(json.dumps(asyncio.run(_bench_dice(rolls, concurrency))))


async def _timed(calls: int, concurrency: int, call: Any) -> tuple[float, list[float]]:
    """Run calls with concurrency in flight; return (calls/s, latencies)."""
    latencies: list[float] = []
    per_worker = calls // concurrency

    async def worker() -> None:
        for _ in range(per_worker):
            t0 = time.perf_counter()
            await call()
            latencies.append(time.perf_counter() - t0)

    start = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return len(latencies) / (time.perf_counter() - start), latencies


async def _bench_dice(rolls: int, concurrency: int) -> dict[str, Any]:
    import grpc
    from fallen.dice.v1 import dice_pb2, dice_pb2_grpc
    from fallen.echo.v1 import echo_pb2, echo_pb2_grpc

    from services.app import serve
    from services.platform.auth import issue_token
    from services.platform.store.sqlite import SqliteEventStore

    with tempfile.TemporaryDirectory() as tmp:
        backend = await serve(
            SqliteEventStore(os.path.join(tmp, "bench.db")), "127.0.0.1:0", echo=True
        )
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
        md = (("authorization", f"Bearer {issue_token('service:bench', service=True)}"),)
        dice = dice_pb2_grpc.DiceServiceStub(channel)
        echo = echo_pb2_grpc.EchoServiceStub(channel)
        await dice.CommitSeed(dice_pb2.CommitSeedRequest(game_id="bench"), metadata=md)
        roll_req = dice_pb2.RollRequest(game_id="bench", purpose="bench", dice=["d6", "d6"])
        echo_req = echo_pb2.EchoRequest(payload=b"x" * 32)
        await _timed(100, 1, lambda: echo.Echo(echo_req))
        echo_rate, echo_lat = await _timed(rolls, concurrency, lambda: echo.Echo(echo_req))
        roll_rate, roll_lat = await _timed(
            rolls, concurrency, lambda: dice.Roll(roll_req, metadata=md)
        )
        await channel.close()
        await backend.stop()
    return {
        "bench": "dice",
        "calls": rolls,
        "concurrency": concurrency,
        "rolls_per_s": round(roll_rate),
        "roll_p50_ms": _pct(roll_lat, 0.5),
        "roll_p99_ms": _pct(roll_lat, 0.99),
        "echo_per_s": round(echo_rate),
        "echo_p50_ms": _pct(echo_lat, 0.5),
        "echo_p99_ms": _pct(echo_lat, 0.99),
        "roll_vs_echo": round(roll_rate / echo_rate, 3),
        "roll_mean_ms": round(statistics.mean(roll_lat) * 1000, 3),
    }
