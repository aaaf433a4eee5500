"""DeckPort: how the rules runner answers deck requests, and its adapter over the deck service.

The engine asks (ChanceRequest deck kinds); the runner calls a DeckPort and submits
chance's answer, exactly as it answers rolls through a DicePort. DeckServicePort keeps
the decks in the deck service's stream deck-<game id> (shuffled with dice): in this
process over a DeckEngine (embedded), or over gRPC with a GrpcDeck (services/deck/client.py)
when the rules pool runs apart from the deck service. Either way the deck service's
dealing (services/deck/dealing.py) performs the request; a drawn card goes to the
receiving seat's hand there (hand-<seat>, or the public pile "dealt" when every seat or
none may see it), so the deck stream records who got what.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from services.deck.dealing import DEALT, Dealing, DealRequest, Dealt, LocalDealing, part_key
from services.deck.engine import DeckEngine
from services.rules.engine.api import CHANCE, DECK_ANSWERS, ChanceRequest, Command

__all__ = ["DEALT", "DeckPort", "DeckServicePort", "answer_of", "deal_request", "part_key"]


class DeckPort(Protocol):
    """The deck operations a rules runner needs (the deck service, in-process or gRPC)."""

    async def answer(self, game_id: str, req: ChanceRequest, key: str = "") -> Command:
        """Perform a deck request and return chance's answering command; every deck call
        carries the decision key (with a part naming the call), so a repeat changes nothing."""
        ...

    async def seal(self, game_id: str, deck: str, cards: Sequence[str]) -> None:
        """Place a face-down deck before the game starts (its cards never enter the game
        stream); a deck already placed for this game (a retried create) is kept."""
        ...


def deal_request(req: ChanceRequest) -> DealRequest:
    """Return the deck service's request for a deck ChanceRequest."""
    if req.kind not in DECK_ANSWERS:
        raise ValueError(f"not a deck request: {req.kind!r}")
    return DealRequest(
        kind=req.kind,
        deck=req.deck,
        cards=tuple(req.cards),
        shuffled=req.shuffled,
        count=req.count,
        position=req.position,
        visible_to=tuple(req.visible_to),
        match=tuple(req.match),
        to=req.to,
    )


def answer_of(req: ChanceRequest, dealt: Dealt) -> Command:
    """Return chance's answer to a deck request from what the deck service did."""
    out: dict[str, Any] = {"deck": req.deck}
    if req.kind in ("deck_draw", "deck_search"):
        out["cards"] = list(dealt.cards)
    else:
        out["count"] = dealt.count
    return Command(CHANCE, DECK_ANSWERS[req.kind], out)


class DeckServicePort:
    """A DeckPort over the deck service: a DeckEngine in this process, or any Dealing
    (GrpcDeck for a deck service elsewhere)."""

    def __init__(self, deck: DeckEngine | Dealing) -> None:
        self.dealing: Dealing = LocalDealing(deck) if isinstance(deck, DeckEngine) else deck

    async def seal(self, game_id: str, deck: str, cards: Sequence[str]) -> None:
        """Place a face-down deck before the game starts; keep one placed already."""
        await self.dealing.seal(game_id, deck, cards)

    async def answer(self, game_id: str, req: ChanceRequest, key: str = "") -> Command:
        """Perform a deck request in the deck service and return chance's answer."""
        return answer_of(req, await self.dealing.deal(game_id, deal_request(req), key))
