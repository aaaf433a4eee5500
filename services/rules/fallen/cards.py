"""Card data: loads services/rules/fallen/cards/*.yaml into one read-only catalog."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

CARD_DIR = Path(__file__).with_name("cards")

Card = dict[str, Any]

ATTRIBUTES = ("agility", "intelligence", "strength")
TIMINGS = (
    "before_activation",
    "creature_exhausted",
    "dl_roll",
    "hero_roll",
    "any_roll",
    "after_win",
    "after_lose",
    "rewards_claimed",
    "when_wounded",
)
TRIGGERS = (
    "win",
    "lose",
    "kill",
    "breach",
    "stage_start",
    "challenge_start",
    "activate",
    "creature_exhausted",
    "rewards_claimed",
)
SHADOW = ("brilliant", "luminous", "glowing", "clouded", "dusk", "night")


@dataclass(frozen=True)
class Catalog:
    """Every card by id, plus the lists that build decks."""

    cards: dict[str, Card]
    heroes: tuple[str, ...]
    dungeon_lords: tuple[str, ...]

    def __getitem__(self, card_id: str) -> Card:
        return self.cards[card_id]

    def of_type(self, kind: str) -> list[Card]:
        """Return the cards of one type, in file order."""
        return [c for c in self.cards.values() if c["type"] == kind]

    def ids(self, kind: str, **where: Any) -> list[str]:
        """Return the ids of cards of a type whose fields equal the given values."""
        return [c["id"] for c in self.of_type(kind) if all(c.get(k) == v for k, v in where.items())]


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _load(name: str) -> Any:
    return yaml.load((CARD_DIR / f"{name}.yaml").read_text(), Loader=_LOADER)


@cache
def catalog() -> Catalog:
    """Return the catalog of every Fallen card (loaded once)."""
    cards: dict[str, Card] = {}

    def add(card: Card, kind: str) -> None:
        if card["id"] in cards:
            raise ValueError(f"duplicate card id {card['id']}")
        cards[card["id"]] = dict(card, type=kind)

    chars = _load("characters")
    for c in chars["heroes"]:
        add(c, "hero")
    for c in chars["dungeon_lords"]:
        add(c, "dungeon_lord")
    for c in _load("creatures"):
        add(c, "creature")
    for c in _load("skills"):
        add(c, "skill")
    eq = _load("equipment")
    for c in eq["basic"]:
        add(c, "basic")
    for c in eq["treasures"]:
        add(c, "treasure")
    for c in _load("criticals"):
        add(c, "critical")
    for c in _load("powers"):
        add(c, "power")
    for c in _load("omens"):
        add(c, "omen")
    for c in _load("final_battle"):
        add(c, "final_battle")
    for c in _load("shadow_track"):
        add(c, "shadow")
    for c in _load("rewards"):
        add(c, "token")
    for c in _load("stories"):
        add(c, "story")
    return Catalog(
        cards=cards,
        heroes=tuple(c["id"] for c in chars["heroes"]),
        dungeon_lords=tuple(c["id"] for c in chars["dungeon_lords"]),
    )


def card(card_id: str) -> Card:
    """Return one card's data."""
    return catalog().cards[card_id]


def name_of(card_id: str) -> str:
    """Return a card's display name."""
    c = catalog().cards.get(card_id, {})
    return str(c.get("name", card_id))
