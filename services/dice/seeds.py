"""The seed gate: every seat adds its client seed before chance decides anything.

A game committed with its seats (docs/fairness.md, "Client seeds") draws nothing until
every seat has a recorded seed: human seats give theirs (SetClientSeed, CreateGame,
matchmaking Enqueue), bot seats' seeds are derived from the public commitment at creation,
and a human seat that gives none by the game's `seed_deadline` is recorded with the empty
seed when the first draw is made.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Final

from services.dice.ledger import CLIENT_SEED_SET, Ledger, combine_client_seeds
from services.platform.envelope import PUBLIC, NewEvent
from services.platform.errors import InvalidArgument, RuleViolation, quote

SEED_WAIT_ENV: Final = "FALLEN_SEED_WAIT_S"
DEFAULT_SEED_WAIT_S: Final = 60.0
MAX_SEED_CHARS: Final = 256
WAITING: Final = "waiting for client seeds"
FORBIDDEN: Final = (":", ";", "=")
# how a seat's seed came to be recorded (DiceClientSeedSet.source)
PLAYER, BOT, DEADLINE = "player", "bot", "deadline"


class SeedsPending(RuleViolation):
    """Chance was asked for while human seats may still give their client seeds."""


def seed_wait_s(configured: float | None = None) -> float:
    """Return how long a new game waits for client seeds (FALLEN_SEED_WAIT_S, seconds)."""
    if configured is not None:
        return max(0.0, configured)
    raw = os.environ.get(SEED_WAIT_ENV, "")
    return max(0.0, float(raw)) if raw else DEFAULT_SEED_WAIT_S


def now_utc() -> datetime:
    """Return the current UTC time."""
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """Return a UTC time as ISO-8601 with milliseconds and a Z."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def deadline(now: datetime, wait_s: float) -> str:
    """Return the seed deadline of a game committed now."""
    return iso(now + timedelta(seconds=wait_s))


def parse_iso(text: str) -> datetime:
    """Return the time of an ISO-8601 UTC string written by iso()."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def bot_seed(commitment: str, seat: str) -> str:
    """Return a bot seat's client seed: SHA-256 hex of 'bot:<commitment>:<seat>', first 32."""
    return hashlib.sha256(f"bot:{commitment}:{seat}".encode()).hexdigest()[:32]


def check_seed(seed: str, field: str = "client_seed") -> None:
    """Raise InvalidArgument unless a seed is short printable text without ':', ';' or '='."""
    if len(seed) > MAX_SEED_CHARS:
        raise InvalidArgument(field, f"at most {MAX_SEED_CHARS} characters, not {len(seed)}")
    if not seed.isprintable():
        raise InvalidArgument(field, "must be printable text (no control or binary characters)")
    if any(c in seed for c in FORBIDDEN):
        raise InvalidArgument(field, "may not contain ':', ';' or '='")


def deadline_passed(ledger: Ledger, now: datetime) -> bool:
    """Return whether the game's seed deadline has passed (or chance was drawn already)."""
    if ledger.next_nonce > 0:
        return True
    return bool(ledger.seed_deadline) and now >= parse_iso(ledger.seed_deadline)


def ready(ledger: Ledger, now: datetime) -> bool:
    """Return whether chance may be drawn: every seat has a seed or the deadline passed."""
    return not ledger.awaiting or deadline_passed(ledger, now)


def pending_message(ledger: Ledger) -> str:
    """Return the short message of a game that waits for client seeds."""
    return (
        f"{WAITING} of seat(s) {', '.join(ledger.awaiting)} until {ledger.seed_deadline} "
        "(DiceService/SetClientSeed)"
    )


def seed_event(seat: str, seed: str, source: str) -> NewEvent:
    """Return the DiceClientSeedSet event recording one seat's seed."""
    return NewEvent(CLIENT_SEED_SET, {"seat": seat, "seat_seed": seed, "source": source}, PUBLIC)


def opening(ledger: Ledger, now: datetime) -> tuple[list[NewEvent], str]:
    """Return the events to append before the next draw and the client seed it uses.

    Raises SeedsPending while a seat may still give its seed. After the deadline each
    missing seat is recorded with the empty seed, in the same append as the draw.
    """
    if not ledger.awaiting:
        return [], ledger.client_seed
    if not deadline_passed(ledger, now):
        raise SeedsPending(pending_message(ledger))
    missing = [seed_event(seat, "", DEADLINE) for seat in ledger.awaiting]
    seeds = {**dict(ledger.client_seeds), **dict.fromkeys(ledger.awaiting, "")}
    return missing, combine_client_seeds(seeds)


def check_seats(
    seats: Iterable[str], bots: Iterable[str], given: Mapping[str, str]
) -> tuple[list[str], list[str]]:
    """Return the seats and bot seats of a commitment, checked against the seeds given."""
    all_seats = sorted(set(seats))
    bot_seats = sorted(set(bots))
    for seat in all_seats:
        if not seat or any(c in seat for c in FORBIDDEN):
            raise InvalidArgument("seats", f"seat {quote(seat)} may not be empty or hold ':;='")
    strangers = [s for s in [*bot_seats, *given] if s not in all_seats]
    if strangers:
        raise InvalidArgument("seats", f"{quote(strangers[0])} is not a seat of the game")
    for seat, seed in given.items():
        if seat in bot_seats:
            raise InvalidArgument("client_seeds", f"seat {quote(seat)} is a bot seat")
        check_seed(seed)
    return all_seats, bot_seats
