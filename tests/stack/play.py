"""Bot games that survive a lost server: every RPC retried on another replica, acks recorded."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
from fallen.projections.v1 import projections_pb2
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.bots.driver import MAX_TURNS, _md
from services.bots.policies import Policy, Turn, parse_choices
from services.kernel.grpcx.structs import struct_to_py, to_struct

Metadata = tuple[tuple[str, str], ...]
RETRYABLE = {
    grpc.StatusCode.UNAVAILABLE,
    grpc.StatusCode.DEADLINE_EXCEEDED,
    grpc.StatusCode.CANCELLED,
}
RPC_TIMEOUT_S = 10.0
GIVE_UP_S = 120.0
VIEW_EVERY = 25  # the random policy picks from the legal commands; views are sampled
CHANCE_WAIT_S = 30.0  # a game left waiting for chance by a crash must be resumed by then


@dataclass
class Replicas:
    """Stubs for every replica of a service; a failed call moves on to the next."""

    endpoints: list[str]
    stub: Any = rules_pb2_grpc.RulesServiceStub
    retries: int = 0
    channels: list[grpc.aio.Channel] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.channels = [grpc.aio.insecure_channel(e) for e in self.endpoints]
        self.stubs = [self.stub(c) for c in self.channels]

    async def call(self, first: int, method: str, request: Any, metadata: Metadata) -> Any:
        """Call method on replica `first`, then on the others in turn while none answers."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + GIVE_UP_S
        i = first
        while True:
            rpc = getattr(self.stubs[i % len(self.stubs)], method)
            try:
                return await rpc(request, metadata=metadata, timeout=RPC_TIMEOUT_S)
            except grpc.aio.AioRpcError as err:
                if err.code() not in RETRYABLE or loop.time() > deadline:
                    raise
            self.retries += 1
            i += 1
            await asyncio.sleep(0.2)

    async def close(self) -> None:
        """Close every channel."""
        for channel in self.channels:
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
    """Poll a game waiting for no player (chance); return seconds waited, None if it stays."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while loop.time() - start < CHANCE_WAIT_S:
        await asyncio.sleep(0.5)
        summary = await replicas.call(first, "GetGame", get, host)
        if summary.ended or summary.waiting_for in meta:
            return loop.time() - start
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


async def play(
    replicas: Replicas,
    views: Replicas,
    first: int,
    game: str,
    game_id: str,
    seats: Mapping[str, str],
    policies: Mapping[str, Policy],
    acks: list[Ack],
) -> dict[str, Any]:
    """Create game_id and play it to the end through the replicas; return its summary."""
    meta = {seat: _md(player) for seat, player in seats.items()}
    host = next(iter(meta.values()))
    create = rules_pb2.CreateGameRequest(
        game=game,
        game_id=game_id,
        seats=dict(seats),
        options=to_struct(dict(GAME_OPTIONS.get(game, {}))),
        client_seed=game_id,
    )
    try:
        await replicas.call(first, "CreateGame", create, host)
    except grpc.aio.AioRpcError as err:  # a retried create that had landed
        if err.code() == grpc.StatusCode.INVALID_ARGUMENT:
            raise CreateRefused(str(err.details())) from err
        if err.code() != grpc.StatusCode.ALREADY_EXISTS:
            raise
    turns, view = 0, {}
    for _ in range(MAX_TURNS):
        get = rules_pb2.GetGameRequest(game_id=game_id)
        summary = await replicas.call(first, "GetGame", get, host)
        if summary.ended:
            return {"game_id": game_id, "version": summary.version,
                    "outcome": struct_to_py(summary.outcome)}  # fmt: skip
        seat = summary.waiting_for
        if seat not in meta:  # chance (answered by the server, also after a crash)
            waited = await wait_for_players(replicas, first, get, host, meta)
            if waited is None:  # the caller reports it (and fails) with the figures
                return {"game_id": game_id, "version": summary.version, "stalled": seat}
            continue
        legal_req = rules_pb2.ListLegalCommandsRequest(game_id=game_id, seat=seat)
        legal = await replicas.call(
            first,
            "ListLegalCommands",
            legal_req,
            meta[seat],
        )
        choices = parse_choices(legal.commands)
        if not choices:
            raise AssertionError(f"game {game_id}: seat {seat!r} must act but has no legal command")
        if turns % VIEW_EVERY == 0:  # the read side, sampled: it waits for the faust workers
            view = await read_view(views, first, game_id, seat, legal.version, meta[seat])
        turns += 1
        turn = Turn(game, game_id, seat, legal.version, view, choices, game_id)
        pick = choices[policies[seat](turn)]
        command_id = f"bot-{seat}-{legal.version}"
        submit = rules_pb2.SubmitCommandRequest(
            game_id=game_id, seat=seat, kind=pick.kind, args=to_struct(pick.args),
            command_id=command_id, expected_version=legal.version,
        )  # fmt: skip
        try:
            resp = await replicas.call(first, "SubmitCommand", submit, meta[seat])
        except grpc.aio.AioRpcError as err:  # another attempt of ours landed first
            if err.code() != grpc.StatusCode.ABORTED:
                raise
            continue
        acks.append(Ack(game_id, command_id, resp.version))
    raise AssertionError(f"game {game_id} did not end within {MAX_TURNS} turns")
