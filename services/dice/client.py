"""DicePort over gRPC, for services that run apart from the dice service.

A call that meets UNAVAILABLE or DEADLINE_EXCEEDED is retried (services.platform.grpcx.client
.call) when repeating it is safe: committing and revealing a seed (the same answer when
repeated), and a roll or shuffle that carries its decision key (drawn once per key).
"""

from __future__ import annotations

import grpc
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.dice.kinds import catalog
from services.dice.port import Permutation, Roll, RolledDie
from services.platform.grpcx.client import Reconnecting, Retry, ServiceCredentials, Stubs, call


class GrpcDice:
    """Calls a remote DiceService with a service token."""

    def __init__(
        self,
        channel: grpc.aio.Channel | Reconnecting,
        creds: ServiceCredentials,
        retry: Retry | None = None,
    ) -> None:
        self.stubs = Stubs(channel, dice_pb2_grpc.DiceServiceStub)
        self.creds = creds
        self.retry = retry or Retry()

    async def commit_seed(
        self,
        game_id: str,
        client_seed: str = "",
        seats: tuple[str, ...] = (),
        bots: tuple[str, ...] = (),
        seeds: dict[str, str] | None = None,
    ) -> str:
        """Commit a game's seed; return the commitment."""
        msg = dice_pb2.CommitSeedRequest(
            game_id=game_id,
            client_seed=client_seed,
            seats=list(seats),
            bot_seats=list(bots),
            seat_seeds=seeds or {},
        )

        async def once(timeout: float) -> dice_pb2.CommitSeedResponse:
            return await self.stubs.get().CommitSeed(
                msg, metadata=self.creds.metadata(), timeout=timeout
            )

        return str((await call(once, self.retry, reconnect=self.stubs.reconnect())).commitment)

    async def roll(
        self,
        game_id: str,
        purpose: str,
        dice: list[str],
        visible_to: list[str] | None = None,
        key: str = "",
    ) -> Roll:
        """Roll dice remotely."""
        msg = dice_pb2.RollRequest(
            game_id=game_id, purpose=purpose, dice=dice, visible_to=visible_to or [], key=key
        )

        async def once(timeout: float) -> dice_pb2.RollResponse:
            return await self.stubs.get().Roll(msg, metadata=self.creds.metadata(), timeout=timeout)

        resp = await call(once, self.retry, idempotent=bool(key), reconnect=self.stubs.reconnect())
        cat = catalog()
        results = tuple(
            RolledDie(d.kind, cat.faces.get(d.kind, ()), d.index, d.face) for d in resp.results
        )
        return Roll(resp.nonce, results, resp.version)

    async def shuffle(self, game_id: str, purpose: str, count: int, key: str = "") -> Permutation:
        """Draw a permutation remotely."""
        msg = dice_pb2.ShuffleRequest(game_id=game_id, purpose=purpose, count=count, key=key)

        async def once(timeout: float) -> dice_pb2.ShuffleResponse:
            return await self.stubs.get().Shuffle(
                msg, metadata=self.creds.metadata(), timeout=timeout
            )

        resp = await call(once, self.retry, idempotent=bool(key), reconnect=self.stubs.reconnect())
        return Permutation(resp.nonce, tuple(resp.order))

    async def reveal(self, game_id: str) -> str:
        """Reveal an ended game's seed; return it in hex."""
        msg = dice_pb2.RevealRequest(game_id=game_id)

        async def once(timeout: float) -> dice_pb2.RevealResponse:
            return await self.stubs.get().Reveal(
                msg, metadata=self.creds.metadata(), timeout=timeout
            )

        return str((await call(once, self.retry, reconnect=self.stubs.reconnect())).server_seed)
