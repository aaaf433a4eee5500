"""Push-based view watching: one pump per game fans views out to bounded watcher queues.

The projection runner commits a view and wakes the view store's change hub (driven by the
event feed). Each watched game has one pump task that then reads the new views once per
watched seat and offers them to every watcher of that seat. A watcher's queue is bounded:
when it is full the oldest queued view is dropped (views are whole snapshots, so a slow
watcher skips intermediate versions but always gets the latest and the final one) and no
watcher can stall the pump or the others. Where the runner lives in another process the
pump also re-reads every `idle_s` seconds, once per game, not once per watcher.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from services.projections.viewstore import ViewRecord, ViewStore

QUEUE_SIZE = 8
IDLE_S = 0.5


@dataclass(eq=False)
class Watcher:
    """One subscriber: a seat key, the last version it was offered, a bounded queue."""

    seat: str
    after: int
    queue: asyncio.Queue[ViewRecord] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    dropped: int = 0

    def offer(self, rec: ViewRecord) -> None:
        """Queue a newer view, dropping the oldest queued one when full."""
        if rec.version <= self.after:
            return
        self.after = rec.version
        if self.queue.full():
            self.queue.get_nowait()
            self.dropped += 1
        self.queue.put_nowait(rec)


@dataclass(eq=False)
class _Game:
    """The watchers of one game and its pump task."""

    watchers: set[Watcher] = field(default_factory=set)
    task: asyncio.Task[None] | None = None


class WatchHub:
    """Fans view changes out to watchers; one pump task per watched game."""

    def __init__(self, views: ViewStore, idle_s: float = IDLE_S) -> None:
        self.views = views
        self.idle_s = idle_s
        self._games: dict[str, _Game] = {}

    def watcher_count(self) -> int:
        """Return how many watchers are subscribed."""
        return sum(len(g.watchers) for g in self._games.values())

    async def watch(self, game_id: str, seat: str, after: int) -> AsyncIterator[ViewRecord]:
        """Yield each view newer than after; end after the game's final view."""
        me = Watcher(seat, after)
        game = self._games.setdefault(game_id, _Game())
        game.watchers.add(me)
        if game.task is None or game.task.done() or game.task.cancelling():
            game.task = asyncio.create_task(self._pump(game_id, game))
        else:
            rec = await self.views.get_view(game_id, seat)
            if rec is not None:
                me.offer(rec)
        try:
            while True:
                rec = await me.queue.get()
                yield rec
                if rec.ended:
                    return
        finally:
            game.watchers.discard(me)
            if not game.watchers and game.task is not None:
                game.task.cancel()  # the last watcher left: stop the pump now

    async def _pump(self, game_id: str, game: _Game) -> None:
        """Read each watched seat's view after every change and offer it to its watchers."""
        try:
            while game.watchers:
                seats = {w.seat for w in game.watchers}
                for seat in seats:
                    rec = await self.views.get_view(game_id, seat)
                    if rec is None:
                        continue
                    for w in [w for w in game.watchers if w.seat == seat]:
                        w.offer(rec)
                await self.views.wait_change(game_id, self.idle_s)
        finally:
            if self._games.get(game_id) is game and not game.watchers:
                self._games.pop(game_id, None)

    async def close(self) -> None:
        """Cancel every pump."""
        for game in list(self._games.values()):
            if game.task is not None:
                game.task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await game.task
        self._games.clear()
