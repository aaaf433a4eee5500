"""In-process feed over a SQLite store: woken by appends, polling for other processes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from services.platform.envelope import Envelope
from services.platform.store.sqlite import SqliteEventStore

POLL_SECONDS = 0.5
BATCH = 500


class InProcessFeed:
    """Subscription reading store.read_all; appends in this process wake it at once."""

    def __init__(self, store: SqliteEventStore, poll_seconds: float = POLL_SECONDS) -> None:
        self._store = store
        self._poll = poll_seconds
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()
        self._closed = False
        store.add_listener(self._on_append)

    def _on_append(self, written: list[Envelope]) -> None:
        """Wake every waiting reader, on its own loop whatever thread calls this."""
        for loop, event in list(self._waiters):
            try:
                running = asyncio.get_running_loop()
            except RuntimeError:
                running = None
            if running is loop:
                event.set()
            elif not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    async def events(self, from_position: int = 1) -> AsyncGenerator[Envelope, None]:
        """Yield events with position >= from_position, forever, in order."""
        position = max(from_position, 1)
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        self._waiters.add(waiter)
        try:
            while not self._closed:
                waiter[1].clear()
                batch = await self._store.read_all(position, BATCH)
                for env in batch:
                    yield env
                    position = env.position + 1
                if len(batch) < BATCH and not self._closed:
                    try:
                        await asyncio.wait_for(waiter[1].wait(), self._poll)
                    except TimeoutError:
                        pass
        finally:
            self._waiters.discard(waiter)

    async def close(self) -> None:
        """Stop every reader after its current event; the store stays open."""
        self._closed = True
        for _, event in list(self._waiters):
            event.set()
