"""Deeds and weeks: what each deed costs, spending weeks, and the deficit carried to next turn."""

from __future__ import annotations

from dataclasses import dataclass

from services.platform.errors import RuleViolation
from services.rules.land.data import economy


def deed_cost(deed: str) -> int:
    """Return the weeks a deed costs (move/encounter/PVP 1, resource/healing 2, mission 3)."""
    costs = economy()["deeds"]
    if deed not in costs:
        raise RuleViolation(f"unknown deed {deed[:32]!r}")
    return int(costs[deed])


@dataclass(frozen=True)
class Weeks:
    """A party's weeks this turn: how many are left and the deficit owed to next turn."""

    left: int
    deficit: int = 0


def spend(weeks: Weeks, deed: str) -> Weeks:
    """Return the weeks after starting a deed; overspending is a deficit (needs 1 week left)."""
    cost = deed_cost(deed)
    if weeks.left < 1:
        raise RuleViolation("no weeks left this turn")
    over = max(0, cost - weeks.left)
    return Weeks(max(0, weeks.left - cost), weeks.deficit + over)


def gain(weeks: Weeks, n: int) -> Weeks:
    """Return the weeks after a card adds (n > 0) or takes away (n < 0) weeks this turn."""
    if n >= 0:
        return Weeks(weeks.left + n, weeks.deficit)
    lost = min(weeks.left, -n)
    return Weeks(weeks.left - lost, weeks.deficit + (-n - lost))


def new_turn(weeks: Weeks, per_turn: int | None = None) -> Weeks:
    """Return next turn's weeks: 4 weeks minus the deficit (a larger one carries on)."""
    total = int(economy()["weeks_per_turn"]) if per_turn is None else per_turn
    return Weeks(max(0, total - weeks.deficit), max(0, weeks.deficit - total))
