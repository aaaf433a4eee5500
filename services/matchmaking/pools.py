"""The matchmaker's side of the rules API: one adapter per call, routed by pool name.

Only this module builds rules requests, so a change of the rules protos is a change here
alone.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import grpc
from fallen.rules.v1 import rules_pb2, rules_pb2_grpc

from services.platform.errors import RuleViolation
from services.platform.grpcx.client import (
    ServiceCredentials,
    internal_channel,
    raise_domain_error,
)
from services.platform.grpcx.structs import to_struct

SERVICE = "matchmaking"
REFUSALS_KEPT_S = 2.0  # how long a pool's answer on bot seats is reused


def parse_pools(text: str) -> dict[str, str]:
    """Return pool -> endpoint from 'pool=host:port,...' ('*' is the default endpoint)."""
    out = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, addr = part.partition("=")
        if not sep or not name or not addr:
            raise ValueError(f"pool endpoint {part!r} must read pool=host:port")
        out[name.strip()] = addr.strip()
    return out


@dataclass(frozen=True)
class GameSummary:
    """What the timer needs of a game: version, whose turn, seats and their status."""

    version: int
    ended: bool
    waiting_for: str
    seats: Mapping[str, str]
    seat_status: Mapping[str, str]


class Pools:
    """gRPC stubs of the rules pools, with a service token on every call."""

    def __init__(self, endpoints: Mapping[str, str]) -> None:
        self.endpoints = dict(endpoints)
        self.creds = ServiceCredentials(SERVICE)
        self._stubs: dict[str, rules_pb2_grpc.RulesServiceStub] = {}
        self._channels: list[grpc.aio.Channel] = []
        self._refusals: dict[str, tuple[float, dict[str, str]]] = {}

    def endpoint(self, pool: str) -> str:
        """Return the address of a pool (or the default '*'); raise when none is configured."""
        addr = self.endpoints.get(pool) or self.endpoints.get("*")
        if not addr:
            raise RuleViolation(f"no endpoint is configured for pool {pool!r}")
        return addr

    async def bot_refusal(self, endpoint: str, game: str) -> str:
        """Return why the pool at endpoint cannot take bot seats of a game ("" = it can),
        from its ListGames (kept for REFUSALS_KEPT_S)."""
        now = time.monotonic()
        kept = self._refusals.get(endpoint)
        if kept is None or now - kept[0] >= REFUSALS_KEPT_S:
            try:
                res = await self.stub(endpoint).ListGames(
                    rules_pb2.ListGamesRequest(), metadata=self.creds.metadata()
                )
            except grpc.aio.AioRpcError as err:
                raise_domain_error(err)
            kept = (now, {k.game: k.bot_seats_refused for k in res.games})
            self._refusals[endpoint] = kept
        return kept[1].get(game, f"the pool at {endpoint} does not serve {game}")

    def stub(self, endpoint: str) -> rules_pb2_grpc.RulesServiceStub:
        """Return a (cached) stub for an endpoint."""
        if endpoint not in self._stubs:
            channel = internal_channel(endpoint)  # round robin over the pool's replicas
            self._channels.append(channel)
            self._stubs[endpoint] = rules_pb2_grpc.RulesServiceStub(channel)
        return self._stubs[endpoint]

    async def create_game(
        self,
        endpoint: str,
        game: str,
        game_id: str,
        seats: Mapping[str, str],
        options: Mapping[str, Any],
        seeds: Mapping[str, str] | None = None,
    ) -> str:
        """Create a game on a pool with the players' client seeds; return its dice commitment."""
        req = rules_pb2.CreateGameRequest(
            game=game,
            game_id=game_id,
            seats=dict(seats),
            options=to_struct(options),
            client_seeds=dict(seeds or {}),
        )
        try:
            res = await self.stub(endpoint).CreateGame(req, metadata=self.creds.metadata())
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)
        return str(res.dice_commitment)

    async def summary(self, endpoint: str, game_id: str) -> GameSummary:
        """Return a game's version, turn and seat status."""
        req = rules_pb2.GetGameRequest(game_id=game_id)
        try:
            res = await self.stub(endpoint).GetGame(req, metadata=self.creds.metadata())
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)
        return GameSummary(
            res.version, res.ended, res.waiting_for, dict(res.seats), dict(res.seat_status)
        )

    async def record_seat(
        self, endpoint: str, game_id: str, seat: str, kind: str, expected: int
    ) -> None:
        """Append a seat fact at an expected version."""
        req = rules_pb2.RecordSeatEventRequest(
            game_id=game_id, seat=seat, kind=kind, expected_version=expected
        )
        try:
            await self.stub(endpoint).RecordSeatEvent(req, metadata=self.creds.metadata())
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)

    async def close(self) -> None:
        """Close every channel."""
        for ch in self._channels:
            await ch.close()
