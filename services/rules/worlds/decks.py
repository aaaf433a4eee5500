"""Deck lists: parse a seat's deck option and check it against the library rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.rules.worlds.cards import Catalog

MAX_COPIES = 5
MAX_SPECIAL_COPIES = 1
# Not a rule (the rulebook sets no maximum): a service limit so one request stays small.
MAX_DECK_SIZE = 300


class DeckError(ValueError):
    """A deck breaks a library rule; `card` names the offending card ("" if none)."""

    def __init__(self, card: str, reason: str) -> None:
        super().__init__(f"{card}: {reason}" if card else reason)
        self.card = card
        self.reason = reason


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
        counts: dict[str, int] = {}
        for card in spec:
            if not isinstance(card, str):
                raise DeckError(_short(card), "a deck list holds card ids (strings)")
            counts[card] = counts.get(card, 0) + 1
        return counts
    if isinstance(spec, Mapping):
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
        limit = MAX_SPECIAL_COPIES if catalog[card].special else MAX_COPIES
        if copies > limit:
            what = "a Special is unique" if catalog[card].special else "at most five copies"
            raise DeckError(card, f"{copies} copies; {what}")
        library.extend([card] * copies)
    if len(library) > MAX_DECK_SIZE:
        raise DeckError("", f"{len(library)} cards; this service accepts at most {MAX_DECK_SIZE}")
    return tuple(sorted(library))


def build_library(spec: Any, catalog: Catalog) -> tuple[str, ...]:
    """Parse and validate a deck option; raise DeckError naming the first bad card."""
    return validate_counts(counts_of(spec, catalog), catalog)
