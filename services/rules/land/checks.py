"""Skill checks with d10s: automatic successes, one die per character, party sums."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from services.rules.land.data import card


@dataclass(frozen=True)
class CheckResult:
    """A party check: automatic and rolled successes, bonuses, the total and whether it passed."""

    required: int
    auto: int
    rolled: int
    bonus: int
    successes: int
    passed: bool
    criticals: int


def skill_value(character: str, gear: Iterable[str], skill: str) -> int:
    """Return a character's skill: base value + equipped Spoils + link bonus for a linked type."""
    base = int(card(character)["skills"][skill])
    link = card(character)["link"]
    total = base
    linked = False
    for g in gear:
        spoils = card(g)
        total += int(spoils.get("skills", {}).get(skill, 0))
        if link["skill"] == skill and link["type"] in spoils["types"]:
            linked = True
    return total + (int(link["n"]) if linked else 0)


def die_successes(value: int, roll: int) -> int:
    """Return a character's successes: tens digit, +1 if d10 <= ones digit or 1; 0 on a 10."""
    if not 1 <= roll <= 10:
        raise ValueError(f"a d10 shows 1-10, not {roll}")
    if roll == 10:
        return 0
    hit = roll == 1 or roll <= value % 10
    return value // 10 + (1 if hit else 0)


def party_check(
    values: Sequence[int], rolls: Sequence[int], required: int, bonus: int = 0
) -> CheckResult:
    """Return the result of a party check: one d10 per value, successes summed plus bonus."""
    if len(values) != len(rolls):
        raise ValueError("one d10 per character")
    auto = sum(v // 10 for v, r in zip(values, rolls, strict=True) if r != 10)
    rolled = sum(die_successes(v, r) for v, r in zip(values, rolls, strict=True)) - auto
    total = max(0, auto + rolled + bonus)
    crit = sum(1 for r in rolls if r == 10)
    return CheckResult(required, auto, rolled, bonus, total, total >= required, crit)


def perk_bonus(perks: Iterable[dict[str, Any]], skill: str, context: Iterable[str]) -> int:
    """Return the successes a faction's perks add to a check of `skill` in the given contexts."""
    ctx = {"any", *context}
    return sum(
        int(p["n"])
        for p in perks
        if p["kind"] == "skill_bonus" and p["skill"] == skill and p["when"] in ctx
    )


def tech_bonus(techs: dict[str, int], skill: str, tech_table: dict[str, Any]) -> int:
    """Return the successes a town's Technologies add to a check of `skill` (one per tier)."""
    return sum(
        tier for t, tier in techs.items() if tech_table[t]["bonus"].get("successes") == skill
    )
