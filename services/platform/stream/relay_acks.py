"""Batches the relay has sent and the broker has not acknowledged yet, and its checkpoint.

The relay sends the next batch without waiting for the previous one's acknowledgement (the
producer keeps per-partition order: one request in flight per broker connection). This
keeps the acknowledged prefix: a batch counts once it and every batch before it are
acknowledged, and the checkpoint written behind it (at most every ``every_s``, never on the
relay's path) is always a position whose events, and all before it, the broker holds.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)


class RelayAcks:
    """The in-flight batches, in send order, and the checkpoint written behind them."""

    def __init__(
        self, acked: int, write: Callable[[int], Awaitable[None]], every_s: float = 0.1
    ) -> None:
        self.acked = acked  # last position of the acknowledged prefix
        self._written = acked
        self._write = write
        self._every = every_s
        self._pending: deque[tuple[int, asyncio.Future[Any]]] = deque()
        self._failure: BaseException | None = None
        self._writer: asyncio.Task[None] | None = None

    def __len__(self) -> int:
        return len(self._pending)

    def add(self, last_position: int, acks: asyncio.Future[Any]) -> None:
        """Track a sent batch (acks: all its records' acknowledgements)."""
        self._pending.append((last_position, acks))
        acks.add_done_callback(self._settle)

    def _settle(self, _done: asyncio.Future[Any]) -> None:
        """Move the acknowledged prefix past every finished batch at the head."""
        while self._pending and self._pending[0][1].done():
            position, acks = self._pending.popleft()
            error = asyncio.CancelledError() if acks.cancelled() else acks.exception()
            if error is not None:
                self._failure = self._failure or error
                for _, rest in self._pending:  # resent after the rewind
                    rest.add_done_callback(_retrieved)
                self._pending.clear()
                break
            self.acked = max(self.acked, position)
        if self.acked > self._written and (self._writer is None or self._writer.done()):
            self._writer = asyncio.ensure_future(self._write_behind())

    async def _write_behind(self) -> None:
        """Write the checkpoint while the acknowledged prefix moves, every_s apart."""
        try:
            while self.acked > self._written:
                target = self.acked
                await self._write(target)
                self._written = target
                await asyncio.sleep(self._every)
        except Exception:
            log.exception("relay: could not write the checkpoint; it is written again later")

    def raise_failure(self) -> None:
        """Raise the first failed batch's error (the relay rewinds to ``acked`` after it)."""
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    async def room(self, most: int) -> None:
        """Wait until fewer than most batches are in flight; raise a failed batch's error."""
        while len(self._pending) >= most:
            await asyncio.wait([self._pending[0][1]])
        self.raise_failure()

    async def close(self, timeout_s: float = 10.0) -> None:
        """Wait for the batches in flight (timeout_s at most), then write the checkpoint."""
        if self._pending:
            await asyncio.wait([acks for _, acks in self._pending], timeout=timeout_s)
        self._failure = None
        if self._writer is not None:
            self._writer.cancel()
            await asyncio.gather(self._writer, return_exceptions=True)
        if self.acked > self._written:
            await self._write(self.acked)
            self._written = self.acked


def _retrieved(task: asyncio.Future[object]) -> None:
    """Retrieve a finished future's outcome (a batch after a failed one: it is resent)."""
    if not task.cancelled():
        task.exception()
