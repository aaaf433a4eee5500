"""An in-process dealer: answers every chance request (dice and decks) from one seed.

Used by playouts, benchmarks and tests so they stay reproducible and fast. Every draw
comes from the fair scheme of services/dice/fair.py (docs/fairness.md) with one nonce
per use of dice, exactly as the dice service would derive it; face-down deck orders
live here, never in the engine, as they live in the deck service when served.
"""

from __future__ import annotations

from services.dice import fair
from services.dice.engine import MAX_DICE  # the dice service's bound on one roll
from services.dice.kinds import catalog, read_composite
from services.rules.engine.api import CHANCE, DECK_ANSWERS, ChanceRequest, Command, command


def roll_faces(draws: fair.Draws, dice: tuple[str, ...]) -> list[str]:
    """Return the faces of dice kinds rolled from one nonce's draws, in order."""
    faces: list[str] = []
    known = catalog()
    simple = known.faces
    for kind in dice:
        parts = (kind,) if kind in simple else known.expand(kind)
        rolled = [simple[p][draws.uniform(len(simple[p]))] for p in parts]
        faces.append(rolled[0] if len(parts) == 1 else read_composite(kind, rolled))
    return faces


class Dealer:
    """Chance for one game: the dice nonce counter and the face-down decks (top first)."""

    def __init__(self, seed: bytes, game_id: str, client_seed: str = "") -> None:
        self.seed = seed
        self.game_id = game_id
        self.client_seed = client_seed
        self.nonce = 0
        self.decks: dict[str, list[str]] = {}
        self._keyed = fair.keyed(seed)  # the seed's HMAC key set up once for every nonce

    def place(self, decks: dict[str, tuple[str, ...]]) -> None:
        """Place face-down decks before the game starts (as the deck service's seal)."""
        for deck, cards in decks.items():
            self.decks[deck] = list(cards)

    def _draws(self) -> tuple[fair.Draws, int]:
        nonce = self.nonce
        self.nonce += 1
        return fair.Draws(self.seed, self.game_id, self.client_seed, nonce, self._keyed), nonce

    def shuffle_deck(self, deck: str) -> int:
        """Shuffle a deck with the next nonce (a deck of 0 or 1 card uses none); return its size."""
        cards = self.decks.setdefault(deck, [])
        if len(cards) > 1:
            draws, _ = self._draws()
            self.decks[deck] = fair.shuffle(draws, cards)
        return len(self.decks[deck])

    def answer(self, req: ChanceRequest) -> Command:
        """Return chance's command for a request."""
        if req.kind == "roll":
            if not 1 <= len(req.dice) <= MAX_DICE:  # as the dice service refuses it
                raise ValueError(f"{req.purpose}: roll 1 to {MAX_DICE} dice, not {len(req.dice)}")
            draws, nonce = self._draws()
            return command(CHANCE, "roll", {"faces": roll_faces(draws, req.dice), "nonce": nonce})
        if req.kind == "shuffle":
            draws, nonce = self._draws()
            order = fair.shuffle(draws, list(range(req.count)))
            return command(CHANCE, "shuffle", {"order": order, "nonce": nonce})
        kind = DECK_ANSWERS.get(req.kind)
        if kind is None:
            raise ValueError(f"the dealer cannot answer a {req.kind!r} request")
        return command(CHANCE, kind, self._deck(req))

    def _deck(self, req: ChanceRequest) -> dict[str, object]:
        deck = self.decks.setdefault(req.deck, [])
        if req.kind == "deck_form":
            deck.extend(req.cards)
            count = self.shuffle_deck(req.deck) if req.shuffled else len(deck)
            return {"deck": req.deck, "count": count}
        if req.kind == "deck_shuffle":
            return {"deck": req.deck, "count": self.shuffle_deck(req.deck)}
        if req.kind == "deck_put":
            self.decks[req.deck] = (
                [*deck, *req.cards] if req.position == "bottom" else [*req.cards, *deck]
            )
            return {"deck": req.deck, "count": len(self.decks[req.deck])}
        if req.kind == "deck_move":
            moved, self.decks[req.deck] = deck[: req.count], deck[req.count :]
            dst = self.decks.setdefault(req.to, [])
            self.decks[req.to] = [*dst, *moved] if req.position == "bottom" else [*moved, *dst]
            return {"deck": req.deck, "count": len(self.decks[req.deck])}
        if req.kind == "deck_draw":
            if req.count > len(deck):
                raise ValueError(f"deck {req.deck!r} holds {len(deck)} cards, not {req.count}")
            taken, self.decks[req.deck] = deck[: req.count], deck[req.count :]
            return {"deck": req.deck, "cards": taken}
        wanted = set(req.match)
        found = sorted(c for c in deck if c in wanted)[: req.count]
        for c in found:
            deck.remove(c)
        return {"deck": req.deck, "cards": found}
