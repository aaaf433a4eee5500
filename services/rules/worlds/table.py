"""The whole game's public-and-owned state: the board plus whose turn, the phase and the combat."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.rules.worlds.board import Board, new_board
from services.rules.worlds.cards import LATEST_DATA

# Rules versions the pure rules tell apart (docs/games/worlds.md, "Rules versions"). From
# PHASED on, healing cards work only in the Healing phase and both players may answer in
# every phase; a game recorded before it (no `rules` in game_started) keeps its old rules.
PHASED = 4
LATEST = PHASED
BEFORE_PHASED = 3


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
    # the rules version (game_started `rules`; BEFORE_PHASED when absent); out of the repr,
    # which the state hash reads, so hashes recorded before the field stay the same
    rules: int = field(default=LATEST, repr=False)
    # the card-data version (game_started `card_data`; 1 when absent), out of the repr too
    card_data: int = field(default=LATEST_DATA, repr=False)

    @property
    def phased(self) -> bool:
        """Whether healing cards are held to the Healing phase (rules version 4 on)."""
        return self.rules >= PHASED
