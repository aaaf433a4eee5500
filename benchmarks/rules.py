"""fallenctl bench rules GAME: engine speed in-process, and commands through gRPC vs echo."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from typing import Annotated, Any

import typer

from benchmarks.app import _pct, bench_app


def _in_process(
    game: str, games: int, seat_count: int | None = None, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Return games/s and commands/s of random playouts of the pure engine, one core, after
    one warm-up game (reported apart as warmup_game_ms)."""
    from services.native import install
    from services.platform.gcpolicy import freeze_startup
    from services.rules.engine.api import Setup
    from services.rules.playout import play
    from services.rules.registry import load

    rules = load(game)
    seats = {seat: f"p-{seat}" for seat in rules.seats[:seat_count]}
    pin = getattr(rules, "new_game_options", None)  # what a new game records (card data)
    opts = pin(options or {}) if pin is not None else dict(options or {})
    # one warm-up game first, timed apart: the process's first game also loads the card data
    # and fills the engine's memos (a few games' time), which is start-up, not play
    warm = time.perf_counter()
    play(rules, Setup(seats, opts), "bench-warmup", "bench-warmup")
    warmup_ms = (time.perf_counter() - warm) * 1000
    # then, as a served process does once warm (`fallenctl serve`, the faust worker), its
    # start-up heap leaves the collector's full passes (services/platform/gcpolicy.py, FALLEN_GC)
    frozen = freeze_startup()
    commands = events = 0
    start, cpu = time.perf_counter(), time.process_time()
    for i in range(games):
        p = play(rules, Setup(seats, opts), f"bench-{i}", f"bench{i}")
        commands += p.commands + p.chance_answers
        events += len(p.events)
    took, cpu_took = time.perf_counter() - start, time.process_time() - cpu
    return {
        "engine": install(),  # "compiled" (mypyc), or "pure (why)": services/native.py
        "games": games,
        "warmup_game_ms": round(warmup_ms, 1),  # not counted in the rates below
        "gc": "start-up heap frozen" if frozen else "CPython default (FALLEN_GC=default)",
        "games_per_s": round(games / took, 2),
        "games_per_cpu_s": round(games / cpu_took, 2),  # one core's rate on a shared machine
        "events_per_game": round(events / games, 1),
        "commands_per_s": round(commands / took),
        "events_per_s": round(events / took),
        "commands_per_game": round(commands / games, 1),
    }


async def _through_grpc(game: str, games: int) -> dict[str, Any]:
    """Return commands/s and latency through the rules gRPC API, next to a raw echo."""
    import grpc
    from fallen.echo.v1 import echo_pb2, echo_pb2_grpc
    from fallen.projections.v1 import projections_pb2_grpc
    from fallen.rules.v1 import rules_pb2_grpc

    from services.app import serve
    from services.bots.driver import play_game
    from services.bots.policies import random_legal
    from services.platform.store.sqlite import SqliteEventStore
    from services.rules.registry import load

    seats = {seat: f"p-{seat}" for seat in load(game).seats}
    with tempfile.TemporaryDirectory() as tmp:
        backend = await serve(SqliteEventStore(os.path.join(tmp, "b.db")), "127.0.0.1:0", echo=True)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}") as ch:
                stub = rules_pb2_grpc.RulesServiceStub(ch)
                views = projections_pb2_grpc.ProjectionServiceStub(ch)
                lat: list[float] = []
                orig = stub.SubmitCommand

                async def timed(*a: Any, **kw: Any) -> Any:
                    t0 = time.perf_counter()
                    try:
                        return await orig(*a, **kw)
                    finally:
                        lat.append(time.perf_counter() - t0)

                stub.SubmitCommand = timed  # type: ignore[method-assign]
                policies = {seat: random_legal for seat in seats}
                start = time.perf_counter()
                for i in range(games):
                    await play_game(stub, views, game, seats, policies, f"g{i}")
                took = time.perf_counter() - start
                echo = echo_pb2_grpc.EchoServiceStub(ch)
                req = echo_pb2.EchoRequest(payload=b"x" * 64)
                elat: list[float] = []
                e0 = time.perf_counter()
                for _ in range(max(200, len(lat))):
                    t0 = time.perf_counter()
                    await echo.Echo(req)
                    elat.append(time.perf_counter() - t0)
                echo_rate = len(elat) / (time.perf_counter() - e0)
        finally:
            await backend.stop()
    submit_rate = len(lat) / sum(lat)
    return {
        "games": games,
        "commands": len(lat),
        "games_per_s": round(games / took, 3),
        "submit_per_s": round(submit_rate, 1),
        "submit_p50_ms": _pct(lat, 0.5),
        "submit_p99_ms": _pct(lat, 0.99),
        "echo_per_s": round(echo_rate),
        "echo_p50_ms": _pct(elat, 0.5),
        "echo_p99_ms": _pct(elat, 0.99),
        "submit_vs_echo": round(submit_rate / echo_rate, 4),
    }


@bench_app.command("rules")
def bench_rules(
    game: Annotated[str, typer.Argument(help="fallen, worlds or land")],
    games: Annotated[int, typer.Option(help="Games in-process")] = 200,
    grpc_games: Annotated[int, typer.Option(help="Games through gRPC")] = 3,
    solo_games: Annotated[int, typer.Option(help="land: Solo I and Solo II games")] = 10,
) -> None:
    """Random games/s and commands/s in-process; commands/s and p50/p99 through gRPC."""
    os.environ.setdefault("FALLEN_DEV", "1")
    result = {
        "bench": "rules",
        "game": game,
        "in_process": _in_process(game, games),
        "grpc": asyncio.run(_through_grpc(game, grpc_games)) if grpc_games > 0 else None,
    }
    if game == "land" and solo_games > 0:
        result["solo1_in_process"] = _in_process(game, solo_games, 1, {"variant": "solo1"})
        # random play rarely wins Solo II quickly: capped at 60 turns (a loss counts as a game)
        ultimate = {"variant": "solo2", "challenge": 4, "max_turns": 60}
        result["solo2_ultimate_in_process"] = _in_process(game, solo_games, 1, ultimate)
    typer.echo(json.dumps(result))
