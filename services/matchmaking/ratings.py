"""Skill ratings with openskill's Plackett-Luce model, from a game's outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from openskill.models import PlackettLuce

from services.matchmaking.model import BOT_PREFIX, RatingRow

MODEL = PlackettLuce()
DEFAULT = RatingRow(player="", mu=MODEL.mu, sigma=MODEL.sigma)


def default_row(player: str) -> RatingRow:
    """Return the rating of a player before any rated game."""
    return RatingRow(player=player, mu=DEFAULT.mu, sigma=DEFAULT.sigma)


def placements(seats: Mapping[str, str], outcome: Mapping[str, Any]) -> list[list[str]] | None:
    """Return seat groups best first from an outcome, or None when it ranks nobody.

    An outcome may list "placements" (seat lists, best first: multiplayer games), or name
    one "winner" seat or several "winners" (shared first place, as Fallen Land's tie-break
    may end); the other seats share the next place. Anything else is unrated.
    """
    listed = outcome.get("placements")
    if isinstance(listed, list) and listed:
        groups = [[s] if isinstance(s, str) else list(s) for s in listed]
        if all(s in seats for g in groups for s in g):
            return groups
        return None
    winner = outcome.get("winner")
    winners = outcome.get("winners")
    firsts = [winner] if isinstance(winner, str) and winner else winners
    if not isinstance(firsts, list) or not firsts or not all(s in seats for s in firsts):
        return None
    rest = [s for s in seats if s not in firsts]
    return [list(firsts), rest] if rest else None


def rate(
    seats: Mapping[str, str], groups: Sequence[Sequence[str]], old: Mapping[str, RatingRow]
) -> list[RatingRow]:
    """Return the new rating rows of the human players after a game placed as groups."""
    teams, order = [], []
    ranks: list[float] = []
    for rank, group in enumerate(groups, start=1):
        for seat in group:
            player = seats[seat]
            row = old.get(player) or default_row(player)
            teams.append([MODEL.rating(mu=row.mu, sigma=row.sigma, name=player)])
            ranks.append(float(rank))
            order.append(player)
    if len(teams) < 2:
        return []
    new = MODEL.rate(teams, ranks=ranks)
    rows = []
    for player, team in zip(order, new, strict=True):
        if player.startswith(BOT_PREFIX):
            continue
        prev = old.get(player) or default_row(player)
        rows.append(RatingRow(player, float(team[0].mu), float(team[0].sigma), prev.games + 1))
    return rows
