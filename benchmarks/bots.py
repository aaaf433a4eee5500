"""`fallenctl bench bots GAME`: bot games/s with 1, 2, 4... worker processes on one broker.

Starts a private redis-server, the backend (`fallenctl serve all` on the Redis store) and W
bot worker processes (`fallenctl serve bots`), creates the games with every seat a bot,
and times until all have ended. Each worker count gets a fresh redis-server and backend.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Annotated, Any

import typer

from benchmarks.app import bench_app
from services.platform.localservers import free_port, redis_server, wait_for_port


@contextlib.contextmanager
def _process(args: list[str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    cmd = [sys.executable, "-m", "services.cli.main", "serve", *args, "--metrics-port", "0"]
    proc = subprocess.Popen(
        [*cmd, "--address", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ),
    )
    try:
        wait_for_port(port, 60)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def _play(target: str, game: str, games: int, seed: str, policy: str) -> float:
    import grpc
    from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

    from services.platform.auth import issue_token
    from services.platform.grpcx.structs import to_struct
    from services.rules.registry import load

    seats = list(load(game).seats)
    md = (("authorization", f"Bearer {issue_token('bench', service=True)}"),)
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        start = time.perf_counter()
        gids = []
        for n in range(games):
            options = {"bots": seats, "bot_seed": f"{seed}-{n}", "bot_policy": policy}
            req = rules_pb2.CreateGameRequest(
                game=game, seats={s: f"bot-{s}" for s in seats}, options=to_struct(options)
            )
            gids.append((await stub.CreateGame(req, metadata=md)).game_id)
        while True:
            done = [
                (await stub.GetGame(rules_pb2.GetGameRequest(game_id=g), metadata=md)).ended
                for g in gids
            ]
            if all(done):
                return time.perf_counter() - start
            await asyncio.sleep(0.2)


def run_bench(
    game: str, games: int, workers: list[int], seed: str, policy: str = "random"
) -> list[dict[str, Any]]:
    """Return one result per worker count."""
    out = []
    for w in workers:
        with redis_server() as url:
            rules_port, bots_port = free_port(), free_port()
            with (
                _process(["all", "--store", url, "--workers", "0"], rules_port),
                _process(
                    [
                        "bots",
                        "--store",
                        url,
                        "--rules",
                        f"127.0.0.1:{rules_port}",
                        "--workers",
                        "1",
                    ],
                    bots_port,
                ),
                contextlib.ExitStack() as more,
            ):
                for _ in range(w - 1):
                    more.enter_context(
                        _process(
                            ["bots", "--store", url, "--rules", f"127.0.0.1:{rules_port}"],
                            free_port(),
                        )
                    )
                took = asyncio.run(_play(f"127.0.0.1:{rules_port}", game, games, seed, policy))
        out.append(
            {
                "game": game,
                "workers": w,
                "policy": policy,
                "games": games,
                "seconds": round(took, 2),
                "games_per_s": round(games / took, 3),
            }
        )
    return out


@bench_app.command("bots")
def bench_bots(
    game: Annotated[str, typer.Argument(help="a game the rules service runs (fallen, worlds)")],
    games: Annotated[int, typer.Option(help="Bot games per worker count")] = 8,
    workers: Annotated[str, typer.Option(help="Worker process counts")] = "1,2,4",
    seed: Annotated[str, typer.Option(help="Bot seed prefix")] = "bench",
    policy: Annotated[
        str, typer.Option(help="Bot policy of every seat (random, heuristic, search...)")
    ] = "random",
    search_ms: Annotated[
        int, typer.Option(help="The search's time per decision (FALLEN_BOT_SEARCH_MS)")
    ] = 50,
    latency: Annotated[
        bool,
        typer.Option(
            help="Instead: a human plays vs easy bots; bot answer latency after the human's "
            "command and the human's SubmitCommand round trip, embedded and Redis"
        ),
    ] = False,
    deployments: Annotated[
        str, typer.Option(help="--latency: deployments to measure (embedded, redis)")
    ] = "embedded,redis",
) -> None:
    """Bot games/s with 1, 2, 4 bot worker processes sharing one Redis feed (or, with
    --latency, how soon an easy bot answers a human; benchmarks/bot_latency.py).

    With random bots the one backend process (rules, views) bounds the figure; with a bot
    that thinks (`--policy search`) the workers do, and capacity grows with them.
    """
    os.environ.setdefault("FALLEN_DEV", "1")
    if latency:
        from benchmarks.bot_latency import run_latency

        names = [d.strip() for d in deployments.split(",") if d.strip()]
        for row in run_latency(game, games, seed, names):
            typer.echo(json.dumps(row))
        return
    os.environ["FALLEN_BOT_SEARCH_MS"] = str(search_ms)
    counts = [int(x) for x in workers.split(",") if x.strip()]
    for result in run_bench(game, games, counts, seed, policy):
        typer.echo(json.dumps(result))
