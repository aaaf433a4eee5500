"""Disputes as events: verify a finished game and record the ruling in dispute-<game id>.

The ruling is appended with the request in one append (DisputeOpened, DisputeResolved), so
the log holds who disputed what and what the verification found. The dispute stream is a
stream of the game like any other: hash-chained and part of the audit log.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.platform.canonical import canonical_json
from services.platform.envelope import PUBLIC, NewEvent
from services.platform.errors import InvalidArgument, RuleViolation, VersionConflict
from services.platform.games import check_game_id, game_ended
from services.platform.store.base import CommandKey, EventStore, validate_command
from services.rules.engine.api import GameRules

DISPUTE_OPENED = "DisputeOpened"
DISPUTE_RESOLVED = "DisputeResolved"
MAX_REASON = 1000
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


async def _find(
    store: EventStore, game_id: str, dispute_id: str, seat: str, player: str
) -> Ruling | None:
    """Return the ruling of the dispute this player and seat opened with dispute_id, or None."""
    opened: set[str] = set()
    for env in await store.read(dispute_stream(game_id)):
        if env.type == DISPUTE_OPENED and (
            env.data.get("dispute_id"),
            env.data.get("seat"),
            env.data.get("player"),
        ) == (dispute_id, seat, player):
            opened.add(env.event_id)
        if env.type == DISPUTE_RESOLVED and env.causation_id in opened:
            findings = dict(env.data.get("findings", {}))
            return Ruling(dispute_id, bool(env.data.get("verified")), findings, env.version, True)
    return None


def dispute_key(seat: str, player: str, reason: str, command_id: str) -> CommandKey | None:
    """Return the dedupe key of a dispute: scoped to the player and seat, digest of reason."""
    if not command_id:
        return None
    digest = hashlib.sha256(canonical_json({"reason": reason}).encode()).hexdigest()
    return CommandKey(command_id, sender=f"{player}/{seat}", digest=digest)


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
    key = dispute_key(seat, player, reason, command_id)
    validate_command(key)
    if key and await store.command_result(dispute_stream(game_id), key):
        prior = await _find(store, game_id, command_id, seat, player)
        assert prior is not None, "a recorded dispute must be in its stream"
        return prior
    if not await game_ended(store, game_id):
        raise not_finished(game_id)
    dispute_id = command_id or uuid.uuid4().hex
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
            res = await store.append(stream, version, [opened, resolved], key)
        except VersionConflict:
            continue
        if res.deduplicated:
            prior = await _find(store, game_id, dispute_id, seat, player)
            assert prior is not None, "a deduplicated dispute must be in its stream"
            return prior
        return Ruling(dispute_id, bool(report["verified"]), report, res.version)
    raise RuleViolation("too many disputes at once on this game; retry")
