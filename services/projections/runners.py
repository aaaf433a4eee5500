"""The in-process runner that feeds the Projector from the store's global feed.

The Redis consumer-group runner is in redis_runner.py, the faust runner (Kafka) in
faust_app.py. Each runner is at least once: it commits the
views before it records progress (checkpoint, XACK, Kafka offset), and the projection skips
any (stream, version) it has applied already, so a crash anywhere re-applies harmlessly.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore
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
