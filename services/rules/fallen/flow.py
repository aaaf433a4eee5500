"""Fallen's own registry of tasks, answers and option functions, on the kernel's Ctx."""

from __future__ import annotations

from services.rules.fallen.state import ZONES
from services.rules.kernel.flow import Args, Ctx, Registry
from services.rules.kernel.state import State


def _compact(state: State) -> bool:
    """Games dealt by the deck service (var `decks`, services/rules/fallen/decks.py) record
    no `flow`/`var_set` bookkeeping events; games created before keep them, so they replay."""
    return state.vars.get("decks") == "service"


REGISTRY = Registry("fallen", ZONES, compact=_compact)
task = REGISTRY.task
answer = REGISTRY.answer
options = REGISTRY.options

__all__ = ["REGISTRY", "Args", "Ctx", "answer", "options", "static_or_dynamic", "task"]


def static_or_dynamic(state: State, pending: Args) -> list[tuple[str, Args]]:
    """Return a pending decision's legal answers as (kind, args) pairs."""
    return REGISTRY.answers_to(state, pending)
