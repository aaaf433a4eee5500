"""Town Business and Party Exploits helpers: deal counts, income, hand limit, healing, decks."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from services.platform.errors import RuleViolation
from services.rules.land.data import economy
from services.rules.land.hexmap import GameMap, Hex

Perk = Mapping[str, Any]


def deal_counts(techs: Mapping[str, int]) -> dict[str, int]:
    """Return the cards a town is dealt in Deal: 1 Action (+1 per Law and Order tier), Spoils."""
    table = economy()["techs"]
    out = {"action": 1, "spoils": 0}
    for tech, tier in techs.items():
        deck = table[tech]["bonus"].get("deal")
        if deck:
            out[deck] += tier
    return out


def income(perks: Iterable[Perk]) -> int:
    """Return the Salvage Coins a faction's perks pay each Town Business."""
    return sum(int(p["n"]) for p in perks if p["kind"] == "income")


def shared_income(perks: Iterable[Perk]) -> int:
    """Return the Salvage Coins a chosen other faction receives too ("You each receive")."""
    return sum(int(p["n"]) for p in perks if p["kind"] == "income" and p.get("shared"))


def over_hand_limit(hand_size: int, limit: int) -> int:
    """Return how many Action cards must be discarded down to the hand limit."""
    return max(0, hand_size - limit)


def healing_fee(at: Hex, own_town: Hex, neutral_towns: Iterable[Hex], perks: Iterable[Perk]) -> int:
    """Return the Healing Deed fee here: 0 at home, 5 in a neutral town (0 with the perk)."""
    if at == own_town:
        return 0
    if at in set(neutral_towns):
        free = any(p["kind"] == "free_neutral_healing" for p in perks)
        return 0 if free else int(economy()["healing_fee_neutral"])
    raise RuleViolation("a Healing Deed needs your own or a neutral starting town")


def encounter_decks(m: GameMap, at: Hex) -> list[str]:
    """Return the Encounter decks a party may draw from on a hex (one per terrain it carries)."""
    terrain = m.terrain[at]
    decks = []
    if "plains" in terrain:
        decks.append("encounter_plains")
    if "mountain" in terrain:
        decks.append("encounter_mountain")
    if terrain & {"city", "rad"}:
        decks.append("encounter_city_rad")
    return decks


def check_context(deck: str, card: Mapping[str, Any]) -> list[str]:
    """Return the perk contexts of a check on a card: its deck kind and its tags."""
    kind = {
        "encounter_plains": "plains",
        "encounter_mountain": "mountain",
        "encounter_city_rad": "city_rad",
        "missions": "mission",
    }[deck]
    return [kind, *card.get("tags", [])]


def outcome_effects(card: Mapping[str, Any], passed: Mapping[str, bool]) -> list[dict[str, Any]]:
    """Return the effects an Encounter or Mission applies: success only if every check passed."""
    if set(passed) != set(card["checks"]):
        raise ValueError("one result per check on the card")
    return list(card["success"] if all(passed.values()) else card["failure"])


def mission_hex(m: GameMap, roll: int, occupied: Iterable[int]) -> Hex | None:
    """Return the hex a 2d10 roll places a Mission chip on, or None to re-roll (taken)."""
    if not 1 <= roll <= 100:
        raise ValueError(f"2d10 reads 1-100, not {roll}")
    return None if roll in set(occupied) else m.numbered[roll]
