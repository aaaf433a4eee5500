"""Disputes as events: verify a finished game and record the ruling in dispute-<game id>.

The ruling is appended with the request in one append (DisputeOpened, DisputeResolved), so
the log holds who disputed what and what the verification found. The dispute stream is a
stream of the game like any other: hash-chained and part of the audit log.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.kernel.envelope import PUBLIC, NewEvent
from services.kernel.errors import InvalidArgument, RuleViolation, VersionConflict
from services.kernel.games import check_game_id, game_ended
from services.kernel.store.base import EventStore
from services.rules.common.api import GameRules

DISPUTE_OPENED = "DisputeOpened"
DISPUTE_RESOLVED = "DisputeResolved"
MAX_REASON = 1000
MAX_COMMAND_ID = 128
RETRIES = 10


@dataclass(frozen=True)
class Ruling:
    """A dispute's id, whether the game verified, the full report and the stream version."""

    dispute_id: str
    verified: bool
    report: dict[str, Any]
    version: int
    deduplicated: bool = False


def dispute_stream(game_id: str) -> str:
    """Return the dispute stream id of a game."""
    return f"dispute-{game_id}"


def not_finished(game_id: str) -> RuleViolation:
    """Return the error for reading or disputing a game that is not over."""
    return RuleViolation(
        f"game {game_id!r} has not ended; its log can be verified once it is over "
        "(the dice seed is revealed then)"
    )


async def _find(store: EventStore, game_id: str, dispute_id: str) -> Ruling | None:
    """Return the recorded ruling of a dispute id, or None."""
    for env in await store.read(dispute_stream(game_id)):
        if env.type == DISPUTE_RESOLVED and env.data.get("dispute_id") == dispute_id:
            findings = dict(env.data.get("findings", {}))
            return Ruling(dispute_id, bool(env.data.get("verified")), findings, env.version, True)
    return None


async def open_dispute(
    store: EventStore,
    game_id: str,
    seat: str,
    player: str,
    reason: str,
    command_id: str,
    rules_of: Callable[[str], GameRules | None],
) -> Ruling:
    """Verify a finished game and append DisputeOpened + DisputeResolved; return the ruling."""
    check_game_id(game_id)
    if len(reason) > MAX_REASON:
        raise InvalidArgument("reason", f"at most {MAX_REASON} characters")
    if len(command_id) > MAX_COMMAND_ID:
        raise InvalidArgument("command_id", f"at most {MAX_COMMAND_ID} characters")
    if not await game_ended(store, game_id):
        raise not_finished(game_id)
    dispute_id = command_id or uuid.uuid4().hex
    if command_id and (prior := await _find(store, game_id, dispute_id)) is not None:
        return prior
    records = await store_records(store, game_id)
    report = (await asyncio.to_thread(verify_game, game_id, records, rules_of)).to_dict()
    opened = NewEvent(
        DISPUTE_OPENED,
        {"dispute_id": dispute_id, "seat": seat, "player": player, "reason": reason},
        PUBLIC,
    )
    resolved = NewEvent(
        DISPUTE_RESOLVED,
        {"dispute_id": dispute_id, "verified": report["verified"], "findings": report},
        PUBLIC,
        causation_id=opened.event_id,
    )
    stream = dispute_stream(game_id)
    for _ in range(RETRIES):
        version = await store.version(stream)
        try:
            res = await store.append(stream, version, [opened, resolved], command_id or None)
        except VersionConflict:
            continue
        if res.deduplicated:
            prior = await _find(store, game_id, dispute_id)
            assert prior is not None, "a deduplicated dispute must be in its stream"
            return prior
        return Ruling(dispute_id, bool(report["verified"]), report, res.version)
    raise RuleViolation("too many disputes at once on this game; retry")
