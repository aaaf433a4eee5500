"""The bot worker pool: workers on a Redis consumer group play bot seats through gRPC.

Real redis-server (the store and its feed) and the full backend in-process; the toy game
stands in for an engine so the pool is tested on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator

import grpc
import pytest
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import serve
from services.bots.worker import BotWorker
from services.platform.auth import issue_token
from services.platform.grpcx.structs import to_struct
from services.platform.store.redis import RedisEventStore
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


ToyBackend = tuple[RedisEventStore, str, str]


@pytest.fixture
async def toy_backend(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[ToyBackend]:
    """Yield (store, key prefix, address) of a backend serving the toy game on a fresh prefix."""
    monkeypatch.setenv("FALLEN_DEV", "1")
    prefix = f"bots{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    backend = await serve(store, "127.0.0.1:0", extra_games={"toy": TOY})
    try:
        yield store, prefix, f"127.0.0.1:{backend.port}"
    finally:
        await backend.stop()
        await store.close()


async def _until_ended(stub: rules_pb2_grpc.RulesServiceStub, gids: list[str]) -> None:
    async def all_ended() -> None:
        while not all([await _ended(stub, g) for g in gids]):
            await asyncio.sleep(0.05)

    await asyncio.wait_for(all_ended(), TIMEOUT)


async def test_two_workers_finish_bot_games_and_record_their_version_and_seed(
    redis_url: str, toy_backend: ToyBackend
) -> None:
    store, prefix, target = toy_backend
    workers = [BotWorker(redis_url, target, prefix=prefix, consumer=f"w{i}") for i in range(2)]
    stop = asyncio.Event()
    try:
        # given two workers on the feed
        for w in workers:
            await w.feed.start()
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


async def test_a_random_bot_moves_without_waiting_for_its_view(
    redis_url: str, toy_backend: ToyBackend
) -> None:
    _, prefix, target = toy_backend
    # given a worker whose projections address answers nothing (a random bot reads no view;
    # a view-reading policy would wait there and never move)
    worker = BotWorker(redis_url, target, prefix=prefix, views_target="127.0.0.1:1")
    stop = asyncio.Event()
    try:
        await worker.feed.start()
        task = asyncio.create_task(worker.run(stop))
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            # when a game is created with both seats played by the random policy
            gid = await _create(stub, ["a", "b"])
            # then it ends, every move made by the bot
            await _until_ended(stub, [gid])
        stop.set()
        await task
        assert worker.moves >= 2
    finally:
        stop.set()
        await worker.close()


async def test_a_killed_worker_loses_no_game(redis_url: str, toy_backend: ToyBackend) -> None:
    _, prefix, target = toy_backend
    doomed = BotWorker(redis_url, target, prefix=prefix, consumer="doomed")
    survivor = BotWorker(redis_url, target, prefix=prefix, consumer="survivor", claim_idle_ms=200)
    stop = asyncio.Event()
    try:
        await doomed.feed.start()
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            # given a bot game whose first entries were taken by a worker that then died
            gid = await _create(stub, ["a", "b"])
            taken = []
            for _ in range(20):
                taken += await doomed.feed.read()
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
        await worker.feed.start()
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


async def test_a_human_plays_worlds_against_a_search_bot_that_answers_within_its_budget(
    redis_url: str, monkeypatch
) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    prefix = f"bots{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    backend = await serve(store, "127.0.0.1:0")
    target = f"127.0.0.1:{backend.port}"
    # given a bots-worlds worker whose pool config gives the search 400 ms per decision
    worker = BotWorker(redis_url, target, prefix=prefix, games=("worlds",), search_ms=400)
    stop = asyncio.Event()
    try:
        await worker.feed.start()
        task = asyncio.create_task(worker.run(stop))
        async with grpc.aio.insecure_channel(target) as channel:
            stub = rules_pb2_grpc.RulesServiceStub(channel)
            # and a Worlds game whose bot seat p2 is played by the search (bot kind per seat)
            options = {
                "bots": ["p2"],
                "bot_policies": {"p2": "search"},
                "decks": {"p1": "uea", "p2": "draga"},
            }
            created = await stub.CreateGame(
                rules_pb2.CreateGameRequest(
                    game="worlds", seats={"p1": "alice", "p2": "botty"}, options=to_struct(options)
                ),
                metadata=_md(),
            )
            gid = created.game_id
            # when the human (p1) plays through gRPC, taking its last legal command each time
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
                pick = legal.commands[-1]
                with contextlib.suppress(grpc.aio.AioRpcError):
                    await stub.SubmitCommand(
                        rules_pb2.SubmitCommandRequest(
                            game_id=gid,
                            seat="p1",
                            kind=pick.kind,
                            args=pick.args,
                            expected_version=legal.version,
                        ),
                        metadata=_md(),
                    )
            # then the game ends with the search answering every p2 decision
            assert game.ended and worker.moves > 0
            mine = [d for d in worker.decisions if d.game_id == gid]
            assert len(mine) >= worker.moves and all(d.policy == "search" for d in mine)
            # and by the bot's own accounting every answer came within its budget, and some
            # Deploy decisions were searched with rollouts
            assert all(d.budget_ms == 400 and d.spent_ms <= d.budget_ms for d in mine), [
                (d.spent_ms, d.rollouts) for d in mine if d.spent_ms > d.budget_ms
            ]
            assert any(d.rollouts > 0 for d in mine)
            # and each move's id records policy, bot version, seed and rollouts for replay
            events = await store.read(f"game-{gid}")
            ids = {e.causation_id for e in events if e.causation_id.startswith("bot:")}
            recorded = {
                f"bot:search@1:{options_seed(events)}:p2:{d.version}:r{d.rollouts}" for d in mine
            }
            # (the move that ends the game may be counted by the worker just after the end)
            assert ids and ids <= recorded and len(ids) >= worker.moves
        stop.set()
        await task
    finally:
        stop.set()
        await worker.close()
        await backend.stop()
        await store.close()


def options_seed(events: list) -> str:
    """The bot seed a game without bot_seed gets (a hash of its id, as the worker derives it)."""
    import hashlib

    gid = events[0].stream.removeprefix("game-")
    return hashlib.sha256(gid.encode()).hexdigest()[:16]
