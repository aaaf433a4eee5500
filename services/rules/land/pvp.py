"""PVP between parties on one hex and NPCM assignments (docs/games/land.md 8.2, 8.3)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from services.rules.land.damage import Member, take_damage
from services.rules.land.data import card, economy
from services.rules.land.economy import Town, claim_resource, lose_resource
from services.rules.land.hexmap import GameMap, Hex, step_toward


@dataclass(frozen=True)
class PvpResult:
    """A fight's result: the winner (None on a tie) and the damage the loser takes."""

    winner: str | None
    loser: str | None
    damage: int
    prestige: int
    loot: int


def pvp_result(attacker: str, defender: str, att_successes: int, def_successes: int) -> PvpResult:
    """Return who wins a PVP Combat comparison: the difference is damage, +1 Prestige, 1 Spoils."""
    if att_successes == def_successes:
        return PvpResult(None, None, 0, 0, 0)
    won = att_successes > def_successes
    winner, loser = (attacker, defender) if won else (defender, attacker)
    return PvpResult(winner, loser, abs(att_successes - def_successes), 1, 1)


def pvp_bonus(action_card: str) -> int:
    """Return the Combat successes a `pvp` Action card adds to its player's side (0 otherwise)."""
    data = card(action_card)
    if data["timing"] != "pvp":
        return 0
    adds = [e["successes"] for e in data["effects"] if "successes" in e]
    return sum(int(x["n"]) for x in adds if x["skill"] in ("combat", "any"))


def raider_assignment(roll: int) -> str:
    """Return a Raider's assignment from 1d6: 1-3 the nearest resource, 4-6 the town."""
    if not 1 <= roll <= 6:
        raise ValueError(f"a d6 shows 1-6, not {roll}")
    return "resource" if roll <= 3 else "town"


def npcm_goal(npcm_class: str, assignment: str, party: Hex, town: Hex, resource: Hex | None) -> Hex:
    """Return where an NPCM heads: the target's party, town or nearest resource."""
    if npcm_class == "raider":
        if assignment == "resource" and resource is not None:
            return resource
        return town
    return party


def npcm_move(m: GameMap, at: Hex, goal: Hex, speed: int, mountain_cost: int) -> tuple[Hex, bool]:
    """Return where an NPCM ends its move and whether it reached its goal."""
    end = step_toward(m, at, goal, speed, mountain_cost)
    return end, end == goal


def strikes_at_once(npcm_class: str) -> bool:
    """Return whether an NPCM strikes in the NPCM step it is hired for (Assassins, Hitmen)."""
    return npcm_class in ("assassin", "hitman")


def npcm_hit(member: Member, damage: Mapping[str, int]) -> tuple[Member, int]:
    """Return a Character after an NPCM's attack (every listed damage type) and damage prevented."""
    prevented = 0
    for damage_type, n in sorted(damage.items()):
        member, p = take_damage(member, damage_type, int(n))
        prevented += p
    return member, prevented


def raid_resource(target: Town, hirer: Town, resource: str) -> tuple[Town, Town]:
    """Return (target, hirer) after Raiders claim a resource: the hirer takes it if it has room."""
    target = lose_resource(target, resource)
    if len(hirer.resources) < int(economy()["resource_max"]):
        hirer = claim_resource(hirer, resource)
    return target, hirer
