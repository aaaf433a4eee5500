"""Loads services/rules/land/data/*.yaml into read-only catalogs (cards, factions, economy)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

DATA_DIR = Path(__file__).with_name("data")
SKILLS = ("combat", "survival", "diplomacy", "mechanical", "technical", "medical")
DAMAGE_TYPES = ("physical", "psychological", "infected", "radiation")
DECKS = (
    "characters",
    "spoils",
    "action",
    "encounter_plains",
    "encounter_mountain",
    "encounter_city_rad",
    "missions",
)
ENCOUNTER_DECK = {"plains": "encounter_plains", "mountain": "encounter_mountain"}
TIMINGS = ("effects", "town_business", "party_exploits", "skill_check", "pvp", "any", "hire")
NPCM_CLASSES = ("bounty_hunter", "raider", "assassin", "hitman")
# Card-data versions (docs/games/land.md 2.4): a game records the version it was created with
# in the option `card_data` (absent: 1, every game created before versions existed). A card
# entry added by version N carries `since: N`; released entries are never edited, so each
# version's decks are the cards with `since` at most that version.
CARD_DATA = "card_data"
FIRST_CARD_DATA = 1
LATEST_CARD_DATA = 3
RULES_3 = 3  # the rules that came with card data 3 (docs/games/land.md 2.4): no new cards
CARD_DATA_VERSIONS = tuple(range(FIRST_CARD_DATA, LATEST_CARD_DATA + 1))

Card = dict[str, Any]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(name: str) -> Any:
    """Return one data file's parsed YAML (name without .yaml, may contain a folder)."""
    return yaml.load((DATA_DIR / f"{name}.yaml").read_text(), Loader=_LOADER)


@dataclass(frozen=True)
class Catalog:
    """Every card by id and each deck's card list (one id per physical card, newest data)."""

    cards: dict[str, Card]
    decks: dict[str, tuple[str, ...]]

    def __getitem__(self, card_id: str) -> Card:
        return self.cards[card_id]

    def deck_of(self, card_id: str) -> str:
        """Return the deck a card id belongs to."""
        return str(self.cards[card_id]["deck"])


def physical_ids(card: Card) -> list[str]:
    """Return the ids of a card's physical copies: `id`, or `id#1`..`id#n` with copies."""
    n = int(card.get("copies", 1))
    return [card["id"]] if n == 1 else [f"{card['id']}#{i}" for i in range(1, n + 1)]


def since(card: Card) -> int:
    """Return the card-data version a card entry was added in (1: the original set)."""
    return int(card.get("since", FIRST_CARD_DATA))


def card_data_of(options: Any) -> int:
    """Return the card-data version a game's options name (absent: the original, 1)."""
    return int((options or {}).get(CARD_DATA, FIRST_CARD_DATA))


def deck_cards(name: str, version: int) -> tuple[str, ...]:
    """Return the physical cards of a deck in one card-data version."""
    return _deck_cards(name, version)


@cache
def _deck_cards(name: str, version: int) -> tuple[str, ...]:
    return tuple(c for c in catalog().decks[name] if since(card(c)) <= version)


def base_id(card_id: str) -> str:
    """Return the card entry id of a physical card id."""
    return card_id.split("#", 1)[0]


@cache
def catalog() -> Catalog:
    """Return the catalog of every Fallen Land card (loaded once)."""
    cards: dict[str, Card] = {}
    decks: dict[str, tuple[str, ...]] = {}
    for deck in DECKS:
        ids: list[str] = []
        for entry in load(f"cards/{deck}")["cards"]:
            if entry["id"] in cards:
                raise ValueError(f"duplicate card id {entry['id']}")
            cards[entry["id"]] = dict(entry, deck=deck)
            ids.extend(physical_ids(entry))
        decks[deck] = tuple(ids)
    return Catalog(cards=cards, decks=decks)


def card(card_id: str) -> Card:
    """Return one card's data (physical ids like `shotgun#2` are accepted)."""
    return catalog().cards[base_id(card_id)]


@cache
def factions() -> dict[int, dict[str, Any]]:
    """Return the 1d10 faction chart: roll -> faction data."""
    return {int(k): v for k, v in load("factions")["factions"].items()}


@cache
def economy() -> dict[str, Any]:
    """Return the economy, deed and setup numbers."""
    return dict(load("economy"))


@cache
def town_events() -> dict[int, list[dict[str, Any]]]:
    """Return the Town Events Chart: 1d10 roll -> effects."""
    return {int(k): v for k, v in load("town_events")["rows"].items()}
