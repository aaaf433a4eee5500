"""Deck lists: parse a seat's deck option and check it against the library rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.rules.worlds.cards import Catalog

MAX_COPIES = 5
MAX_SPECIAL_COPIES = 1
# Not a rule ("there is no limit to the size of your Library"): a bound on one request. A deck
# option lists at most this many entries (card ids in a list, keys of a map); it is above
# the largest legal library (every card at its copy limit: 714 cards in this card set, checked
# by test_worlds_decks.py), so it never refuses a library the rules allow.
MAX_DECK_ENTRIES = 1000


class DeckError(ValueError):
    """A deck breaks a library rule; `card` names the offending card ("" if none)."""

    def __init__(self, card: str, reason: str) -> None:
        super().__init__(f"{card}: {reason}" if card else reason)
        self.card = card
        self.reason = reason


_BOUND = (
    f"a deck option lists at most {MAX_DECK_ENTRIES} cards (a bound on the request; "
    "the rules set no limit to a library's size)"
)


def copy_limit(catalog: Catalog, card: str) -> int:
    """The most copies of a card a library may hold (a Special is unique)."""
    return MAX_SPECIAL_COPIES if catalog[card].special else MAX_COPIES


def largest_library(catalog: Catalog) -> int:
    """The size of the largest legal library: every card of the set at its copy limit."""
    return sum(copy_limit(catalog, card) for card in catalog.cards)


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 40 else text[:40] + "..."


def counts_of(spec: Any, catalog: Catalog) -> dict[str, int]:
    """Turn a deck option (starter name, list of card ids, or {card: copies}) into counts."""
    if isinstance(spec, str):
        if spec not in catalog.starters:
            raise DeckError(
                _short(spec), f"unknown starter deck; starters are {sorted(catalog.starters)}"
            )
        return dict(catalog.starters[spec])
    if isinstance(spec, list):
        if len(spec) > MAX_DECK_ENTRIES:
            raise DeckError("", f"{len(spec)} entries; {_BOUND}")
        counts: dict[str, int] = {}
        for card in spec:
            if not isinstance(card, str):
                raise DeckError(_short(card), "a deck list holds card ids (strings)")
            counts[card] = counts.get(card, 0) + 1
        return counts
    if isinstance(spec, Mapping):
        if len(spec) > MAX_DECK_ENTRIES:
            raise DeckError("", f"{len(spec)} entries; {_BOUND}")
        return dict(spec)
    raise DeckError("", "a deck is a starter deck name, a list of card ids or a {card: copies} map")


def validate_counts(counts: Mapping[str, Any], catalog: Catalog) -> tuple[str, ...]:
    """Check known cards, copy limits and Specials; return the library as a sorted id tuple."""
    library: list[str] = []
    for card, copies in counts.items():
        if not isinstance(card, str) or card not in catalog:
            raise DeckError(_short(card), "unknown card")
        if not isinstance(copies, int) or isinstance(copies, bool) or copies < 1:
            raise DeckError(card, "copies must be a positive integer")
        limit = copy_limit(catalog, card)
        if copies > limit:
            what = "a Special is unique" if catalog[card].special else "at most five copies"
            raise DeckError(card, f"{copies} copies; {what}")
        library.extend([card] * copies)
    return tuple(sorted(library))


def build_library(spec: Any, catalog: Catalog) -> tuple[str, ...]:
    """Parse and validate a deck option; raise DeckError naming the first bad card."""
    return validate_counts(counts_of(spec, catalog), catalog)
