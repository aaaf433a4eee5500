"""Thin runners that feed the Projector: in-process (store feed) and a Redis consumer group.

The faust runner (Kafka) is in faust_app.py. Each runner is at least once: it commits the
views before it records progress (checkpoint, XACK, Kafka offset), and the projection skips
any (stream, version) it has applied already, so a crash anywhere re-applies harmlessly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore, feed_envelopes, feed_key, read_entries
from services.projections.consistency import (
    BUILT_FROM,
    MISMATCH,
    ON_MISMATCH,
    Mismatch,
    compare,
    store_identity,
)
from services.projections.projector import Projector

log = logging.getLogger("fallen.projections")

BATCH = 500
POLL_SECONDS = 0.5
STATUS_EVERY_S = 1.0
BLOCK_MS = 500
WINDOW_S = 0.01  # in-process: at most one batch per window, so a burst is one batch
VERIFY_EVERY_S = 5.0  # in-process: how often the views are checked against the store


class InProcessRunner:
    """Reads the store's global feed from a checkpoint kept in the view store.

    With the SQLite view store the views and the checkpoint are one transaction. Appends
    in this process wake the runner (SqliteEventStore listeners); otherwise it polls. After
    an idle spell the first append is applied at once; then batches start at most every
    window_s, so the appends of a command (its events, the draw, chance's answer) and of
    concurrent games share one batch, and each game's views are built once per batch
    rather than once per append (a view is at most window_s later).
    """

    def __init__(
        self,
        projector: Projector,
        name: str = "inprocess",
        shard: int | None = None,
        batch: int = BATCH,
        poll_seconds: float = POLL_SECONDS,
        window_s: float = WINDOW_S,
        on_mismatch: str = "rebuild",
    ) -> None:
        if on_mismatch not in ON_MISMATCH:
            raise ValueError(f"on_mismatch must be one of {ON_MISMATCH}, not {on_mismatch!r}")
        self.on_mismatch = on_mismatch
        self.mismatch: Mismatch | None = None
        self.projector = projector
        self.window = window_s
        self.store: EventStore = projector.store
        self.name = name
        self.shard = shard
        self.batch = batch
        self.poll = poll_seconds
        self.key = f"checkpoint:{name}"
        projector.runner = name
        self._wake = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        add = getattr(self.store, "add_listener", None)
        if callable(add):
            add(self._on_append)

    def _on_append(self, written: Any) -> None:
        """Wake the runner (from any thread) after an append in this process."""
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

    async def checkpoint(self) -> int:
        """Return the last global position whose views are committed."""
        return int(await self.projector.views.get_meta(self.key) or 0)

    async def _read(self, start: int) -> list[Any]:
        if self.shard is None:
            return await self.store.read_all(start, self.batch)
        assert isinstance(self.store, RedisEventStore)
        return await self.store.read_all(start, self.batch, shard=self.shard)

    async def _head(self) -> int:
        if self.shard is None:
            return await self.store.head_position()
        assert isinstance(self.store, RedisEventStore)
        return await self.store.head_position(shard=self.shard)

    async def lag(self) -> int:
        """Return how many stored events are not applied yet."""
        return max(0, await self._head() - await self.checkpoint())

    async def verify(self) -> Mismatch | None:
        """Compare the views with the store; on a mismatch log it, record it, and rebuild
        from an empty view store (on_mismatch "rebuild") or stop applying ("stop")."""
        views = self.projector.views
        store_id = await store_identity(self.store)
        checkpoint = await self.checkpoint()  # before the head: a checkpoint never passes it
        head = await self._head()
        built_from = await views.get_meta(BUILT_FROM)
        found = compare(checkpoint, head, store_id, built_from)
        self.mismatch = found
        if found is None:
            if built_from is None:
                await views.set_meta(BUILT_FROM, store_id)
            if await views.get_meta(MISMATCH):
                await views.set_meta(MISMATCH, "")
            return None
        log.error(found.describe(), extra={"runner": self.name, "on_mismatch": self.on_mismatch})
        await views.set_meta(MISMATCH, found.to_json())
        if self.on_mismatch == "rebuild":
            await views.clear()
            await views.set_meta(BUILT_FROM, store_id)
            self.mismatch = None
            log.warning(
                "rebuilding every view from the event store (%d events)",
                head,
                extra={"runner": self.name},
            )
        return found

    async def run_once(self) -> int:
        """Apply the next batch after the checkpoint; return how many events it held."""
        if self.mismatch is not None:
            return 0  # on_mismatch "stop": nothing is applied onto views known to be wrong
        start = await self.checkpoint() + 1
        envs = await self._read(start)
        if envs:
            await self.projector.process(envs, (self.key, str(envs[-1].position)))
        return len(envs)

    async def catch_up(self) -> int:
        """Apply everything stored now; return how many events were read."""
        total = 0
        while n := await self.run_once():
            total += n
        return total

    async def run(self, stop: asyncio.Event | None = None) -> None:
        """Apply events as they are appended until stop is set (or the task is cancelled)."""
        self._loop = asyncio.get_running_loop()
        stop = stop or asyncio.Event()
        last_report = 0.0
        next_batch = 0.0
        last_verify = -VERIFY_EVERY_S
        while not stop.is_set():
            if time.monotonic() - last_verify >= VERIFY_EVERY_S:
                last_verify = time.monotonic()
                try:
                    await self.verify()
                except Exception:
                    log.exception("checking the views against the store failed")
            delay = next_batch - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)  # the rest of the burst that woke us joins in
            next_batch = time.monotonic() + self.window
            self._wake.clear()
            try:
                n = await self.run_once()
            except Exception:
                log.exception("projection batch failed; retrying", extra={"runner": self.name})
                n = 0
                await asyncio.sleep(self.poll)
            now = time.monotonic()
            if now - last_report >= STATUS_EVERY_S:
                last_report = now
                with contextlib.suppress(Exception):
                    await self.projector.report(await self.lag(), await self.checkpoint())
            if n < self.batch and not stop.is_set():
                waiter = asyncio.ensure_future(self._wake.wait())
                stopper = asyncio.ensure_future(stop.wait())
                await asyncio.wait(
                    {waiter, stopper}, timeout=self.poll, return_when="FIRST_COMPLETED"
                )
                waiter.cancel()
                stopper.cancel()


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
    ) -> None:
        self.projector = projector
        self.key = feed_key(prefix, shard)
        self.group = group
        self.consumer = consumer or f"projector-{shard}"
        self.batch = batch
        self.name = f"redis:{group}:shard{shard}"
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

    async def _step(self, stream_id: str) -> int:
        """Read one batch (own pending when stream_id is '0'), apply, ack; return its size."""
        reply = await self._redis.xreadgroup(
            self.group, self.consumer, {self.key: stream_id}, count=self.batch, block=BLOCK_MS
        )
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
        await self._ensure_group()
        await self._claim_abandoned()
        while not stop.is_set() and await self._step("0"):
            pass
        last_report = 0.0
        while not stop.is_set() and not self._closed:
            try:
                await self._step(">")
            except RedisConnectionError:
                if self._closed:
                    return
                raise
            except Exception:
                log.exception("projection batch failed; retrying", extra={"runner": self.name})
                await asyncio.sleep(POLL_SECONDS)
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
