"""Thin gRPC adapter of the dice service."""

from __future__ import annotations

import grpc
from fallen.dice.v1 import dice_pb2, dice_pb2_grpc

from services.dice.engine import DiceEngine
from services.dice.kinds import catalog
from services.platform.auth import Principal
from services.platform.errors import InvalidArgument, quote
from services.platform.games import authorize_seat, check_game_id, game_info
from services.platform.grpcx.rpc import rpc
from services.platform.grpcx.server import Mount
from services.platform.store.base import EventStore

SERVICE_NAME = dice_pb2.DESCRIPTOR.services_by_name["DiceService"].full_name


async def check_visible_to(store: EventStore, game_id: str, visible_to: list[str]) -> None:
    """Raise InvalidArgument unless every visible_to entry is a seat of the game."""
    if not visible_to:
        return
    check_game_id(game_id)
    seats = (await game_info(store, game_id)).get("seats", {})
    strangers = [s for s in dict.fromkeys(visible_to) if s not in seats]
    if strangers:
        raise InvalidArgument(
            "visible_to",
            f"{len(strangers)} entries are not seats of the game, e.g. {quote(strangers[0])}; "
            f"seats: {sorted(seats)}",
        )


class DiceServicer(dice_pb2_grpc.DiceServiceServicer):
    """Parse requests, call the DiceEngine, answer; errors mapped by @rpc."""

    def __init__(self, engine: DiceEngine) -> None:
        self.engine = engine
        self.event_store = engine.store  # each call is one group commit (rpc)

    @rpc
    async def CommitSeed(
        self,
        request: dice_pb2.CommitSeedRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> dice_pb2.CommitSeedResponse:
        """Commit the game's seed (internal)."""
        principal.require_service()
        ledger = await self.engine.commit_ledger(
            request.game_id,
            request.client_seed,
            tuple(request.seats),
            tuple(request.bot_seats),
            dict(request.seat_seeds),
        )
        return dice_pb2.CommitSeedResponse(
            commitment=ledger.commitment,
            client_seed=ledger.client_seed,
            seed_deadline=ledger.seed_deadline,
            awaiting=list(ledger.awaiting),
        )

    @rpc
    async def SetClientSeed(
        self,
        request: dice_pb2.SetClientSeedRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> dice_pb2.SetClientSeedResponse:
        """Set the caller's seat's client seed."""
        check_game_id(request.game_id)
        await authorize_seat(self.engine.store, principal, request.game_id, request.seat)
        ledger = await self.engine.set_client_seed(
            request.game_id, request.seat, request.client_seed
        )
        return dice_pb2.SetClientSeedResponse(
            client_seed=ledger.client_seed,
            awaiting=list(ledger.awaiting),
            seed_deadline=ledger.seed_deadline,
        )

    @rpc
    async def Roll(
        self, request: dice_pb2.RollRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> dice_pb2.RollResponse:
        """Roll dice (internal)."""
        principal.require_service()
        await check_visible_to(self.engine.store, request.game_id, list(request.visible_to))
        roll = await self.engine.roll(
            request.game_id,
            request.purpose,
            list(request.dice),
            list(request.visible_to),
            request.key,
        )
        return dice_pb2.RollResponse(
            nonce=roll.nonce,
            version=roll.version,
            results=[dice_pb2.Die(kind=d.kind, face=d.face, index=d.index) for d in roll.results],
        )

    @rpc
    async def Shuffle(
        self,
        request: dice_pb2.ShuffleRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> dice_pb2.ShuffleResponse:
        """Draw a permutation (internal)."""
        principal.require_service()
        perm = await self.engine.shuffle(
            request.game_id, request.purpose, request.count, request.key
        )
        return dice_pb2.ShuffleResponse(nonce=perm.nonce, order=list(perm.order))

    @rpc
    async def Reveal(
        self,
        request: dice_pb2.RevealRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> dice_pb2.RevealResponse:
        """Reveal the seed of an ended game."""
        ledger = await self.engine.reveal_ledger(request.game_id)
        return dice_pb2.RevealResponse(
            server_seed=ledger.revealed_seed, commitment=ledger.commitment
        )

    @rpc
    async def Verify(
        self,
        request: dice_pb2.VerifyRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> dice_pb2.VerifyResponse:
        """Re-derive every draw from the revealed seed."""
        result = await self.engine.verify(request.game_id)
        return dice_pb2.VerifyResponse(
            ok=result.ok, checked=result.checked, mismatch=result.mismatch
        )

    @rpc
    async def ListKinds(
        self,
        request: dice_pb2.ListKindsRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> dice_pb2.ListKindsResponse:
        """List dice kinds."""
        cat = catalog()
        kinds = [dice_pb2.DiceKind(name=n, faces=list(f)) for n, f in sorted(cat.faces.items())]
        kinds += [
            dice_pb2.DiceKind(name=n, faces=[f"{p}" for p in parts])
            for n, parts in sorted(cat.composites.items())
        ]
        return dice_pb2.ListKindsResponse(kinds=kinds)


def mount(engine: DiceEngine) -> Mount:
    """Return the dice service ready to add to a server."""
    return Mount(
        dice_pb2_grpc.add_DiceServiceServicer_to_server, DiceServicer(engine), SERVICE_NAME
    )
