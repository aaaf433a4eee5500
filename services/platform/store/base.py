"""The EventStore contract shared by every implementation."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from typing import Protocol

from services.platform.canonical import GENESIS_HASH, canonical_json, chain_hash_encoded
from services.platform.envelope import Envelope, NewEvent, normalize_visibility
from services.platform.errors import AlreadyExists, InvalidArgument, quote

STREAM_RE = re.compile(r"^[a-z][a-z0-9_]*-[A-Za-z0-9_.:-]{1,128}$")
ANY_VERSION = -1
MAX_VERSION = 2**62  # well inside SQLite's signed 64-bit integers and Lua's doubles
MAX_COMMAND_ID = 128
MAX_SENDER = 300
# printable, no control characters (NUL, newline, DEL ...) and no separator
DIGEST_RE = re.compile(r"^[0-9a-f]{0,128}$")
COMMAND_ID_RE = re.compile(r"^[^\x00-\x1f\x7f]{1,128}$")


@dataclass(frozen=True)
class AppendResult:
    """What an append did: the stream version after it and the events written."""

    stream: str
    version: int
    first_position: int
    last_position: int
    deduplicated: bool = False


@dataclass(frozen=True)
class CommandKey:
    """Who sent a command and its id: dedupe is scoped to (stream, sender, command_id).

    sender names the player and seat ("<player>/<seat>", or a service name); digest is a
    hash of the command's content, so a reused id with other content is refused.
    """

    command_id: str
    sender: str = ""
    digest: str = ""


def result_record(result: AppendResult, digest: str) -> str:
    """Return the stored JSON of a command's first result."""
    return json.dumps(
        {
            "stream": result.stream,
            "version": result.version,
            "first_position": result.first_position,
            "last_position": result.last_position,
            "digest": digest,
        },
        sort_keys=True,
        separators=(",", ":"),
    )


def replay_record(record: str, key: CommandKey) -> AppendResult:
    """Return the first result stored for key, or raise AlreadyExists if its content differs."""
    first = json.loads(record)
    stored = first.pop("digest", "")
    if key.digest and stored and key.digest != stored:
        raise AlreadyExists(
            f"command id {quote(key.command_id)} was already used by this seat for another "
            "command; use a new command id"
        )
    return AppendResult(**first, deduplicated=True)


def validate_command(key: CommandKey | None) -> None:
    """Raise InvalidArgument unless a command id (and sender) is well formed."""
    if key is None:
        return
    if not COMMAND_ID_RE.match(key.command_id):
        raise InvalidArgument(
            "command_id",
            f"{quote(key.command_id)} must be 1-{MAX_COMMAND_ID} characters without "
            "control characters",
        )
    if len(key.sender) > MAX_SENDER or "\x00" in key.sender:
        raise InvalidArgument("sender", f"{quote(key.sender)} is too long or has NUL")
    if not DIGEST_RE.match(key.digest):
        raise InvalidArgument("digest", "must be a lowercase hex hash")


def as_command_key(command: CommandKey | str | None) -> CommandKey | None:
    """Return a CommandKey for a plain command id string (legacy callers), or None."""
    if not command:
        return None
    return command if isinstance(command, CommandKey) else CommandKey(command)


class EventStore(Protocol):
    """Append-only per-stream logs with a global feed, conditional appends and dedupe."""

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: CommandKey | str | None = None,
    ) -> AppendResult:
        """Append events if the stream is at expected_version (ANY_VERSION: any).

        A command id the same sender used before on this stream returns the first result
        and appends nothing, checked before the version (AlreadyExists if its digest
        differs); otherwise raises VersionConflict unless the stream is at expected_version.
        """
        ...

    async def command_result(self, stream: str, key: CommandKey) -> AppendResult | None:
        """Return the first result of a command the sender already sent, or None."""
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


def one_fsync(store: EventStore) -> AbstractAsyncContextManager[None]:
    """Return a block in which the store's appends share one fsync, done before the block
    is left (SQLite, services/platform/store/sqlite_sync.py); a no-op for other stores."""
    scope = getattr(store, "one_fsync", None)
    return scope() if callable(scope) else nullcontext()


def validate_append(stream: str, expected_version: int, events: Sequence[NewEvent]) -> None:
    """Raise InvalidArgument unless the append request is well formed."""
    if not STREAM_RE.match(stream):
        raise InvalidArgument("stream", f"{quote(stream)} is not a stream id like 'game-<id>'")
    if not ANY_VERSION <= expected_version <= MAX_VERSION:
        raise InvalidArgument(
            "expected_version", f"must be 0..{MAX_VERSION}, or -1 for any version"
        )
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
    sealed = seal_encoded(stream, start_version, prev_hash, events, occurred_at)
    return [env for env, _, _ in sealed]


def seal_encoded(
    stream: str,
    start_version: int,
    prev_hash: str,
    events: Sequence[NewEvent],
    occurred_at: str,
) -> list[tuple[Envelope, str, str]]:
    """Return (envelope, visibility JSON, data JSON) per event, chained after prev_hash:
    each payload is encoded once, for its hash and for the store."""
    out: list[tuple[Envelope, str, str]] = []
    for i, ev in enumerate(events):
        version = start_version + i
        vis = normalize_visibility(ev.visibility)
        vis_json, data_json = canonical_json(vis), canonical_json(ev.data)
        h = chain_hash_encoded(stream, version, ev.type, vis_json, data_json, prev_hash)
        env = Envelope(
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
        out.append((env, vis_json, data_json))
        prev_hash = h
    return out


def first_prev_hash(version: int, head_hash: str | None) -> str:
    """Return the prev_hash for the event after version (genesis for an empty stream)."""
    return GENESIS_HASH if version == 0 or head_hash is None else head_hash
