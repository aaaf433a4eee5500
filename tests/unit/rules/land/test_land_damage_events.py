"""Damage types, death and burial to the Auction House, healing, random crowns, Town Events rows."""

from __future__ import annotations

import pytest

from services.rules.land.damage import (
    Member,
    can_carry,
    heal,
    is_dead,
    random_crown,
    remove_dead,
    take_damage,
)
from services.rules.land.data import card
from services.rules.land.economy import Town
from services.rules.land.town_events import roll_town_event


def test_armor_prevents_physical_damage_only() -> None:
    m = Member("ch_01", gear=("riot_armor#1",))
    m, prevented = take_damage(m, "physical", 3)
    assert prevented == 1 and m.damage["physical"] == 2
    m, prevented = take_damage(m, "radiation", 1)
    assert prevented == 0 and m.damage["radiation"] == 1


def test_body_damage_kills_and_psych_breaks() -> None:
    hp = int(card("ch_02")["health"])
    m, _ = take_damage(Member("ch_02"), "infected", hp - 1)
    assert not is_dead(m)
    m, _ = take_damage(m, "radiation", 1)
    assert is_dead(m)
    psych = int(card("ch_02")["psych"])
    broken, _ = take_damage(Member("ch_02"), "psychological", psych)
    assert is_dead(broken)


def test_dead_characters_equipment_goes_to_the_auction_house() -> None:
    hp = int(card("ch_03")["health"])
    dead, _ = take_damage(Member("ch_03", gear=("shotgun#1", "whiskey#2")), "physical", hp)
    crowns, burial = remove_dead({1: Member("ch_04"), 3: dead})
    assert list(crowns) == [1]
    assert burial.crowns == (3,) and burial.characters == ("ch_03",)
    assert burial.to_auction == ("shotgun#1", "whiskey#2")


def test_healing_all_or_some() -> None:
    m, _ = take_damage(Member("ch_05"), "physical", 2)
    m, _ = take_damage(m, "psychological", 1)
    assert all(v == 0 for v in heal(m).damage.values())
    partial = heal(m, 2)
    assert partial.damage["physical"] == 0 and partial.damage["psychological"] == 1


def test_carrying_capacity() -> None:
    cap = int(card("ch_06")["carry"])
    assert can_carry("ch_06", ["lock_picks#1"])
    assert not can_carry("ch_06", ["rifle_556#1", "rifle_556#2", "riot_armor#1"] * (cap // 15 + 1))


@pytest.mark.parametrize(
    ("roll", "occupied", "crown"), [(3, [1, 3], 3), (2, [1, 3], None), (6, [1, 2, 3, 4, 5], None)]
)
def test_random_crown_rerolls_six_and_empty(
    roll: int, occupied: list[int], crown: int | None
) -> None:
    assert random_crown(roll, occupied) == crown


def _town(**kw: object) -> Town:
    return Town(salvage=10, prestige=5, town_health=30, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("roll", "prestige", "town_health", "choose"),
    [
        (1, 7, 34, ("action", "spoils", "characters")),
        (2, 6, 32, ()),
        (3, 5, 31, ()),
        (4, 5, 30, ()),
        (5, 5, 30, ()),
        (6, 5, 30, ()),
        (7, 5, 30, ()),
        (8, 5, 29, ()),
        (9, 4, 28, ()),
        (10, 5, 30, ()),
    ],
)
def test_each_town_events_row(
    roll: int, prestige: int, town_health: int, choose: tuple[str, ...]
) -> None:
    # given a town at 5 Prestige and 30 Town Health without resources, when the row is rolled
    ev = roll_town_event(_town(), roll)
    # then its tracks move as the chart says
    assert (ev.town.prestige, ev.town.town_health, ev.choose_card) == (
        prestige,
        town_health,
        choose,
    )
    assert not ev.lose_resource


def test_row_ten_takes_a_resource_when_the_town_owns_one() -> None:
    assert roll_town_event(_town(resources=("tulsa_oil",)), 10).lose_resource
