"""fallenctl bench projections / bench replay: projection lag under load, replay speed."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import typer

from benchmarks.app import _pct, bench_app


@contextlib.asynccontextmanager
async def _backend(runner: str, tmp: str) -> AsyncIterator[tuple[Any, Any, str]]:
    """Yield (runner object, projector, server address) for an embedded server under test."""
    from services.app import serve
    from services.projections.open_views import open_view_store
    from services.projections.projector import Projector
    from services.projections.redis_runner import RedisGroupRunner
    from services.projections.runners import InProcessRunner

    os.environ["FALLEN_PROJECTIONS"] = "external"  # the bench runs its own runner below
    os.environ["FALLEN_VIEWS"] = f"sqlite:///{os.path.join(tmp, 'api-views.db')}"
    stack = contextlib.ExitStack()
    if runner == "redis":
        from services.platform.localservers import redis_server
        from services.platform.store.redis import RedisEventStore

        url = stack.enter_context(redis_server())
        store: Any = RedisEventStore(url, prefix="bench")
        views = open_view_store(f"{url}?prefix=benchviews")
    else:
        from services.platform.store.sqlite import SqliteEventStore

        store = SqliteEventStore(os.path.join(tmp, "bench.db"))
        views = open_view_store(f"sqlite:///{os.path.join(tmp, 'views.db')}")
    with stack:
        backend = await serve(store, "127.0.0.1:0")
        projector = Projector(store, views)
        run: Any = (
            RedisGroupRunner(projector, store.url, store.prefix)
            if runner == "redis"
            else InProcessRunner(projector, poll_seconds=0.05)
        )
        stop = asyncio.Event()
        task = asyncio.create_task(run.run(stop))
        try:
            yield run, projector, f"127.0.0.1:{backend.port}"
        finally:
            stop.set()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(task, 5)
            if runner == "redis":
                await run.close()
            await views.close()
            await backend.stop()


async def _play(target: str, game: str, games: int, procs: int) -> tuple[float, int]:
    """Run `fallenctl play` in procs processes against target; return (seconds, games)."""
    per = max(1, games // procs)
    cmd = [sys.executable, "-m", "services.cli.main", "play", game, "--target", target]
    env = dict(os.environ, FALLEN_DEV="1")
    start = time.perf_counter()
    children = [
        await asyncio.create_subprocess_exec(
            *cmd,
            "--games",
            str(per),
            "--seed",
            f"bench{i}",
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(procs)
    ]
    played = 0
    for child in children:
        out, err = await child.communicate()
        if child.returncode != 0:
            raise RuntimeError(f"fallenctl play failed: {err.decode()[-2000:]}")
        played += len(out.decode().splitlines())
    return time.perf_counter() - start, played


async def _rebuild_rate(store: Any, tmp: str) -> float:
    """Return events/s of rebuilding every view from scratch (no load, one runner)."""
    from services.projections.open_views import open_view_store
    from services.projections.projector import Projector
    from services.projections.runners import InProcessRunner

    views = open_view_store(f"sqlite:///{os.path.join(tmp, 'rebuild.db')}")
    runner = InProcessRunner(Projector(store, views), name="rebuild")
    start = time.perf_counter()
    n = await runner.catch_up()
    took = time.perf_counter() - start
    await views.close()
    return n / took


@bench_app.command("projections")
def bench_projections(
    game: Annotated[str, typer.Option(help="Game `fallenctl play` drives")] = "fallen",
    games: Annotated[int, typer.Option(help="Games to play")] = 8,
    procs: Annotated[int, typer.Option(help="`fallenctl play` processes in parallel")] = 2,
    runner: Annotated[str, typer.Option(help="inprocess (SQLite) or redis")] = "inprocess",
) -> None:
    """Append-to-view lag p50/p99 while `fallenctl play` drives load through gRPC."""
    os.environ.setdefault("FALLEN_DEV", "1")

    async def run() -> dict[str, Any]:
        with tempfile.TemporaryDirectory(prefix="fallen-bench-") as tmp:
            async with _backend(runner, tmp) as (run_obj, projector, target):
                took, played = await _play(target, game, games, procs)
                deadline = time.monotonic() + 30
                while await run_obj.lag() > 0 and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                samples = list(projector.lag_samples)
                rebuild_rate = await _rebuild_rate(projector.store, tmp)
                return {
                    "bench": "projections",
                    "runner": runner,
                    "game": game,
                    "games": played,
                    "play_processes": procs,
                    "events": projector.applied,
                    "events_per_s_under_load": round(projector.applied / took),
                    "lag_p50_ms": _pct(samples, 0.5),
                    "lag_p99_ms": _pct(samples, 0.99),
                    "lag_max_ms": _pct(samples, 1.0),
                    "rebuild_events_per_s": round(rebuild_rate),
                }

    typer.echo(json.dumps(asyncio.run(run())))


async def _logs(game: str, games: int) -> list[tuple[str, str]]:
    """Return (game id, exported JSON Lines) of games played in-process to the end."""
    from services.audit.logfile import store_records, to_jsonl
    from services.dice.engine import DiceEngine
    from services.platform.store.sqlite import SqliteEventStore
    from services.rules.playout import pick
    from services.rules.registry import load
    from services.rules.runner import GameRunner

    store = SqliteEventStore(":memory:")
    rules = load(game)
    runner = GameRunner(store, DiceEngine(store), {game: rules})

    out = []
    for i in range(games):
        gid = f"bench{i}"
        loaded, _ = await runner.create(game, gid, {s: f"p-{s}" for s in rules.seats}, {}, gid)
        while not loaded.ended:
            pending = rules.pending(loaded.state)
            assert pending is not None
            legal = rules.legal_commands(loaded.state, pending.seat)
            loaded, _ = await runner.submit(gid, pick(legal, f"bench-{i}", loaded.version))
        out.append((gid, to_jsonl(await store_records(store, gid))))
    await store.close()
    return out


def replay_figures(game: str, games: int, rounds: int = 1) -> dict[str, Any]:
    """Return replay --verify events/s next to decode-only and apply-only rates of the same logs."""
    from services.audit.logfile import parse_jsonl
    from services.audit.verify import verify_game
    from services.projections.core import to_rules_event
    from services.projections.records import record_envelope
    from services.rules.registry import load

    logs = asyncio.run(_logs(game, games))
    rules = load(game)
    total = sum(len(text.splitlines()) for _, text in logs)

    decode_s = replay_s = 0.0
    verified = 0
    # decode and verify alternate, and are timed in this thread's CPU seconds: both are
    # CPU-bound in one thread, so on a shared machine the other sessions' load (which
    # preempts whichever runs longer) stays out of the ratio
    for _ in range(rounds):
        start = time.thread_time()
        decoded = [[record_envelope(r) for r in parse_jsonl(text)[0]] for _, text in logs]
        decode_s += time.thread_time() - start
        start = time.thread_time()
        for gid, text in logs:
            records, problems = parse_jsonl(text)
            verified += verify_game(gid, records, lambda g: rules, problems=problems).verified
        replay_s += time.thread_time() - start

    game_events = [[e for e in envs if e.stream.startswith("game-")] for envs in decoded]
    n_game = sum(len(g) for g in game_events)
    start = time.perf_counter()
    for events in game_events:
        state = rules.initial_state()
        for env in events[1:]:
            if env.type != "GameEnded":
                state = rules.evolve(state, to_rules_event(env))
    apply_s = time.perf_counter() - start

    total *= rounds
    return {
        "bench": "replay",
        "game": game,
        "games": len(logs),
        "verified": verified // rounds,
        "events": total,
        "game_stream_events": n_game,
        "replay_verify_events_per_s": round(total / replay_s),
        "decode_only_events_per_s": round(total / decode_s),
        "apply_only_events_per_s": round(n_game / apply_s),
        "replay_vs_decode": round(decode_s / replay_s, 3),
    }


@bench_app.command("replay")
def bench_replay(
    game: Annotated[str, typer.Option(help="Game to play and replay")] = "fallen",
    games: Annotated[int, typer.Option(help="Finished games to replay")] = 10,
) -> None:
    """Replay --verify events/s, next to decode-only and apply-only rates of the same logs."""
    typer.echo(json.dumps(replay_figures(game, games)))
