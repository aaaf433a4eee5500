"""Card texts served in a seat's view: the cards it may see, as much of each as it may read.

Clients resolve card ids through the view's ``cards`` map, never by reading the card data
files (which list every Story branch and every Quest choice's effects). A Story card only
ever appears for the Dungeon Lord (its zones are his alone). The Quest is printed on the
back of the Dungeon Lord's Character card: "The Hero selects one of the two choices
without looking at the Quest card", so anyone but the Dungeon Lord gets its title,
introduction and choice names, which are read aloud (Quest Stage 2-3); the chosen
choice's text is told in the public ``quest_choice`` event.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.rules.fallen.cards import catalog
from services.rules.fallen.state import DL


def _quest_read_aloud(quest: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": quest["title"],
        "intro": quest["intro"],
        "choices": [{"name": c["name"]} for c in quest["choices"]],
    }


def card_text(cid: str, seat: str | None) -> dict[str, Any]:
    """Return what a seat may read of one card it can see."""
    data = dict(catalog()[cid])
    if data["type"] == "dungeon_lord" and seat != DL and "quest" in data:
        data["quest"] = _quest_read_aloud(data["quest"])
    return data


def _ids(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _ids(v)


def _in_game(zone: str, hero: str | None) -> bool:
    """Return False for the box (other characters' cards, cards put away)."""
    if zone == "box" or zone.startswith("box."):
        return False
    return not zone.startswith("skills.") or zone == f"skills.{hero}"


def served_cards(view: dict[str, Any], seat: str | None) -> dict[str, dict[str, Any]]:
    """Return the texts of every card the view shows the seat in play (zones, characters)."""
    known = catalog().cards
    hero = view["characters"].get("hero")
    ids: set[str] = set()
    for zone, cards in view["zones"].items():
        if isinstance(cards, list) and _in_game(zone, hero):
            ids.update(cards)
    ids.update(c for c in view["characters"].values() if c)
    return {cid: card_text(cid, seat) for cid in sorted(ids) if cid in known}
