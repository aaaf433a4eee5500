"""Bot games that survive a lost server: every RPC retried on another replica, acks recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
from fallen.matchmaking.v1 import matchmaking_pb2
from fallen.projections.v1 import projections_pb2
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.driver import MAX_TURNS, _md
from services.bots.policies import Policy, Turn, parse_choices
from services.bots.worker import BOT_PLAYER_PREFIX
from services.platform.grpcx.structs import struct_to_py, to_struct

Metadata = tuple[tuple[str, str], ...]
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
}
RPC_TIMEOUT_S = 10.0
GIVE_UP_S = 120.0
VIEW_EVERY = 25  # the random policy picks from the legal commands; views are sampled
STALL_S = 45.0  # a game waiting for chance or a bot must move again by then, also after a crash


@dataclass
class Replicas:
    """Stubs for every replica of a service; a failed call moves on to the next.

    A caller names the replica it prefers (`first`); after a failover its calls stay on
    the replica that answered, as a client's channel would, instead of trying the dead one
    first every time. `repoint` swaps in new addresses (a restarted container publishes
    its port on a new host port).
    """

    endpoints: list[str]
    stub: Any = rules_pb2_grpc.RulesServiceStub
    interceptors: list[Any] = field(default_factory=list)  # e.g. PoolRouting (the door)
    retries: int = 0
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    stale: list[grpc.aio.Channel] = field(default_factory=list)
    at: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.channels = [
            grpc.aio.insecure_channel(e, interceptors=self.interceptors or None)
            for e in self.endpoints
        ]
        self.stubs = [self.stub(c) for c in self.channels]

    def repoint(self, endpoints: list[str]) -> None:
        """Use these addresses from now on (calls in flight finish on the old channels)."""
        if sorted(endpoints) == sorted(self.endpoints):
            return
        self.stale += self.channels
        self.endpoints = list(endpoints)
        self.__post_init__()

    async def call(self, first: int, method: str, request: Any, metadata: Metadata) -> Any:
        """Call method on the caller's replica, then on the others in turn while none answers."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GIVE_UP_S
        i = self.at.get(first, first)
        while True:
            stubs = self.stubs
            rpc = getattr(stubs[i % len(stubs)], method)
            try:
                reply = await rpc(request, metadata=metadata, timeout=RPC_TIMEOUT_S)
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRYABLE or loop.time() > deadline:
                    raise
            else:
                self.at[first] = i % len(stubs)
                return reply
            self.retries += 1
            i += 1
            await asyncio.sleep(0.2)

    async def close(self) -> None:
        """Close every channel."""
        for channel in [*self.channels, *self.stale]:
            await channel.close()


async def served_games(replicas: Replicas) -> dict[str, list[str]]:
    """Return game -> seats that a rules service serves (ListGames)."""
    req = rules_pb2.ListGamesRequest()
    out = await replicas.call(0, "ListGames", req, _md("stack-test"))
    return {k.game: list(k.seats) for k in out.games}


async def read_view(
    views: Replicas, first: int, game_id: str, seat: str, version: int, md: Metadata
) -> dict[str, Any]:
    """Return a seat's view at >= version from the read side (NOT_FOUND = not there yet)."""
    req = projections_pb2.GetViewRequest(
        game_id=game_id, seat=seat, min_version=version, wait_ms=5_000
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GIVE_UP_S
    while True:
        try:
            return struct_to_py((await views.call(first, "GetView", req, md)).view)
        except grpc.aio.AioRpcError as err:
            if err.code() != grpc.StatusCode.NOT_FOUND or loop.time() > deadline:
                raise
        views.retries += 1


async def wait_for_players(
    replicas: Replicas, first: int, get: Any, host: Metadata, meta: Mapping[str, Metadata]
) -> float | None:
    """Poll a game while none of our seats must act (chance, or a seat the bots pool plays);
    return seconds waited, None if it made no progress (no new event) for STALL_S."""
    loop = asyncio.get_running_loop()
    start = moved = loop.time()
    version = -1
    while loop.time() - moved < STALL_S:
        await asyncio.sleep(0.25)
        summary = await replicas.call(first, "GetGame", get, host)
        if summary.ended or summary.waiting_for in meta:
            return loop.time() - start
        if summary.version != version:
            version, moved = summary.version, loop.time()
    return None


# Short games where a game has an option for it, so a stack run plays each kind to its end
# in seconds (Fallen Land: the short game, one turn, as its playouts do).
GAME_OPTIONS: dict[str, dict[str, Any]] = {"land": {"short_game": True, "max_turns": 1}}


class CreateRefused(Exception):
    """CreateGame answered INVALID_ARGUMENT: the game (seats, options) was refused."""

    def __init__(self, details: str) -> None:
        super().__init__(details)
        self.details = details


@dataclass(frozen=True)
class Ack:
    """A SubmitCommand the server answered OK: its command id and the version it reported."""

    game_id: str
    command_id: str
    version: int


def split_seats(seats: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """Return the seats the test plays (seat -> player) and the seats the bots pool plays."""
    humans = {s: p for s, p in seats.items() if not p.startswith(BOT_PLAYER_PREFIX)}
    return humans, [s for s in seats if s not in humans]


async def create(
    replicas: Replicas, first: int, game: str, game_id: str, seats: Mapping[str, str]
) -> None:
    """Create game_id (seats with a `bot:` player are played by the game's bots pool)."""
    humans, _ = split_seats(seats)
    host = _md(next(iter(humans.values())))
    request = rules_pb2.CreateGameRequest(
        game=game,
        game_id=game_id,
        seats=dict(seats),
        options=to_struct(dict(GAME_OPTIONS.get(game, {}))),
        client_seed=game_id,
    )
    try:
        await replicas.call(first, "CreateGame", request, host)
    except grpc.aio.AioRpcError as err:  # a retried create that had landed
        if err.code() == grpc.StatusCode.INVALID_ARGUMENT:
            raise CreateRefused(str(err.details())) from err
        if err.code() != grpc.StatusCode.ALREADY_EXISTS:
            raise


async def matched(mm: Replicas, first: int, game: str, mode: str, player: str) -> Any:
    """Queue a player through matchmaking (an instant mode) and return its MatchFound."""
    md = _md(player)
    enqueue = matchmaking_pb2.EnqueueRequest(game=game, mode=mode)
    ticket = (await mm.call(first, "Enqueue", enqueue, md)).ticket
    loop = asyncio.get_running_loop()
    deadline = loop.time() + GIVE_UP_S
    get = matchmaking_pb2.GetTicketRequest(ticket_id=ticket.ticket_id)
    while ticket.state != matchmaking_pb2.TICKET_STATE_MATCHED:
        if ticket.state != matchmaking_pb2.TICKET_STATE_QUEUED or loop.time() > deadline:
            raise AssertionError(f"{game}/{mode} ticket of {player}: {ticket}")
        await asyncio.sleep(0.25)
        ticket = (await mm.call(first, "GetTicket", get, md)).ticket
    return ticket.match


async def play(
    replicas: Replicas,
    views: Replicas,
    first: int,
    game: str,
    game_id: str,
    seats: Mapping[str, str],
    policies: Mapping[str, Policy],
    acks: list[Ack],
    created: bool = False,
) -> dict[str, Any]:
    """Create game_id (unless created) and play it to the end through the replicas; return
    its summary. The test plays every seat but those of `bot:` players (its bots pool's).

    As a client does (docs/clients.md): a seat acts on the turn SubmitCommand's answer names
    (`next_turn`: the seat and, for the caller's own seat, its legal commands), and asks
    GetGame / ListLegalCommands only when the answer does not say (another player's seat,
    chance or a bot to wait for, a deduplicated retry, a lost race)."""
    if not created:
        await create(replicas, first, game, game_id, seats)
    humans, bots = split_seats(seats)
    meta = {seat: _md(player) for seat, player in humans.items()}
    host = next(iter(meta.values()))
    get = rules_pb2.GetGameRequest(game_id=game_id)
    turns, view = 0, {}
    seat, version, commands = "", -1, []  # the turn known from the last answer ("": ask)
    for _ in range(MAX_TURNS):
        if not seat:
            summary = await replicas.call(first, "GetGame", get, host)
            if summary.ended:
                return {"game_id": game_id, "version": summary.version, "bots": bots,
                        "outcome": struct_to_py(summary.outcome)}  # fmt: skip
            seat, version, commands = summary.waiting_for, summary.version, []
        if seat not in meta:  # chance or a bot (answered by the servers, also after a crash)
            waited = await wait_for_players(replicas, first, get, host, meta)
            if waited is None:  # the caller reports it (and fails) with the figures
                return {"game_id": game_id, "version": version, "stalled": seat}
            seat = ""
            continue
        if not commands:
            legal_req = rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat)
            legal = await replicas.call(first, "ListLegalCommands", legal_req, meta[seat])
            if legal.waiting_for != seat:  # the game moved on (a retry of ours had landed)
                seat = ""
                continue
            commands, version = list(legal.commands), legal.version
        choices = parse_choices(commands)
        if not choices:
            raise AssertionError(f"game {game_id}: seat {seat!r} must act but has no legal command")
        if turns % VIEW_EVERY == 0:  # the read side, sampled: it waits for the faust workers
            view = await read_view(views, first, game_id, seat, version, meta[seat])
        turns += 1
        turn = Turn(game, game_id, seat, version, view, choices, game_id)
        pick = choices[policies[seat](turn)]
        command_id = f"bot-{seat}-{version}"
        submit = rules_pb2.SubmitCommandRequest(
            game_id=game_id, seat=seat, kind=pick.kind, args=to_struct(pick.args),
            command_id=command_id, expected_version=version,
        )  # fmt: skip
        try:
            resp = await replicas.call(first, "SubmitCommand", submit, meta[seat])
        except grpc.aio.AioRpcError as err:  # another attempt of ours landed first
            if err.code() != grpc.StatusCode.ABORTED:
                raise
            seat = ""
            continue
        acks.append(Ack(game_id, command_id, resp.version))
        seat, version, commands = "", resp.version, []
        if not resp.ended and resp.HasField("next_turn"):  # unset on a deduplicated retry
            seat, commands = resp.next_turn.waiting_for, list(resp.next_turn.commands)
    raise AssertionError(f"game {game_id} did not end within {MAX_TURNS} turns")
