"""Fallen Land: the core game (2-5 players) and the Epic game (6) on the engine kernel."""

from services.rules.land.engine import RULES, LandRules

__all__ = ["RULES", "LandRules"]
