"""Hidden-information scan: no view, seat feed or error message names a card hidden from
the reader at that version.

A card id counts as hidden from a seat at a version when no event visible to that seat (up
to that version) carries it: hands, deck contents and order, face-down rewards, unchosen
Story choices all travel only in events for other seats or for nobody. Card ids are the
engine's catalog (Fallen) plus every string under a "card"/"cards" key in the game's events.

Part 1 (pure, every game): play random games to the end, fold them with the projection, and
at every append boundary serialize every seat's and the spectator's view, and every event of
each seat's feed. Part 2 (gRPC, a sample): step through games on a running server and, after
each step, read GetView / WatchView / ReadEvents for every seat and provoke error messages.
Sizes: FALLEN_SCAN_GAMES (toy games, default 500), FALLEN_SCAN_FALLEN_GAMES (default 6),
FALLEN_SCAN_GRPC_GAMES (default 6, plus one Fallen game sampled every 40 steps).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path
from typing import Any

import grpc
from fallen.projections.v1 import projections_pb2 as pb
from fallen.projections.v1 import projections_pb2_grpc as pb_grpc

from services.app import serve
from services.platform.auth import issue_token
from services.platform.envelope import Envelope
from services.platform.store.sqlite import SqliteEventStore
from services.projections.records import GAME_FAMILIES, game_streams
from tests.support.hidden_scan import Knowledge, scan_game, vocabulary
from tests.support.projections_play import engines, play, players, runner_for

N_TOY = int(os.environ.get("FALLEN_SCAN_GAMES", "500"))
N_FALLEN = int(os.environ.get("FALLEN_SCAN_FALLEN_GAMES", "6"))
N_GRPC = int(os.environ.get("FALLEN_SCAN_GRPC_GAMES", "6"))
FALLEN_EVERY = 40
ENGINES = engines()
RULES_OF = ENGINES.get


async def game_events(store: SqliteEventStore, game_id: str) -> list[Envelope]:
    """Return every event of a game's streams in global order (with occurred_at)."""
    envs = [e for s in game_streams(game_id) for e in await store.read(s)]
    return sorted(envs, key=lambda e: e.position)


async def test_no_view_or_feed_of_random_finished_games_names_a_hidden_card():
    store = SqliteEventStore(":memory:")
    runner = runner_for(store)
    plan = [("toy", f"t{i}") for i in range(N_TOY)]
    if "fallen" in ENGINES:
        plan += [("fallen", f"f{i}") for i in range(N_FALLEN)]
    checks = 0
    for n, (game, gid) in enumerate(plan):
        assert await play(runner, game, gid, random.Random(1000 + n))
        checks += scan_game(game, gid, await game_events(store, gid), ENGINES)
    await store.close()
    assert len(plan) >= 500 or N_TOY < 500
    assert checks > len(plan) * 10


def md(player: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token(player)}"),)


async def call(coro: Any) -> tuple[str, str]:
    """Return (response text, error text) of an RPC."""
    try:
        return str(await coro), ""
    except grpc.aio.AioRpcError as err:
        return "", f"{err.code().name}: {err.details()}"


async def scan_through_grpc(
    stub: pb_grpc.ProjectionServiceStub,
    store: SqliteEventStore,
    game: str,
    gid: str,
    knowledge: Knowledge,
) -> int:
    """Read everything every reader may ask for now, and provoke errors; check it all."""
    version = await store.version(f"game-{gid}")
    version_open = not (await store.read(f"game-{gid}", version))[0].type == "GameEnded"
    seats = list(ENGINES[game].seats)
    who = players(ENGINES[game], gid)
    checks = 0
    for reader in [*seats, None]:
        player = who[reader] if reader else "spectator"
        seat = reader or ""
        other = next(s for s in seats if s != reader)
        texts = [
            await call(
                stub.GetView(
                    pb.GetViewRequest(game_id=gid, seat=seat, min_version=version, wait_ms=5000),
                    metadata=md(player),
                )
            ),
            *[
                await call(
                    stub.ReadEvents(
                        pb.ReadEventsRequest(game_id=gid, seat=seat, stream=family),
                        metadata=md(player),
                    )
                )
                for family in GAME_FAMILIES
            ],
            # errors: another seat, a bad seat, a bad stream, the audit log, a dispute mid-game
            await call(
                stub.GetView(pb.GetViewRequest(game_id=gid, seat=other), metadata=md(player))
            ),
            await call(
                stub.ReadEvents(pb.ReadEventsRequest(game_id=gid, seat=other), metadata=md(player))
            ),
            await call(
                stub.GetView(pb.GetViewRequest(game_id=gid, seat="zz"), metadata=md(player))
            ),
            await call(
                stub.ReadEvents(
                    pb.ReadEventsRequest(game_id=gid, seat=seat, stream="zz"), metadata=md(player)
                )
            ),
            # (a finished game's audit log is disclosed to its players by design: docs/disputes.md)
            await call(
                stub.ReadAuditLog(
                    pb.ReadAuditLogRequest(game_id=gid if version_open else "nope"),
                    metadata=md(player),
                )
            ),
            await call(
                stub.OpenDispute(
                    pb.OpenDisputeRequest(game_id=gid, seat=seat or seats[0], reason="x"),
                    metadata=md(player),
                )
            ),
        ]
        watch = stub.WatchView(
            pb.WatchViewRequest(game_id=gid, seat=seat, after_version=version - 1),
            metadata=md(player),
        )
        texts.append((str(await asyncio.wait_for(watch.read(), 10)), ""))
        watch.cancel()
        for ok, err in texts:
            knowledge.check(reader, ok + err, f"{gid} v{version} RPC")
            checks += 1
        assert texts[0][1] == "", texts[0][1]
    return checks


async def test_no_rpc_answer_or_error_names_a_hidden_card(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    monkeypatch.delenv("FALLEN_VIEWS", raising=False)
    store = SqliteEventStore(tmp_path / "events.db")
    backend = await serve(store, "127.0.0.1:0", extra_games=ENGINES)
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{backend.port}")
    stub = pb_grpc.ProjectionServiceStub(channel)
    runner = runner_for(store)
    plan = [("toy", f"w{i}", 1) for i in range(N_GRPC)]
    if "fallen" in ENGINES:
        plan.append(("fallen", "wf0", FALLEN_EVERY))
    checks = 0
    try:
        for n, (game, gid, every) in enumerate(plan):
            rng = random.Random(n)
            await play(runner, game, gid, rng, steps=0)
            step = 0
            while True:
                loaded = await runner.load(gid)
                if step % every == 0 or loaded.ended:
                    knowledge = Knowledge(
                        vocabulary(game, await game_events(store, gid)),
                        [*ENGINES[game].seats, None],
                    )
                    for env in await game_events(store, gid):
                        knowledge.see(env)
                    checks += await scan_through_grpc(stub, store, game, gid, knowledge)
                if loaded.ended:
                    break
                pending = loaded.rules.pending(loaded.state)
                assert pending is not None
                await runner.submit(
                    gid, rng.choice(loaded.rules.legal_commands(loaded.state, pending.seat))
                )
                step += 1
    finally:
        await channel.close()
        await backend.stop()
    assert checks > 0
    print(json.dumps({"rpc_checks": checks}))
