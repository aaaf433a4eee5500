"""The Town Events Chart (1d10): track changes now, and the choices the row leaves to the player."""

from __future__ import annotations

from dataclasses import dataclass

from services.rules.land.data import town_events
from services.rules.land.economy import Town, adjust
from services.rules.land.effects import track_deltas


@dataclass(frozen=True)
class TownEvent:
    """A rolled row: the town after its track changes and the choices still to make."""

    roll: int
    town: Town
    choose_card: tuple[str, ...] = ()
    lose_resource: bool = False


def roll_town_event(town: Town, roll: int) -> TownEvent:
    """Return the Town Events row for a 1d10 roll applied to a town."""
    if not 1 <= roll <= 10:
        raise ValueError(f"a d10 shows 1-10, not {roll}")
    effects = town_events()[roll]
    d = track_deltas(effects)
    town = adjust(town, salvage=d["salvage"], prestige=d["prestige"], town_health=d["town_health"])
    choose: tuple[str, ...] = ()
    lose = False
    for e in effects:
        if "choose_card" in e:
            choose = tuple(e["choose_card"])
        if "lose_resource" in e:
            lose = bool(town.resources)
    return TownEvent(roll, town, choose, lose)
