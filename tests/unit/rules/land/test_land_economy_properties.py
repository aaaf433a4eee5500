"""Random Financial periods (Epic): chips conserved, coins never negative, tracks bounded."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.errors import RuleViolation
from services.rules.land.data import economy
from services.rules.land.economy import (
    Bank,
    Town,
    buy_defense,
    buy_tech,
    convert_defense,
    open_bank,
    place_defense,
    sell_defense,
    sell_tech,
    upgrade_tech,
)
from services.rules.land.setup import setup_numbers

TECHS = sorted(economy()["techs"])
OPS = (
    "buy_tech",
    "upgrade_tech",
    "sell_tech",
    "buy_defense",
    "sell_defense",
    "convert_defense",
    "place_defense",
)
RESOURCE = "tulsa_oil"
Step = tuple[int, str, str, int]


def _apply(towns: list[Town], bank: Bank, step: Step) -> tuple[list[Town], Bank]:
    seat, op, tech, income = step
    t = replace(towns[seat], salvage=towns[seat].salvage + income)
    try:
        if op == "buy_tech":
            t, bank = buy_tech(t, bank, tech)
        elif op == "upgrade_tech":
            t = upgrade_tech(t, tech)
        elif op == "sell_tech":
            t, bank = sell_tech(t, bank, tech)
        elif op == "buy_defense":
            t, bank = buy_defense(t, bank)
        elif op == "sell_defense":
            t, bank = sell_defense(t, bank)
        elif op == "place_defense":
            t = place_defense(t, RESOURCE)
        else:
            t, bank = convert_defense(t, bank)
    except RuleViolation:
        t = replace(towns[seat], salvage=towns[seat].salvage + income)  # refused: income only
    return [*towns[:seat], t, *towns[seat + 1 :]], bank


steps = st.lists(
    st.tuples(st.integers(0, 5), st.sampled_from(OPS), st.sampled_from(TECHS), st.integers(0, 40)),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(steps)
def test_epic_bank_chips_are_conserved_and_tracks_bounded(plan: list[Step]) -> None:
    # given an Epic game: six towns and a Bank with players-1 of each tech and a TD supply
    n = setup_numbers(6)
    bank = open_bank(n.tech_stock, n.defense_supply)
    towns = [
        Town(
            salvage=n.salvage, prestige=n.prestige, town_health=n.town_health, resources=(RESOURCE,)
        )
    ] * 6
    # when the towns buy, upgrade, sell, convert and place chips on a resource in any order
    for step in plan:
        towns, bank = _apply(towns, bank, step)
        # then every Technology chip is in the Bank or one town, never more than the stock
        assert bank.techs is not None
        for tech in TECHS:
            owned = sum(1 for t in towns if tech in t.techs)
            assert owned + bank.techs[tech] == n.tech_stock
        # and Town Defense chips are in the Bank, a town or on its resource, within the cap
        assert bank.defense is not None and n.defense_supply is not None
        held = [t.defense + sum(t.resource_defense.values()) for t in towns]
        assert bank.defense + sum(held) == n.defense_supply
        for t, h in zip(towns, held, strict=True):
            assert t.salvage >= 0 and 0 <= t.defense <= h <= 5
            assert 0 <= t.town_health <= 80 and 0 <= t.prestige <= 20
            assert all(tier in (1, 2) for tier in t.techs.values())
