"""The bot worker pool: workers on a Redis consumer group play bot seats through gRPC.

Real redis-server (the store and its feed) and the full backend in-process; the toy game
stands in for an engine so the pool is tested on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid

import grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import serve
from services.bots.worker import BotWorker
from services.kernel.auth import issue_token
from services.kernel.grpcx.structs import to_struct
from services.kernel.store.redis import RedisEventStore
from tests.support.toy_game import RULES as TOY

TIMEOUT = 60.0


def _md() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token('alice')}"),)


async def _create(stub: rules_pb2_grpc.RulesServiceStub, bots: list[str]) -> str:
    options = {"bots": bots, "bot_seed": "s7"}
    created = await stub.CreateGame(
        rules_pb2.CreateGameRequest(
            game="toy", seats={"a": "alice", "b": "bob"}, options=to_struct(options)
        ),
        metadata=_md(),
    )
    return created.game_id


async def _ended(stub: rules_pb2_grpc.RulesServiceStub, gid: str) -> bool:
    return (await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=_md())).ended


async def _until_ended(stub: rules_pb2_grpc.RulesServiceStub, gids: list[str]) -> None:
    async def all_ended() -> None:
        while not all([await _ended(stub, g) for g in gids]):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(all_ended(), TIMEOUT)


async def test_two_workers_finish_bot_games_and_record_their_version_and_seed(
    redis_url: str, monkeypatch
) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    prefix = f"bots{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    backend = await serve(store, "127.0.0.1:0", extra_games={"toy": TOY})
    target = f"127.0.0.1:{backend.port}"
    workers = [BotWorker(redis_url, target, prefix=prefix, consumer=f"w{i}") for i in range(2)]
    stop = asyncio.Event()
    try:
        # given two workers on the feed
        for w in workers:
            await w._ensure_groups()
        tasks = [asyncio.create_task(w.run(stop)) for w in workers]
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            # when four games are created with both seats played by bots
            gids = [await _create(stub, ["a", "b"]) for _ in range(4)]
            # then every game ends without any client move
            await _until_ended(stub, gids)
        stop.set()
        await asyncio.gather(*tasks)
        # and each bot move names the policy, the bot version and the seed in the log
        events = await store.read(f"game-{gids[0]}")
        # (chance answers carry their decision key "game-<id>@<version>" instead)
        causes = {e.causation_id for e in events if e.causation_id}
        moves = {c for c in causes if not c.startswith(f"game-{gids[0]}@")}
        assert moves and all(c.startswith("bot:random@1:s7:") for c in moves)
        assert sum(w.moves for w in workers) >= 4 * 2
    finally:
        stop.set()
        for w in workers:
            await w.close()
        await backend.stop()
        await store.close()


async def test_a_killed_worker_loses_no_game(redis_url: str, monkeypatch) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    prefix = f"bots{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    backend = await serve(store, "127.0.0.1:0", extra_games={"toy": TOY})
    target = f"127.0.0.1:{backend.port}"
    doomed = BotWorker(redis_url, target, prefix=prefix, consumer="doomed")
    survivor = BotWorker(redis_url, target, prefix=prefix, consumer="survivor", claim_idle_ms=200)
    stop = asyncio.Event()
    try:
        await doomed._ensure_groups()
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            # given a bot game whose first entries were taken by a worker that then died
            gid = await _create(stub, ["a", "b"])
            taken = []
            for _ in range(20):
                taken += await doomed._read()
                if taken:
                    break
            assert taken, "the doomed worker read nothing"
            await doomed.close()  # killed before acting or acknowledging
            assert not await _ended(stub, gid)
            # when another worker runs
            task = asyncio.create_task(survivor.run(stop))
            # then it claims the abandoned entries and the game ends
            await _until_ended(stub, [gid])
            stop.set()
            await task
        # and once it has read the last events, nothing is left unacknowledged
        while await survivor.step():
            pass
        assert await survivor.lag() == 0
    finally:
        stop.set()
        await survivor.close()
        await backend.stop()
        await store.close()


async def test_a_human_plays_worlds_against_the_bots_worlds_pool(
    redis_url: str, monkeypatch
) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    prefix = f"bots{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    backend = await serve(store, "127.0.0.1:0")
    target = f"127.0.0.1:{backend.port}"
    worker = BotWorker(redis_url, target, prefix=prefix, games=("worlds",))
    stop = asyncio.Event()
    try:
        await worker._ensure_groups()
        task = asyncio.create_task(worker.run(stop))
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            # given a Worlds game where p2 is a bot (heuristic) and the human plays p1
            options = {
                "bots": ["p2"],
                "bot_policy": "heuristic",
                "decks": {"p1": "uea", "p2": "keebo"},
            }
            created = await stub.CreateGame(
                rules_pb2.CreateGameRequest(
                    game="worlds", seats={"p1": "alice", "p2": "botty"}, options=to_struct(options)
                ),
                metadata=_md(),
            )
            gid = created.game_id
            # when the human always takes the first legal command whenever it is p1's turn
            moves = 0
            for _ in range(3000):
                game = await stub.GetGame(rules_pb2.GetGameRequest(game_id=gid), metadata=_md())
                if game.ended:
                    break
                if game.waiting_for != "p1":
                    await asyncio.sleep(0.02)
                    continue
                legal = await stub.ListLegalCommands(
                    rules_pb2.ListLegalCommandsRequest(game_id=gid, seat="p1"), metadata=_md()
                )
                if not legal.commands:
                    continue
                first = legal.commands[0]
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await stub.SubmitCommand(
                        rules_pb2.SubmitCommandRequest(
                            game_id=gid,
                            seat="p1",
                            kind=first.kind,
                            args=first.args,
                            expected_version=legal.version,
                        ),
                        metadata=_md(),
                    )
                    moves += 1
            # then the game ends, with moves from both sides: the bot answered every time
            assert game.ended and moves > 0 and worker.moves > 0
            events = await store.read(f"game-{gid}")
            assert events[0].data["options"]["bots"] == ["p2"]
            assert any(e.causation_id.startswith("bot:heuristic@1:") for e in events)
        stop.set()
        await task
    finally:
        stop.set()
        await worker.close()
        await backend.stop()
        await store.close()
