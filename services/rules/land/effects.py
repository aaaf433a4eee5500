"""The card effect and perk vocabulary: validation, and the effects on a town's tracks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from services.rules.land.data import DAMAGE_TYPES, SKILLS

EFFECTS = (
    "salvage",
    "prestige",
    "town_health",
    "draw",
    "damage",
    "heal",
    "weeks",
    "successes",
    "reroll",
    "reroll_opponent",
    "lose_spoils",
    "steal",
    "move_party",
    "choose_card",
    "lose_resource",
    "prestige_to_left",
    "ignore_action",
    "look_at_hands",
)
PERKS = (
    "skill_bonus",
    "income",
    "free_neutral_healing",
    "movement",
    "starting_spoils",
    "draw_action_for_salvage",
)
DRAW_DECKS = ("spoils", "action", "characters")
TARGETS = ("random", "all", "chosen")
STEALS = ("salvage", "spoils", "character")  # character: from a Town Roster
# Character and Spoils special abilities (card data 2, docs/games/land.md 9.1): the moment an
# ability acts, and how often
ABILITY_TIMINGS = (
    "resource_production",
    "town_business",
    "party_exploits",
    "skill_check",
    "any",
    "played_on",
)
ABILITY_PER = ("turn", "game")
NEAR_OF = ("party", "town")
PERK_WHEN = ("any", "plains", "mountain", "city_rad", "mission", "pvp", "melee_only")


def _check(effect: dict[str, Any], where: str) -> None:
    if len(effect) != 1:
        raise ValueError(f"{where}: an effect has exactly one primitive: {effect}")
    ((op, arg),) = effect.items()
    if op not in EFFECTS:
        raise ValueError(f"{where}: unknown effect {op!r}")
    if op == "damage":
        ok = arg["type"] in DAMAGE_TYPES and arg["n"] > 0 and arg["target"] in TARGETS
    elif op == "draw":
        ok = arg["deck"] in DRAW_DECKS and arg["n"] > 0
    elif op == "successes":
        ok = arg["skill"] in (*SKILLS, "any") and isinstance(arg["n"], int)
    elif op == "steal":
        ok = arg["what"] in STEALS and arg["n"] > 0
    elif op == "choose_card":
        ok = set(arg) <= set(DRAW_DECKS)
    elif op == "lose_spoils":
        ok = arg == "random"
    elif op == "ignore_action":
        ok = arg == "hand"
    else:
        ok = isinstance(arg, int) and arg != 0
    if not ok:
        raise ValueError(f"{where}: bad argument for {op}: {arg!r}")


def walk(effects: Iterable[dict[str, Any]], where: str) -> None:
    """Raise ValueError when an effect list uses an unknown primitive or a bad argument."""
    for effect in effects:
        _check(effect, where)


def check_ability(ability: dict[str, Any], where: str) -> None:
    """Raise ValueError when a card's special ability has an unknown timing, rate or effect."""
    if ability.get("timing") not in ABILITY_TIMINGS or ability.get("per") not in ABILITY_PER:
        raise ValueError(f"{where}: bad ability timing or rate: {ability!r}")
    near = ability.get("near")
    if near is not None and not (int(near["within"]) > 0 and set(near["of"]) <= set(NEAR_OF)):
        raise ValueError(f"{where}: bad ability condition: {near!r}")
    walk(ability["effects"], where)


def track_deltas(effects: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Return the salvage / prestige / town_health changes an effect list makes to its owner."""
    out = {"salvage": 0, "prestige": 0, "town_health": 0}
    for effect in effects:
        for op, arg in effect.items():
            if op in out:
                out[op] += int(arg)
    return out
