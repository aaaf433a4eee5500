"""Tickets, seat assignments and game records of the matchmaker (frozen, JSON-ready)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

QUEUED = "queued"
CLAIMED = "claimed"
MATCHED = "matched"
CANCELLED = "cancelled"
EXPIRED = "expired"
STATES = (QUEUED, CLAIMED, MATCHED, CANCELLED, EXPIRED)
BOT_PREFIX = "bot:"


@dataclass(frozen=True)
class SeatMatch:
    """Where one player plays: game, seat, pool endpoint and the dice commitment."""

    game_id: str
    seat: str
    endpoint: str
    dice_commitment: str
    pool: str


@dataclass(frozen=True)
class Ticket:
    """A queued unit (one player or a party) and what it accepts."""

    ticket_id: str
    game: str
    mode: str
    players: tuple[str, ...]
    queued_at: float
    expires_at: float
    rating: float = 25.0
    role: str = ""
    seat_counts: tuple[int, ...] = ()
    challenge_level: int = 0
    bot_takeover: bool = False
    client_seed: str = ""  # the caller's (players[0]) client seed for the game's dice
    state: str = QUEUED
    matches: Mapping[str, SeatMatch] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Return the queue key 'game/mode'."""
        return f"{self.game}/{self.mode}"

    def with_state(self, state: str, matches: Mapping[str, SeatMatch] | None = None) -> Ticket:
        """Return the ticket in another state (and with its matches when given)."""
        return replace(self, state=state, matches=dict(matches or self.matches))


def ticket_fields(t: Ticket) -> str:
    """Return the JSON of a ticket's immutable fields."""
    d = asdict(t)
    d.pop("state")
    d.pop("matches")
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def ticket_from(fields: str, state: str, matches: str | None) -> Ticket:
    """Return a ticket from its stored fields, state and matches JSON."""
    d: dict[str, Any] = json.loads(fields)
    d["players"] = tuple(d["players"])
    d["seat_counts"] = tuple(d["seat_counts"])
    found = {p: SeatMatch(**m) for p, m in json.loads(matches).items()} if matches else {}
    return Ticket(**d, state=state, matches=found)


def matches_json(matches: Mapping[str, SeatMatch]) -> str:
    """Return the JSON of a player -> SeatMatch mapping."""
    return json.dumps({p: asdict(m) for p, m in matches.items()}, sort_keys=True)


@dataclass(frozen=True)
class GameRecord:
    """A game the matchmaker created: its mode, seats and quiet-seat policy per player."""

    game_id: str
    game: str
    mode: str
    seats: Mapping[str, str]
    endpoint: str
    takeover: tuple[str, ...] = ()

    def to_json(self) -> str:
        """Return the record as JSON."""
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> GameRecord:
        """Return a record from its JSON."""
        d = json.loads(text)
        d["takeover"] = tuple(d["takeover"])
        return GameRecord(**d)


@dataclass(frozen=True)
class RatingRow:
    """A player's skill estimate for one game and mode."""

    player: str
    mu: float
    sigma: float
    games: int = 0

    @property
    def ordinal(self) -> float:
        """Return the conservative skill (mu - 3 sigma) used to rank."""
        return self.mu - 3 * self.sigma

    def to_json(self) -> str:
        """Return the row as JSON."""
        return json.dumps(asdict(self), sort_keys=True)

    @staticmethod
    def from_json(text: str) -> RatingRow:
        """Return a row from its JSON."""
        return RatingRow(**json.loads(text))
