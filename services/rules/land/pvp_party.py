"""Solo Variant II PVP option 2: how big an opposing faction's PVP Party is and how it is equipped.

Pure functions over card ids; the flow that draws, places and fights it is pvp_party_flow.py.
The equipping policy (the rulebook leaves it to the opposing faction) is docs/games/land.md 1.7.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from services.rules.land.damage import can_carry, carried_weight
from services.rules.land.data import card
from services.rules.land.oftec import solo2
from services.rules.land.party import CROWNS, can_load


def party_size() -> tuple[int, int, int]:
    """Return (Characters, base Spoils, Town Health per extra Spoils) of option 2's party."""
    p = solo2()["pvp_option_2"]
    return int(p["characters"]), int(p["spoils"]), int(p["town_health_per_spoils"])


def party_spoils(town_health: int) -> int:
    """Return the Spoils a PVP Party draws: 12 plus 1 for every 10 Town Health, rounded down."""
    if town_health < 0:
        raise ValueError(f"Town Health is never negative, not {town_health}")
    _, base, per = party_size()
    return base + town_health // per


def _empty() -> Mapping[int, tuple[str, ...]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Kit:
    """A PVP Party as equipped: crowns, each crown's Spoils, vehicle, its load, and the rest."""

    crowns: Mapping[int, str]
    gear: Mapping[int, tuple[str, ...]] = field(default_factory=_empty)
    vehicle: str | None = None
    load: tuple[str, ...] = ()
    left: tuple[str, ...] = ()  # not carried: discarded


def _types(c: str) -> list[str]:
    return list(card(c)["types"])


def _links(character: str, spoils: str) -> bool:
    link = card(character).get("link") or {}
    return link.get("type") in _types(spoils)


def equip_party(characters: Sequence[str], spoils: Sequence[str]) -> Kit:
    """Return the PVP Party equipped within carrying capacity, by the documented policy.

    Characters take crowns 1-5 in draw order. The first vehicle drawn fills the vehicle slot.
    Then each Spoils card in draw order, Events never carried: a linked item goes to a Character
    whose link it matches and who can still carry it; otherwise to any Character who can; among
    those, the one carrying the least weight (the lower crown on a tie), so the gear is spread;
    otherwise into the vehicle's load if it fits; otherwise it is discarded.
    """
    crowns = dict(zip(CROWNS, characters, strict=False))
    gear: dict[int, list[str]] = {k: [] for k in crowns}
    vehicle = next((s for s in spoils if "vehicle" in _types(s)), None)
    load: list[str] = []
    left: list[str] = []
    for s in spoils:
        if s == vehicle:
            continue
        if "vehicle" in _types(s) or "event" in _types(s):
            left.append(s)
            continue
        fits = [k for k, ch in crowns.items() if can_carry(ch, [*gear[k], s])]
        linked = [k for k in fits if _links(crowns[k], s)]
        if linked or fits:
            gear[min(linked or fits, key=lambda k: (carried_weight(gear[k]), k))].append(s)
        elif can_load(vehicle, load, s):
            load.append(s)
        else:
            left.append(s)
    return Kit(
        MappingProxyType(crowns),
        MappingProxyType({k: tuple(v) for k, v in gear.items()}),
        vehicle,
        tuple(load),
        tuple(left),
    )
