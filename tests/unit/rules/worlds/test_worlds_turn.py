"""Turn rules: resources dice, healing, drawing, hand limit, Capital, attachments, stats."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import product

import pytest

from services.rules.worlds.cards import Stats, catalog_of, using
from services.rules.worlds.turn import (
    RESOURCE_FACES,
    can_attach,
    discards_needed,
    draw_or_pay,
    effective,
    has_lost,
    healed,
    keywords_of,
    pool_after_roll,
    resources_gained,
)


@pytest.fixture(autouse=True)
def _first_card_data() -> Iterator[None]:
    """These rule examples use card data 1's numbers (the rules, not the data, are tested)."""
    with using(1):
        yield


CAT = catalog_of(1)  # the examples quote card data 1's numbers


def test_the_higher_resource_die_is_gained() -> None:
    assert resources_gained([1, 3]) == 3
    assert resources_gained([2, 2]) == 2


def test_resource_odds_over_all_36_rolls() -> None:
    # given every pair of faces 1,1,1,2,2,3, then 1 comes 9/36, 2 16/36 and 3 11/36 of the time
    odds = Counter(resources_gained(pair) for pair in product(RESOURCE_FACES, repeat=2))
    assert odds == {1: 9, 2: 16, 3: 11}


@pytest.mark.parametrize("faces", [[1], [1, 2, 3], [4, 1], [0, 2]])
def test_impossible_resource_rolls_are_refused(faces: list[int]) -> None:
    with pytest.raises(ValueError):
        resources_gained(faces)


def test_the_pool_is_emptied_before_the_roll_is_added() -> None:
    assert pool_after_roll(5, [1, 2]) == 2


@pytest.mark.parametrize(
    ("damage", "regen", "after"), [(0, False, 0), (1, False, 0), (3, False, 2), (3, True, 0)]
)
def test_healing_removes_one_damage_or_all_with_regenerate(
    damage: int, regen: bool, after: int
) -> None:
    assert healed(damage, regen) == after


def test_an_empty_library_costs_a_capital_point_instead_of_a_card() -> None:
    assert draw_or_pay(4, 20) == (True, 20)
    assert draw_or_pay(0, 20) == (False, 19)


@pytest.mark.parametrize(("hand", "discard"), [(5, 0), (7, 0), (8, 1), (11, 4)])
def test_the_hand_is_cut_to_seven(hand: int, discard: int) -> None:
    assert discards_needed(hand) == discard


def test_zero_capital_loses() -> None:
    assert has_lost(0) and has_lost(-3) and not has_lost(1)


def test_one_attachment_of_each_subtype_per_creature() -> None:
    marine, rifle, armour = CAT["uea_marine"], CAT["uea_plasma_rifle"], CAT["uea_combat_armour"]
    assert can_attach(marine, [], rifle)
    assert can_attach(marine, [rifle], armour)
    assert not can_attach(marine, [rifle], CAT["dae_infernal_blade"])
    assert not can_attach(CAT["uea_field_hospital"], [], rifle)


def test_a_beast_takes_no_weapon_armour_or_artefact() -> None:
    k9 = CAT["uea_k9_unit"]
    assert not can_attach(k9, [], CAT["uea_plasma_rifle"])
    assert not can_attach(k9, [], CAT["uea_combat_armour"])
    assert not can_attach(k9, [], CAT["uea_nanite_injector"])
    assert can_attach(k9, [], CAT["uea_psi_amp"])


def test_effective_stats_add_attachments_auras_and_temporary_mods() -> None:
    marine = CAT["uea_marine"]  # 2 dmg, 3 atk, 3 def, 3 hp
    got = effective(marine, [CAT["uea_plasma_rifle"]], [Stats(defence=1)], [Stats(atk=-5)])
    assert got == Stats(dmg=3, atk=0, defence=4, hp=3)


def test_frenzy_adds_attack_and_damage_only_when_attacking() -> None:
    cub = CAT["fel_pridecub"]  # 1 dmg, 2 atk
    assert effective(cub).atk == 2
    assert effective(cub, attacking=True) == Stats(dmg=2, atk=3, defence=2, hp=2)


def test_granted_keywords_count_like_printed_ones() -> None:
    marine = CAT["uea_marine"]
    assert "swift" not in keywords_of(marine, [])
    assert "swift" in keywords_of(marine, [CAT["fel_pounce_training"]])
    assert "regenerate" in keywords_of(marine, [CAT["uea_nanite_injector"]])
