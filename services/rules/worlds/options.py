"""CreateGame options for Fallen Worlds: each seat's deck and which seats bots play."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.kernel.errors import InvalidArgument
from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import DeckError, build_library

SEATS = ("p1", "p2")
DEFAULT_DECKS = {"p1": "uea", "p2": "daemons"}
KNOWN = ("decks", "bots", "bot_policy", "bot_seed")
BOT_POLICIES = ("random", "heuristic")


@dataclass(frozen=True)
class Options:
    """Parsed options: each seat's library (sorted ids; the deck service shuffles) and bot seats."""

    libraries: Mapping[str, tuple[str, ...]]
    bots: tuple[str, ...] = ()

    @property
    def human_starts(self) -> str:
        """In a bot game the human seat starts; "" when chance decides."""
        humans = [s for s in SEATS if s not in self.bots]
        return humans[0] if len(humans) == 1 else ""


def parse(options: Mapping[str, Any]) -> Options:
    """Check the options; raise InvalidArgument naming the field (and the bad card)."""
    unknown = sorted(set(options) - set(KNOWN))
    if unknown:
        raise InvalidArgument(f"options.{str(unknown[0])[:40]}", f"unknown option; known: {KNOWN}")
    decks = options.get("decks", {})
    if not isinstance(decks, Mapping):
        raise InvalidArgument("options.decks", "a map of seat -> deck")
    for seat in decks:
        if seat not in SEATS:
            raise InvalidArgument(
                "options.decks", f"unknown seat {str(seat)[:20]!r}; seats are {SEATS}"
            )
    libraries = {}
    for seat in SEATS:
        try:
            libraries[seat] = build_library(decks.get(seat, DEFAULT_DECKS[seat]), catalog())
        except DeckError as e:
            raise InvalidArgument(f"options.decks.{seat}", str(e)) from None
    bots = options.get("bots", [])
    if (
        not isinstance(bots, list)
        or any(b not in SEATS for b in bots)
        or len(set(bots)) != len(bots)
    ):
        raise InvalidArgument("options.bots", f"a list of distinct seats from {SEATS}")
    if options.get("bot_policy", "random") not in BOT_POLICIES:
        raise InvalidArgument("options.bot_policy", f"one of {BOT_POLICIES}")
    if not isinstance(options.get("bot_seed", ""), str) or len(options.get("bot_seed", "")) > 64:
        raise InvalidArgument("options.bot_seed", "a string of at most 64 characters")
    return Options(libraries, tuple(sorted(bots)))
