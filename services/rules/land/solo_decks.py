"""Solo decks: Red Dot cards removed from the Action, Encounter and Mission decks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.rules.land.data import card, catalog
from services.rules.land.setup import is_solo

# [exp] Solo I set up, step 1: "Remove all cards with the Red Dot next to their titles from
# the Action, Encounter and Mission decks. Place them in the box."
RED_DOT_DECKS = (
    "action",
    "encounter_plains",
    "encounter_mountain",
    "encounter_city_rad",
    "missions",
)


def solo_deck(name: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the physical cards a deck is formed from under these options."""
    cards = catalog().decks[name]
    if is_solo(options) and name in RED_DOT_DECKS:
        return tuple(c for c in cards if not card(c).get("red_dot"))
    return cards
