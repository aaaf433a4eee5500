"""The kernel state of a Fallen Worlds game: the kernel's flow plus the Worlds table."""

from __future__ import annotations

from dataclasses import dataclass, field

from services.rules.engine.api import Event
from services.rules.engine.state import State, apply_riders, with_
from services.rules.engine.state import evolve as kernel_evolve
from services.rules.engine.zones import ZoneRules
from services.rules.worlds.facts import FOLDS
from services.rules.worlds.table import Table

SEATS = ("p1", "p2")


def library(seat: str) -> str:
    """The deck-service deck holding a seat's library."""
    return f"library.{seat}"


def _seen_by(zone: str) -> tuple[str, ...]:
    return () if zone.startswith("library.") else SEATS


ZONES = ZoneRules(SEATS, _seen_by)


@dataclass(frozen=True)
class WorldsState(State):
    """The kernel's state (flow, pending, phase) with the Worlds table beside it."""

    table: Table = field(default_factory=Table)


def evolve(state: State, event: Event) -> State:
    """Fold a Worlds fact into the table; hand the kernel's events to the kernel."""
    fold = FOLDS.get(event.type)
    if fold is None:
        return kernel_evolve(state, event)
    assert isinstance(state, WorldsState)
    new = with_(state, table=fold(state.table, event.data))
    apply_riders(new, event.data)  # a compact game's flow rides on its facts
    new.__dict__["events"] = state.events + 1
    return new
