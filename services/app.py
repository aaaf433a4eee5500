"""Wire services together: one process serving all of them, or one service alone."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import grpc

from benchmarks.echo.service import mount as echo_mount
from services.deck.client import GrpcDeck
from services.dice.client import GrpcDice
from services.dice.engine import DiceEngine
from services.dice.port import DicePort
from services.dice.service import mount as dice_mount
from services.platform.grpcx.client import Reconnecting, ServiceCredentials
from services.platform.grpcx.server import Mount, Running, start_server
from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore
from services.rules.bot_seats import BotCoverage, FeedPools, InProcess, Nobody
from services.rules.engine.api import GameRules
from services.rules.engine.deck import DeckServicePort
from services.rules.pools import BOT_POOLS, POOLS, PoolSpec, bot_pool_spec
from services.rules.runner import GameRunner
from services.rules.service import mount as rules_mount

log = logging.getLogger("fallen.app")

ALL = "all"
STOP_WAIT_S = 5.0  # the most a stop takes: SIGTERM to exit (docs/retention.md)
JOBS_WAIT_S = 1.5  # for cancelled background jobs to finish, all together
RPC_GRACE_S = 1.0  # for in-flight RPCs before the server cancels them (streams too)
RULES_POOLS = POOLS
SINGLE_SERVICES = ("dice", "deck", *RULES_POOLS, "relay", "projections", "matchmaking", *BOT_POOLS)


def bot_pool(service: str) -> tuple[PoolSpec | None, str]:
    """Return what a bot pool plays (its rules pool's spec, None = every game) and its
    consumer group on the feed (the pool's name); KeyError for an unknown pool."""
    return bot_pool_spec(service), service


def bot_coverage(store: EventStore, in_process: int) -> BotCoverage:
    """Return who plays this server's bot seats: its own workers, or a bot pool on the feed."""
    if in_process > 0:
        return InProcess()
    if isinstance(store, RedisEventStore):
        return FeedPools(store.url, store.prefix)
    return Nobody(
        "this server runs no bot workers (serve all with --workers 1 or more, or a Redis "
        "store with a bot pool)"
    )


def bot_jobs(
    store: EventStore, target: str, workers: int
) -> list[Callable[[], Coroutine[Any, Any, None]]]:
    """The in-process bot workers of `serve all`, acting through the server's own API at
    target: on a Redis store `workers` consumers of the feed's "bots" group, else one worker
    on the store's feed (it plays many games at once)."""
    from services.bots.worker import BotWorker

    if isinstance(store, RedisEventStore):
        made = [
            BotWorker(store.url, target, store.prefix, store.shards, group="bots")
            for _ in range(workers)
        ]
    else:
        made = [BotWorker.in_process(store, target)]

    def job(worker: BotWorker) -> Callable[[], Coroutine[Any, Any, None]]:
        async def run() -> None:
            try:
                await worker.run()
            finally:
                await worker.close()

        return run

    return [job(w) for w in made]


@dataclass
class Backend:
    """A running server and what it owns (store, channels, background tasks)."""

    running: Running
    store: EventStore
    channels: list[grpc.aio.Channel | Reconnecting] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    matchmaker: Any = None  # the Matchmaker when this server runs matchmaking
    bot_tasks: list[asyncio.Task[None]] = field(default_factory=list)  # in-process bot workers
    bot_coverage: Any = None  # who plays bot seats (a FeedPools holds a Redis connection)

    @property
    def port(self) -> int:
        """Return the bound port."""
        return self.running.port

    async def stop(self) -> None:
        """Stop serving and release everything, within about STOP_WAIT_S in all: background
        jobs are cancelled together (not one wait each), in-flight RPCs get a short grace,
        open streams are then cancelled; a log line says what it waits for."""
        pending = [t for t in self.tasks if not t.done()]
        log.info(
            "stopping: cancelling background jobs, draining in-flight RPCs, closing streams",
            extra={"jobs": len(pending), "grace_s": RPC_GRACE_S},
        )
        for task in pending:
            task.cancel()
        if pending:
            # bounded: a job blocked in a client library that holds on to the cancellation
            # (seen with redis-py inside XREADGROUP BLOCK) must not hang the shutdown
            _, stuck = await asyncio.wait(pending, timeout=JOBS_WAIT_S)
            if stuck:
                log.warning(
                    "stopping without waiting for background jobs",
                    extra={"jobs": sorted(t.get_name() for t in stuck)},
                )
        await self.running.stop(RPC_GRACE_S)
        for ch in self.channels:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ch.close(), 1.0)
        close = getattr(self.bot_coverage, "close", None)
        if close is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(close(), 1.0)
        await self.store.close()


def _deck_mount(store: EventStore, dice: DicePort) -> Mount:
    from services.deck.engine import DeckEngine
    from services.deck.service import mount as deck_mount

    return deck_mount(DeckEngine(store, dice))


async def serve(
    store: EventStore,
    address: str,
    service: str = ALL,
    dice_addr: str | None = None,
    background: list[Callable[[], Coroutine[Any, Any, None]]] | None = None,
    extra_games: dict[str, GameRules] | None = None,
    pools: str = "",
    matchmaking_state: str = "memory",
    echo: bool = False,
    deck_addr: str | None = None,
    bots: int | None = None,
) -> Backend:
    """Start serving one service (or all) on address; return the running backend.

    pools maps rules pools to endpoints for the matchmaker ('pool=host:port,...'); serving
    all, every pool not named is this server itself. echo adds the unauthenticated
    EchoService, the benchmark's raw-gRPC baseline; only ``fallenctl bench`` asks for it,
    so a served backend never exposes it. deck_addr: a rules pool alone deals through the
    deck service there (gRPC, services/deck/client.py); without it, it deals in-process
    over the shared store. Serving all, the runner always deals in-process.

    bots: serving all, how many bot workers play bot seats in this process (0: none; a
    CreateGame with bot seats is then refused unless a bot pool on the Redis feed plays
    them); a rules pool alone takes its bot seats only when such a pool is live. None (a
    library caller) neither starts workers nor checks bot seats.
    """
    channels: list[grpc.aio.Channel | Reconnecting] = []
    mounts: list[Mount] = [echo_mount()] if echo else []
    runner: GameRunner | None = None
    coverage = bot_coverage(store, bots if service == ALL else 0) if bots is not None else None
    if service == ALL:
        dice = DiceEngine(store)
        runner = GameRunner(store, dice, extra_games, bots=coverage)
        mounts += [dice_mount(dice), _deck_mount(store, dice), rules_mount(runner)]
    elif service == "dice":
        mounts.append(dice_mount(DiceEngine(store)))
    elif service == "relay" or service in BOT_POOLS:
        pass  # health and metrics only; the relay or the bot workers run as background jobs
    elif service in ("projections", "matchmaking"):
        pass  # added below
    elif service == "deck" or service in RULES_POOLS:
        if not dice_addr:
            raise ValueError(f"the {service} service alone needs --dice HOST:PORT")
        channel = Reconnecting(dice_addr)
        channels.append(channel)
        remote = GrpcDice(channel, ServiceCredentials(service))
        if service == "deck":
            mounts.append(_deck_mount(store, remote))
        else:
            deck = None
            if deck_addr:
                deck_channel = Reconnecting(deck_addr)
                channels.append(deck_channel)
                deck = DeckServicePort(GrpcDeck(deck_channel, ServiceCredentials(service)))
            only = RULES_POOLS[service]
            runner = GameRunner(store, remote, extra_games, only=only, deck=deck, bots=coverage)
            mounts.append(rules_mount(runner))
    else:
        raise ValueError(f"unknown service {service!r}; choose all or one of {SINGLE_SERVICES}")
    if runner is not None:
        from services.rules.sweeper import ChanceSweeper

        background = [*(background or []), ChanceSweeper(runner).run_forever]
    if service in (ALL, "projections"):
        from services.projections.wiring import projections

        proj_mount, proj_job, proj_health = projections(store, extra_games)
        mounts.append(proj_mount)
        background = [*(background or []), proj_job]
    mm_pools, mm = None, None
    if service in (ALL, "matchmaking"):
        from services.matchmaking.wiring import matchmaking, open_state

        if service == "matchmaking" and not pools:
            raise ValueError("the matchmaking service alone needs --pools pool=HOST:PORT,...")
        mm_mount, mm_job, mm_pools, mm = matchmaking(store, open_state(matchmaking_state), pools)
        mounts.append(mm_mount)
        background = [*(background or []), mm_job]
    running = await start_server(mounts, address)
    if service in (ALL, "projections"):
        background = [*(background or []), proj_health(running.health)]
    if mm_pools is not None and "*" not in mm_pools.endpoints and service == ALL:
        mm_pools.endpoints["*"] = f"127.0.0.1:{running.port}"
    tasks = [asyncio.create_task(job()) for job in background or []]
    bot_tasks = []
    if service == ALL and bots:
        target = f"127.0.0.1:{running.port}"
        bot_tasks = [asyncio.create_task(job()) for job in bot_jobs(store, target, bots)]
    log.info("serving", extra={"service": service, "address": address, "port": running.port})
    return Backend(
        running=running,
        store=store,
        channels=channels,
        tasks=[*bot_tasks, *tasks],
        matchmaker=mm,
        bot_tasks=bot_tasks,
        bot_coverage=coverage,
    )
