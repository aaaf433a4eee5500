"""Redis event store: Redis Streams per stream, a Lua append, a global feed per shard.

Layout (every key of a shard carries its hash tag, so one append touches one slot):

- ``<prefix>:{s<n>}:stream:<stream>``: a Redis Stream per event stream, entry id
  ``<version>-0``, field ``pos`` (global position) only.
- ``<prefix>:{s<n>}:feed``: the shard's global feed, entry id ``<position>-0``, field ``env``
  (canonical JSON): the one copy of each event body. Never trim it.
  Each shard has its own feed and its own position counter; positions are per shard.
- ``<prefix>:{s<n>}:heads``: hash stream -> ``"<version> <hash>"``.
- ``<prefix>:{s<n>}:cmds:<stream>``: hash ``"<sender>\\x00<command_id>"`` -> first result
  JSON (with the command's digest). The hash expires ``dedupe_ttl_s`` (default 7 days)
  after the stream's last command: a retry later than that is no longer recognised.
- ``<prefix>:{s<n>}:pos``: the shard's position counter (INCR).
- ``<prefix>:{kv}:secrets`` and ``<prefix>:{kv}:meta``: plain hashes.

A game belongs to shard ``crc32(game id) % shards``. Event bodies are stored once (feed).
Durability: production Redis must run with ``appendonly yes`` and
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

from services.platform.canonical import canonical_json
from services.platform.envelope import Envelope, NewEvent, stream_game
from services.platform.errors import VersionConflict
from services.platform.store.base import (
    MAX_VERSION,
    AppendResult,
    CommandKey,
    as_command_key,
    first_prev_hash,
    now_iso,
    replay_record,
    seal_encoded,
    validate_append,
    validate_command,
)

APPEND_LUA = Path(__file__).with_name("redis_append.lua")
READ_LUA = Path(__file__).with_name("redis_read.lua")
DEDUPE_TTL_S = 7 * 24 * 3600
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


def encode_sealed(env: Envelope, visibility_json: str, data_json: str) -> str:
    """Return encode_envelope(env), given its visibility and data already as canonical JSON
    (the same text, without encoding the payload a second time)."""
    c = canonical_json
    return (
        f'{{"causation_id":{c(env.causation_id)},"correlation_id":{c(env.correlation_id)},'
        f'"data":{data_json},"event_id":{c(env.event_id)},"hash":{c(env.hash)},'
        f'"occurred_at":{c(env.occurred_at)},"prev_hash":{c(env.prev_hash)},'
        f'"schema_version":{c(env.schema_version)},"stream":{c(env.stream)},'
        f'"type":{c(env.type)},"version":{c(env.version)},"visibility":{visibility_json}}}'
    )


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

    def __init__(
        self, url: str, shards: int = 1, prefix: str = "fallen", dedupe_ttl_s: int = DEDUPE_TTL_S
    ) -> None:
        if shards < 1 or dedupe_ttl_s < 1:
            raise ValueError("shards and dedupe_ttl_s must be >= 1")
        self.dedupe_ttl_s = dedupe_ttl_s
        self.url = url
        self.shards = shards
        self.prefix = prefix
        self._redis: aioredis.Redis = aioredis.from_url(url, decode_responses=True)
        self._append = self._redis.register_script(APPEND_LUA.read_text(encoding="utf-8"))
        self._read = self._redis.register_script(READ_LUA.read_text(encoding="utf-8"))
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
        command_id: CommandKey | str | None = None,
    ) -> AppendResult:
        """Append events if the stream is at expected_version; dedupe command ids."""
        validate_append(stream, expected_version, events)
        key = as_command_key(command_id)
        validate_command(key)
        shard = shard_of(stream, self.shards)
        keys = [
            self._stream_key(stream),
            self._key(shard, "feed"),
            self._key(shard, "heads"),
            self._cmds_key(stream),
            self._key(shard, "pos"),
        ]
        cmd_field = f"{key.sender}\x00{key.command_id}" if key else ""
        for _ in range(MAX_STALE_RETRIES):
            # the last head this client wrote saves a round trip; the script re-checks it
            cached = self._known_heads.pop(stream, None)
            base_version, base_hash = cached or await self._head(stream)
            sealed = seal_encoded(
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
                sealed[-1][0].hash,
                key.digest if key else "",
                self.dedupe_ttl_s,
                *(encode_sealed(*parts) for parts in sealed),
            ]
            reply = await self._append(keys=keys, args=args)
            outcome = reply[0]
            if outcome == "ok":
                self._remember_head(stream, int(reply[1]), sealed[-1][0].hash)
                return AppendResult(
                    stream=stream,
                    version=int(reply[1]),
                    first_position=int(reply[2]),
                    last_position=int(reply[3]),
                )
            if outcome == "dup":
                assert key is not None
                return replay_record(str(reply[1]), key)
            if outcome == "conflict":
                raise VersionConflict(stream, expected_version, int(reply[1]))
            # "stale": another writer moved the head after we read it; seal again.
        raise VersionConflict(stream, expected_version, await self.version(stream))

    def _cmds_key(self, stream: str) -> str:
        return self._key(shard_of(stream, self.shards), f"cmds:{stream}")

    async def command_result(self, stream: str, key: CommandKey) -> AppendResult | None:
        """Return the first result of a command the sender already sent, or None."""
        validate_command(key)
        raw = await self._redis.hget(self._cmds_key(stream), f"{key.sender}\x00{key.command_id}")
        return None if raw is None else replay_record(str(raw), key)

    async def read(self, stream: str, from_version: int = 1) -> list[Envelope]:
        """Return the stream's events from from_version on (bodies come from the feed)."""
        from_version = min(from_version, MAX_VERSION)
        start = f"{from_version}-0" if from_version > 1 else "-"
        shard = shard_of(stream, self.shards)
        flat = await self._read(
            keys=[self._stream_key(stream), self._key(shard, "feed")], args=[start]
        )
        return [decode_envelope(flat[i + 1], int(flat[i])) for i in range(0, len(flat), 2)]

    async def version(self, stream: str) -> int:
        """Return the stream's current version."""
        version, _ = await self._head(stream)
        return version

    async def read_all(
        self, from_position: int = 1, limit: int = 1000, *, shard: int = 0
    ) -> list[Envelope]:
        """Return one shard's global-feed events from from_position on, at most limit."""
        from_position = min(from_position, MAX_VERSION)
        start = f"{from_position}-0" if from_position > 1 else "-"
        count = max(1, min(limit, 10_000))
        reply = await self._redis.xrange(self._key(shard, "feed"), start, "+", count=count)
        return [env for _, env in feed_envelopes(range_entries(reply))]

    async def wait_feed(self, after: int, timeout_s: float, *, shard: int = 0) -> None:
        """Return once one shard's feed holds an event after position after, or after
        timeout_s (one blocking XREAD: a follower wakes at the append, not at its poll)."""
        block = max(1, int(timeout_s * 1000))
        await self._redis.xread({self._key(shard, "feed"): f"{after}-0"}, count=1, block=block)

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
