"""Solo decks: no Red Dot cards in the Action, Encounter, Mission decks; the Red Dot deck."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from services.rules.land.data import card, card_data_of, deck_cards
from services.rules.land.setup import is_solo, is_solo2

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


SOLO1_NPCMS_SINCE = 2  # card data 2: Solo I keeps the NPCMs in its Action deck (register 30)


def _removed(c: str, options: Mapping[str, Any]) -> bool:
    """Return whether a solo variant puts this card in the box (or in the Red Dot deck)."""
    data = card(c)
    if "npcm" in data:
        # Solo II: "Separate and remove all Red Dot cards from the Action deck and the nine
        # Non-player Mercenary cards (NPCMs)" names the NPCMs beside the Red Dot cards, and
        # Solo I's order of play keeps "3rd. Hire NPCMs": from card data 2 on, Solo I keeps
        # them (our data marks them `red_dot` because they need a target).
        return is_solo2(options) or card_data_of(options) < SOLO1_NPCMS_SINCE
    return bool(data.get("red_dot"))


def solo_deck(name: str, options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the physical cards a deck is formed from under these options (and card data)."""
    version = card_data_of(options)
    if name == RED_DOT_DECK:
        # "Separate and remove all Red Dot cards from the Action deck and the nine
        # Non-player Mercenary cards (NPCMs). Shuffle them together to create a Red Dot
        # Action deck"
        return tuple(
            c for c in deck_cards("action", version) if card(c).get("red_dot") or "npcm" in card(c)
        )
    cards = deck_cards(name, version)
    if is_solo(options) and name in RED_DOT_DECKS:
        return tuple(c for c in cards if not _removed(c, options))
    return cards
