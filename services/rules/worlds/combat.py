"""Combat math: the to-hit table, duels, pairings from a combat plan, and resolution."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

BASE_TO_HIT = 4
MIN_NEEDED, MAX_NEEDED = 2, 6


def to_hit(attack: int, defence: int) -> int:
    """Minimum d6 roll to hit: 4 + (defence - attack), clamped to 2..6 (the rulebook's table)."""
    return max(MIN_NEEDED, min(MAX_NEEDED, BASE_TO_HIT + defence - attack))


def is_hit(roll: int, attack: int, defence: int) -> bool:
    """A 6 always hits, a 1 always misses, attack 0 never rolls; otherwise roll >= to_hit."""
    if not 1 <= roll <= 6:
        raise ValueError(f"a d6 shows 1..6, not {roll}")
    if attack <= 0 or roll == 1:
        return False
    return roll == 6 or roll >= to_hit(attack, defence)


@dataclass(frozen=True)
class Fighter:
    """A card's combat numbers after every modifier (uid is its instance id in play)."""

    uid: str
    dmg: int
    atk: int
    defence: int


@dataclass(frozen=True)
class Strike:
    """One side of a pairing: striker rolls against target."""

    striker: str
    target: str


@dataclass(frozen=True)
class CombatPlan:
    """Declared combat: attackers, each defender's attacker(s), and unchallenged orders.

    blocks: defender uid -> attacker uids it lines up against.
    orders: unchallenged attacker uid -> ("raid", ""), ("scenario", scenario uid) or
    ("aid", ally attacker uid).
    """

    attackers: tuple[str, ...]
    blocks: Mapping[str, tuple[str, ...]]
    orders: Mapping[str, tuple[str, str]]


def defenders_of(plan: CombatPlan, attacker: str) -> list[str]:
    """Return the defenders lined up against one attacker, in declaration order."""
    return [d for d, targets in plan.blocks.items() if attacker in targets]


def challenged(plan: CombatPlan) -> set[str]:
    """Return the attackers that at least one defender lined up against."""
    return {a for targets in plan.blocks.values() for a in targets}


def strikes(plan: CombatPlan, scenario_atk: Mapping[str, int]) -> list[Strike]:
    """Every roll of the combat: both sides of each pairing (attack 0 sides are left out later).

    A challenged attacker duels each of its defenders; an aiding attacker duels each
    defender of the ally it aids; a scenario attacker duels the scenario; raiders roll nothing.
    """
    out: list[Strike] = []
    for attacker in plan.attackers:
        order, arg = plan.orders.get(attacker, ("", ""))
        if order == "raid":
            continue
        if order == "scenario":
            out.append(Strike(attacker, arg))
            if scenario_atk.get(arg, 0) > 0:
                out.append(Strike(arg, attacker))
            continue
        foes = defenders_of(plan, arg if order == "aid" else attacker)
        for defender in foes:
            out.append(Strike(attacker, defender))
            out.append(Strike(defender, attacker))
    return out


@dataclass(frozen=True)
class Outcome:
    """What combat deals: damage per card uid and Capital lost to raids."""

    damage: Mapping[str, int]
    raid: int


def resolve(
    plan: CombatPlan,
    fighters: Mapping[str, Fighter],
    strike_list: Sequence[Strike],
    rolls: Sequence[int],
) -> Outcome:
    """Total the damage of every hit and every raid (all applied at once in Resolution)."""
    if len(rolls) != len(strike_list):
        raise ValueError(f"{len(strike_list)} strikes need as many rolls, got {len(rolls)}")
    damage: dict[str, int] = {}
    for strike, roll in zip(strike_list, rolls, strict=True):
        me, foe = fighters[strike.striker], fighters[strike.target]
        if is_hit(roll, me.atk, foe.defence) and me.dmg > 0:
            damage[foe.uid] = damage.get(foe.uid, 0) + me.dmg
    raid = sum(
        max(0, fighters[a].dmg) for a in plan.attackers if plan.orders.get(a, ("", ""))[0] == "raid"
    )
    return Outcome(damage, raid)


def removed(health: Mapping[str, int], damage: Mapping[str, int]) -> list[str]:
    """Cards whose remaining health is zero or less after all damage (both sides may die)."""
    return sorted(uid for uid, hp in health.items() if hp - damage.get(uid, 0) <= 0)
