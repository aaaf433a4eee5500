"""Seeded bot matches on the forward model: win rates with Wilson 95% confidence intervals.

Usage: python -m services.rules.worlds.arena SEARCHER OPPONENT GAMES [SEED]
(policies: random, heuristic, search). Seats alternate and factions rotate per game.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import asdict, dataclass

from services.rules.worlds import search as search_bot
from services.rules.worlds import vocab
from services.rules.worlds.simulate import SEATS, Policy, play

POLICIES: dict[str, Policy | None] = {
    "random": None,
    "heuristic": search_bot.heuristic,
    "search": search_bot.search,
}


@dataclass(frozen=True)
class Result:
    """Wins of the first policy over a number of games, with a 95% interval."""

    player: str
    opponent: str
    games: int
    wins: int
    low: float
    high: float
    seconds: float


def wilson(wins: int, games: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval for a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def match(player: str, opponent: str, games: int, seed: str = "arena") -> Result:
    """Play seeded games; the player takes p1 in even games and p2 in odd ones."""
    started, wins = time.perf_counter(), 0
    for n in range(games):
        seat = SEATS[n % 2]
        other = SEATS[1 - n % 2]
        policies = {s: p for s, p in ((seat, POLICIES[player]), (other, POLICIES[opponent])) if p}
        decks = {"p1": vocab.FACTIONS[n % 7], "p2": vocab.FACTIONS[(n // 7 + n + 1) % 7]}
        wins += play(f"{seed}-{n}", decks, policies).table.winner == seat
    low, high = wilson(wins, games)
    return Result(player, opponent, games, wins, low, high, time.perf_counter() - started)


def main(argv: list[str]) -> None:
    """Print one JSON line with the result."""
    result = match(argv[0], argv[1], int(argv[2]), argv[3] if len(argv) > 3 else "arena")
    print(json.dumps(asdict(result)))


if __name__ == "__main__":
    main(sys.argv[1:])
