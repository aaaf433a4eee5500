"""Solo decks: no Red Dot cards in the Action, Encounter, Mission decks; the Red Dot deck."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.rules.land.data import card, catalog
from services.rules.land.setup import is_solo

# [exp] Solo I set up, step 1: "Remove all cards with the Red Dot next to their titles from
# the Action, Encounter and Mission decks. Place them in the box." Solo II set up, step 1
# removes them from the Encounter and Mission decks, and the Red Dot Action deck takes the
# Action deck's Red Dot cards (with the nine NPCMs): so the Action deck loses them as well.
RED_DOT_DECKS = (
    "action",
    "encounter_plains",
    "encounter_mountain",
    "encounter_city_rad",
    "missions",
)
RED_DOT_DECK = "red_dot"  # Solo Variant II only: formed after the seven core decks


def solo_deck(name: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the physical cards a deck is formed from under these options."""
    if name == RED_DOT_DECK:
        # "Separate and remove all Red Dot cards from the Action deck and the nine
        # Non-player Mercenary cards (NPCMs). Shuffle them together to create a Red Dot
        # Action deck"
        return tuple(
            c for c in catalog().decks["action"] if card(c).get("red_dot") or "npcm" in card(c)
        )
    cards = catalog().decks[name]
    if is_solo(options) and name in RED_DOT_DECKS:
        return tuple(c for c in cards if not card(c).get("red_dot") and "npcm" not in card(c))
    return cards
