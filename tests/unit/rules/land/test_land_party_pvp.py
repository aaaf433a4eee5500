"""Equipping a party at setup, movement, first strikes, PVP and NPCM movement."""

from __future__ import annotations

import pytest

from services.platform.errors import RuleViolation
from services.rules.land.damage import Member
from services.rules.land.data import card, factions
from services.rules.land.economy import Town
from services.rules.land.hexmap import distances, game_map, reachable
from services.rules.land.party import Party, equip, first_strikes, movement_points, skill_values
from services.rules.land.pvp import (
    npcm_goal,
    npcm_hit,
    npcm_move,
    pvp_result,
    raid_resource,
    raider_assignment,
    strikes_at_once,
)

CHARS = ["ch_01", "ch_02", "ch_03", "ch_04", "ch_05", "ch_06", "ch_07"]
SPOILS = [
    "survival_knife#1",
    "horse#1",
    "pickup_truck#1",
    "lock_picks#1",
    "ev_cache#1",
    "shotgun#1",
]


def _epic_equip() -> tuple[Party, tuple[str, ...], tuple[str, ...]]:
    crowns = {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"}
    gear = {"ch_01": ["survival_knife#1"], "ch_02": ["horse#1"]}
    return equip(CHARS, SPOILS, crowns, gear, vehicle="pickup_truck#1", vehicle_gear=["shotgun#1"])


def test_epic_equip_crowns_five_and_rosters_two() -> None:
    # given 7 Characters and 6 Spoils, when five are crowned and gear assigned
    party, roster, auction = _epic_equip()
    # then two wait in the roster, unassigned Spoils go to the Auction House, events do not
    assert sorted(party.crowns) == [1, 2, 3, 4, 5]
    assert roster == ("ch_06", "ch_07")
    assert auction == ("lock_picks#1",)
    assert set(party.gear()) == {"survival_knife#1", "horse#1", "pickup_truck#1", "shotgun#1"}


@pytest.mark.parametrize(
    ("crowns", "gear", "reason"),
    [
        ({1: "ch_01", 2: "ch_02"}, {}, "fill every"),
        ({1: "ch_01", 2: "ch_01", 3: "ch_03", 4: "ch_04", 5: "ch_05"}, {}, "once"),
        ({1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 6: "ch_05"}, {}, "1-5"),
        (
            {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"},
            {"ch_06": ["horse#1"]},
            "crowned",
        ),
        (
            {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"},
            {"ch_01": ["pickup_truck#1"]},
            "vehicle slot",
        ),
        (
            {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"},
            {"ch_01": ["rifle_556#9"]},
            "one of yours",
        ),
    ],
)
def test_bad_equip_is_refused(
    crowns: dict[int, str], gear: dict[str, list[str]], reason: str
) -> None:
    with pytest.raises(RuleViolation, match=reason):
        equip(CHARS, SPOILS, crowns, gear)


def test_over_capacity_is_refused() -> None:
    heavy = [f"rifle_556#{i}" for i in (1, 2, 3)] + ["riot_armor#1", "riot_armor#2", "riot_armor#3"]
    crowns = {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"}
    with pytest.raises(RuleViolation, match="capacity"):
        equip(CHARS, heavy, crowns, {"ch_01": heavy})


def test_skill_values_follow_crown_order() -> None:
    party, _, _ = _epic_equip()
    values = skill_values(party, "combat")
    assert len(values) == 5
    assert values[1] == int(card("ch_02")["skills"]["combat"])


def test_movement_points_add_vehicle_horse_tech_and_perks() -> None:
    party, _, _ = _epic_equip()
    # truck +1, horse +1, Communication Center tier 1 +2, Highwaymen Road Warriors +2
    perks = factions()[7]["perks"]
    assert movement_points(3, party, {"communication_center": 1}, perks) == 3 + 1 + 1 + 2 + 2
    assert movement_points(3, Party(), {}, []) == 3


def test_mountains_cost_more_to_enter() -> None:
    m = game_map()
    town = m.towns[2]  # Great Falls sits among the mountains
    cheap = distances(m, town, 1)
    dear = distances(m, town, 2)
    assert any(dear[h] > cheap[h] for h in cheap)
    assert len(reachable(m, town, 2, 2)) < len(reachable(m, town, 2, 1))


def test_first_strikes_count_character_and_gear() -> None:
    crowns = {1: "ch_01", 2: "ch_02", 3: "ch_03", 4: "ch_04", 5: "ch_05"}
    party, _, _ = equip(CHARS, ["revolver#1"], crowns, {"ch_03": ["revolver#1"]})
    strikes = dict(first_strikes(party))
    assert strikes[3] == int(card("ch_03")["first_strike"]) + 1


def test_pvp_winner_loser_and_tie() -> None:
    r = pvp_result("p1", "p2", 5, 2)
    assert (r.winner, r.loser, r.damage, r.prestige, r.loot) == ("p1", "p2", 3, 1, 1)
    r = pvp_result("p1", "p2", 1, 4)
    assert (r.winner, r.damage) == ("p2", 3)
    assert pvp_result("p1", "p2", 2, 2).winner is None


def test_raiders_and_npcm_movement() -> None:
    assert [raider_assignment(r) for r in range(1, 7)] == ["resource"] * 3 + ["town"] * 3
    m = game_map()
    town, party = m.towns[1], m.towns[6]
    assert npcm_goal("raider", "town", party, town, None) == town
    assert npcm_goal("raider", "resource", party, town, (5, 9)) == (5, 9)
    assert npcm_goal("bounty_hunter", "", party, town, None) == party
    end, arrived = npcm_move(m, m.towns[10], town, 3, 2)
    assert not arrived and distances(m, town, 2)[end] < distances(m, town, 2)[m.towns[10]]
    end, arrived = npcm_move(m, m.towns[10], town, 200, 2)
    assert arrived and end == town


def test_assassins_strike_at_once_and_hunters_travel() -> None:
    assert strikes_at_once("assassin") and strikes_at_once("hitman")
    assert not strikes_at_once("bounty_hunter") and not strikes_at_once("raider")


def test_npcm_hit_applies_every_damage_type_through_armor() -> None:
    m = Member("ch_01", gear=("riot_armor#1",))
    m, prevented = npcm_hit(m, {"physical": 3, "psychological": 1})
    assert prevented == 1 and m.damage["physical"] == 2 and m.damage["psychological"] == 1


def test_raiders_pass_a_resource_to_the_hirer_when_it_has_room() -> None:
    target = Town(salvage=0, prestige=3, town_health=30, resources=("tulsa_oil",))
    hirer = Town(salvage=0, prestige=1, town_health=30)
    target, hirer = raid_resource(target, hirer, "tulsa_oil")
    assert target.resources == () and target.prestige == 2
    assert hirer.resources == ("tulsa_oil",) and hirer.prestige == 2
    full = Town(salvage=0, prestige=6, town_health=30, resources=("a", "b", "c", "d", "e"))
    target = Town(salvage=0, prestige=3, town_health=30, resources=("tulsa_oil",))
    target, full = raid_resource(target, full, "tulsa_oil")
    assert target.resources == () and "tulsa_oil" not in full.resources
