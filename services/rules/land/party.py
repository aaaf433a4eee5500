"""The party: equipping at setup, skill values per character, movement points, first strikes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from services.platform.errors import RuleViolation
from services.rules.land.checks import skill_value
from services.rules.land.damage import Member, can_carry
from services.rules.land.data import card, economy

CROWNS = (1, 2, 3, 4, 5)


def _empty() -> Mapping[int, Member]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Party:
    """A party: Characters on crowns 1-5 and an optional vehicle with the Spoils it carries."""

    crowns: Mapping[int, Member] = field(default_factory=_empty)
    vehicle: str | None = None
    vehicle_gear: tuple[str, ...] = ()

    def gear(self) -> list[str]:
        """Return every Spoils card the party carries (characters, vehicle and its load)."""
        out = [g for m in self.crowns.values() for g in m.gear]
        if self.vehicle:
            out.append(self.vehicle)
        return out + list(self.vehicle_gear)


def _is(spoils: str, kind: str) -> bool:
    return kind in card(spoils)["types"]


def vehicle_capacity(vehicle: str | None) -> int:
    """Return how much carry weight a vehicle holds (its card's `capacity`; 0 without one)."""
    return int(card(vehicle).get("capacity", 0)) if vehicle else 0


def can_load(vehicle: str | None, load: Sequence[str], spoils: str) -> bool:
    """Return whether one more Spoils card fits in the vehicle's load (weight within capacity)."""
    if vehicle is None or any(_is(spoils, k) for k in economy()["not_stowed"]):
        return False
    weight = sum(int(card(g)["weight"]) for g in (*load, spoils))
    return weight <= vehicle_capacity(vehicle)


def equip(
    characters: Sequence[str],
    spoils: Sequence[str],
    crowns: Mapping[int, str],
    gear: Mapping[str, Sequence[str]],
    vehicle: str | None = None,
    vehicle_gear: Sequence[str] = (),
) -> tuple[Party, tuple[str, ...], tuple[str, ...]]:
    """Return (party, roster, auction house) from a seat's setup choice; refuse a bad one."""
    if set(crowns) - set(CROWNS):
        raise RuleViolation("crowns are numbered 1-5")
    chosen = list(crowns.values())
    if len(set(chosen)) != len(chosen) or not set(chosen) <= set(characters):
        raise RuleViolation("each crowned Character must be one of yours, once")
    if len(chosen) != min(len(CROWNS), len(characters)):
        raise RuleViolation("fill every Character Crown you can")
    if set(gear) - set(chosen):
        raise RuleViolation("only crowned Characters carry Spoils")
    used = [g for gs in gear.values() for g in gs] + list(vehicle_gear)
    used += [vehicle] if vehicle else []
    if len(set(used)) != len(used) or not set(used) <= set(spoils):
        raise RuleViolation("each Spoils card must be one of yours, used once")
    if vehicle is not None and not _is(vehicle, "vehicle"):
        raise RuleViolation("the vehicle slot takes a vehicle")
    if any(_is(g, "vehicle") or _is(g, "event") for g in used if g != vehicle):
        raise RuleViolation("vehicles go in the vehicle slot; events are not carried")
    for ch, gs in gear.items():
        if not can_carry(ch, list(gs)):
            raise RuleViolation("a Character carries more than its capacity")
    for i, g in enumerate(vehicle_gear):
        if not can_load(vehicle, vehicle_gear[:i], g):
            raise RuleViolation("the vehicle carries more than its capacity")
    members = {k: Member(ch, tuple(gear.get(ch, ()))) for k, ch in crowns.items()}
    roster = tuple(c for c in characters if c not in chosen)
    auction = tuple(s for s in spoils if s not in used and not _is(s, "event"))
    party = Party(MappingProxyType(members), vehicle, tuple(vehicle_gear))
    return party, roster, auction


def skill_values(party: Party, skill: str) -> list[int]:
    """Return each crowned Character's value in a skill, crown order (one d10 each)."""
    return [skill_value(m.character, m.gear, skill) for _, m in sorted(party.crowns.items())]


def movement_points(
    roll: int, party: Party, techs: Mapping[str, int], perks: Iterable[Mapping[str, Any]]
) -> int:
    """Return a Movement Deed's points: 1d6 + vehicle + best horse + Comm. Center + perks."""
    if not 1 <= roll <= 6:
        raise ValueError(f"a d6 shows 1-6, not {roll}")
    vehicle = int(card(party.vehicle).get("movement", 0)) if party.vehicle else 0
    horses = [int(card(g).get("movement", 0)) for g in party.gear() if _is(g, "horse")]
    comm = 2 * techs.get("communication_center", 0)
    perk = sum(int(p["n"]) for p in perks if p["kind"] == "movement")
    return roll + vehicle + max(horses, default=0) + comm + perk


def first_strikes(party: Party) -> list[tuple[int, int]]:
    """Return (crown, damage) for each Character with a first strike (own plus its Spoils)."""
    out = []
    for k, m in sorted(party.crowns.items()):
        n = int(card(m.character)["first_strike"]) + sum(
            int(card(g).get("first_strike", 0)) for g in m.gear
        )
        if n > 0:
            out.append((k, n))
    return out
