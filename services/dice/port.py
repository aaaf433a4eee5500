"""What other services need from dice, whether in-process or over gRPC."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class RolledDie:
    """One die of a roll: its kind, full face list, index rolled and face read."""

    kind: str
    faces: tuple[str, ...]
    index: int
    face: str


@dataclass(frozen=True)
class Roll:
    """A roll's nonce and dice (composites appear as their read value)."""

    nonce: int
    results: tuple[RolledDie, ...]
    version: int


@dataclass(frozen=True)
class Permutation:
    """A shuffle's nonce and the new order as indexes into the old order."""

    nonce: int
    order: tuple[int, ...]


class DicePort(Protocol):
    """Chance for other services: rolls and shuffles with the game's next nonce."""

    async def commit_seed(
        self,
        game_id: str,
        client_seed: str = "",
        seats: tuple[str, ...] = (),
        bots: tuple[str, ...] = (),
        seeds: dict[str, str] | None = None,
    ) -> str:
        """Commit a game's server seed (idempotent); return the commitment. With seats,
        chance waits for every seat's client seed (bots' derived, seeds given now)."""
        ...

    async def reveal(self, game_id: str) -> str:
        """Reveal an ended game's seed (idempotent); return it in hex."""
        ...

    async def roll(
        self,
        game_id: str,
        purpose: str,
        dice: list[str],
        visible_to: list[str] | None = None,
        key: str = "",
    ) -> Roll:
        """Roll dice for a purpose; a decision key drawn before returns the same roll."""
        ...

    async def shuffle(self, game_id: str, purpose: str, count: int, key: str = "") -> Permutation:
        """Return a permutation of count items; a key drawn before returns the same one."""
        ...
