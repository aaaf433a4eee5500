"""The EventStore contract shared by every implementation."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from services.kernel.canonical import GENESIS_HASH, chain_hash
from services.kernel.envelope import Envelope, NewEvent, normalize_visibility
from services.kernel.errors import InvalidArgument

STREAM_RE = re.compile(r"^[a-z][a-z0-9_]*-[A-Za-z0-9_.:-]{1,128}$")
ANY_VERSION = -1


@dataclass(frozen=True)
class AppendResult:
    """What an append did: the stream version after it and the events written."""

    stream: str
    version: int
    first_position: int
    last_position: int
    deduplicated: bool = False


class EventStore(Protocol):
    """Append-only per-stream logs with a global feed, conditional appends and dedupe."""

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
    ) -> AppendResult:
        """Append events if the stream is at expected_version (ANY_VERSION: any).

        Raises VersionConflict otherwise. A command_id seen before on this stream
        returns the first result and appends nothing.
        """
        ...

    async def read(self, stream: str, from_version: int = 1) -> list[Envelope]:
        """Return the stream's events with version >= from_version, in order."""
        ...

    async def version(self, stream: str) -> int:
        """Return the stream's current version (0 when empty)."""
        ...

    async def read_all(self, from_position: int = 1, limit: int = 1000) -> list[Envelope]:
        """Return global-feed events with position >= from_position, in order."""
        ...

    async def head_position(self) -> int:
        """Return the last global position (0 when empty)."""
        ...

    async def put_secret(self, key: str, value: str) -> bool:
        """Store a server-side secret if absent; return whether it was stored."""
        ...

    async def get_secret(self, key: str) -> str | None:
        """Return a stored secret, or None."""
        ...

    async def get_meta(self, key: str) -> str | None:
        """Return an operational value (e.g. a relay checkpoint), or None."""
        ...

    async def set_meta(self, key: str, value: str) -> None:
        """Set an operational value."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


def validate_append(stream: str, expected_version: int, events: Sequence[NewEvent]) -> None:
    """Raise InvalidArgument unless the append request is well formed."""
    if not STREAM_RE.match(stream):
        raise InvalidArgument("stream", f"{stream!r} is not a stream id like 'game-<id>'")
    if expected_version < ANY_VERSION:
        raise InvalidArgument("expected_version", "must be >= 0, or -1 for any version")
    if not events:
        raise InvalidArgument("events", "at least one event is required")
    for ev in events:
        if not ev.type:
            raise InvalidArgument("events.type", "an event type is required")
        try:
            normalize_visibility(ev.visibility)
        except ValueError as exc:
            raise InvalidArgument("events.visibility", str(exc)) from exc


def now_iso() -> str:
    """Return the current UTC time as ISO-8601 with microseconds."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def seal(
    stream: str,
    start_version: int,
    prev_hash: str,
    events: Sequence[NewEvent],
    occurred_at: str,
) -> list[Envelope]:
    """Return the events as envelopes chained after prev_hash (position left 0)."""
    out: list[Envelope] = []
    for i, ev in enumerate(events):
        version = start_version + i
        vis = normalize_visibility(ev.visibility)
        h = chain_hash(stream, version, ev.type, vis, ev.data, prev_hash)
        out.append(
            Envelope(
                event_id=ev.event_id,
                stream=stream,
                version=version,
                position=0,
                type=ev.type,
                schema_version=ev.schema_version,
                occurred_at=occurred_at,
                correlation_id=ev.correlation_id,
                causation_id=ev.causation_id,
                visibility=vis,
                data=ev.data,
                prev_hash=prev_hash,
                hash=h,
            )
        )
        prev_hash = h
    return out


def first_prev_hash(version: int, head_hash: str | None) -> str:
    """Return the prev_hash for the event after version (genesis for an empty stream)."""
    return GENESIS_HASH if version == 0 or head_hash is None else head_hash
