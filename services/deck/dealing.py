"""Dealing for the rules engines: one deck request of an engine as deck commands (docs/deck.md).

A rules engine asks for a deck operation (form, draw, put back, search, shuffle, move);
`deal` performs it with the DeckEngine's commands and returns what the engine reads.
It runs where the deck stream is: in the deck service behind the Deal RPC, or in the
rules process when everything is embedded (`LocalDealing`). `GrpcDeck`
(services/deck/client.py) is the same interface over gRPC.

Every command a request makes carries a part of the request's decision key, and the
request is planned from the deck as it was before the first of them (the base). So a
repeated request (a retry after a lost answer, or two runners answering the same decision)
makes no command twice, finishes what an interrupted one left undone, and returns the
same answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from services.deck import zones
from services.deck.engine import DeckEngine
from services.deck.zones import Zones
from services.platform.decision import check_key, parse_key
from services.platform.errors import AlreadyExists, InvalidArgument, RuleViolation

FORM, DRAW, PUT = "deck_form", "deck_draw", "deck_put"
SEARCH, SHUFFLE, MOVE = "deck_search", "deck_shuffle", "deck_move"
KINDS = (FORM, DRAW, PUT, SEARCH, SHUFFLE, MOVE)
DEALT = "dealt"  # the public pile of cards dealt face up (seen by every seat or none)


@dataclass(frozen=True)
class DealRequest:
    """One deck request of a rules engine (the deck kinds of ChanceRequest)."""

    kind: str
    deck: str
    cards: tuple[str, ...] = ()
    shuffled: bool = True
    count: int = 0
    position: str = zones.TOP
    visible_to: tuple[str, ...] = ()
    match: tuple[str, ...] = ()
    to: str = ""


@dataclass(frozen=True)
class Dealt:
    """What a request did: the cards taken (draw, search) or the deck's count after it
    (form, put, shuffle; move: the count left), and the deck stream version."""

    cards: tuple[str, ...] = ()
    count: int = 0
    version: int = 0


class Dealing(Protocol):
    """Dealing for a rules runner: in-process over a DeckEngine, or over gRPC."""

    async def deal(self, game_id: str, req: DealRequest, key: str = "") -> Dealt:
        """Perform a deck request; a repeated key returns the first answer."""
        ...

    async def seal(self, game_id: str, deck: str, cards: Sequence[str]) -> bool:
        """Place a face-down deck before the game exists; return False when a deck of that
        name was placed already (and is kept)."""
        ...


def part_key(key: str, op: str, name: str) -> str:
    """Return the key of one deck command of a request: the decision key with a part naming
    the operation and what it acts on (hashed, so any zone or card name fits)."""
    if not key:
        return ""
    return f"{key}/{op}.{hashlib.sha256(name.encode()).hexdigest()[:16]}"


def check_request(game_id: str, req: DealRequest, key: str) -> None:
    """Raise InvalidArgument for a request no deck could answer (before any command)."""
    if req.kind not in KINDS:
        raise InvalidArgument("kind", f"must be one of {', '.join(KINDS)}")
    zones.check_zone_name(req.deck, "deck")
    check_key(key, game_id)
    parsed = parse_key(key) if key else None
    if parsed is not None and parsed.part:
        raise InvalidArgument("key", "must name a decision without a part: game-<id>@<version>")
    for card in req.cards:
        zones.check_card(card, "cards")
    if len(req.cards) > zones.MAX_CARDS:
        raise InvalidArgument("cards", f"at most {zones.MAX_CARDS} cards")
    if req.kind == SEARCH:
        zones.check_count(req.count, "count")
    if req.kind in (DRAW, MOVE) and not 0 <= req.count <= zones.MAX_CARDS:
        raise InvalidArgument("count", f"must be 0 to {zones.MAX_CARDS}, not {req.count}")
    if req.kind in (PUT, MOVE) and req.position not in zones.POSITIONS:
        raise InvalidArgument("position", "must be top or bottom")
    if req.kind == SEARCH:
        if not req.visible_to:
            raise InvalidArgument("visible_to", "a search needs the receiving seat")
        if not req.match:
            raise InvalidArgument("match", "give the card ids a search accepts")
    if req.kind == MOVE:
        zones.check_zone_name(req.to, "to")


async def base_state(engine: DeckEngine, game_id: str, key: str) -> Zones:
    """Return the zones as they were before the first command keyed by a part of key
    (the zones now when there is none, or no key)."""
    log = await engine.log(game_id)
    return log.before_parts_of(key) if key else log.state


class LocalDealing:
    """Dealing over a DeckEngine in this process (the deck service, or an embedded runner)."""

    def __init__(self, engine: DeckEngine) -> None:
        self.engine = engine

    async def seal(self, game_id: str, deck: str, cards: Sequence[str]) -> bool:
        """Place a face-down deck before the game exists; keep one placed already."""
        try:
            await self.engine.seal(game_id, deck, cards)
        except AlreadyExists:
            return False
        return True

    async def deal(self, game_id: str, req: DealRequest, key: str = "") -> Dealt:
        """Perform one deck request (docs/deck.md, "the deck contract")."""
        check_request(game_id, req, key)
        base = await base_state(self.engine, game_id, key)
        for name in (req.deck, req.to) if req.kind == MOVE else (req.deck,):
            _deck_or_none(base, name)  # refused before any command
        if req.kind == FORM:
            return await self._stage(game_id, base, req, req.shuffled, zones.BOTTOM, key)
        if req.kind == PUT:
            return await self._stage(game_id, base, req, False, req.position, key)
        if req.kind == SHUFFLE:
            n = len(base.get(req.deck).cards)
            if not n:
                return Dealt(count=0, version=base.version)
            done = await self.engine.shuffle(game_id, req.deck, part_key(key, "shuffle", req.deck))
            return Dealt(count=done.count, version=done.version)
        if req.kind == DRAW:
            return await self._draw(game_id, base, req, key)
        if req.kind == MOVE:
            return await self._move(game_id, base, req, key)
        seat = await self._receiver(game_id, base, req.visible_to[:1], key)
        found = await self.engine.search(
            game_id,
            req.deck,
            seat,
            "",
            list(req.match),
            req.count,
            key=part_key(key, "search", req.deck),
        )
        return Dealt(cards=found.cards, version=found.version)

    async def _ensure(
        self, game_id: str, base: Zones, zone: str, kind: str, owner: str, key: str
    ) -> None:
        """Create a zone the base has not got (another request may have created it since)."""
        if zone in base.zones:
            return
        try:
            await self.engine.create_zone(
                game_id, zone, kind, owner, key=part_key(key, "create", zone)
            )
        except AlreadyExists:
            pass

    async def _receiver(
        self, game_id: str, base: Zones, visible_to: Sequence[str], key: str
    ) -> str:
        """Return the seat receiving drawn cards (its hand created if needed), or "" for
        the public pile when not exactly one seat sees them."""
        if len(visible_to) == 1:
            seat = visible_to[0]
            await self._ensure(game_id, base, f"hand-{seat}", zones.HAND, seat, key)
            return seat
        await self._ensure(game_id, base, DEALT, zones.PILE, "", key)
        return ""

    async def _stage(
        self,
        game_id: str,
        base: Zones,
        req: DealRequest,
        shuffled: bool,
        position: str,
        key: str,
    ) -> Dealt:
        """Put cards into a deck (creating it), then shuffle it or keep them in order.

        The cards go through a staging pile `<deck>.in<version>`; cards the deck service
        dealt earlier (in a hand or the dealt pile) are moved there from where they are,
        so every card stays in exactly one zone of the deck stream.
        """
        deck, cards = req.deck, req.cards
        await self._ensure(game_id, base, deck, zones.DECK, "", key)
        held = len(base.zones[deck].cards) if deck in base.zones else 0
        where = {c: z.name for z in base.zones.values() if z.kind != zones.DECK for c in z.cards}
        parsed = parse_key(key) if key else None
        pile = f"{deck}.in{parsed.version if parsed else base.version}"
        fresh = [c for c in cards if c not in where]
        await self.engine.create_zone(
            game_id, pile, zones.PILE, "", fresh, key=part_key(key, "create", pile)
        )
        for card in cards:
            if card in where and where[card] != pile:
                pk = part_key(key, "stage", card)
                await self.engine.put_card(game_id, card, where[card], pile, zones.BOTTOM, pk)
        if shuffled:
            if not cards and not held:
                return Dealt(count=0, version=base.version)
            pk = part_key(key, "reshuffle", deck)
            done = await self.engine.reshuffle_discard(game_id, pile, deck, pk)
            return Dealt(count=done.count, version=done.version)
        version = base.version
        for card in cards if position == zones.BOTTOM else list(reversed(cards)):
            pk = part_key(key, "put", card)
            version = (await self.engine.put_card(game_id, card, pile, deck, position, pk)).version
        return Dealt(count=held + len(cards), version=version)

    async def _draw(self, game_id: str, base: Zones, req: DealRequest, key: str) -> Dealt:
        """Draw into one seat's hand, or turn the top cards face up onto the dealt pile."""
        top = _top(base.get(req.deck), req.count, "draw")  # refused before any command
        if not top:
            return Dealt(version=base.version)
        seat = await self._receiver(game_id, base, req.visible_to, key)
        if seat:
            pk = part_key(key, "draw", req.deck)
            drawn = await self.engine.draw(game_id, req.deck, seat, req.count, key=pk)
            return Dealt(cards=drawn.cards, version=drawn.version)
        version = base.version
        for n, card in enumerate(top):
            pk = part_key(key, "deal", f"{req.deck}#{n}")
            version = (await self.engine.discard(game_id, card, req.deck, DEALT, pk)).version
        return Dealt(cards=top, version=version)

    async def _move(self, game_id: str, base: Zones, req: DealRequest, key: str) -> Dealt:
        """Move the top cards of a deck face down onto another deck (created if missing)."""
        deck = base.get(req.deck)
        top = _top(deck, req.count, "move")
        if not top:
            return Dealt(count=len(deck.cards), version=base.version)
        await self._ensure(game_id, base, req.to, zones.DECK, "", key)
        version = base.version
        for n, card in enumerate(top if req.position == zones.BOTTOM else list(reversed(top))):
            pk = part_key(key, "move", f"{req.deck}#{n}")
            done = await self.engine.put_card(game_id, card, req.deck, req.to, req.position, pk)
            version = done.version
        return Dealt(count=len(deck.cards) - len(top), version=version)


def _deck_or_none(state: Zones, name: str) -> None:
    """Raise RuleViolation if a zone of that name exists and is not a deck."""
    zone = state.zones.get(name)
    if zone is not None and zone.kind != zones.DECK:
        raise RuleViolation(f"zone {name!r} is a {zone.kind}, not a deck")


def _top(deck: zones.Zone, count: int, verb: str) -> tuple[str, ...]:
    """Return the top count cards of a deck, or raise RuleViolation if it holds fewer."""
    if deck.kind != zones.DECK:
        raise RuleViolation(f"zone {deck.name!r} is a {deck.kind}, not a deck")
    if count > len(deck.cards):
        raise RuleViolation(
            f"deck {deck.name!r} holds {len(deck.cards)} cards; cannot {verb} {count}"
        )
    return deck.cards[:count]
