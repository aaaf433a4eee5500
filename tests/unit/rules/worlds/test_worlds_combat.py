"""Combat: pairings, rolls, simultaneous damage, raids, scenarios, aid and the plan checks."""

from __future__ import annotations

import pytest

from services.rules.worlds.combat import CombatPlan, Fighter, Strike, removed, resolve, strikes
from services.rules.worlds.plan import (
    PlanError,
    check_attackers,
    check_blocks,
    check_orders,
    default_orders,
    may_attack,
)

A1 = Fighter("a1", dmg=3, atk=4, defence=2)
A2 = Fighter("a2", dmg=2, atk=3, defence=3)
D1 = Fighter("d1", dmg=2, atk=3, defence=4)
D2 = Fighter("d2", dmg=1, atk=0, defence=5)
SC = Fighter("sc", dmg=2, atk=2, defence=2)
FIGHTERS = {f.uid: f for f in (A1, A2, D1, D2, SC)}


def test_a_duel_has_both_sides_roll_and_both_can_die() -> None:
    # given a1 (atk 4, dmg 3) against d1 (def 4, atk 3, dmg 2)
    plan = CombatPlan(("a1",), {"d1": ("a1",)}, {})
    rolls_for = strikes(plan, {})
    assert rolls_for == [Strike("a1", "d1"), Strike("d1", "a1")]
    # when a1 rolls 4 (needs 4) and d1 rolls 3 (needs 4+(2-3)=3)
    out = resolve(plan, FIGHTERS, rolls_for, [4, 3])
    # then both take damage at once
    assert out.damage == {"d1": 3, "a1": 2} and out.raid == 0
    assert removed({"a1": 2, "d1": 3}, out.damage) == ["a1", "d1"]


def test_misses_deal_nothing() -> None:
    plan = CombatPlan(("a1",), {"d1": ("a1",)}, {})
    out = resolve(plan, FIGHTERS, strikes(plan, {}), [3, 2])
    assert out.damage == {}


def test_several_defenders_each_duel_the_attacker() -> None:
    # given d1 and d2 lined up against a1; d2 has attack 0 and never rolls a hit
    plan = CombatPlan(("a1",), {"d1": ("a1",), "d2": ("a1",)}, {})
    rolls_for = strikes(plan, {})
    assert len(rolls_for) == 4
    out = resolve(plan, FIGHTERS, rolls_for, [6, 6, 6, 6])
    assert out.damage == {"d1": 3, "d2": 3, "a1": 2}


def test_an_unchallenged_raider_costs_capital_equal_to_its_damage() -> None:
    plan = CombatPlan(("a1", "a2"), {}, {"a1": ("raid", "")})
    plan = CombatPlan(plan.attackers, plan.blocks, default_orders(plan))
    assert strikes(plan, {}) == []
    assert resolve(plan, FIGHTERS, [], []).raid == 5


def test_attacking_a_scenario_is_a_duel_unless_the_scenario_has_no_attack() -> None:
    plan = CombatPlan(("a2",), {}, {"a2": ("scenario", "sc")})
    assert strikes(plan, {"sc": 2}) == [Strike("a2", "sc"), Strike("sc", "a2")]
    assert strikes(plan, {"sc": 0}) == [Strike("a2", "sc")]
    out = resolve(plan, FIGHTERS, strikes(plan, {"sc": 2}), [4, 5])
    assert out.damage == {"sc": 2, "a2": 2}


def test_an_aiding_creature_duels_the_defenders_of_its_ally() -> None:
    plan = CombatPlan(("a1", "a2"), {"d1": ("a1",)}, {"a2": ("aid", "a1")})
    assert strikes(plan, {}) == [
        Strike("a1", "d1"),
        Strike("d1", "a1"),
        Strike("a2", "d1"),
        Strike("d1", "a2"),
    ]


def test_resolve_needs_one_roll_per_strike() -> None:
    plan = CombatPlan(("a1",), {"d1": ("a1",)}, {})
    with pytest.raises(ValueError, match="rolls"):
        resolve(plan, FIGHTERS, strikes(plan, {}), [6])


@pytest.mark.parametrize(
    ("atk", "fresh", "swift", "locked", "allowed"),
    [
        (3, False, False, False, True),
        (0, False, False, False, False),
        (3, True, False, False, False),
        (3, True, True, False, True),
        (3, False, False, True, False),
    ],
)
def test_who_may_attack(atk: int, fresh: bool, swift: bool, locked: bool, allowed: bool) -> None:
    assert may_attack(atk, fresh, swift, locked) is allowed


def test_attackers_must_be_eligible_and_distinct() -> None:
    check_attackers(["a1"], {"a1"})
    with pytest.raises(PlanError, match="a2"):
        check_attackers(["a2"], {"a1"})
    with pytest.raises(PlanError, match="twice"):
        check_attackers(["a1", "a1"], {"a1"})


def test_a_defender_lines_up_against_one_attacker_unless_it_has_guard() -> None:
    check_blocks({"d1": ("a1",)}, {"a1", "a2"}, {"d1"}, {})
    with pytest.raises(PlanError, match="at most 1"):
        check_blocks({"d1": ("a1", "a2")}, {"a1", "a2"}, {"d1"}, {})
    check_blocks({"d1": ("a1", "a2")}, {"a1", "a2"}, {"d1"}, {"d1": 2})
    with pytest.raises(PlanError, match="not attacking"):
        check_blocks({"d1": ("zz",)}, {"a1"}, {"d1"}, {})
    with pytest.raises(PlanError, match="cannot defend"):
        check_blocks({"d9": ("a1",)}, {"a1"}, {"d1"}, {})


def test_orders_go_only_to_unchallenged_attackers() -> None:
    plan = CombatPlan(("a1", "a2"), {"d1": ("a1",)}, {"a1": ("raid", "")})
    with pytest.raises(PlanError, match="unchallenged"):
        check_orders(plan, set())
    with pytest.raises(PlanError, match="challenged ally"):
        check_orders(CombatPlan(("a1", "a2"), {}, {"a2": ("aid", "a1")}), set())
    with pytest.raises(PlanError, match="scenario"):
        check_orders(CombatPlan(("a2",), {}, {"a2": ("scenario", "nope")}), {"sc"})
    check_orders(CombatPlan(("a1", "a2"), {"d1": ("a1",)}, {"a2": ("aid", "a1")}), set())
