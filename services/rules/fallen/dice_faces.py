"""The faces of the Fallen challenge dice, read from services/dice/kinds.yaml."""

from __future__ import annotations

from services.dice.kinds import catalog


def faces_of(kind: str) -> tuple[str, ...]:
    """Return the six faces of a dice kind (e.g. fallen_red)."""
    return catalog().faces[kind]
