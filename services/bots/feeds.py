"""Where bot workers learn of new events: a Redis consumer group, or the store's own feed.

A pool of bot workers (`fallenctl serve bots*`) shares a Redis consumer group on the
store's global feed (every shard): entries a dead worker never acknowledged are claimed by
the others. The embedded server (`fallenctl serve all` on SQLite) plays its bot seats with
workers in the same process that read the store's global feed from a checkpoint kept in
the store, woken by each append.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from services.platform.envelope import Envelope
from services.platform.store.base import EventStore
from services.platform.store.redis import feed_envelopes, feed_key, read_entries

Entry = tuple[str, str, Envelope]  # (feed key, entry id, envelope)
BATCH = 50
BLOCK_MS = 500
CLAIM_IDLE_MS = 3_000
CHECKPOINT_EVERY_S = 1.0
RETRY_AFTER_S = 1.0
PRESENCE_EVERY_S = 2.0  # how often a worker says it is alive
LIVE_S = 30.0  # a worker seen within this long is alive


def presence_key(prefix: str) -> str:
    """Return the sorted set of live bot workers ("group|consumer" -> last seen, epoch s)."""
    return f"{prefix}:bot-workers"


async def live_groups(redis: Any, prefix: str, now: float | None = None) -> set[str]:
    """Return the consumer groups (bot pools) with a worker seen within LIVE_S."""
    now = time.time() if now is None else now
    members = await redis.zrangebyscore(presence_key(prefix), now - LIVE_S, "+inf")
    return {str(m).split("|", 1)[0] for m in members}


class BotFeed(Protocol):
    """The events a bot worker reacts to, acknowledged once handled."""

    async def start(self) -> None:
        """Prepare to read (create the group, load the checkpoint)."""
        ...

    async def claim(self) -> list[Entry]:
        """Return entries handed out earlier but never acknowledged (to retry)."""
        ...

    async def read(self) -> list[Entry]:
        """Return new entries (waits a little when there are none)."""
        ...

    async def ack(self, entries: Sequence[Entry]) -> None:
        """Mark entries handled."""
        ...

    async def nack(self, entries: Sequence[Entry]) -> None:
        """Give entries back to be retried later."""
        ...

    async def lag(self) -> int:
        """Return entries not yet handled."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class RedisGroupFeed:
    """One consumer of a Redis consumer group on every shard's feed."""

    def __init__(
        self,
        redis_url: str,
        prefix: str,
        shards: int,
        group: str,
        consumer: str,
        claim_idle_ms: int = CLAIM_IDLE_MS,
    ) -> None:
        self.keys = [feed_key(prefix, n) for n in range(shards)]
        self.group = group
        self.consumer = consumer
        self.claim_idle_ms = claim_idle_ms
        self.presence = presence_key(prefix)
        self._seen = 0.0
        self._redis: aioredis.Redis = aioredis.from_url(redis_url, decode_responses=True)

    async def start(self) -> None:
        """Create the group on every shard (from now on) unless it exists; say we are alive."""
        for key in self.keys:
            try:
                await self._redis.xgroup_create(key, self.group, id="$", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise
        await self._alive()

    async def _alive(self) -> None:
        """Record this worker in the presence set (at most every PRESENCE_EVERY_S), dropping
        workers not seen for ten times LIVE_S."""
        now = time.time()
        if now - self._seen < PRESENCE_EVERY_S:
            return
        self._seen = now
        await self._redis.zadd(self.presence, {f"{self.group}|{self.consumer}": now})
        await self._redis.zremrangebyscore(self.presence, "-inf", now - 10 * LIVE_S)

    async def claim(self) -> list[Entry]:
        """Entries another worker took but never acknowledged for claim_idle_ms."""
        out: list[Entry] = []
        for key in self.keys:
            reply = await self._redis.xautoclaim(
                key, self.group, self.consumer, self.claim_idle_ms, "0-0", count=BATCH
            )
            out += [(key, i, env) for i, env in feed_envelopes(list(reply[1]))]
        return out

    async def read(self) -> list[Entry]:
        """New entries of the group (blocks up to BLOCK_MS)."""
        await self._alive()
        streams: dict[Any, Any] = dict.fromkeys(self.keys, ">")
        reply = await self._redis.xreadgroup(
            self.group, self.consumer, streams, count=BATCH, block=BLOCK_MS
        )
        out: list[Entry] = []
        for item in reply or []:
            key = str(item[0])
            out += [(key, i, env) for i, env in feed_envelopes(read_entries([item]))]
        return out

    async def ack(self, entries: Sequence[Entry]) -> None:
        """XACK the entries."""
        for key, entry_id, _ in entries:
            await self._redis.xack(key, self.group, entry_id)

    async def nack(self, entries: Sequence[Entry]) -> None:
        """Leave them pending: they are claimed again after claim_idle_ms."""

    async def lag(self) -> int:
        """Entries of the group not yet delivered plus delivered but not acknowledged."""
        total = 0
        for key in self.keys:
            for info in await self._redis.xinfo_groups(key):
                if info.get("name") == self.group:
                    total += int(info.get("lag") or 0) + int(info.get("pending") or 0)
        return total

    async def close(self) -> None:
        """Leave the presence set and close the connection."""
        with contextlib.suppress(Exception):
            await self._redis.zrem(self.presence, f"{self.group}|{self.consumer}")
        await self._redis.aclose()


class StoreFeed:
    """The global feed of a store in this process (the embedded server), read from a
    checkpoint in the store's meta table; appends in this process wake it at once.

    One StoreFeed per process: entries it fails to handle are retried after RETRY_AFTER_S.
    The checkpoint (the first position not yet handled) is written at most every
    CHECKPOINT_EVERY_S; after a restart the entries since then are read again, and a worker
    moves only for the newest event of a game, so reading an entry twice makes no second
    move.
    """

    def __init__(self, store: EventStore, name: str = "bots") -> None:
        self.store = store
        self.key = f"checkpoint:{name}"
        self.next = 0  # the next global position to read
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._retry: list[tuple[float, Entry]] = []
        self._open: set[int] = set()  # positions read and not yet handled (or retried)
        self._saved = 0.0
        add = getattr(store, "add_listener", None)
        if callable(add):
            add(self._on_append)

    def _on_append(self, written: Any) -> None:
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._wake.set()
        else:
            loop.call_soon_threadsafe(self._wake.set)

    async def start(self) -> None:
        """Resume at the checkpoint; a first start begins at the feed's head."""
        self._loop = asyncio.get_running_loop()
        saved = await self.store.get_meta(self.key)
        self.next = int(saved) if saved else await self.store.head_position() + 1

    async def claim(self) -> list[Entry]:
        """Entries whose handling failed, once their retry time has come."""
        now = time.monotonic()
        due = [e for t, e in self._retry if t <= now]
        self._retry = [(t, e) for t, e in self._retry if t > now]
        return due

    async def read(self) -> list[Entry]:
        """New events of the feed (waits up to BLOCK_MS for an append when there are none)."""
        envs = await self.store.read_all(self.next, BATCH)
        if not envs:
            self._wake.clear()
            envs = await self.store.read_all(self.next, BATCH)  # an append before clear()
            if not envs:
                try:
                    await asyncio.wait_for(self._wake.wait(), BLOCK_MS / 1000)
                except TimeoutError:
                    return []
                envs = await self.store.read_all(self.next, BATCH)
        if envs:
            self.next = envs[-1].position + 1
            self._open.update(e.position for e in envs)
        return [("feed", str(e.position), e) for e in envs]

    def checkpoint(self) -> int:
        """Return the first position not yet handled (where a restart reads from)."""
        return min(self._open, default=self.next)

    async def ack(self, entries: Sequence[Entry]) -> None:
        """Mark them handled; save the checkpoint at most every CHECKPOINT_EVERY_S."""
        self._open.difference_update(e[2].position for e in entries)
        now = time.monotonic()
        if now - self._saved >= CHECKPOINT_EVERY_S:
            self._saved = now
            await self.store.set_meta(self.key, str(self.checkpoint()))

    async def nack(self, entries: Sequence[Entry]) -> None:
        """Retry them after RETRY_AFTER_S."""
        at = time.monotonic() + RETRY_AFTER_S
        self._retry += [(at, e) for e in entries]

    async def lag(self) -> int:
        """Events after the read position plus those waiting for a retry."""
        return max(0, await self.store.head_position() + 1 - self.next) + len(self._retry)

    async def close(self) -> None:
        """Save the checkpoint."""
        if self._loop is not None:
            await self.store.set_meta(self.key, str(self.checkpoint()))
