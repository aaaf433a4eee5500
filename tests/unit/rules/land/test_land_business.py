"""Town Business (deal, income, hand limit), healing fees, encounter decks and outcomes."""

from __future__ import annotations

import pytest

from services.platform.errors import RuleViolation
from services.rules.land.business import (
    check_context,
    deal_counts,
    encounter_decks,
    healing_fee,
    income,
    mission_hex,
    outcome_effects,
    over_hand_limit,
)
from services.rules.land.data import card, factions
from services.rules.land.hexmap import game_map


def test_deal_is_one_action_plus_law_and_order_and_marketplace() -> None:
    assert deal_counts({}) == {"action": 1, "spoils": 0}
    assert deal_counts({"law_and_order": 2, "marketplace": 1, "garrison": 1}) == {
        "action": 3,
        "spoils": 1,
    }


def test_income_perks() -> None:
    assert income(factions()[3]["perks"]) == 3  # Syndicate: Protection Money
    assert income(factions()[1]["perks"]) == 0


def test_hand_limit_discards_only_the_excess() -> None:
    assert over_hand_limit(9, 8) == 1 and over_hand_limit(8, 8) == 0 and over_hand_limit(10, 7) == 3


def test_healing_fee_home_neutral_perk_and_elsewhere() -> None:
    m = game_map()
    home, neutral = m.towns[6], [m.towns[2], m.towns[4]]
    assert healing_fee(home, home, neutral, []) == 0
    assert healing_fee(m.towns[2], home, neutral, []) == 5
    assert healing_fee(m.towns[2], home, neutral, factions()[1]["perks"]) == 0  # Midwestern Charm
    with pytest.raises(RuleViolation):
        healing_fee(m.numbered[1], home, neutral, [])


def test_encounter_decks_follow_the_hex_terrain() -> None:
    m = game_map()
    by_terrain = {frozenset(encounter_decks(m, h)) for h in m.terrain if m.passable(h)}
    assert frozenset({"encounter_city_rad", "encounter_plains"}) in by_terrain  # a town hex
    assert frozenset({"encounter_mountain"}) in by_terrain
    water = next(h for h, t in m.terrain.items() if "water" in t)
    assert encounter_decks(m, water) == []


def test_outcome_needs_every_check() -> None:
    c = card("ci_01")  # two checks
    assert len(c["checks"]) == 2
    passed = dict.fromkeys(c["checks"], True)
    assert outcome_effects(c, passed) == c["success"]
    first = next(iter(c["checks"]))
    assert outcome_effects(c, {**passed, first: False}) == c["failure"]
    with pytest.raises(ValueError):
        outcome_effects(c, {first: True})


def test_check_context_names_deck_and_tags() -> None:
    tagged = next(
        c for c in (card(f"pl_{i:02d}") for i in range(1, 41)) if "melee_only" in c.get("tags", [])
    )
    assert check_context("encounter_plains", tagged) == ["plains", "melee_only"]
    assert check_context("missions", card("mi_01")) == ["mission"]


def test_mission_chips_land_on_numbered_hexes_and_duplicates_reroll() -> None:
    m = game_map()
    assert mission_hex(m, 100, [3, 7]) == m.numbered[100]
    assert mission_hex(m, 7, [3, 7]) is None
