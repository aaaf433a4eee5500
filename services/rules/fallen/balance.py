"""Balance measurement: seeded heuristic-vs-heuristic games, Hero win rate with a 95% interval.

    python -m services.rules.fallen.balance --games 1000 [--card-data N] [--prefix balance]
        [--start K]

A measurement, not a test (docs/games/fallen.md, "Balance"). Chance comes from the fair
scheme with per-game seeds (``<prefix>-<i>``), so a run is reproducible. Game i is the same
game whichever run plays it, so a long run may be split across processes by ``--start``
(``--games 500`` and ``--games 500 --start 500`` together are ``--games 1000``); add up
their ``winners`` and compute the interval of the sum (``wilson``).
"""

from __future__ import annotations

import argparse
import math
from collections import Counter
from typing import Final, cast

from services.rules.engine.api import GameRules, Setup
from services.rules.fallen import RULES
from services.rules.fallen.bot import heuristic
from services.rules.fallen.cards import LATEST, VERSIONS
from services.rules.playout import play

SEATS: Final = {"hero": "hero-bot", "dungeon_lord": "dl-bot"}


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval for wins out of n."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def winners(
    games: int, prefix: str = "balance", card_data: int = LATEST, start: int = 0
) -> Counter[str]:
    """Play seeded games start..start+games-1 with the heuristic bot and count the winners."""
    policies = {"hero": heuristic, "dungeon_lord": heuristic}
    setup = Setup(SEATS, RULES.new_game_options({"card_data": card_data}))
    rules = cast(GameRules, RULES)
    tally: Counter[str] = Counter()
    for i in range(start, start + games):
        p = play(rules, setup, f"{prefix}-{i}", f"balance-{i}", policies=policies)
        tally[str((RULES.outcome(p.state) or {}).get("winner"))] += 1
    return tally


def main() -> None:
    """Print the Hero's win rate and its 95% Wilson interval."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--prefix", default="balance")
    ap.add_argument("--card-data", type=int, default=LATEST, choices=VERSIONS)
    ap.add_argument("--start", type=int, default=0, help="index of the first seeded game")
    args = ap.parse_args()
    if args.games < 1:
        ap.error("--games must be at least 1")
    if args.start < 0:
        ap.error("--start must be at least 0")
    tally = winners(args.games, args.prefix, args.card_data, args.start)
    lo, hi = wilson(tally["hero"], args.games)
    rate = tally["hero"] / args.games
    print(
        f"card_data={args.card_data} games={args.games} start={args.start} "
        f"winners={dict(tally)} "
        f"hero={rate:.3f} 95%=[{lo:.3f}, {hi:.3f}]"
    )


if __name__ == "__main__":
    main()
