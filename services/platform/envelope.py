"""The event envelope every stored event is wrapped in, and visibility."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from services.platform.canonical import chain_hash

PUBLIC = "public"
NOBODY = "nobody"

# Visibility as stored and hashed: "public", "nobody", or a sorted list of seats.
Visibility = str | list[str]


def seats(*names: str) -> list[str]:
    """Return a visibility restricted to the given seats (sorted, deduplicated)."""
    if not names:
        raise ValueError("a seat visibility needs at least one seat")
    return sorted(set(names))


def normalize_visibility(vis: Visibility | tuple[str, ...]) -> Visibility:
    """Return vis in stored form, rejecting anything else."""
    if vis == PUBLIC or vis == NOBODY:
        return vis
    if isinstance(vis, (list, tuple)) and vis and all(isinstance(s, str) and s for s in vis):
        return sorted(set(vis))
    raise ValueError(f"visibility must be 'public', 'nobody' or a list of seats, not {vis!r}")


def visible_to(vis: Visibility, seat: str | None) -> bool:
    """Return whether a seat (None = spectator) may see an event of this visibility."""
    if vis == PUBLIC:
        return True
    if vis == NOBODY or seat is None:
        return False
    return isinstance(vis, list) and seat in vis


@dataclass(frozen=True)
class NewEvent:
    """An event to append: what the caller decides; the store adds the rest."""

    type: str
    data: dict[str, Any]
    visibility: Visibility = PUBLIC
    schema_version: int = 1
    event_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    correlation_id: str = ""
    causation_id: str = ""


@dataclass(frozen=True)
class Envelope:
    """One stored event with its position, version and place in the hash chain."""

    event_id: str
    stream: str
    version: int
    position: int
    type: str
    schema_version: int
    occurred_at: str
    correlation_id: str
    causation_id: str
    visibility: Visibility
    data: dict[str, Any]
    prev_hash: str
    hash: str

    def to_dict(self) -> dict[str, Any]:
        """Return the envelope as a JSON-ready dict."""
        return {
            "event_id": self.event_id,
            "stream": self.stream,
            "version": self.version,
            "position": self.position,
            "type": self.type,
            "schema_version": self.schema_version,
            "occurred_at": self.occurred_at,
            "correlation_id": self.correlation_id,
            "causation_id": self.causation_id,
            "visibility": self.visibility,
            "data": self.data,
            "prev_hash": self.prev_hash,
            "hash": self.hash,
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Envelope:
        """Return the envelope stored as d."""
        return Envelope(
            event_id=d["event_id"],
            stream=d["stream"],
            version=int(d["version"]),
            position=int(d["position"]),
            type=d["type"],
            schema_version=int(d["schema_version"]),
            occurred_at=d["occurred_at"],
            correlation_id=d.get("correlation_id", ""),
            causation_id=d.get("causation_id", ""),
            visibility=d["visibility"],
            data=d["data"],
            prev_hash=d["prev_hash"],
            hash=d["hash"],
        )

    def expected_hash(self) -> str:
        """Return the hash this event must carry per docs/audit.md."""
        return chain_hash(
            self.stream, self.version, self.type, self.visibility, self.data, self.prev_hash
        )


def stream_family(stream: str) -> str:
    """Return the family of a stream id ('game-abc' -> 'game')."""
    return stream.split("-", 1)[0]


def stream_game(stream: str) -> str:
    """Return the game id a stream belongs to ('dice-abc' -> 'abc')."""
    parts = stream.split("-", 1)
    return parts[1] if len(parts) == 2 else stream
