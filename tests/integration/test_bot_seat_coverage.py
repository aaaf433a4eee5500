"""A server whose bot seats are played by a bot pool on its Redis store takes bot seats only
for the games a live pool plays (real redis-server; the pool is `fallenctl serve bots-*`'s
worker)."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, bot_pool, serve
from services.bots.worker import BotWorker
from services.platform.auth import issue_token
from services.platform.grpcx.structs import to_struct
from services.platform.store.redis import RedisEventStore

SEATS = {"fallen": {"hero": "amy", "dungeon_lord": "bot:fallen:0"}, "worlds": {"p1": "amy"}}


def md() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token('amy')}"),)


@pytest.fixture
async def served(redis_url: str, monkeypatch) -> AsyncIterator[tuple[Backend, str, str]]:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    prefix = f"cover{uuid.uuid4().hex[:8]}"
    backend = await serve(RedisEventStore(redis_url, prefix=prefix), "127.0.0.1:0", bots=0)
    try:
        yield backend, prefix, f"127.0.0.1:{backend.port}"
    finally:
        await backend.stop()


async def refusals(stub: rules_pb2_grpc.RulesServiceStub) -> dict[str, str]:
    listed = await stub.ListGames(rules_pb2.ListGamesRequest(), metadata=md())
    return {k.game: k.bot_seats_refused for k in listed.games}


async def create(stub: rules_pb2_grpc.RulesServiceStub, game: str) -> str:
    seats = {"p1": "amy", "p2": "bob"} if game == "worlds" else SEATS["fallen"]
    options = {"bots": ["p2"]} if game == "worlds" else {}
    req = rules_pb2.CreateGameRequest(game=game, seats=seats, options=to_struct(options))
    return (await stub.CreateGame(req, metadata=md())).game_id


async def test_bot_seats_are_taken_only_for_games_a_live_bot_pool_plays(
    redis_url: str, served: tuple[Backend, str, str]
) -> None:
    _, prefix, target = served
    async with grpc.aio.insecure_channel(target) as channel:
        stub = rules_pb2_grpc.RulesServiceStub(channel)
        # given no bot pool on the store: every game says why, and a bot seat is refused
        before = await refusals(stub)
        assert all("no bot worker plays" in before[g] for g in ("fallen", "worlds", "land"))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await create(stub, "fallen")
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "bots-fallen" in (refused.value.details() or "")
        # when the Fallen bot pool starts a worker on the store
        spec, group = bot_pool("bots-fallen")
        worker = BotWorker(redis_url, target, prefix=prefix, pool=spec, group=group)
        stop = asyncio.Event()
        task = asyncio.create_task(worker.run(stop))
        try:
            async with asyncio.timeout(10):
                while (await refusals(stub))["fallen"]:
                    await asyncio.sleep(0.2)
            # then Fallen bot seats are taken, and Worlds ones are still refused
            assert await create(stub, "fallen")
            assert (await refusals(stub))["worlds"]
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await create(stub, "worlds")
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        finally:
            stop.set()
            await asyncio.wait_for(task, 15)
            await worker.close()
        # and once the worker has stopped, it no longer counts (it left the presence set)
        async with asyncio.timeout(10):
            while not (await refusals(stub))["fallen"]:
                await asyncio.sleep(0.2)
