"""Fallen's own registry of tasks, answers and option functions, on the kernel's Ctx."""

from __future__ import annotations

from typing import Final

from services.rules.engine.flow import Args, Ctx, Registry
from services.rules.engine.state import State
from services.rules.fallen.state import ZONES


def _compact(state: State) -> bool:
    """Games dealt by the deck service (var `decks`, services/rules/fallen/decks.py) record
    no `flow`/`var_set` bookkeeping events; games created before keep them, so they replay."""
    return state.vars.get("decks") == "service"


RECORD_FORMAT: Final = "record_format"


def record_format(state: State) -> int:
    """Return how a game records its facts: 1 as before, 2 with counter changes riding on
    their facts, answers as facts and the components set out in one event."""
    return int(state.vars.get(RECORD_FORMAT, 1))


def _facts(state: State) -> bool:
    # record_format(state) >= 2, on every decide; the var is the int new_game_options pinned
    fmt: int = state.vars.get(RECORD_FORMAT, 1)
    return fmt >= 2


REGISTRY: Final = Registry("fallen", ZONES, compact=_compact, facts=_facts)
task = REGISTRY.task
answer = REGISTRY.answer
options = REGISTRY.options

__all__ = ["REGISTRY", "Args", "Ctx", "answer", "options", "static_or_dynamic", "task"]


def static_or_dynamic(state: State, pending: Args) -> list[tuple[str, Args]]:
    """Return a pending decision's legal answers as (kind, args) pairs."""
    return REGISTRY.answers_to(state, pending)
