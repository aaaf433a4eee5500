"""The DeckService gRPC adapter: parse, call the DeckEngine, map the answer."""

from __future__ import annotations

from typing import Any

import grpc
from fallen.deck.v1 import deck_pb2, deck_pb2_grpc

from services.deck import dealing, zones
from services.deck.dealing import DealRequest, LocalDealing
from services.deck.engine import DeckEngine
from services.platform.auth import Principal
from services.platform.errors import InvalidArgument
from services.platform.games import authorize_seat, check_game_id
from services.platform.grpcx.rpc import rpc
from services.platform.grpcx.server import Mount

KIND_OF = {
    deck_pb2.ZONE_KIND_DECK: zones.DECK,
    deck_pb2.ZONE_KIND_PILE: zones.PILE,
    deck_pb2.ZONE_KIND_HAND: zones.HAND,
}
POSITION_OF = {deck_pb2.POSITION_TOP: zones.TOP, deck_pb2.POSITION_BOTTOM: zones.BOTTOM}
DEAL_KIND_OF = {
    deck_pb2.DEAL_KIND_FORM: dealing.FORM,
    deck_pb2.DEAL_KIND_DRAW: dealing.DRAW,
    deck_pb2.DEAL_KIND_PUT: dealing.PUT,
    deck_pb2.DEAL_KIND_SEARCH: dealing.SEARCH,
    deck_pb2.DEAL_KIND_SHUFFLE: dealing.SHUFFLE,
    deck_pb2.DEAL_KIND_MOVE: dealing.MOVE,
}
# the kinds whose request carries a position (others leave it unset)
POSITIONED = (dealing.PUT, dealing.MOVE)
SERVICE_NAME = deck_pb2.DESCRIPTOR.services_by_name["DeckService"].full_name


def _enum(value: int, mapping: dict[Any, str], field: str) -> str:
    """Return the engine name of an enum value, or raise InvalidArgument naming the field."""
    if value not in mapping:
        raise InvalidArgument(field, f"must be one of {', '.join(sorted(mapping.values()))}")
    return mapping[value]


class DeckServicer(deck_pb2_grpc.DeckServiceServicer):
    """DeckService over a DeckEngine; every RPC but GetHand needs a service token."""

    def __init__(self, engine: DeckEngine) -> None:
        self.engine = engine
        self.event_store = engine.store  # each call is one group commit (rpc)
        self.dealing = LocalDealing(engine)

    @rpc
    async def CreateZone(
        self,
        request: deck_pb2.CreateZoneRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.CreateZoneResponse:
        """Create a deck, pile or hand."""
        principal.require_service()
        kind = _enum(request.kind, KIND_OF, "kind")
        res = await self.engine.create_zone(
            request.game_id,
            request.zone,
            kind,
            request.owner,
            list(request.cards),
            request.shuffle,
            request.key,
        )
        return deck_pb2.CreateZoneResponse(count=res.count, version=res.version)

    @rpc
    async def Shuffle(
        self,
        request: deck_pb2.ShuffleRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.ShuffleResponse:
        """Shuffle a deck with the next dice nonce."""
        principal.require_service()
        res = await self.engine.shuffle(request.game_id, request.zone, request.key)
        return deck_pb2.ShuffleResponse(nonce=res.nonce, version=res.version)

    @rpc
    async def Draw(
        self, request: deck_pb2.DrawRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> deck_pb2.DrawResponse:
        """Draw the top cards of a deck into a seat's hand."""
        principal.require_service()
        res = await self.engine.draw(
            request.game_id,
            request.zone,
            request.seat,
            request.count,
            request.command_id,
            request.key,
        )
        return deck_pb2.DrawResponse(cards=res.cards, version=res.version)

    @rpc
    async def PutCard(
        self,
        request: deck_pb2.PutCardRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.PutCardResponse:
        """Move a card onto the top or bottom of a zone."""
        principal.require_service()
        position = _enum(request.position, POSITION_OF, "position")
        res = await self.engine.put_card(
            request.game_id,
            request.card,
            request.from_zone,
            request.to_zone,
            position,
            request.key,
        )
        return deck_pb2.PutCardResponse(count=res.count, version=res.version)

    @rpc
    async def Discard(
        self,
        request: deck_pb2.DiscardRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.DiscardResponse:
        """Move a card onto a face-up pile."""
        principal.require_service()
        res = await self.engine.discard(
            request.game_id, request.card, request.from_zone, request.pile, request.key
        )
        return deck_pb2.DiscardResponse(count=res.count, version=res.version)

    @rpc
    async def ReshuffleDiscard(
        self,
        request: deck_pb2.ReshuffleDiscardRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.ReshuffleDiscardResponse:
        """Move a pile into a deck and shuffle the deck."""
        principal.require_service()
        res = await self.engine.reshuffle_discard(
            request.game_id, request.pile, request.zone, request.key
        )
        return deck_pb2.ReshuffleDiscardResponse(
            count=res.count, nonce=res.nonce, version=res.version
        )

    @rpc
    async def Count(
        self,
        request: deck_pb2.CountRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.CountResponse:
        """Return a zone's size."""
        principal.require_service()
        return deck_pb2.CountResponse(count=await self.engine.count(request.game_id, request.zone))

    @rpc
    async def Search(
        self,
        request: deck_pb2.SearchRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.SearchResponse:
        """Move matching cards from a deck into a seat's hand."""
        principal.require_service()
        res = await self.engine.search(
            request.game_id,
            request.zone,
            request.seat,
            request.id_prefix,
            list(request.ids),
            request.limit,
            request.shuffle_after,
            request.key,
        )
        return deck_pb2.SearchResponse(cards=res.cards, version=res.version)

    @rpc
    async def GetHand(
        self,
        request: deck_pb2.GetHandRequest,
        context: grpc.aio.ServicerContext,
        principal: Principal,
    ) -> deck_pb2.GetHandResponse:
        """Return a seat's hand to that seat's player (or a service)."""
        check_game_id(request.game_id)
        await authorize_seat(self.engine.store, principal, request.game_id, request.seat)
        return deck_pb2.GetHandResponse(cards=await self.engine.hand(request.game_id, request.seat))

    @rpc
    async def Deal(
        self, request: deck_pb2.DealRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> deck_pb2.DealResponse:
        """Perform one deck request of a rules engine (docs/deck.md, the deck contract)."""
        principal.require_service()
        check_game_id(request.game_id)
        kind = _enum(request.kind, DEAL_KIND_OF, "kind")
        position = _enum(request.position, POSITION_OF, "position") if kind in POSITIONED else ""
        req = DealRequest(
            kind=kind,
            deck=request.deck,
            cards=tuple(request.cards),
            shuffled=request.shuffled,
            count=request.count,
            position=position or zones.TOP,
            visible_to=tuple(request.visible_to),
            match=tuple(request.match),
            to=request.to,
        )
        done = await self.dealing.deal(request.game_id, req, request.key)
        return deck_pb2.DealResponse(cards=done.cards, count=done.count, version=done.version)

    @rpc
    async def Seal(
        self, request: deck_pb2.SealRequest, context: grpc.aio.ServicerContext, principal: Principal
    ) -> deck_pb2.SealResponse:
        """Place a face-down deck before its game exists; keep one placed already."""
        principal.require_service()
        check_game_id(request.game_id)
        zones.check_zone_name(request.deck, "deck")
        placed = await self.dealing.seal(request.game_id, request.deck, list(request.cards))
        count = await self.engine.count(request.game_id, request.deck)
        return deck_pb2.SealResponse(count=count, kept=not placed)


def mount(engine: DeckEngine) -> Mount:
    """Return the Mount that serves DeckService over engine."""
    return Mount(
        add=deck_pb2_grpc.add_DeckServiceServicer_to_server,
        servicer=DeckServicer(engine),
        service_name=SERVICE_NAME,
    )
