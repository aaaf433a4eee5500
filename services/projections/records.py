"""The two shapes events leave the server in: audit records and per-seat feed events."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from services.platform.canonical import canonical_json
from services.platform.envelope import NOBODY, Envelope, visible_to

# docs/audit.md: the hashed fields plus the hash; position and schema_version ride along.
HASHED_FIELDS = ("stream", "version", "type", "visibility", "data", "prev_hash")
AUDIT_FIELDS = (*HASHED_FIELDS, "hash", "position", "schema_version")
GAME_FAMILIES = ("game", "dice", "deck", "dispute")


HASHED = ("stream", "version", "type", "visibility", "data", "prev_hash")


def audit_record(env: Envelope) -> dict[str, Any]:
    """Return the audit record of an event (one line of an audit export)."""
    return {
        "stream": env.stream,
        "version": env.version,
        "type": env.type,
        "visibility": env.visibility,
        "data": env.data,
        "prev_hash": env.prev_hash,
        "hash": env.hash,
        "position": env.position,
        "schema_version": env.schema_version,
    }


def hashed_text(rec: Mapping[str, Any]) -> str:
    """Return the text an audit record's hash is the SHA-256 of (docs/audit.md)."""
    return canonical_json({k: rec[k] for k in HASHED})


def audit_line(env: Envelope) -> str:
    """Return the canonical JSON line of an event's audit record."""
    return canonical_json(audit_record(env))


def record_envelope(rec: Mapping[str, Any]) -> Envelope:
    """Return the envelope an audit record stands for (fields it lacks are left empty)."""
    return Envelope(
        event_id=str(rec.get("event_id", "")),
        stream=str(rec["stream"]),
        version=int(rec["version"]),
        position=int(rec.get("position", 0) or 0),
        type=str(rec["type"]),
        schema_version=int(rec.get("schema_version", 1) or 1),
        occurred_at=str(rec.get("occurred_at", "")),
        correlation_id="",
        causation_id="",
        visibility=rec["visibility"],
        data=rec["data"],
        prev_hash=str(rec["prev_hash"]),
        hash=str(rec["hash"]),
    )


def game_streams(game_id: str) -> list[str]:
    """Return the ids of every stream a game owns (game, dice, deck, dispute)."""
    return [f"{family}-{game_id}" for family in GAME_FAMILIES]


def seat_event(env: Envelope) -> dict[str, Any]:
    """Return an event as a seat receives it: no hashes, no causation ids.

    The hash and prev_hash of a visible event are derived from hidden events before it,
    and a hidden event with few possible payloads (one of four cards) could be found by
    trying each; so feeds never carry them. The audit log (after the game) does.
    """
    return {
        "stream": env.stream,
        "version": env.version,
        "position": env.position,
        "type": env.type,
        "schema_version": env.schema_version,
        "visibility": env.visibility,
        "data": env.data,
        "occurred_at": env.occurred_at,
    }


def may_see(env: Envelope, seat: str | None) -> bool:
    """Return whether a seat (None = spectator) may receive an event (never a nobody one)."""
    return env.visibility != NOBODY and visible_to(env.visibility, seat)


def seat_feed(envs: Iterable[Envelope], seat: str | None) -> list[dict[str, Any]]:
    """Return the events a seat (None = spectator) may see, in the given order."""
    return [seat_event(e) for e in envs if may_see(e, seat)]
