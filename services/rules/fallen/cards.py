"""Card data: loads one released data set of services/rules/fallen/cards/ into a catalog.

Every released card-data set stays loadable (docs/games/fallen.md, "Card-data versions"):
version 1 is the original data in cards/*.yaml; version N's directory cards/vN/ holds only
the files changed in that release, the others come from the newest earlier version. A game
records the version it was created with (option ``card_data``, absent = 1); the engine
activates that version (``using``) while it decides, lists legal answers or builds a view,
so ``card``/``catalog`` answer from the game's own data.
"""

from __future__ import annotations

import importlib.resources
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any, Final

import yaml

# The package's folder, not this module's __file__: the compiled module lives in build/native.
CARD_DIR: Final = Path(str(importlib.resources.files("services.rules.fallen") / "cards"))
FIRST: Final = 1
LATEST: Final = 5
VERSIONS: Final = tuple(range(FIRST, LATEST + 1))
_ACTIVE: Final[ContextVar[int]] = ContextVar("fallen_card_data", default=LATEST)

Card = dict[str, Any]

ATTRIBUTES: Final = ("agility", "intelligence", "strength")
TIMINGS: Final = (
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
TRIGGERS: Final = (
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
SHADOW: Final = ("brilliant", "luminous", "glowing", "clouded", "dusk", "night")


@dataclass(frozen=True)
class Catalog:
    """Every card by id, plus the lists that build decks."""

    cards: dict[str, Card]
    heroes: tuple[str, ...]
    dungeon_lords: tuple[str, ...]

    def __getitem__(self, card_id: str) -> Card:
        return self.cards[card_id]

    @cached_property
    def _by_type(self) -> dict[str, tuple[Card, ...]]:
        """Every type's cards in file order (one scan of the catalog, kept with it)."""
        out: dict[str, list[Card]] = {}
        for c in self.cards.values():
            out.setdefault(c["type"], []).append(c)
        return {kind: tuple(cards) for kind, cards in out.items()}

    def of_type(self, kind: str) -> list[Card]:
        """Return the cards of one type, in file order."""
        return list(self._by_type.get(kind, ()))

    def ids(self, kind: str, **where: Any) -> list[str]:
        """Return the ids of cards of a type whose fields equal the given values."""
        cards = self._by_type.get(kind, ())
        return [c["id"] for c in cards if all(c.get(k) == v for k, v in where.items())]


_LOADER: Final = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def data_file(version: int, name: str) -> Path:
    """Return the file a data version reads for one card kind (its own, else an earlier one)."""
    for v in range(version, FIRST, -1):
        path = CARD_DIR / f"v{v}" / f"{name}.yaml"
        if path.exists():
            return path
    return CARD_DIR / f"{name}.yaml"


# data_version() returns the card-data version active now (the game's own inside the
# engine): the context variable's own getter, with no Python frame per call (the rules ask
# about two thousand times per game)
data_version: Callable[[], int] = _ACTIVE.get


def since(version: int) -> bool:
    """Return whether the active data version is at least ``version`` (rule fixes tied to it)."""
    return _ACTIVE.get() >= version


class using:
    """Make ``version`` the active card data for the duration of the block."""

    __slots__ = ("_token", "_version")

    def __init__(self, version: int) -> None:
        self._version = version

    def __enter__(self) -> None:
        self._token = _ACTIVE.set(self._version)

    def __exit__(self, *exc: object) -> None:
        _ACTIVE.reset(self._token)


def catalog() -> Catalog:
    """Return the catalog of the active card-data version (each version loaded once)."""
    return catalog_of(_ACTIVE.get())


@cache
def catalog_of(version: int) -> Catalog:
    """Return the catalog of one released card-data version."""
    if version not in VERSIONS:
        raise ValueError(f"unknown Fallen card-data version {version}; known: {VERSIONS}")

    def _load(name: str) -> Any:
        return yaml.load(data_file(version, name).read_text(), Loader=_LOADER)

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


_CARDS: Final[dict[int, dict[str, Card]]] = {}  # version -> its catalog's cards, once loaded


def card(card_id: str) -> Card:
    """Return one card's data (from the active data version)."""
    version = _ACTIVE.get()
    cards = _CARDS.get(version)
    if cards is None:  # the version's first card: load (or find) its catalog
        cards = _CARDS[version] = catalog_of(version).cards
    return cards[card_id]


def name_of(card_id: str) -> str:
    """Return a card's display name."""
    c = catalog_of(_ACTIVE.get()).cards.get(card_id, {})
    return str(c.get("name", card_id))
