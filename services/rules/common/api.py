"""Compatibility re-export: the engine API lives in services/rules/kernel/api.py."""

from services.rules.kernel.api import (
    CHANCE,
    DECK_ANSWERS,
    DECK_KINDS,
    NOBODY,
    PUBLIC,
    ChanceRequest,
    Command,
    Event,
    GameRules,
    Pending,
    Setup,
)

__all__ = [
    "CHANCE",
    "DECK_ANSWERS",
    "DECK_KINDS",
    "NOBODY",
    "PUBLIC",
    "ChanceRequest",
    "Command",
    "Event",
    "GameRules",
    "Pending",
    "Setup",
]
