"""DeckPort: how the rules runner answers deck requests, and its adapter over the deck service.

The engine asks (ChanceRequest deck kinds); the runner calls a DeckPort and submits
chance's answer, exactly as it answers rolls through a DicePort. DeckServicePort keeps
the decks in the deck service's stream deck-<game id> (shuffled with dice); a drawn
card goes to the receiving seat's hand there (hand-<seat>, or the public pile
"dealt" when every seat or none may see it), so the deck stream records who got what.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from services.deck.engine import DeckEngine
from services.kernel.errors import AlreadyExists, NotFound
from services.rules.kernel.api import CHANCE, DECK_ANSWERS, ChanceRequest, Command

DEALT = "dealt"


class DeckPort(Protocol):
    """The deck operations a rules runner needs (the deck service, in-process or gRPC)."""

    async def answer(self, game_id: str, req: ChanceRequest) -> Command:
        """Perform a deck request and return chance's answering command."""
        ...


def _zone_name(deck: str) -> str:
    """Return the deck service's name for an engine zone (the same name)."""
    return deck


class DeckServicePort:
    """A DeckPort over a DeckEngine (embedded, or the engine behind the gRPC service)."""

    def __init__(self, engine: DeckEngine) -> None:
        self.engine = engine
        self._staged = 0

    async def _zone_exists(self, game_id: str, zone: str) -> bool:
        try:
            await self.engine.count(game_id, zone)
        except NotFound:
            return False
        return True

    async def _ensure(self, game_id: str, zone: str, kind: str, owner: str = "") -> None:
        if not await self._zone_exists(game_id, zone):
            try:
                await self.engine.create_zone(game_id, zone, kind, owner)
            except AlreadyExists:
                pass

    async def _receiver(self, game_id: str, visible_to: Sequence[str]) -> tuple[str, str]:
        """Return (seat, hand zone) receiving drawn cards; a public pile when not one seat."""
        if len(visible_to) == 1:
            seat = visible_to[0]
            await self._ensure(game_id, f"hand-{seat}", "hand", seat)
            return seat, f"hand-{seat}"
        await self._ensure(game_id, DEALT, "pile")
        return "", DEALT

    async def _stage(self, game_id: str, deck: str, cards: Sequence[str], shuffled: bool) -> int:
        """Put cards into a deck (creating it), shuffling it when asked; return its size."""
        zone = _zone_name(deck)
        if not await self._zone_exists(game_id, zone):
            res = await self.engine.create_zone(game_id, zone, "deck", "", list(cards), shuffled)
            return res.count
        state = await self.engine.state(game_id)
        pile = f"{zone}-in{state.version}"
        await self.engine.create_zone(game_id, pile, "pile", "", list(cards))
        if shuffled:
            return (await self.engine.reshuffle_discard(game_id, pile, zone)).count
        for card in cards:
            await self.engine.put_card(game_id, card, pile, zone, "bottom")
        return await self.engine.count(game_id, zone)

    async def answer(self, game_id: str, req: ChanceRequest) -> Command:
        """Perform a deck request against the deck service and return chance's answer."""
        zone = _zone_name(req.deck)
        out: dict[str, Any] = {"deck": req.deck}
        if req.kind == "deck_form":
            out["count"] = await self._stage(game_id, req.deck, req.cards, req.shuffled)
        elif req.kind == "deck_shuffle":
            n = await self.engine.count(game_id, zone)
            out["count"] = (await self.engine.shuffle(game_id, zone)).count if n else 0
        elif req.kind == "deck_put":
            if req.position == "bottom":
                out["count"] = await self._stage(game_id, req.deck, req.cards, False)
            else:
                state = await self.engine.state(game_id)
                pile = f"{zone}-in{state.version}"
                await self.engine.create_zone(game_id, pile, "pile", "", list(req.cards))
                for card in reversed(req.cards):
                    await self.engine.put_card(game_id, card, pile, zone, "top")
                out["count"] = await self.engine.count(game_id, zone)
        elif req.kind == "deck_draw":
            seat, hand = await self._receiver(game_id, req.visible_to)
            if seat:
                drawn = await self.engine.draw(game_id, zone, seat, req.count)
                out["cards"] = list(drawn.cards)
            else:
                out["cards"] = await self._deal_public(game_id, zone, hand, req.count)
        elif req.kind == "deck_search":
            if not req.visible_to:
                raise ValueError("deck_search needs a receiving seat in visible_to")
            seat, _ = await self._receiver(game_id, req.visible_to[:1])
            found = await self.engine.search(game_id, zone, seat, "", list(req.match), req.count)
            out["cards"] = list(found.cards)
        else:
            raise ValueError(f"not a deck request: {req.kind!r}")
        return Command(CHANCE, DECK_ANSWERS[req.kind], out)

    async def _deal_public(self, game_id: str, zone: str, pile: str, count: int) -> list[str]:
        """Turn the top count cards of a deck face up onto the public pile."""
        state = await self.engine.state(game_id)
        top = list(state.get(zone).cards[:count])
        for card in top:
            await self.engine.discard(game_id, card, zone, pile)
        return top
