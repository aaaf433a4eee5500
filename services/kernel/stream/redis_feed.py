"""Feed over a Redis shard's global feed stream (XREAD BLOCK), plus a consumer-group reader."""

from __future__ import annotations

from collections.abc import AsyncIterator

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from services.kernel.envelope import Envelope
from services.kernel.store.redis import decode_envelope, feed_entry_position, feed_key

BLOCK_MS = 500
BATCH = 500


class RedisFeed:
    """Subscription on one shard's feed; feed entry ids are '<position>-0'."""

    def __init__(self, url: str, shard: int = 0, prefix: str = "fallen") -> None:
        self._redis: aioredis.Redis = aioredis.from_url(url, decode_responses=True)
        self._key = feed_key(prefix, shard)
        self._closed = False

    async def events(self, from_position: int = 1) -> AsyncIterator[Envelope]:
        """Yield events with position >= from_position, forever, in order."""
        last_id = f"{max(from_position, 1) - 1}-0"
        while not self._closed:
            reply = await self._redis.xread({self._key: last_id}, count=BATCH, block=BLOCK_MS)
            for _, entries in reply or []:
                for entry_id, fields in entries:
                    last_id = entry_id
                    yield decode_envelope(fields["env"], feed_entry_position(entry_id))

    async def group_events(
        self, group: str, consumer: str, from_position: int = 1
    ) -> AsyncIterator[Envelope]:
        """Yield events through a consumer group, at least once, acking each once handled.

        The group starts at from_position when first created and afterwards resumes where
        it left off; entries delivered but not acked (a crash mid-event) come first.
        """
        try:
            await self._redis.xgroup_create(
                self._key, group, id=f"{max(from_position, 1) - 1}-0", mkstream=True
            )
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise
        pending_id = "0"
        while not self._closed:
            stream_id = pending_id or ">"
            reply = await self._redis.xreadgroup(
                group, consumer, {self._key: stream_id}, count=BATCH, block=BLOCK_MS
            )
            entries = [e for _, es in reply or [] for e in es]
            if pending_id and not entries:
                pending_id = ""
            for entry_id, fields in entries:
                if pending_id:
                    pending_id = entry_id
                yield decode_envelope(fields["env"], feed_entry_position(entry_id))
                await self._redis.xack(self._key, group, entry_id)

    async def close(self) -> None:
        """Stop reading and close the connection pool."""
        self._closed = True
        await self._redis.aclose()
