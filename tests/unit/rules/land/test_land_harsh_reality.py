"""A Harsh Reality and its two modifiers, each tested by the sentence it enforces."""

from __future__ import annotations

import pytest

from services.rules.engine.api import Setup
from services.rules.land import RULES
from services.rules.land.data import economy, factions
from services.rules.land.economy import Bank, Town, sell_tech, upgrade_from_bank, upgrade_tech
from services.rules.land.setup import setup_numbers, validate_options
from services.rules.playout import play

TECHS = tuple(economy()["techs"])


def _town(techs: dict[str, int]) -> Town:
    from types import MappingProxyType

    return Town(100, 1, 30, MappingProxyType(techs), 0, ())


def _bank(n: int) -> Bank:
    from types import MappingProxyType

    return Bank(MappingProxyType(dict.fromkeys(TECHS, n)), None)


def test_one_less_of_each_technology_than_players() -> None:
    # "There is one less of each type of Town Technology (TT) than the number of players."
    for n in (2, 3, 4, 5):
        assert setup_numbers(n, validate_options({"harsh_reality": True})).tech_stock == n - 1
        assert setup_numbers(n, validate_options({})).tech_stock is None


def test_starting_technologies_come_out_of_the_stock() -> None:
    # "Organize the TTs before handing out each Faction's Starting TTs ... since one player had
    # that starting TT on their Town Play Mat ... there would only be two available"
    seats = {f"p{k}": f"u{k}" for k in range(1, 5)}
    p = play(RULES, Setup(seats, {"harsh_reality": True, "max_turns": 1}), "hr", "hr")
    first = next(i for i, e in enumerate(p.events) if e.type == "turn_started")
    state = RULES.initial_state()
    for ev in p.events[:first]:
        state = RULES.evolve(state, ev)
    for t in TECHS:
        starting = sum(1 for s in seats if t in factions()[state.var(f"faction.{s}")]["techs"])
        assert state.count(f"bank.tech.{t}") == max(0, 3 - starting)


def test_tier_two_counts_as_one_and_sold_chips_return() -> None:
    # "Tier 2 (Gold) TTs only count as one, not two." / "Destroyed TTs are returned to the Bank"
    t = upgrade_tech(_town({TECHS[0]: 1}), TECHS[0])
    assert t.techs[TECHS[0]] == 2
    _, bank = sell_tech(t, _bank(0), TECHS[0])
    assert bank.techs is not None and bank.techs[TECHS[0]] == 1


def test_modifier_1_tier_two_counts_as_two() -> None:
    # "Modifier 1: Tier 2 Town Technologies count as 2 for purposes of the bank. ... if there
    # are three available for purchase and a player upgraded ... there would only be one left."
    town, bank = upgrade_from_bank(_town({TECHS[0]: 1}), _bank(2), TECHS[0])
    assert town.techs[TECHS[0]] == 2 and bank.techs is not None and bank.techs[TECHS[0]] == 1
    _, back = sell_tech(town, bank, TECHS[0], per_tier=True)
    assert back.techs is not None and back.techs[TECHS[0]] == 3
    from services.platform.errors import RuleViolation

    with pytest.raises(RuleViolation):
        upgrade_from_bank(_town({TECHS[0]: 1}), _bank(0), TECHS[0])


def test_modifier_2_starts_with_fewer_cards() -> None:
    # "Modifier 2: Players begin the game with 5 Characters, 8 Spoils and 2 Action cards."
    opts = validate_options({"harsh_reality": True, "harsh_modifier_2": True})
    n = setup_numbers(3, opts)
    assert (n.characters, n.spoils, n.action, n.roster) == (5, 8, 2, 0)


def test_modifiers_need_the_rule_and_solo_refuses_it() -> None:
    with pytest.raises(ValueError, match="harsh_modifier_1"):
        validate_options({"harsh_modifier_1": True})
    with pytest.raises(ValueError, match="harsh_reality"):
        validate_options({"harsh_reality": True, "variant": "solo1"})
    with pytest.raises(ValueError, match="harsh_reality"):
        validate_options({"harsh_reality": "yes"})


@pytest.mark.parametrize("mods", [(False, False), (True, False), (False, True), (True, True)])
def test_random_harsh_playouts_keep_the_stock(mods: tuple[bool, bool]) -> None:
    for i in range(6):
        n = 2 + i % 4
        seats = {f"p{k}": f"u{k}" for k in range(1, n + 1)}
        opts: dict[str, object] = {"harsh_reality": True, "harsh_modifier_1": mods[0]}
        opts["harsh_modifier_2"] = mods[1]
        opts |= {"short_game": True, "max_turns": 1 + (i == 0)}
        p = play(RULES, Setup(seats, opts), f"h{i}{mods}", f"h{i}{mods}")
        assert RULES.outcome(p.state) is not None
        for t in TECHS:
            assert p.state.count(f"bank.tech.{t}") >= 0
            held = [p.state.count(f"tech.{s}.{t}") for s in seats]
            chips = sum((h if mods[0] else min(h, 1)) for h in held)
            starting = sum(
                1 for s in seats if t in factions()[p.state.var(f"faction.{s}")]["techs"]
            )
            # Bank + chips held == the stock (or the starting chips, when they exceed it)
            assert p.state.count(f"bank.tech.{t}") + chips == max(n - 1, starting)
        state = RULES.initial_state()
        for ev in p.events:
            state = RULES.evolve(state, ev)
        assert RULES.state_hash(state) == RULES.state_hash(p.state)
