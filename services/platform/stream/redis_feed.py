"""Feed over a Redis shard's global feed stream (XREAD BLOCK), plus a consumer-group reader."""

from __future__ import annotations

from collections.abc import AsyncGenerator

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from services.platform.envelope import Envelope
from services.platform.store.redis import feed_envelopes, feed_key, read_entries

BLOCK_MS = 500
BATCH = 500


class RedisFeed:
    """Subscription on one shard's feed; feed entry ids are '<position>-0'."""

    def __init__(self, url: str, shard: int = 0, prefix: str = "fallen") -> None:
        self._redis: aioredis.Redis = aioredis.from_url(url, decode_responses=True)
        self._key = feed_key(prefix, shard)
        self._closed = False

    async def events(self, from_position: int = 1) -> AsyncGenerator[Envelope, None]:
        """Yield events with position >= from_position, forever, in order."""
        last_id = f"{max(from_position, 1) - 1}-0"
        while not self._closed:
            try:
                reply = await self._redis.xread({self._key: last_id}, count=BATCH, block=BLOCK_MS)
            except RedisConnectionError:
                if self._closed:
                    return  # closed under a blocked read
                raise
            for entry_id, env in feed_envelopes(read_entries(reply)):
                last_id = entry_id
                yield env

    async def group_events(
        self, group: str, consumer: str, from_position: int = 1
    ) -> AsyncGenerator[Envelope, None]:
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
            try:
                reply = await self._redis.xreadgroup(
                    group, consumer, {self._key: stream_id}, count=BATCH, block=BLOCK_MS
                )
            except RedisConnectionError:
                if self._closed:
                    return  # closed under a blocked read
                raise
            entries = feed_envelopes(read_entries(reply))
            if pending_id and not entries:
                pending_id = ""
            for entry_id, env in entries:
                if pending_id:
                    pending_id = entry_id
                yield env
                await self._redis.xack(self._key, group, entry_id)

    async def close(self) -> None:
        """Stop reading and close the connection pool."""
        self._closed = True
        await self._redis.aclose()
