"""Fallen: Hero vs Dungeon Lord, the pure rules engine (RULES implements GameRules)."""

from services.rules.fallen.engine import RULES, FallenRules

__all__ = ["RULES", "FallenRules"]
