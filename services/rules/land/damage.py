"""Damage, healing and death of Characters; the dead's equipment goes to the Auction House."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from services.rules.land.data import DAMAGE_TYPES, card


def _zero() -> Mapping[str, int]:
    return MappingProxyType(dict.fromkeys(DAMAGE_TYPES, 0))


@dataclass(frozen=True)
class Member:
    """A crowned Character: its card, the Spoils it carries and damage taken by type."""

    character: str
    gear: tuple[str, ...] = ()
    damage: Mapping[str, int] = field(default_factory=_zero)


def carried_weight(gear: Iterable[str]) -> int:
    """Return the carry weight of a set of Spoils."""
    return sum(int(card(g)["weight"]) for g in gear)


def can_carry(character: str, gear: Sequence[str]) -> bool:
    """Return whether a Character can carry the Spoils (weight within carrying capacity)."""
    return carried_weight(gear) <= int(card(character)["carry"])


def prevention(gear: Iterable[str], damage_type: str) -> int:
    """Return how much damage of a type the Character's Spoils prevent per hit."""
    return sum(int(card(g).get("prevent", {}).get(damage_type, 0)) for g in gear)


def take_damage(m: Member, damage_type: str, n: int) -> tuple[Member, int]:
    """Return the Character after a hit of n damage of a type, and how much was prevented."""
    if damage_type not in DAMAGE_TYPES:
        raise ValueError(f"unknown damage type {damage_type!r}")
    prevented = min(n, prevention(m.gear, damage_type))
    dealt = n - prevented
    damage = MappingProxyType({**m.damage, damage_type: m.damage[damage_type] + dealt})
    return replace(m, damage=damage), prevented


def is_dead(m: Member) -> bool:
    """Return whether a Character dies (body damage >= health) or breaks (psych >= resistance)."""
    c = card(m.character)
    body = m.damage["physical"] + m.damage["infected"] + m.damage["radiation"]
    return body >= int(c["health"]) or m.damage["psychological"] >= int(c["psych"])


def heal(m: Member, n: int | None = None) -> Member:
    """Return the Character healed of all damage (n None) or of n points, body damage first."""
    if n is None:
        return replace(m, damage=_zero())
    left = n
    damage = dict(m.damage)
    for t in ("physical", "infected", "radiation", "psychological"):
        take = min(left, damage[t])
        damage[t] -= take
        left -= take
    return replace(m, damage=MappingProxyType(damage))


@dataclass(frozen=True)
class Burial:
    """Who died: crowns emptied, the Character cards to discard and Spoils to the Auction House."""

    crowns: tuple[int, ...]
    characters: tuple[str, ...]
    to_auction: tuple[str, ...]


def remove_dead(crowns: Mapping[int, Member]) -> tuple[dict[int, Member], Burial]:
    """Return the crowns with the dead removed and what becomes of them."""
    alive = {k: m for k, m in crowns.items() if not is_dead(m)}
    dead = sorted(k for k in crowns if k not in alive)
    return alive, Burial(
        tuple(dead),
        tuple(crowns[k].character for k in dead),
        tuple(g for k in dead for g in crowns[k].gear),
    )


def random_crown(roll: int, occupied: Iterable[int]) -> int | None:
    """Return the crown a 1d6 picks, or None to re-roll (a 6 or an empty crown)."""
    if not 1 <= roll <= 6:
        raise ValueError(f"a d6 shows 1-6, not {roll}")
    return roll if roll != 6 and roll in set(occupied) else None
