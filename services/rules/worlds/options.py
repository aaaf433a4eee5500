"""CreateGame options for Fallen Worlds: each seat's deck and which seats bots play."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from services.platform.errors import InvalidArgument
from services.rules.worlds.cards import DATA_VERSIONS, FIRST_DATA, catalog_of
from services.rules.worlds.decks import MAX_DECK_ENTRIES, DeckError, build_library

SEATS = ("p1", "p2")
DEFAULT_DECKS = {"p1": "uea", "p2": "daemons"}
KNOWN = ("decks", "bots", "bot_policy", "bot_policies", "bot_seed", "card_data")
CARD_DATA = "card_data"  # the card-data version (cards.py); absent: 1, games made before it
BOT_POLICIES = ("easy", "random", "first", "heuristic", "search")
# Set by the server when it seals the decks (docs/games/worlds.md, "Hidden libraries"):
# the public options of a game carry each seat's library size, never its cards.
SIZES = "libraries"
MAX_LIBRARY = MAX_DECK_ENTRIES  # a recorded size; every legal library is smaller


@dataclass(frozen=True)
class Options:
    """Parsed options: each seat's library (sorted ids; the deck service shuffles) and bot seats."""

    libraries: Mapping[str, tuple[str, ...]]
    bots: tuple[str, ...] = ()
    sizes: Mapping[str, int] | None = None  # a sealed game: sizes only, cards in the deck service
    card_data: int = FIRST_DATA

    @property
    def sealed(self) -> bool:
        """Whether the libraries were sealed into the deck service before the game began."""
        return self.sizes is not None

    def size(self, seat: str) -> int:
        """The number of cards in a seat's library at the start."""
        return self.sizes[seat] if self.sizes is not None else len(self.libraries[seat])

    @property
    def human_starts(self) -> str:
        """In a bot game the human seat starts; "" when chance decides."""
        humans = [s for s in SEATS if s not in self.bots]
        return humans[0] if len(humans) == 1 else ""


def seal(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, tuple[str, ...]]]:
    """Split a client's options into public ones (library sizes, no cards) and each library's
    cards for the deck service; raise InvalidArgument naming the field (and the bad card)."""
    if SIZES in options:
        raise InvalidArgument(f"options.{SIZES}", "is set by the server; send options.decks")
    opts = parse(options)
    public = {k: v for k, v in options.items() if k != "decks"}
    public[SIZES] = {s: len(opts.libraries[s]) for s in SEATS}
    return public, {f"library.{s}": opts.libraries[s] for s in SEATS}


def _sizes(value: Any) -> dict[str, int]:
    ok = isinstance(value, Mapping) and set(value) == set(SEATS)
    if not ok or any(
        not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_LIBRARY
        for n in value.values()
    ):
        raise InvalidArgument(f"options.{SIZES}", f"a map of {SEATS} -> 0..{MAX_LIBRARY}")
    return {s: int(value[s]) for s in SEATS}


def parse(options: Mapping[str, Any]) -> Options:
    """Check the options; raise InvalidArgument naming the field (and the bad card).

    Options with `libraries` (sizes) are a sealed game's public options, as recorded in
    GameCreated; options with `decks` are a client's (or a game recorded before sealing).
    """
    unknown = sorted(set(options) - {*KNOWN, SIZES})
    if unknown:
        raise InvalidArgument(f"options.{str(unknown[0])[:40]}", f"unknown option; known: {KNOWN}")
    if SIZES in options:
        if "decks" in options:
            raise InvalidArgument("options.decks", f"not with options.{SIZES}")
        sizes = _sizes(options[SIZES])
        return Options({}, _bots(options), sizes, card_data_of(options))
    decks = options.get("decks", {})
    if not isinstance(decks, Mapping):
        raise InvalidArgument("options.decks", "a map of seat -> deck")
    for seat in decks:
        if seat not in SEATS:
            raise InvalidArgument(
                "options.decks", f"unknown seat {str(seat)[:20]!r}; seats are {SEATS}"
            )
    version = card_data_of(options)
    libraries = {}
    for seat in SEATS:
        try:
            spec = decks.get(seat, DEFAULT_DECKS[seat])
            libraries[seat] = build_library(spec, catalog_of(version))
        except DeckError as e:
            raise InvalidArgument(f"options.decks.{seat}", str(e)) from None
    return Options(libraries, _bots(options), card_data=version)


def card_data_of(options: Mapping[str, Any]) -> int:
    """The card-data version options name (absent: 1); InvalidArgument when unknown."""
    version = options.get(CARD_DATA, FIRST_DATA)
    if isinstance(version, bool) or version not in DATA_VERSIONS:
        raise InvalidArgument(f"options.{CARD_DATA}", f"one of {list(DATA_VERSIONS)}")
    return int(version)


def _bots(options: Mapping[str, Any]) -> tuple[str, ...]:
    bots = options.get("bots", [])
    if (
        not isinstance(bots, list)
        or any(b not in SEATS for b in bots)
        or len(set(bots)) != len(bots)
    ):
        raise InvalidArgument("options.bots", f"a list of distinct seats from {SEATS}")
    if options.get("bot_policy", "random") not in BOT_POLICIES:
        raise InvalidArgument("options.bot_policy", f"one of {BOT_POLICIES}")
    per_seat = options.get("bot_policies", {})
    if not isinstance(per_seat, Mapping) or any(
        s not in bots or p not in BOT_POLICIES for s, p in per_seat.items()
    ):
        raise InvalidArgument(
            "options.bot_policies", f"a map of bot seat -> policy, policies {BOT_POLICIES}"
        )
    if not isinstance(options.get("bot_seed", ""), str) or len(options.get("bot_seed", "")) > 64:
        raise InvalidArgument("options.bot_seed", "a string of at most 64 characters")
    return tuple(sorted(bots))
