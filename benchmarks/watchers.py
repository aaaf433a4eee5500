"""fallenctl bench watchers: how many WatchView streams one process feeds, and how fast."""

from __future__ import annotations

import asyncio
import json
import os
import tempfile
import time
from typing import Annotated, Any

import typer

from benchmarks.app import _pct, bench_app

CHANNEL_STREAMS = 100  # watchers per client channel (one HTTP/2 connection each)


async def _watch(stub: Any, req: Any, md: Any, got: list[tuple[int, float]]) -> None:
    """Record (version, receive time) of every pushed view until the stream ends."""
    async for msg in stub.WatchView(req, metadata=md):
        got.append((msg.version, time.perf_counter()))


async def _level(watchers: int, commands: int, tmp: str) -> dict[str, Any]:
    """Serve, open `watchers` spectator streams on one Fallen game, play; measure delays."""
    import grpc
    from fallen.projections.v1 import projections_pb2 as ppb
    from fallen.projections.v1 import projections_pb2_grpc as ppb_grpc
    from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

    from services.app import serve
    from services.bots.policies import Turn, parse_choices, random_legal
    from services.platform.auth import issue_token
    from services.platform.grpcx.structs import to_struct
    from services.platform.store.sqlite import SqliteEventStore

    seats = {"hero": "bench-hero", "dungeon_lord": "bench-dl"}
    md = {s: (("authorization", f"Bearer {issue_token(p)}"),) for s, p in seats.items()}
    backend = await serve(SqliteEventStore(os.path.join(tmp, f"w{watchers}.db")), "127.0.0.1:0")
    target = f"127.0.0.1:{backend.port}"
    channels = [grpc.aio.insecure_channel(target) for _ in range(-(-watchers // CHANNEL_STREAMS))]
    rules = rules_pb2_grpc.RulesServiceStub(channels[0])
    created = await rules.CreateGame(
        rules_pb2.CreateGameRequest(game="fallen", seats=seats, client_seed="bench"),
        metadata=md["hero"],
    )
    gid = created.game_id
    got: list[list[tuple[int, float]]] = [[] for _ in range(watchers)]
    req = ppb.WatchViewRequest(game_id=gid, after_version=created.version)
    tasks = [
        asyncio.create_task(
            _watch(
                ppb_grpc.ProjectionServiceStub(channels[i // CHANNEL_STREAMS]),
                req,
                md["hero"],
                got[i],
            )
        )
        for i in range(watchers)
    ]
    await asyncio.sleep(0.5 + watchers / 2000)
    sent: dict[int, float] = {}
    for _ in range(commands):
        game = await rules.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=md["hero"])
        if game.ended or game.waiting_for not in seats:
            break
        seat = game.waiting_for
        legal = await rules.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=gid, seat=seat), metadata=md[seat]
        )
        choices = parse_choices(legal.commands)
        pick = choices[random_legal(Turn("fallen", gid, seat, legal.version, {}, choices, "b"))]
        t0 = time.perf_counter()
        resp = await rules.SubmitCommand(
            rules_pb2.SubmitCommandRequest(
                game_id=gid,
                seat=seat,
                kind=pick.kind,
                args=to_struct(pick.args),
                command_id=f"{seat}-{legal.version}",
                expected_version=legal.version,
            ),
            metadata=md[seat],
        )
        for v in range(legal.version + 1, resp.version + 1):
            sent[v] = t0
        await asyncio.sleep(0.05)
    last = max(sent) if sent else created.version
    deadline = time.perf_counter() + 30
    while time.perf_counter() < deadline and not all(g and g[-1][0] >= last for g in got):
        await asyncio.sleep(0.05)
    delays = [t - sent[v] for g in got for v, t in g if v in sent]
    complete = sum(1 for g in got if g and g[-1][0] >= last)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for ch in channels:
        await ch.close()
    await backend.stop()
    return {
        "watchers": watchers,
        "commands": len({t for t in sent.values()}),
        "views_delivered": len(delays),
        "watchers_reaching_last_version": complete,
        "delay_p50_ms": _pct(delays, 0.5) if delays else None,
        "delay_p99_ms": _pct(delays, 0.99) if delays else None,
        "delay_max_ms": _pct(delays, 1.0) if delays else None,
    }


@bench_app.command("watchers")
def bench_watchers(
    levels: Annotated[str, typer.Option(help="Comma-separated watcher counts")] = "10,100,500,1000",
    commands: Annotated[int, typer.Option(help="Commands played per level")] = 40,
) -> None:
    """Concurrent WatchView streams on one game in one process: delivery delay p50/p99.

    Delay = from SubmitCommand sent to the view of that version received by a watcher
    (client and server share the process and its event loop).
    """
    os.environ.setdefault("FALLEN_DEV", "1")

    async def run() -> list[dict[str, Any]]:
        with tempfile.TemporaryDirectory() as tmp:
            return [await _level(int(n), commands, tmp) for n in levels.split(",")]

    for row in asyncio.run(run()):
        typer.echo(json.dumps({"bench": "watchers", **row}))
