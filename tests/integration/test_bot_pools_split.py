"""The split bot pools: bots-land plays through rules-land, bots-land-epic through
rules-land-epic, each only the games its rules pool serves (docs/matchmaking.md).

Real redis-server (the store and its feed); dice and projections in one process, the two
Land rules pools each in its own server, as deploy/ runs them; each bot pool is built the
way `fallenctl serve bots-land` builds it (services.app.bot_pool).
"""

from __future__ import annotations

import asyncio
import uuid

import grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.app import Backend, bot_pool, serve
from services.bots.worker import BotWorker
from services.platform.auth import issue_token
from services.platform.grpcx.structs import to_struct
from services.platform.store.redis import RedisEventStore

TIMEOUT_S = 180.0
QUICK_LAND = {"variant": "standard", "short_game": True, "max_turns": 1}


def _md() -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {issue_token('matchmaking', service=True)}"),)


async def _bot_game(target: str, seats: int) -> str:
    async with grpc.aio.insecure_channel(target) as ch:
        created = await rules_pb2_grpc.RulesServiceStub(ch).CreateGame(
            rules_pb2.CreateGameRequest(
                game="land",
                seats={f"p{i}": f"bot:b{i}" for i in range(1, seats + 1)},
                options=to_struct(QUICK_LAND),
            ),
            metadata=_md(),
        )
    return created.game_id


async def _until_ended(target: str, game_id: str) -> None:
    async with grpc.aio.insecure_channel(target) as ch:
        stub = rules_pb2_grpc.RulesServiceStub(ch)
        while not (
            await stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=_md())
        ).ended:
            await asyncio.sleep(0.1)


async def test_each_land_bot_pool_plays_only_the_games_of_its_rules_pool(
    redis_url: str, monkeypatch
) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    prefix = f"split{uuid.uuid4().hex[:8]}"
    backends: list[Backend] = []
    workers: dict[str, BotWorker] = {}
    stop = asyncio.Event()
    tasks: list[asyncio.Task[None]] = []
    try:
        # given dice and projections in one server, rules-land and rules-land-epic apart
        main, views, targets = await _land_pools(redis_url, prefix, backends)
        # and the bot pools bots-land and bots-land-epic, each talking to its rules pool
        for name, rules in (("bots-land", "rules-land"), ("bots-land-epic", "rules-land-epic")):
            spec, group = bot_pool(name)
            w = BotWorker(
                redis_url,
                targets[rules],
                prefix=prefix,
                consumer=name,
                pool=spec,
                group=group,
                views_target=views,
                claim_idle_ms=500,
            )
            await w.feed.start()
            workers[name] = w
        tasks = [asyncio.create_task(w.run(stop)) for w in workers.values()]
        # when a 2-seat and a 6-seat Land game are created with every seat a bot
        core = await _bot_game(targets["rules-land"], 2)
        epic = await _bot_game(targets["rules-land-epic"], 6)
        # then both games are played to the end without a client move
        await asyncio.wait_for(
            asyncio.gather(
                _until_ended(targets["rules-land"], core),
                _until_ended(targets["rules-land-epic"], epic),
            ),
            TIMEOUT_S,
        )
        # and each pool moved, and acknowledged every feed entry: neither asked a rules
        # pool for a game it refuses (such an entry would stay pending, claimed forever)
        assert workers["bots-land"].moves > 0 and workers["bots-land-epic"].moves > 0
        for _ in range(50):
            lags = {n: await w.lag() for n, w in workers.items()}
            if not any(lags.values()):
                break
            await asyncio.sleep(0.2)
        assert lags == {"bots-land": 0, "bots-land-epic": 0}
        # and every bot move of each game went through its own pool's worker
        store = main.store
        for game_id, seats in ((core, 2), (epic, 6)):
            events = await store.read(f"game-{game_id}")
            assert len(events[0].data["seats"]) == seats
            assert any(e.causation_id.startswith("bot:random@1:") for e in events)
    finally:
        stop.set()
        for t in tasks:
            try:
                await asyncio.wait_for(t, 15)
            except TimeoutError:
                t.cancel()
        for w in workers.values():
            await w.close()
        await _stop_all(backends)


async def test_a_worker_first_seeing_another_pools_game_mid_game_asks_its_rules_pool_nothing(
    redis_url: str, monkeypatch
) -> None:
    monkeypatch.setenv("FALLEN_DEV", "1")
    monkeypatch.delenv("FALLEN_JWT_SECRET", raising=False)
    prefix = f"split{uuid.uuid4().hex[:8]}"
    backends: list[Backend] = []
    worker = None
    try:
        # given rules-land-epic with a 6-seat game under way, and rules-land apart
        main, views, targets = await _land_pools(redis_url, prefix, backends)
        epic = await _bot_game(targets["rules-land-epic"], 6)
        events = await main.store.read(f"game-{epic}")
        assert len(events) > 1 and events[-1].type != "GameCreated"
        # and a bots-land worker that never saw its GameCreated (the pool's other worker
        # took that entry, or this one was restarted)
        spec, group = bot_pool("bots-land")
        worker = BotWorker(
            redis_url, targets["rules-land"], prefix=prefix, pool=spec, group=group,
            views_target=views,
        )  # fmt: skip
        # when it is handed the game's newest entry, then it neither fails (rules-land
        # refuses a 6-seat game: INVALID_ARGUMENT) nor moves
        await worker.handle(events[-1])
        assert worker.moves == 0
    finally:
        if worker is not None:
            await worker.close()
        await _stop_all(backends)


async def _land_pools(
    redis_url: str, prefix: str, backends: list[Backend]
) -> tuple[Backend, str, dict[str, str]]:
    """Serve dice and projections in one server and rules-land, rules-land-epic apart (all
    on one Redis); return the main server, its address and each rules pool's address."""
    main = await serve(RedisEventStore(redis_url, prefix=prefix), "127.0.0.1:0")
    backends.append(main)
    views = f"127.0.0.1:{main.port}"
    targets = {}
    for pool in ("rules-land", "rules-land-epic"):
        b = await serve(
            RedisEventStore(redis_url, prefix=prefix), "127.0.0.1:0", pool, dice_addr=views
        )
        backends.append(b)
        targets[pool] = f"127.0.0.1:{b.port}"
    return main, views, targets


async def _stop_all(backends: list[Backend]) -> None:
    """Stop the servers, the last started first (each given at most 30 s)."""
    for b in reversed(backends):
        try:
            await asyncio.wait_for(b.stop(), 30)
        except TimeoutError:
            pass
