"""Setup numbers (core and Epic), setup rolls, the Bank, Town Technologies and Town Defense."""

from __future__ import annotations

import pytest

from services.platform.errors import RuleViolation
from services.rules.land.economy import (
    Town,
    buy_defense,
    buy_tech,
    capture_requirement,
    claim_resource,
    convert_defense,
    defense_price,
    lose_resource,
    open_bank,
    production,
    sell_defense,
    sell_tech,
    town_attack,
    upgrade_tech,
)
from services.rules.land.setup import (
    accept_unique,
    first_player,
    reroll_seats,
    setup_numbers,
    validate_options,
)


def test_epic_setup_numbers() -> None:
    # given six players, then the Epic numbers of the expansion apply
    n = setup_numbers(6)
    assert (n.characters, n.crowned, n.roster) == (7, 5, 2)
    assert (n.spoils, n.action, n.salvage, n.hand_limit) == (11, 4, 15, 8)
    assert n.tech_stock == 5  # one less than the number of players
    assert n.defense_supply is not None and n.defense_supply > 0
    assert (n.town_health, n.prestige) == (30, 1)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_core_setup_numbers(players: int) -> None:
    n = setup_numbers(players)
    assert (n.characters, n.crowned, n.roster, n.spoils, n.action, n.salvage) == (
        6,
        5,
        1,
        10,
        3,
        10,
    )
    assert n.hand_limit == 7 and n.tech_stock is None and n.defense_supply is None


def test_player_counts_outside_2_to_6_are_refused() -> None:
    for bad in (0, 1, 7):
        with pytest.raises(ValueError):
            setup_numbers(bad)


def test_options_are_validated_by_name() -> None:
    assert validate_options({"short_game": True})["short_game"] is True
    with pytest.raises(ValueError, match=r"options\.speed"):
        validate_options({"speed": 2})
    with pytest.raises(ValueError, match=r"options\.max_turns"):
        validate_options({"max_turns": 0})
    with pytest.raises(ValueError, match=r"options\.variant"):
        validate_options({"variant": "solo_9"})


def test_duplicate_rolls_are_rerolled() -> None:
    # given missions on 12 and 57, when 57 is rolled again, then it is re-rolled
    assert not accept_unique([12, 57], 57)
    assert accept_unique([12, 57], 58)


def test_first_player_is_the_lowest_d10_and_ties_reroll() -> None:
    assert first_player({"p1": 4, "p2": 2, "p3": 9}) == "p2"
    rolls = {"p1": 3, "p2": 3, "p3": 9}
    assert first_player(rolls) is None and reroll_seats(rolls) == ["p1", "p2"]


def _town(salvage: int = 100, **kw: object) -> Town:
    return Town(salvage=salvage, prestige=1, town_health=30, **kw)  # type: ignore[arg-type]


def test_epic_bank_runs_out_of_a_technology_and_a_sold_one_returns() -> None:
    # given the Epic Bank with 5 Garrisons
    bank = open_bank(5, 30)
    towns = []
    for _ in range(5):
        t, bank = buy_tech(_town(), bank, "garrison")
        towns.append(t)
    assert bank.techs is not None and bank.techs["garrison"] == 0
    # when a sixth player tries, then the Bank has none
    with pytest.raises(RuleViolation, match="no garrison left"):
        buy_tech(_town(), bank, "garrison")
    # when one is sold back, then it can be bought again
    seller, bank = sell_tech(towns[0], bank, "garrison")
    assert bank.techs is not None and bank.techs["garrison"] == 1
    assert seller.salvage == 100 - 30 + 25
    buy_tech(_town(), bank, "garrison")


def test_core_bank_never_runs_out() -> None:
    bank = open_bank(None, None)
    for _ in range(8):
        _, bank = buy_tech(_town(), bank, "garrison")
    assert bank.techs is None


def test_buying_and_upgrading_a_technology() -> None:
    t, _ = buy_tech(_town(), open_bank(None, None), "marketplace")
    assert t.techs == {"marketplace": 1} and t.salvage == 70 and t.town_health == 32
    t = upgrade_tech(t, "marketplace")
    assert t.techs == {"marketplace": 2} and t.salvage == 40 and t.town_health == 34
    with pytest.raises(RuleViolation):
        upgrade_tech(t, "marketplace")
    with pytest.raises(RuleViolation, match="needs 30"):
        buy_tech(_town(salvage=29), open_bank(None, None), "garrison")


def test_selling_a_tier_two_technology_pays_per_tier() -> None:
    t = _town(techs={"garrison": 2})
    t2, bank = sell_tech(t, open_bank(5, 30), "garrison")
    assert t2.salvage == 150 and t2.town_health == 26 and "garrison" not in t2.techs
    assert bank.techs is not None and bank.techs["garrison"] == 6


def test_town_defense_prices_rise_and_cap_at_five() -> None:
    assert [defense_price(k) for k in range(5)] == [10, 15, 20, 25, 30]
    t, bank = _town(salvage=200), open_bank(None, None)
    for _ in range(5):
        t, bank = buy_defense(t, bank)
    assert t.defense == 5 and t.salvage == 200 - 100
    with pytest.raises(RuleViolation, match="most Town Defense"):
        buy_defense(t, bank)


def test_epic_town_defense_chips_run_out_and_return() -> None:
    bank = open_bank(5, 1)
    t, bank = buy_defense(_town(), bank)
    with pytest.raises(RuleViolation, match="no Town Defense chips left"):
        buy_defense(_town(), bank)
    t, bank = sell_defense(t, bank)
    assert bank.defense == 1 and t.salvage == 100 - 10 + 5


def test_converting_defense_into_town_health() -> None:
    t, bank = convert_defense(_town(defense=2), open_bank(5, 0))
    assert t.defense == 1 and t.town_health == 33 and bank.defense == 1


def test_town_defense_reduces_attacks_on_the_town() -> None:
    t, lost = town_attack(_town(defense=2), 5)
    assert lost == 3 and t.town_health == 27
    _, lost = town_attack(_town(defense=2), 1)
    assert lost == 0


def test_resources_give_prestige_cap_at_five_and_can_be_lost() -> None:
    t = _town()
    for r in ("a", "b", "c", "d", "e"):
        t = claim_resource(t, r)
    assert t.prestige == 6
    with pytest.raises(RuleViolation, match="most resources"):
        claim_resource(t, "f")
    t = lose_resource(t, "c")
    assert t.prestige == 5 and "c" not in t.resources


def test_capture_and_production() -> None:
    assert capture_requirement(0) == 3 and capture_requirement(2) == 7
    assert production({"salvage": 3, "town_health": 1}) == ({"salvage": 3, "town_health": 1}, [])
    assert production({"draw": "spoils"}) == ({}, ["spoils"])
