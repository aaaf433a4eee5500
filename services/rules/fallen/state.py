"""Fallen's seats and zone visibility over the kernel's immutable state.

Every card (and every reward token) lives in exactly one zone; counters hold
Fortune, Experience, Charges, Wounds and the Shadow Track; vars hold small public
values (story progress, the current challenge); see services/rules/engine/state.py.
"""

from __future__ import annotations

from typing import Final

from services.rules.engine.state import State, dumps, evolve, to_json
from services.rules.engine.zones import ZoneRules

HERO: Final = "hero"
DL: Final = "dungeon_lord"
SEATS: Final = (HERO, DL)

__all__ = [
    "DL",
    "HERO",
    "SEATS",
    "ZONES",
    "State",
    "dumps",
    "evolve",
    "move_visibility",
    "other",
    "to_json",
    "zone_public",
    "zone_seen_by",
]


def other(seat: str) -> str:
    """Return the opposing seat."""
    return DL if seat == HERO else HERO


_OWNER_ZONES: Final = {
    "hero.hand": (HERO,),
    "dungeon_lord.hand": (DL,),
    "story.current": (DL,),
    "story.used": (DL,),
    "reward.hero_looks": (HERO,),
    "reward.dl_looks": (DL,),
    "hero.new_treasure": (HERO,),
}


def _seen_by(zone: str) -> tuple[str, ...]:
    if zone in _OWNER_ZONES:
        return _OWNER_ZONES[zone]
    if zone.endswith(".deck") or zone in ("reward.face_down", "power_box", "story.deck"):
        return ()
    return SEATS


ZONES: Final = ZoneRules(SEATS, _seen_by)
zone_seen_by = ZONES.seen_by
zone_public = ZONES.public
move_visibility = ZONES.move_visibility
