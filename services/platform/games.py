"""Facts every service reads from a game's own stream: its seats and whether it ended."""

from __future__ import annotations

import re
import weakref
from typing import Any

from services.platform.auth import Principal
from services.platform.errors import InvalidArgument, NotFound, PermissionDenied, quote
from services.platform.store.base import EventStore

GAME_CREATED = "GameCreated"
GAME_ENDED = "GameEnded"
GAME_ID_RE = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")
# Seat facts the matchmaker's turn timer records (docs/matchmaking.md); engines never see them.
SEAT_WARNED = "SeatWarned"
SEAT_FORFEITED = "SeatForfeited"
SEAT_TAKEN_OVER = "SeatTakenOver"
SEAT_RECLAIMED = "SeatReclaimed"
SEAT_EVENTS = {
    "warned": SEAT_WARNED,
    "forfeited": SEAT_FORFEITED,
    "taken_over": SEAT_TAKEN_OVER,
    "reclaimed": SEAT_RECLAIMED,
}
KERNEL_EVENTS = frozenset({GAME_CREATED, GAME_ENDED, *SEAT_EVENTS.values()})


# A game nobody played for FALLEN_ABANDON_AFTER_S ends by a GameEnded whose data names the
# idle time ("abandoned_after_s") and whose outcome ranks nobody (docs/retention.md).
ABANDONED_OUTCOME: dict[str, Any] = {"conclusion": "abandoned"}
ABANDONED_KEY = "abandoned_after_s"


def is_seat_event(event_type: str) -> bool:
    """Return whether an event type is one of the kernel's seat facts."""
    return event_type in SEAT_EVENTS.values()


def forfeit_outcome(seats: list[str], forfeited: str) -> dict[str, Any]:
    """Return the outcome of a game a seat forfeited: the other seat wins (2 seats),
    else every other seat shares first place and the forfeiting seat is last."""
    others = [s for s in seats if s != forfeited]
    if len(others) == 1:
        return {"winner": others[0], "forfeit": forfeited, "conclusion": "forfeit"}
    return {"placements": [others, [forfeited]], "forfeit": forfeited, "conclusion": "forfeit"}


def seat_status(current: dict[str, str], event_type: str, data: dict[str, Any]) -> dict[str, str]:
    """Return seat -> status ("warned", "taken_over", ...) after one seat event."""
    kind = next((k for k, t in SEAT_EVENTS.items() if t == event_type), "")
    seat = str(data.get("seat", ""))
    if not kind or not seat:
        return current
    out = dict(current)
    if kind == "reclaimed":
        out.pop(seat, None)
    else:
        out[seat] = kind
    return out


def check_game_id(game_id: str, field: str = "game_id") -> str:
    """Return game_id if well formed, else raise InvalidArgument naming the field."""
    if not game_id:
        raise InvalidArgument(field, "is required")
    if not GAME_ID_RE.match(game_id):
        raise InvalidArgument(field, "must be 1-64 characters of letters, digits, _ . : -")
    return game_id


def game_stream(game_id: str) -> str:
    """Return the stream id of a game."""
    return f"game-{game_id}"


# per store (weakly, so a closed store's entries go with it): game id -> GameCreated payload
_INFO: weakref.WeakKeyDictionary[Any, dict[str, dict[str, Any]]] = weakref.WeakKeyDictionary()
MAX_INFO = 10_000


async def game_info(store: EventStore, game_id: str) -> dict[str, Any]:
    """Return the GameCreated payload of a game (raise NotFound if there is none).

    GameCreated never changes, so it is cached per store once read.
    """
    known = _INFO.setdefault(store, {})
    if game_id in known:
        return known[game_id]
    events = await store.read(game_stream(game_id), 1)
    if not events or events[0].type != GAME_CREATED:
        raise NotFound(f"game {game_id!r} does not exist")
    if len(known) >= MAX_INFO:
        known.pop(next(iter(known)))
    known[game_id] = events[0].data
    return events[0].data


async def game_ended(store: EventStore, game_id: str) -> bool:
    """Return whether the game's stream holds a GameEnded event."""
    return any(e.type == GAME_ENDED for e in await store.read(game_stream(game_id), 1))


async def authorize_seat(store: EventStore, principal: Principal, game_id: str, seat: str) -> None:
    """Raise unless the caller is a service or the player seated at seat."""
    if not seat:
        raise InvalidArgument("seat", "is required")
    info = await game_info(store, game_id)
    seats: dict[str, str] = info.get("seats", {})
    if seat not in seats:
        raise InvalidArgument(
            "seat", f"game {game_id!r} has no seat {quote(seat)}; seats: {sorted(seats)}"
        )
    if principal.is_service:
        return
    if principal.is_spectator or seats[seat] != principal.subject:
        raise PermissionDenied(f"seat {quote(seat)} of game {game_id!r} is not yours")
