"""Win rates and their Wilson score 95% intervals (pure)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

Z95: Final = 1.959963984540054  # the two-sided 95% quantile of the normal distribution


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """Return the Wilson score interval of a proportion wins/games ((0, 1) for no games)."""
    if not 0 <= wins <= games:
        raise ValueError(f"wins must be within 0..games, got {wins} of {games}")
    if games == 0:
        return (0.0, 1.0)
    p = wins / games
    z2 = z * z
    centre = (p + z2 / (2 * games)) / (1 + z2 / games)
    half = z * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games)) / (1 + z2 / games)
    low = 0.0 if wins == 0 else max(0.0, centre - half)  # exact ends (no rounding residue)
    high = 1.0 if wins == games else min(1.0, centre + half)
    return (low, high)


@dataclass(frozen=True)
class Rate:
    """Wins out of games, with the rate and its 95% Wilson interval."""

    wins: int
    games: int

    @property
    def rate(self) -> float:
        """The observed win rate (0 when no game was played)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson score interval."""
        return wilson(self.wins, self.games)

    def as_dict(self) -> dict[str, float | int]:
        """Return the rate as JSON-ready numbers (rates as fractions, rounded to 4 places)."""
        low, high = self.interval
        return {
            "wins": self.wins,
            "games": self.games,
            "rate": round(self.rate, 4),
            "low": round(low, 4),
            "high": round(high, 4),
        }

    def text(self) -> str:
        """Return e.g. ``52.0% [45.1, 58.8] 104/200``."""
        low, high = self.interval
        interval = f"[{100 * low:4.1f}, {100 * high:4.1f}]"
        return f"{100 * self.rate:5.1f}% {interval} {self.wins}/{self.games}"
