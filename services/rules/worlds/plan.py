"""Checks on a declared combat: who may attack, how defenders line up, unchallenged orders."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from services.rules.worlds.combat import CombatPlan, challenged

ORDERS = ("raid", "scenario", "aid")


class PlanError(ValueError):
    """A combat declaration breaks a rule (names the card)."""


def may_attack(atk: int, deployed_this_turn: bool, swift: bool, locked: bool) -> bool:
    """Attack 0 never attacks; a locked card cannot; a card deployed this turn needs Swift."""
    return atk > 0 and not locked and (swift or not deployed_this_turn)


def check_attackers(attackers: Collection[str], eligible: Collection[str]) -> None:
    """Every declared attacker must be eligible, and declared once."""
    if len(set(attackers)) != len(list(attackers)):
        raise PlanError("an attacker is declared twice")
    for uid in attackers:
        if uid not in eligible:
            raise PlanError(f"{uid} cannot attack")


def check_blocks(
    blocks: Mapping[str, tuple[str, ...]],
    attackers: Collection[str],
    defenders: Collection[str],
    guard: Mapping[str, int],
) -> None:
    """A defender lines up against existing attackers, at most `guard` of them (default 1)."""
    for uid, targets in blocks.items():
        if uid not in defenders:
            raise PlanError(f"{uid} cannot defend")
        if not targets or len(set(targets)) != len(targets):
            raise PlanError(f"{uid} must line up against distinct attackers")
        if len(targets) > guard.get(uid, 1):
            raise PlanError(f"{uid} may line up against at most {guard.get(uid, 1)} attacker(s)")
        for target in targets:
            if target not in attackers:
                raise PlanError(f"{uid} lines up against {target}, which is not attacking")


def check_orders(plan: CombatPlan, scenarios: Collection[str]) -> None:
    """Only unchallenged attackers get orders: raid, attack a scenario, or aid a challenged ally."""
    fought = challenged(plan)
    for uid, (order, arg) in plan.orders.items():
        if uid not in plan.attackers or uid in fought:
            raise PlanError(f"{uid} is not an unchallenged attacker")
        if order not in ORDERS:
            raise PlanError(f"{uid}: unknown order {order!r}")
        if order == "scenario" and arg not in scenarios:
            raise PlanError(f"{uid}: {arg} is not an opposing scenario")
        if order == "aid" and arg not in fought:
            raise PlanError(f"{uid}: {arg} is not a challenged ally")


def default_orders(plan: CombatPlan) -> dict[str, tuple[str, str]]:
    """Unchallenged attackers the attacker gave no order to raid (the rulebook's break-through)."""
    fought = challenged(plan)
    orders = dict(plan.orders)
    for uid in plan.attackers:
        if uid not in fought and uid not in orders:
            orders[uid] = ("raid", "")
    return orders
