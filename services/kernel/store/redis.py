"""Redis event store: Redis Streams per stream, a Lua append, a global feed per shard.

Layout (every key of a shard carries its hash tag, so one append touches one slot):

- ``<prefix>:{s<n>}:stream:<stream>``: a Redis Stream per event stream, entry id
  ``<version>-0``, fields ``pos`` (global position) and ``env`` (canonical JSON).
- ``<prefix>:{s<n>}:feed``: the shard's global feed, entry id ``<position>-0``, field ``env``.
  Each shard has its own feed and its own position counter; positions are per shard.
- ``<prefix>:{s<n>}:heads``: hash stream -> ``"<version> <hash>"``.
- ``<prefix>:{s<n>}:cmds``: hash ``"<stream>\\x00<command_id>"`` -> first result JSON.
- ``<prefix>:{s<n>}:pos``: the shard's position counter (INCR).
- ``<prefix>:{kv}:secrets`` and ``<prefix>:{kv}:meta``: plain hashes.

A game belongs to shard ``crc32(game id) % shards``. Event bodies are stored twice (stream
and feed). Durability: production Redis must run with ``appendonly yes`` and
``appendfsync everysec`` (at most ~1 s of acknowledged appends lost on a crash) or
``appendfsync always`` (none lost); without AOF a restart loses the log.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from services.kernel.canonical import canonical_json
from services.kernel.envelope import Envelope, NewEvent, stream_game
from services.kernel.errors import VersionConflict
from services.kernel.store.base import (
    AppendResult,
    first_prev_hash,
    now_iso,
    seal,
    validate_append,
)

APPEND_LUA = Path(__file__).with_name("redis_append.lua")
MAX_STALE_RETRIES = 1000
MAX_KNOWN_HEADS = 10_000


def shard_of(stream: str, shards: int) -> int:
    """Return the shard a stream's game belongs to."""
    return zlib.crc32(stream_game(stream).encode("utf-8")) % shards


def feed_key(prefix: str, shard: int) -> str:
    """Return the key of a shard's global feed."""
    return f"{prefix}:{{s{shard}}}:feed"


def encode_envelope(env: Envelope) -> str:
    """Return the canonical JSON of env without its position (stored beside it)."""
    body = env.to_dict()
    del body["position"]
    return canonical_json(body)


def decode_envelope(body: str, position: int) -> Envelope:
    """Return the envelope stored as body at the given global position."""
    d: dict[str, Any] = json.loads(body)
    d["position"] = position
    return Envelope.from_dict(d)


def feed_entry_position(entry_id: str) -> int:
    """Return the global position encoded in a feed entry id ('42-0' -> 42)."""
    return int(entry_id.split("-", 1)[0])


Entry = tuple[str, dict[str, str]]


def range_entries(reply: Any) -> list[Entry]:
    """Return the (id, fields) entries of an XRANGE reply (RESP2, decoded)."""
    return [(str(i), f) for i, f in reply or [] if f is not None]


def read_entries(reply: Any) -> list[Entry]:
    """Return the (id, fields) entries of an XREAD/XREADGROUP reply (RESP2, decoded)."""
    return [e for _, entries in reply or [] for e in range_entries(entries)]


def feed_envelopes(entries: list[Entry]) -> list[tuple[str, Envelope]]:
    """Return (entry id, envelope) for each feed entry."""
    return [(i, decode_envelope(f["env"], feed_entry_position(i))) for i, f in entries]


class RedisEventStore:
    """EventStore on Redis; one Lua script makes each append atomic on its shard."""

    def __init__(self, url: str, shards: int = 1, prefix: str = "fallen") -> None:
        if shards < 1:
            raise ValueError("shards must be >= 1")
        self.url = url
        self.shards = shards
        self.prefix = prefix
        self._redis: aioredis.Redis = aioredis.from_url(url, decode_responses=True)
        self._append = self._redis.register_script(APPEND_LUA.read_text(encoding="utf-8"))
        self._known_heads: dict[str, tuple[int, str]] = {}

    def _key(self, shard: int, name: str) -> str:
        return f"{self.prefix}:{{s{shard}}}:{name}"

    def _stream_key(self, stream: str) -> str:
        return self._key(shard_of(stream, self.shards), f"stream:{stream}")

    def _remember_head(self, stream: str, version: int, head_hash: str) -> None:
        """Keep the head this client just wrote (bounded; a stale one costs one retry)."""
        if len(self._known_heads) >= MAX_KNOWN_HEADS:
            self._known_heads.pop(next(iter(self._known_heads)))
        self._known_heads[stream] = (version, head_hash)

    async def _head(self, stream: str) -> tuple[int, str]:
        """Return the stream's (version, head hash); (0, '') when empty."""
        shard = shard_of(stream, self.shards)
        raw = await self._redis.hget(self._key(shard, "heads"), stream)
        if raw is None:
            return 0, ""
        version, head_hash = str(raw).split(" ", 1)
        return int(version), head_hash

    async def append(
        self,
        stream: str,
        expected_version: int,
        events: Sequence[NewEvent],
        command_id: str | None = None,
    ) -> AppendResult:
        """Append events if the stream is at expected_version; dedupe command ids."""
        validate_append(stream, expected_version, events)
        shard = shard_of(stream, self.shards)
        keys = [
            self._stream_key(stream),
            self._key(shard, "feed"),
            self._key(shard, "heads"),
            self._key(shard, "cmds"),
            self._key(shard, "pos"),
        ]
        cmd_field = f"{stream}\x00{command_id}" if command_id else ""
        for _ in range(MAX_STALE_RETRIES):
            # the last head this client wrote saves a round trip; the script re-checks it
            cached = self._known_heads.pop(stream, None)
            base_version, base_hash = cached or await self._head(stream)
            sealed = seal(
                stream,
                base_version + 1,
                first_prev_hash(base_version, base_hash or None),
                events,
                now_iso(),
            )
            args: list[str | int] = [
                stream,
                expected_version,
                base_version,
                base_hash,
                cmd_field,
                sealed[-1].hash,
                *(encode_envelope(env) for env in sealed),
            ]
            reply = await self._append(keys=keys, args=args)
            outcome = reply[0]
            if outcome == "ok":
                self._remember_head(stream, int(reply[1]), sealed[-1].hash)
                return AppendResult(
                    stream=stream,
                    version=int(reply[1]),
                    first_position=int(reply[2]),
                    last_position=int(reply[3]),
                )
            if outcome == "dup":
                return AppendResult(**json.loads(reply[1]), deduplicated=True)
            if outcome == "conflict":
                raise VersionConflict(stream, expected_version, int(reply[1]))
            # "stale": another writer moved the head after we read it; seal again.
        raise VersionConflict(stream, expected_version, await self.version(stream))

    async def read(self, stream: str, from_version: int = 1) -> list[Envelope]:
        """Return the stream's events from from_version on."""
        start = f"{from_version}-0" if from_version > 1 else "-"
        reply = await self._redis.xrange(self._stream_key(stream), start, "+")
        return [decode_envelope(f["env"], int(f["pos"])) for _, f in range_entries(reply)]

    async def version(self, stream: str) -> int:
        """Return the stream's current version."""
        version, _ = await self._head(stream)
        return version

    async def read_all(
        self, from_position: int = 1, limit: int = 1000, *, shard: int = 0
    ) -> list[Envelope]:
        """Return one shard's global-feed events from from_position on, at most limit."""
        start = f"{from_position}-0" if from_position > 1 else "-"
        reply = await self._redis.xrange(self._key(shard, "feed"), start, "+", count=limit)
        return [env for _, env in feed_envelopes(range_entries(reply))]

    async def head_position(self, *, shard: int = 0) -> int:
        """Return one shard's last global position."""
        raw = await self._redis.get(self._key(shard, "pos"))
        return int(raw or 0)

    async def put_secret(self, key: str, value: str) -> bool:
        """Store a secret if absent; return whether it was stored."""
        return bool(await self._redis.hsetnx(f"{self.prefix}:{{kv}}:secrets", key, value))

    async def get_secret(self, key: str) -> str | None:
        """Return a stored secret, or None."""
        raw = await self._redis.hget(f"{self.prefix}:{{kv}}:secrets", key)
        return None if raw is None else str(raw)

    async def get_meta(self, key: str) -> str | None:
        """Return an operational value, or None."""
        raw = await self._redis.hget(f"{self.prefix}:{{kv}}:meta", key)
        return None if raw is None else str(raw)

    async def set_meta(self, key: str, value: str) -> None:
        """Set an operational value."""
        await self._redis.hset(f"{self.prefix}:{{kv}}:meta", key, value)

    async def close(self) -> None:
        """Close the connection pool."""
        await self._redis.aclose()
