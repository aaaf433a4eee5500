"""Skill checks: tens digit automatic, one d10 per character against the ones digit, 1 and 10."""

from __future__ import annotations

import pytest

from services.rules.land.checks import (
    die_successes,
    party_check,
    perk_bonus,
    skill_value,
    tech_bonus,
)
from services.rules.land.data import economy, factions


@pytest.mark.parametrize(
    ("value", "roll", "expected"),
    [
        (5, 5, 1),  # roll equal to the ones digit succeeds
        (5, 6, 0),  # above it fails
        (5, 1, 1),  # a natural 1 always succeeds
        (0, 1, 1),  # even with skill 0
        (10, 1, 2),  # tens digit 1 automatic + natural 1
        (10, 2, 1),  # ones digit 0: only the automatic success
        (17, 7, 2),
        (17, 8, 1),
        (23, 3, 3),
        (17, 10, 0),  # a natural 10 loses the automatic successes too
        (9, 10, 0),
    ],
)
def test_one_character_die(value: int, roll: int, expected: int) -> None:
    # given a character with `value` in the skill, when it rolls `roll`, then it scores
    assert die_successes(value, roll) == expected


def test_a_die_outside_1_to_10_is_refused() -> None:
    with pytest.raises(ValueError):
        die_successes(5, 0)


def test_party_check_sums_characters_and_bonus() -> None:
    # given three characters at 12, 7 and 4, when they roll 2, 8 and 10 with a +1 bonus
    result = party_check([12, 7, 4], [2, 8, 10], required=3, bonus=1)
    # then 12 gives 1 auto + 1 rolled, 7 misses, 4 rolled a 10: 2 + 1 = 3, passed
    assert (result.auto, result.rolled, result.bonus, result.successes) == (1, 1, 1, 3)
    assert result.passed and result.criticals == 1


def test_party_check_fails_below_the_requirement() -> None:
    result = party_check([5, 5], [6, 7], required=1)
    assert result.successes == 0 and not result.passed


def test_skill_value_adds_gear_and_link_bonus() -> None:
    # given ch_01 (link: melee_weapon -> combat +2) with a Survival Knife (combat +2)
    base = skill_value("ch_01", [], "combat")
    # when the linked weapon is carried, then gear and link both count
    assert skill_value("ch_01", ["survival_knife#1"], "combat") == base + 2 + 2
    # and a skill the link does not name gets only the gear bonus
    assert (
        skill_value("ch_01", ["survival_knife#1"], "medical")
        == skill_value("ch_01", [], "medical") + 1
    )


def test_perk_and_tech_bonuses() -> None:
    coalition = factions()[1]["perks"]
    assert perk_bonus(coalition, "combat", ["melee_only"]) == 1
    assert perk_bonus(coalition, "combat", ["plains"]) == 0
    techs = economy()["techs"]
    assert tech_bonus({"garrison": 2, "medical_center": 1}, "combat", techs) == 2
    assert tech_bonus({"garrison": 2, "medical_center": 1}, "medical", techs) == 1
    assert tech_bonus({"marketplace": 1}, "combat", techs) == 0
