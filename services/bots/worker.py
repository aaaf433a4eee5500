"""The bot worker pool: workers learn from the event feed that a bot seat must act, and act.

Each worker is one consumer of a Redis consumer group on the store's global feed (every
shard). A bot seat is one GameCreated names in its options (`bots`) or seats with a
`bot:` player (the matchmaker's bot-filled seats); a seat the matchmaker's turn timer took
over (`SeatTakenOver`, until `SeatReclaimed`) is played the same way. For an event of such
a game the worker asks the rules service (gRPC, as any client) whose turn it is; if a bot seat must
act it picks a move with the game's bot policy and submits it. N workers share the feed;
an entry is acknowledged only after its move is submitted, and entries a dead worker
never acknowledged are claimed by the others after `claim_idle_ms`, so a killed worker
loses no game. Moves are idempotent: the command id is
`bot:<policy>@<version>:<seed>:<seat>:<game version>`, the same for every worker, so a
move made twice is deduplicated by the rules service, and the bot's policy, version and
seed are in the game log (each event's causation id) for a disputed game to replay. The
search policy works to a time budget (`FALLEN_BOT_SEARCH_MS`) and appends `:r<rollouts>`,
the rollouts it made: the same seed with that many rollouts picks the same move again.

Scaling (docs/decisions.md, "Bot pool"): only the worker holding a game's newest event
moves for it (an older entry is acknowledged without a move or an RPC: the game's version
is read from the store), so two workers never compute the same move; and a worker
handles the games of a batch concurrently, so it never waits for one game's RPCs while
others are ready.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
from fallen.projections.v1 import projections_pb2, projections_pb2_grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.feeds import BLOCK_MS, CLAIM_IDLE_MS, BotFeed, Entry, RedisGroupFeed, StoreFeed
from services.bots.policies import Policy, Turn, parse_choices, policy_for, reads_view
from services.platform.auth import issue_token
from services.platform.envelope import Envelope
from services.platform.games import (
    GAME_CREATED,
    GAME_ENDED,
    SEAT_RECLAIMED,
    SEAT_TAKEN_OVER,
    game_info,
)
from services.platform.grpcx.affinity import AffinityChannels
from services.platform.grpcx.client import internal_channel
from services.platform.grpcx.structs import struct_to_py, to_struct
from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore
from services.rules.pools import PoolSpec, admits

log = logging.getLogger("fallen.bots")

BOT_VERSION = "1"
GROUP = "bots"
CONCURRENT_GAMES = 16
DECISIONS_KEPT = 1000
RETRYABLE = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
BOT_PLAYER_PREFIX = "bot:"  # player ids the matchmaker gives the seats it fills with bots
CONFIG_EVENTS = (GAME_CREATED, SEAT_TAKEN_OVER, SEAT_RECLAIMED)  # read even when not last
TAKEN_OVER = "taken_over"  # GetGame seat_status of a seat the turn timer handed to a bot


@dataclass(frozen=True)
class BotGame:
    """A game's bot seats, the policy name and the bot seed (from GameCreated options);
    `per_seat` names another policy for some bot seats (option `bot_policies`)."""

    game: str
    seats: tuple[str, ...]
    policy: str
    seed: str
    per_seat: Mapping[str, str] = field(default_factory=dict)
    seat_count: int = 0  # seats of the game (0 = not known): which rules pool serves it

    def policy_of(self, seat: str) -> str:
        """The policy playing a bot seat."""
        return self.per_seat.get(seat, self.policy)


@dataclass(frozen=True)
class Decision:
    """One bot move and what it cost by the bot's own clock (search policies only)."""

    game_id: str
    seat: str
    version: int
    policy: str
    budget_ms: float
    spent_ms: float
    rollouts: int


def bot_game(created: Mapping[str, Any], game_id: str) -> BotGame:
    """Read the bot settings of a game from its GameCreated payload (seats () = none yet).

    Bot seats are those the options list (`bots`) and those seated with a `bot:` player.
    """
    options = created.get("options") or {}
    bots = [str(s) for s in options.get("bots") or []]
    seated = created.get("seats") or {}
    bots += [s for s, p in seated.items() if str(p).startswith(BOT_PLAYER_PREFIX) and s not in bots]
    seed = str(options.get("bot_seed") or hashlib.sha256(game_id.encode()).hexdigest()[:16])
    per_seat = options.get("bot_policies") or {}
    return BotGame(
        str(created.get("game", "")),
        tuple(bots),
        str(options.get("bot_policy", "random")),
        seed,
        {str(k): str(v) for k, v in per_seat.items()} if isinstance(per_seat, Mapping) else {},
        len(seated) if isinstance(seated, Mapping) else 0,
    )


def taken_after(taken: frozenset[str], event_type: str, data: Mapping[str, Any]) -> frozenset[str]:
    """Return the seats played for a player after one event (taken over until reclaimed)."""
    seat = str(data.get("seat", ""))
    if event_type == SEAT_TAKEN_OVER and seat:
        return taken | {seat}
    if event_type == SEAT_RECLAIMED:
        return taken - {seat}
    return taken


def in_pool(pool: PoolSpec | None, bot: BotGame) -> bool:
    """Whether a bot pool limited to `pool` plays this game (its rules endpoint serves that
    game kind and seat count; None plays every game)."""
    return admits(pool, bot.game, bot.seat_count or None)


def command_id(bot: BotGame, seat: str, version: int, rollouts: int | None = None) -> str:
    """The move's id: the same on every worker, and it names policy, version and seed (and,
    for a search, the rollouts it made)."""
    base = f"bot:{bot.policy_of(seat)}@{BOT_VERSION}:{bot.seed}:{seat}:{version}"
    return base if rollouts is None else f"{base}:r{rollouts}"


def search_budget_ms() -> float:
    """The search policy's time per decision, from the pool's config (FALLEN_BOT_SEARCH_MS)."""
    raw = os.environ.get("FALLEN_BOT_SEARCH_MS", "200")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"FALLEN_BOT_SEARCH_MS must be a number of ms, not {raw[:20]!r}") from None
    if not 1 <= value <= 60_000:
        raise ValueError("FALLEN_BOT_SEARCH_MS must be between 1 and 60000")
    return value


class BotWorker:
    """One worker of the pool (run several, in one process or many).

    `games` limits the pool to some game kinds (its group is then `bots-<games>`, so each
    pool sees every entry once); empty serves every game. `pool` limits it the way a rules
    pool is limited (services/rules/pools.py: game kinds and seat counts, so a Land pool
    talking to rules-land leaves the 6-seat Epic games to the one talking to
    rules-land-epic); give each such pool its own `group`.
    """

    def __init__(
        self,
        redis_url: str,
        rules_target: str,
        prefix: str = "fallen",
        shards: int = 1,
        consumer: str = "",
        claim_idle_ms: int = CLAIM_IDLE_MS,
        policies: Callable[[str, str], Policy] = policy_for,
        games: tuple[str, ...] = (),
        views_target: str = "",
        search_ms: float | None = None,
        pool: PoolSpec | None = None,
        group: str = "",
        feed: BotFeed | None = None,
        store: EventStore | None = None,
    ) -> None:
        self.consumer = consumer or f"bot-{uuid.uuid4().hex[:8]}"
        self.policies = policies
        self.games = games
        self.pool: PoolSpec | None = (
            pool if pool is not None else (dict.fromkeys(games) if games else None)
        )
        self.group = group or (f"{GROUP}-{'-'.join(games)}" if games else GROUP)
        self.moves = 0
        self.feed: BotFeed = feed or RedisGroupFeed(
            redis_url, prefix, shards, self.group, self.consumer, claim_idle_ms
        )
        self._owns_store = store is None
        self._store: EventStore = store or RedisEventStore(redis_url, shards=shards, prefix=prefix)
        # each game's calls go to one replica of the rules pool (its cache stays warm)
        self._rules = AffinityChannels(rules_target, rules_pb2_grpc.RulesServiceStub)
        self._views_channel = internal_channel(views_target or rules_target)
        self._views = projections_pb2_grpc.ProjectionServiceStub(self._views_channel)
        token = issue_token("bots", service=True)
        self._md = (("authorization", f"Bearer {token}"),)
        self._games: dict[str, BotGame] = {}
        self._taken: dict[str, frozenset[str]] = {}  # game id -> seats taken over
        self.search_ms = search_budget_ms() if search_ms is None else search_ms
        self._policies: dict[tuple[str, str], Policy] = {}
        self.decisions: deque[Decision] = deque(maxlen=DECISIONS_KEPT)
        self.skipped = 0  # entries older than their game's newest event: no move
        self._slots = asyncio.Semaphore(CONCURRENT_GAMES)

    @classmethod
    def in_process(cls, store: EventStore, target: str, **kwargs: Any) -> BotWorker:
        """A worker of the embedded server: the store's own feed, rules and views at target."""
        return cls("", target, feed=StoreFeed(store), store=store, **kwargs)

    def policy(self, game: str, name: str) -> Policy:
        """This worker's policy object (a search gets the pool's time budget)."""
        key = (game, name)
        if key not in self._policies:
            chosen = self.policies(game, name)
            make = getattr(chosen, "with_budget", None)
            self._policies[key] = make(self.search_ms) if make else chosen
        return self._policies[key]

    async def _config(self, env: Envelope) -> tuple[str, BotGame]:
        game_id = env.stream.removeprefix("game-")
        if env.type == GAME_CREATED:
            self._games[game_id] = bot_game(env.data, game_id)
            self._taken[game_id] = frozenset()
        elif game_id not in self._games:  # first seen mid-game (a restarted worker, or
            # the pool's other worker got the GameCreated entry)
            self._games[game_id] = bot_game(await game_info(self._store, game_id), game_id)
            self._taken[game_id] = frozenset()
            if in_pool(self.pool, self._games[game_id]):  # another pool's rules refuse it
                summary = await self._rules.stub(game_id).GetGame(
                    rules_pb2.GetGameRequest(game_id=game_id), metadata=self._md
                )
                self._taken[game_id] = frozenset(
                    s for s, status in summary.seat_status.items() if status == TAKEN_OVER
                )
        taken = self._taken.get(game_id, frozenset())
        self._taken[game_id] = taken_after(taken, env.type, env.data)
        return game_id, self._games[game_id]

    async def act(self, game_id: str, bot: BotGame, seen: int = 0) -> bool:
        """Make the bot's move if a bot seat must act now; return whether one was submitted.

        seen is the version of the newest entry this worker holds for the game; when the
        game is further on (read from the store, no RPC), the worker holding that newer
        entry moves instead."""
        if seen and await self._store.version(f"game-{game_id}") > seen:
            self.skipped += 1
            return False
        stub = self._rules.stub(game_id)
        summary = await stub.GetGame(rules_pb2.GetGameRequest(game_id=game_id), metadata=self._md)
        seat = summary.waiting_for
        taken = frozenset(s for s, st in summary.seat_status.items() if st == TAKEN_OVER)
        self._taken[game_id] = taken
        if summary.ended or (seat not in bot.seats and seat not in taken):
            return False
        if seen and summary.version > seen:
            self.skipped += 1
            return False
        legal = await stub.ListLegalCommands(
            rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat), metadata=self._md
        )
        choices = parse_choices(legal.commands)
        if not choices:
            return False
        policy = self.policy(bot.game, bot.policy_of(seat))
        view: dict[str, Any] = {}
        if reads_view(policy):  # the seat's view at the legal commands' version
            reply = await self._views.GetView(
                projections_pb2.GetViewRequest(
                    game_id=game_id, seat=seat, min_version=legal.version, wait_ms=10_000
                ),
                metadata=self._md,
            )
            view = struct_to_py(reply.view)
        turn = Turn(bot.game, game_id, seat, legal.version, view, choices, bot.seed)
        decide = getattr(policy, "decide", None)
        if decide is not None:  # a search: off the event loop, with its accounting
            index, spent = await asyncio.to_thread(decide, turn)
        else:
            index, spent = policy(turn), None
        pick = choices[index]
        rollouts = None
        if spent is not None:
            rollouts = spent.rollouts
            self.decisions.append(
                Decision(
                    game_id,
                    seat,
                    legal.version,
                    bot.policy_of(seat),
                    spent.budget_ms,
                    spent.spent_ms,
                    spent.rollouts,
                )
            )
        try:
            await stub.SubmitCommand(
                rules_pb2.SubmitCommandRequest(
                    game_id=game_id,
                    seat=seat,
                    kind=pick.kind,
                    args=to_struct(pick.args),
                    command_id=command_id(bot, seat, legal.version, rollouts),
                    expected_version=legal.version,
                ),
                metadata=self._md,
            )
        except grpc.aio.AioRpcError as err:
            if err.code() not in RETRYABLE:
                raise
            return False  # another worker moved first; its events wake us again
        self.moves += 1
        return True

    async def handle(self, env: Envelope) -> None:
        """React to one feed entry (the newest this worker holds for its game)."""
        if not env.stream.startswith("game-"):
            return
        if env.type == GAME_ENDED:  # nothing more to play: forget the game
            game_id = env.stream.removeprefix("game-")
            self._games.pop(game_id, None)
            self._taken.pop(game_id, None)
            return
        game_id, bot = await self._config(env)
        plays = bot.seats or self._taken.get(game_id)
        if plays and in_pool(self.pool, bot):
            await self.act(game_id, bot, env.version)

    async def _game(self, group: list[Entry]) -> None:
        """Handle one game's entries of a batch, then acknowledge them (not on an RPC error:
        they are claimed again after claim_idle_ms)."""
        async with self._slots:
            try:
                for _, _, env in group[:-1]:
                    if env.type in CONFIG_EVENTS and env.stream.startswith("game-"):
                        await self._config(env)
                await self.handle(group[-1][2])
            except grpc.aio.AioRpcError as err:
                log.warning(
                    "bot move failed: %s", err.code().name, extra={"stream": group[-1][2].stream}
                )
                if err.code() == grpc.StatusCode.UNAVAILABLE:  # a replica went away
                    self._rules.refresh()
                await self.feed.nack(group)
                return
            await self.feed.ack(group)

    async def step(self) -> int:
        """Claim abandoned entries, read new ones, act, acknowledge; return entries handled.

        A command appends several events; the worker acts once per game per batch (on its
        last entry, every GameCreated and seat fact still read) and acknowledges all of
        that game's entries together after the move.
        """
        entries = await self.feed.claim() + await self.feed.read()
        by_game: dict[str, list[Entry]] = {}
        for entry in entries:
            by_game.setdefault(entry[2].stream, []).append(entry)
        for group in by_game.values():
            group.sort(key=lambda e: e[2].version)
        await asyncio.gather(*(self._game(g) for g in by_game.values()))
        return len(entries)

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Serve until stop is set (or the task is cancelled)."""
        stop = stop or asyncio.Event()
        await self.feed.start()
        while not stop.is_set():
            try:
                await self.step()
            except Exception:
                log.exception("bot worker step failed; retrying")
                await asyncio.sleep(BLOCK_MS / 1000)

    async def lag(self) -> int:
        """Entries of the feed not yet handled."""
        return await self.feed.lag()

    async def close(self) -> None:
        """Close connections."""
        with contextlib.suppress(Exception):
            await self._rules.close()
            await self._views_channel.close()
        await self.feed.close()
        if self._owns_store:
            await self._store.close()
