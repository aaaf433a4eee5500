"""DicePort over gRPC, for services that run apart from the dice service."""

from __future__ import annotations

import grpc
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.dice.kinds import catalog
from services.dice.port import Permutation, Roll, RolledDie
from services.kernel.grpcx.client import ServiceCredentials, raise_domain_error


class GrpcDice:
    """Calls a remote DiceService with a service token."""

    def __init__(self, channel: grpc.aio.Channel, creds: ServiceCredentials) -> None:
        self.stub = dice_pb2_grpc.DiceServiceStub(channel)
        self.creds = creds

    async def commit_seed(self, game_id: str, client_seed: str = "") -> str:
        """Commit a game's seed; return the commitment."""
        try:
            resp = await self.stub.CommitSeed(
                dice_pb2.CommitSeedRequest(game_id=game_id, client_seed=client_seed),
                metadata=self.creds.metadata(),
            )
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)
        return str(resp.commitment)

    async def roll(
        self,
        game_id: str,
        purpose: str,
        dice: list[str],
        visible_to: list[str] | None = None,
        key: str = "",
    ) -> Roll:
        """Roll dice remotely."""
        try:
            resp = await self.stub.Roll(
                dice_pb2.RollRequest(
                    game_id=game_id,
                    purpose=purpose,
                    dice=dice,
                    visible_to=visible_to or [],
                    key=key,
                ),
                metadata=self.creds.metadata(),
            )
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)
        cat = catalog()
        results = tuple(
            RolledDie(d.kind, cat.faces.get(d.kind, ()), d.index, d.face) for d in resp.results
        )
        return Roll(resp.nonce, results, resp.version)

    async def shuffle(self, game_id: str, purpose: str, count: int, key: str = "") -> Permutation:
        """Draw a permutation remotely."""
        try:
            resp = await self.stub.Shuffle(
                dice_pb2.ShuffleRequest(game_id=game_id, purpose=purpose, count=count, key=key),
                metadata=self.creds.metadata(),
            )
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)
        return Permutation(resp.nonce, tuple(resp.order))

    async def reveal(self, game_id: str) -> str:
        """Reveal an ended game's seed; return it in hex."""
        try:
            resp = await self.stub.Reveal(
                dice_pb2.RevealRequest(game_id=game_id), metadata=self.creds.metadata()
            )
        except grpc.aio.AioRpcError as err:
            raise_domain_error(err)
        return str(resp.server_seed)
