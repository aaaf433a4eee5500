"""Fallen Worlds, the online card game: rules functions and card data (game id `worlds`)."""

from services.rules.worlds.engine import RULES

__all__ = ["RULES"]
