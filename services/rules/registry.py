"""Which engines this deployment serves, by game id."""

from __future__ import annotations

import importlib

from services.platform.errors import InvalidArgument, quote
from services.rules.engine.api import GameRules

ENGINES: dict[str, str] = {
    "fallen": "services.rules.fallen",
    "worlds": "services.rules.worlds",
    "land": "services.rules.land",
}


def load(game: str, extra: dict[str, GameRules] | None = None) -> GameRules:
    """Return the engine of a game kind, or raise InvalidArgument naming the choices."""
    if extra and game in extra:
        return extra[game]
    if game not in ENGINES:
        known = sorted([*ENGINES, *(extra or {})])
        raise InvalidArgument("game", f"unknown game {quote(game)}; this server runs {known}")
    module = importlib.import_module(ENGINES[game])
    rules: GameRules = module.RULES
    return rules
