"""The Redis consumer-group runner: one per shard of the Redis event store's feed.

Besides applying the feed, it checks that the views were built from this event store: the
store's identity is recorded per runner (``store:id:<runner>``) in the view store. When the
identity differs (the store was emptied, swapped or restored under these views), the runner
logs the mismatch, records it for GetProjectionStatus and, with on_mismatch "rebuild",
drops the views of its shard's games and reads its shard's feed again from the start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from services.platform.store.redis import feed_envelopes, feed_key, read_entries, shard_of
from services.projections.consistency import (
    MISMATCH,
    ON_MISMATCH,
    Mismatch,
    store_identity,
)
from services.projections.projector import Projector
from services.projections.runners import BATCH, BLOCK_MS, POLL_SECONDS, STATUS_EVERY_S
from services.projections.viewstore import Batch

log = logging.getLogger("fallen.projections")

VERIFY_EVERY_S = 5.0


class RedisGroupRunner:
    """Reads one shard's Redis feed through a consumer group; XACK after the views commit.

    Run one per shard (scale by shards): a game's events must be applied by one consumer in
    order. A restarted runner first claims and re-reads entries that were delivered but
    never acknowledged (a crash mid-batch), which the projection then skips or applies.
    """

    def __init__(
        self,
        projector: Projector,
        url: str,
        prefix: str = "fallen",
        shard: int = 0,
        group: str = "projections",
        consumer: str = "",
        batch: int = BATCH,
        shards: int = 1,
        on_mismatch: str = "rebuild",
    ) -> None:
        if on_mismatch not in ON_MISMATCH:
            raise ValueError(f"on_mismatch must be one of {ON_MISMATCH}, not {on_mismatch!r}")
        self.projector = projector
        self.key = feed_key(prefix, shard)
        self.shard = shard
        self.shards = shards
        self.group = group
        self.consumer = consumer or f"projector-{shard}"
        self.batch = batch
        self.name = f"redis:{group}:shard{shard}"
        self.on_mismatch = on_mismatch
        self.mismatch: Mismatch | None = None
        projector.runner = self.name
        self._redis: aioredis.Redis = aioredis.from_url(url, decode_responses=True)
        self._closed = False

    async def _ensure_group(self) -> None:
        try:
            await self._redis.xgroup_create(self.key, self.group, id="0-0", mkstream=True)
        except ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise

    async def _claim_abandoned(self) -> None:
        """Take over entries another (dead) consumer of the group never acknowledged."""
        start = "0-0"
        while True:
            reply = await self._redis.xautoclaim(
                self.key, self.group, self.consumer, 0, start, count=self.batch
            )
            start = str(reply[0])  # (justid=True would drop this cursor in redis-py)
            if start == "0-0":
                return

    async def _feed_length(self) -> int:
        return int(await self._redis.xlen(self.key))

    async def verify(self) -> Mismatch | None:
        """Check that this shard's views come from this event store; on a mismatch log and
        record it, and rebuild the shard (on_mismatch "rebuild") or stop applying."""
        views = self.projector.views
        mine = f"store:id:{self.name}"
        store_id = await store_identity(self.projector.store)
        built_from = await views.get_meta(mine)
        if built_from is None or built_from == store_id:
            if built_from is None:
                await views.set_meta(mine, store_id)
            self.mismatch = None
            return None
        found = Mismatch(
            "the views were built from another event store", -1, await self._feed_length()
        )
        log.error(found.describe(), extra={"runner": self.name, "on_mismatch": self.on_mismatch})
        await views.set_meta(MISMATCH, found.to_json())
        self.mismatch = found
        if self.on_mismatch == "rebuild":
            await self._rebuild_shard(store_id)
        return found

    async def _rebuild_shard(self, store_id: str) -> None:
        """Drop this shard's games from the views and read the feed again from its start."""
        views = self.projector.views
        ours = tuple(
            g for g in await views.games() if shard_of(f"game-{g}", self.shards) == self.shard
        )
        if ours:
            await views.commit(Batch(drop=ours))
        self.projector.forget()
        with contextlib.suppress(ResponseError):
            await self._redis.xgroup_destroy(self.key, self.group)
        await self._ensure_group()
        await views.set_meta(f"store:id:{self.name}", store_id)
        await views.set_meta(MISMATCH, "")
        self.mismatch = None
        log.warning(
            "rebuilding the views of %d games from shard %d's feed",
            len(ours),
            self.shard,
            extra={"runner": self.name},
        )

    async def _step(self, stream_id: str) -> int:
        """Read one batch (own pending when stream_id is '0'), apply, ack; return its size."""
        if self.mismatch is not None:
            await asyncio.sleep(POLL_SECONDS)
            return 0  # on_mismatch "stop": nothing is applied onto views known to be wrong
        try:
            reply = await self._redis.xreadgroup(
                self.group, self.consumer, {self.key: stream_id}, count=self.batch, block=BLOCK_MS
            )
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            await self.verify()  # the feed (and its group) vanished: an emptied store
            await self._ensure_group()
            return 0
        entries = feed_envelopes(read_entries(reply))
        if not entries:
            return 0
        await self.projector.process([env for _, env in entries])
        await self._redis.xack(self.key, self.group, *(i for i, _ in entries))
        return len(entries)

    async def lag(self) -> int:
        """Return entries not yet delivered to the group plus those delivered but not acked."""
        for info in await self._redis.xinfo_groups(self.key):
            if info.get("name") == self.group:
                lag = info.get("lag")
                pending = int(info.get("pending") or 0)
                if lag is None:  # Redis cannot tell (entries deleted); count from last id
                    return pending
                return int(lag) + pending
        return 0

    async def catch_up(self) -> int:
        """Apply everything stored now (pending first); return how many entries were read."""
        await self.verify()
        await self._ensure_group()
        await self._claim_abandoned()
        total = 0
        while n := await self._step("0"):
            total += n
        while n := await self._step(">"):
            total += n
        return total

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Apply events as they arrive until stop is set (or the task is cancelled)."""
        stop = stop or asyncio.Event()
        await self.verify()
        await self._ensure_group()
        await self._claim_abandoned()
        while not stop.is_set() and await self._step("0"):
            pass
        last_report = 0.0
        last_verify = time.monotonic()
        while not stop.is_set() and not self._closed:
            try:
                if time.monotonic() - last_verify >= VERIFY_EVERY_S:
                    last_verify = time.monotonic()
                    await self.verify()
                await self._step(">")
            except RedisConnectionError:
                if self._closed:
                    return
                log.warning("lost the Redis connection; reconnecting", extra={"runner": self.name})
                await asyncio.sleep(POLL_SECONDS)
            except Exception:
                log.exception("projection batch failed; retrying", extra={"runner": self.name})
                await asyncio.sleep(POLL_SECONDS)
                with contextlib.suppress(Exception):
                    while await self._step("0"):
                        pass
            now = time.monotonic()
            if now - last_report >= STATUS_EVERY_S:
                last_report = now
                with contextlib.suppress(Exception):
                    await self.projector.report(await self.lag())

    async def close(self) -> None:
        """Stop reading and close the connection pool."""
        self._closed = True
        await self._redis.aclose()
