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
from services.rules.engine.api import GameRules
from services.rules.engine.deck import DeckServicePort
from services.rules.pools import POOLS, PoolSpec
from services.rules.runner import GameRunner
from services.rules.service import mount as rules_mount

log = logging.getLogger("fallen.app")

ALL = "all"
STOP_WAIT_S = 5.0  # the most a stop takes: SIGTERM to exit (docs/retention.md)
JOBS_WAIT_S = 1.5  # for cancelled background jobs to finish, all together
RPC_GRACE_S = 1.0  # for in-flight RPCs before the server cancels them (streams too)
RULES_POOLS = POOLS
# bot pool -> the rules pool whose games it plays (None: every game). Each worker talks to
# one rules endpoint (--rules), so each dedicated rules pool has its bot pool; the bot
# pool's name is its consumer group on the feed (docs/matchmaking.md, "Seats that go quiet").
BOT_POOLS: dict[str, str | None] = {
    "bots": None,
    "bots-fallen": "rules-fallen",
    "bots-worlds": "rules-worlds",
    "bots-land": "rules-land",
    "bots-land-epic": "rules-land-epic",
}
SINGLE_SERVICES = ("dice", "deck", *RULES_POOLS, "relay", "projections", "matchmaking", *BOT_POOLS)


def bot_pool(service: str) -> tuple[PoolSpec | None, str]:
    """Return what a bot pool plays (its rules pool's spec, None = every game) and its
    consumer group on the feed (the pool's name); KeyError for an unknown pool."""
    rules = BOT_POOLS[service]
    return (POOLS[rules] if rules else None), service


@dataclass
class Backend:
    """A running server and what it owns (store, channels, background tasks)."""

    running: Running
    store: EventStore
    channels: list[grpc.aio.Channel | Reconnecting] = field(default_factory=list)
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    matchmaker: Any = None  # the Matchmaker when this server runs matchmaking

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
) -> Backend:
    """Start serving one service (or all) on address; return the running backend.

    pools maps rules pools to endpoints for the matchmaker ('pool=host:port,...'); serving
    all, every pool not named is this server itself. echo adds the unauthenticated
    EchoService, the benchmark's raw-gRPC baseline; only ``fallenctl bench`` asks for it,
    so a served backend never exposes it. deck_addr: a rules pool alone deals through the
    deck service there (gRPC, services/deck/client.py); without it, it deals in-process
    over the shared store. Serving all, the runner always deals in-process.
    """
    channels: list[grpc.aio.Channel | Reconnecting] = []
    mounts: list[Mount] = [echo_mount()] if echo else []
    runner: GameRunner | None = None
    if service == ALL:
        dice = DiceEngine(store)
        runner = GameRunner(store, dice, extra_games)
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
            runner = GameRunner(store, remote, extra_games, only=RULES_POOLS[service], deck=deck)
            mounts.append(rules_mount(runner))
    else:
        raise ValueError(f"unknown service {service!r}; choose all or one of {SINGLE_SERVICES}")
    if runner is not None:
        from services.rules.sweeper import ChanceSweeper

        background = [*(background or []), ChanceSweeper(runner).run_forever]
    if service in (ALL, "projections"):
        from services.projections.wiring import projections

        proj_mount, proj_job = projections(store, extra_games)
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
    if mm_pools is not None and "*" not in mm_pools.endpoints and service == ALL:
        mm_pools.endpoints["*"] = f"127.0.0.1:{running.port}"
    tasks = [asyncio.create_task(job()) for job in background or []]
    log.info("serving", extra={"service": service, "address": address, "port": running.port})
    return Backend(running=running, store=store, channels=channels, tasks=tasks, matchmaker=mm)
