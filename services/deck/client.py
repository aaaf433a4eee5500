"""Dealing over gRPC, for a rules pool that runs apart from the deck service.

The rules runner's DeckPort (services/rules/engine/deck.py) over a GrpcDeck calls the deck
service's Deal and Seal RPCs with a service token. A call that meets UNAVAILABLE or
DEADLINE_EXCEEDED is retried (tenacity, services.platform.grpcx.client.call) when repeating
it is safe: a Deal that carries its decision key (the deck service answers a repeated key
with its first answer, so a retried draw draws nothing twice) and every Seal (a placed
deck is kept). A request the deck service refuses comes back as its domain error, so the
rules service answers with the same status (NOT_FOUND, FAILED_PRECONDITION, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from fallen.deck.v1 import deck_pb2, deck_pb2_grpc

from services.deck.dealing import MOVE, PUT, DealRequest, Dealt
from services.deck.zones import BOTTOM, TOP
from services.platform.grpcx.client import Reconnecting, Retry, ServiceCredentials, Stubs, call

KIND_PB = {
    "deck_form": deck_pb2.DEAL_KIND_FORM,
    "deck_draw": deck_pb2.DEAL_KIND_DRAW,
    "deck_put": deck_pb2.DEAL_KIND_PUT,
    "deck_search": deck_pb2.DEAL_KIND_SEARCH,
    "deck_shuffle": deck_pb2.DEAL_KIND_SHUFFLE,
    "deck_move": deck_pb2.DEAL_KIND_MOVE,
}
POSITION_PB = {TOP: deck_pb2.POSITION_TOP, BOTTOM: deck_pb2.POSITION_BOTTOM}


def deal_message(game_id: str, req: DealRequest, key: str) -> deck_pb2.DealRequest:
    """Return the Deal RPC's request for a deck request (unknown kinds and positions are
    sent unset, and the deck service refuses them with INVALID_ARGUMENT)."""
    positioned = req.kind in (PUT, MOVE)
    return deck_pb2.DealRequest(
        game_id=game_id,
        kind=KIND_PB.get(req.kind, deck_pb2.DEAL_KIND_UNSPECIFIED),
        deck=req.deck,
        cards=list(req.cards),
        shuffled=req.shuffled,
        count=max(0, req.count),
        position=POSITION_PB.get(req.position, deck_pb2.POSITION_UNSPECIFIED) if positioned else 0,
        visible_to=list(req.visible_to),
        match=list(req.match),
        to=req.to,
        key=key,
    )


class GrpcDeck:
    """Dealing by a remote DeckService, with a service token and retries."""

    def __init__(
        self,
        channel: grpc.aio.Channel | Reconnecting,
        creds: ServiceCredentials,
        retry: Retry | None = None,
    ) -> None:
        self.stubs = Stubs(channel, deck_pb2_grpc.DeckServiceStub)
        self.creds = creds
        self.retry = retry or Retry()

    async def deal(self, game_id: str, req: DealRequest, key: str = "") -> Dealt:
        """Perform a deck request remotely; retried on a transient status only when keyed."""
        msg = deal_message(game_id, req, key)

        async def once(timeout: float) -> deck_pb2.DealResponse:
            return await self.stubs.get().Deal(msg, metadata=self.creds.metadata(), timeout=timeout)

        resp = await call(once, self.retry, idempotent=bool(key), reconnect=self.stubs.reconnect())
        return Dealt(tuple(resp.cards), resp.count, resp.version)

    async def seal(self, game_id: str, deck: str, cards: Sequence[str]) -> bool:
        """Place a face-down deck remotely; return False when one was placed already."""
        msg = deck_pb2.SealRequest(game_id=game_id, deck=deck, cards=list(cards))

        async def once(timeout: float) -> deck_pb2.SealResponse:
            return await self.stubs.get().Seal(msg, metadata=self.creds.metadata(), timeout=timeout)

        resp = await call(once, self.retry, reconnect=self.stubs.reconnect())
        return not resp.kept
