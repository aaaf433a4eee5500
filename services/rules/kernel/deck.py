"""DeckPort: how the rules runner answers deck requests, and its adapter over the deck service.

The engine asks (ChanceRequest deck kinds); the runner calls a DeckPort and submits
chance's answer, exactly as it answers rolls through a DicePort. DeckServicePort keeps
the decks in the deck service's stream deck-<game id> (shuffled with dice); a drawn
card goes to the receiving seat's hand there (hand-<seat>, or the public pile
"dealt" when every seat or none may see it), so the deck stream records who got what.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Protocol

from services.deck.engine import DeckEngine
from services.kernel.decision import parse_key
from services.kernel.errors import AlreadyExists, NotFound
from services.rules.kernel.api import CHANCE, DECK_ANSWERS, ChanceRequest, Command

DEALT = "dealt"


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


def part_key(key: str, op: str, name: str) -> str:
    """Return the key of one deck call of a decision: the decision key with a part naming
    the operation and what it acts on (hashed, so any zone or card name fits)."""
    if not key:
        return ""
    return f"{key}/{op}.{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def _zone_name(deck: str) -> str:
    """Return the deck service's name for an engine zone (the same name)."""
    return deck


class DeckServicePort:
    """A DeckPort over a DeckEngine (embedded, or the engine behind the gRPC service)."""

    def __init__(self, engine: DeckEngine) -> None:
        self.engine = engine

    async def seal(self, game_id: str, deck: str, cards: Sequence[str]) -> None:
        """Place a face-down deck before the game starts; keep one placed already."""
        try:
            await self.engine.seal(game_id, _zone_name(deck), cards)
        except AlreadyExists:
            pass

    async def _zone_exists(self, game_id: str, zone: str) -> bool:
        try:
            await self.engine.count(game_id, zone)
        except NotFound:
            return False
        return True

    async def _ensure(
        self, game_id: str, zone: str, kind: str, owner: str = "", key: str = ""
    ) -> None:
        if not await self._zone_exists(game_id, zone):
            try:
                await self.engine.create_zone(
                    game_id, zone, kind, owner, key=part_key(key, "create", zone)
                )
            except AlreadyExists:
                pass

    async def _receiver(
        self, game_id: str, visible_to: Sequence[str], key: str = ""
    ) -> tuple[str, str]:
        """Return (seat, hand zone) receiving drawn cards; a public pile when not one seat."""
        if len(visible_to) == 1:
            seat = visible_to[0]
            await self._ensure(game_id, f"hand-{seat}", "hand", seat, key)
            return seat, f"hand-{seat}"
        await self._ensure(game_id, DEALT, "pile", "", key)
        return "", DEALT

    async def _stage(
        self,
        game_id: str,
        deck: str,
        cards: Sequence[str],
        shuffled: bool,
        position: str,
        key: str = "",
    ) -> int:
        """Put cards into a deck (creating it), then shuffle it or keep them in order.

        Cards the deck service dealt earlier (in a hand or the dealt pile) are moved back
        from there, so every card stays in exactly one zone of the deck stream.
        """
        state = await self.engine.state(game_id)
        if deck not in state.zones:
            await self.engine.create_zone(game_id, deck, "deck", key=part_key(key, "create", deck))
        where = {c: z.name for z in state.zones.values() if z.kind != "deck" for c in z.cards}
        parsed = parse_key(key.split("/", 1)[0]) if key else None
        pile = f"{deck}.in{parsed.version if parsed else state.version}"
        fresh = [c for c in cards if c not in where]
        pk = part_key(key, "create", pile)
        await self.engine.create_zone(game_id, pile, "pile", "", fresh, key=pk)
        for card in cards:
            if card in where and where[card] != pile:
                pk = part_key(key, "stage", card)
                await self.engine.put_card(game_id, card, where[card], pile, "bottom", pk)
        if shuffled:
            if not cards and not await self.engine.count(game_id, deck):
                return 0
            pk = part_key(key, "reshuffle", deck)
            return (await self.engine.reshuffle_discard(game_id, pile, deck, pk)).count
        for card in cards if position == "bottom" else list(reversed(cards)):
            pk = part_key(key, "put", card)
            await self.engine.put_card(game_id, card, pile, deck, position, pk)
        return await self.engine.count(game_id, deck)

    async def answer(self, game_id: str, req: ChanceRequest, key: str = "") -> Command:
        """Perform a deck request against the deck service and return chance's answer."""
        zone = _zone_name(req.deck)
        out: dict[str, Any] = {"deck": req.deck}
        if req.kind == "deck_form":
            out["count"] = await self._stage(game_id, zone, req.cards, req.shuffled, "bottom", key)
        elif req.kind == "deck_shuffle":
            n = await self.engine.count(game_id, zone)
            pk = part_key(key, "shuffle", zone)
            out["count"] = (await self.engine.shuffle(game_id, zone, pk)).count if n else 0
        elif req.kind == "deck_put":
            out["count"] = await self._stage(game_id, zone, req.cards, False, req.position, key)
        elif req.kind == "deck_draw":
            seat, hand = await self._receiver(game_id, req.visible_to, key)
            if seat:
                pk = part_key(key, "draw", zone)
                drawn = await self.engine.draw(game_id, zone, seat, req.count, key=pk)
                out["cards"] = list(drawn.cards)
            else:
                out["cards"] = await self._deal_public(game_id, zone, hand, req.count, key)
        elif req.kind == "deck_move":
            out["count"] = await self._move(game_id, zone, _zone_name(req.to), req, key)
        elif req.kind == "deck_search":
            if not req.visible_to:
                raise ValueError("deck_search needs a receiving seat in visible_to")
            seat, _ = await self._receiver(game_id, req.visible_to[:1], key)
            pk = part_key(key, "search", zone)
            found = await self.engine.search(
                game_id, zone, seat, "", list(req.match), req.count, key=pk
            )
            out["cards"] = list(found.cards)
        else:
            raise ValueError(f"not a deck request: {req.kind!r}")
        return Command(CHANCE, DECK_ANSWERS[req.kind], out)

    async def _move(
        self, game_id: str, zone: str, to: str, req: ChanceRequest, key: str = ""
    ) -> int:
        """Move the top cards of a deck face down onto another deck (created if missing)."""
        state = await self.engine.state(game_id)
        if to not in state.zones:
            await self.engine.create_zone(game_id, to, "deck", key=part_key(key, "create", to))
        top = list(state.get(zone).cards[: req.count])
        for n, card in enumerate(top if req.position == "bottom" else list(reversed(top))):
            pk = part_key(key, "move", f"{zone}#{n}")
            await self.engine.put_card(game_id, card, zone, to, req.position, pk)
        return await self.engine.count(game_id, zone)

    async def _deal_public(
        self, game_id: str, zone: str, pile: str, count: int, key: str = ""
    ) -> list[str]:
        """Turn the top count cards of a deck face up onto the public pile."""
        state = await self.engine.state(game_id)
        top = list(state.get(zone).cards[:count])
        for n, card in enumerate(top):
            await self.engine.discard(
                game_id, card, zone, pile, part_key(key, "deal", f"{zone}#{n}")
            )
        return top
