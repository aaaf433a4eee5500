"""The whole game's public-and-owned state: the board plus whose turn, the phase and the combat."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.rules.worlds.board import Board, new_board


@dataclass(frozen=True)
class Turn:
    """Whose turn it is, the phase, and the combat declared in it."""

    active: str = ""
    number: int = 0
    phase: str = "setup"
    attackers: tuple[str, ...] = ()
    blocks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    orders: tuple[tuple[str, tuple[str, str]], ...] = ()
    damage: tuple[tuple[str, int], ...] = ()  # combat damage waiting for Resolution
    raid: int = 0


@dataclass(frozen=True)
class Table:
    """Board, turn and result."""

    board: Board = field(default_factory=lambda: new_board(("p1", "p2"), (0, 0)))
    turn: Turn = field(default_factory=Turn)
    winner: str = ""
    bots: tuple[str, ...] = ()
