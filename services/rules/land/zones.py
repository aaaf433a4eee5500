"""Zone names and who sees their cards; the order of play as data (phases and sub-phases)."""

from __future__ import annotations

from collections.abc import Sequence

# Face-down decks live in the deck service; the engine's zones for them hold nothing hidden.
DECK_ZONES = (
    "deck.characters",
    "deck.spoils",
    "deck.action",
    "deck.encounter_plains",
    "deck.encounter_mountain",
    "deck.encounter_city_rad",
    "deck.missions",
)
PRIVATE = ("hand", "roster", "stash")  # hand.p1, roster.p1, stash.p1: that seat only
PUBLIC = ("crown", "gear", "vehicle", "load", "auction", "discard", "play", "npcm", "encounter")

ORDER_OF_PLAY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("effects", ("resolve",)),
    (
        "town_business",
        ("deal", "production", "auction_house", "town_events", "sell", "purchase", "hire"),
    ),
    ("party_exploits", ("npcms", "parties")),
    ("end_turn", ("turn_marker",)),
)


def seen_by(zone: str, seats: Sequence[str]) -> tuple[str, ...]:
    """Return the seats that may see the cards of a zone (none for a face-down deck)."""
    head, _, rest = zone.partition(".")
    if zone in DECK_ZONES or head == "deck":
        return ()
    if head in PRIVATE:
        owner = rest.split(".", 1)[0]
        return (owner,) if owner in seats else ()
    if head in PUBLIC:
        return tuple(seats)
    raise ValueError(f"unknown zone {zone!r}")


def next_step(phase: str, sub: str) -> tuple[str, str, bool]:
    """Return the (phase, sub-phase) after this one and whether a new turn begins."""
    names = [p for p, _ in ORDER_OF_PLAY]
    i = names.index(phase)
    subs = ORDER_OF_PLAY[i][1]
    j = subs.index(sub)
    if j + 1 < len(subs):
        return phase, subs[j + 1], False
    if i + 1 < len(ORDER_OF_PLAY):
        nxt = ORDER_OF_PLAY[i + 1]
        return nxt[0], nxt[1][0], False
    first = ORDER_OF_PLAY[0]
    return first[0], first[1][0], True


def ends_phase(phase: str, sub: str) -> bool:
    """Return whether a sub-phase is the last of its phase (victory is checked after it)."""
    return dict(ORDER_OF_PLAY)[phase][-1] == sub


def turn_order(seats: Sequence[str], first: str) -> list[str]:
    """Return the seats in play order starting with the first player, then to the left."""
    i = list(seats).index(first)
    return [*seats[i:], *seats[:i]]
