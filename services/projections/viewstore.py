"""Where projections keep their output: views, game records, audit records, checkpoints."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol
from urllib.parse import urlsplit


@dataclass(frozen=True)
class ViewRecord:
    """One stored view: the game-stream version it reflects and the view as JSON."""

    game_id: str
    seat: str
    version: int
    view_json: str
    ended: bool


@dataclass
class Batch:
    """What one runner step writes: game records, views, audit records, a checkpoint.

    Stores write views and audit records before game records and game records before the
    checkpoint, so a crash part-way leaves a state from which re-applying is harmless.
    """

    games: dict[str, dict[str, Any]] = field(default_factory=dict)
    views: dict[str, dict[str, str]] = field(default_factory=dict)
    audit: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    checkpoint: tuple[str, str] | None = None
    drop: tuple[str, ...] = ()  # games whose stored rows go first (a game rebuilt whole)

    def empty(self) -> bool:
        """Return whether there is nothing to write."""
        return not (self.games or self.views or self.audit or self.checkpoint or self.drop)


def record_not_older(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> bool:
    """Return whether a game record may replace the stored one: no stream's head goes back.

    A runner that lost a game's partition (a faust rebalance while its views were deferred)
    may still write the record it held; the stores refuse it, as they refuse older views.
    The newer owner's events are re-applied from the event store if its record is refused.
    """
    if old is None:
        return True
    heads = new.get("heads") or {}
    for stream, head in (old.get("heads") or {}).items():
        mine = heads.get(stream)
        if mine is None or int(mine[0]) < int(head[0]):
            return False
    return True


class ViewStore(Protocol):
    """Persistent projection output shared by the runners and the read API."""

    async def load_game(self, game_id: str) -> dict[str, Any] | None:
        """Return a game's projection record, or None."""
        ...

    async def commit(self, batch: Batch) -> None:
        """Write a batch (see Batch for the order)."""
        ...

    async def get_view(self, game_id: str, seat: str) -> ViewRecord | None:
        """Return a seat's view ('' = spectator), or None."""
        ...

    async def read_audit(self, game_id: str) -> list[dict[str, Any]]:
        """Return a game's audit records in global order."""
        ...

    async def get_meta(self, key: str) -> str | None:
        """Return a checkpoint or status value, or None."""
        ...

    async def set_meta(self, key: str, value: str) -> None:
        """Set a checkpoint or status value."""
        ...

    async def meta_items(self, prefix: str) -> dict[str, str]:
        """Return every meta value whose key starts with prefix."""
        ...

    async def games(self) -> list[str]:
        """Return the ids of every game with a record."""
        ...

    async def clear(self) -> None:
        """Remove everything the runners wrote (before the views are built again)."""
        ...

    async def wait_change(self, game_id: str, timeout: float) -> None:
        """Return when this process commits a change to the game, or after timeout."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class ChangeHub:
    """Wakes waiters (any event loop) when a game's projection changes in this process."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]] = {}

    async def wait(self, game_id: str, timeout: float) -> None:
        """Return on the next notify(game_id) or after timeout seconds."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        self._waiters.setdefault(game_id, set()).add(waiter)
        try:
            await asyncio.wait_for(waiter[1].wait(), timeout)
        except TimeoutError:
            pass
        finally:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                waiters.discard(waiter)
                if not waiters:
                    self._waiters.pop(game_id, None)

    def notify(self, game_ids: Mapping[str, Any] | set[str]) -> None:
        """Wake every waiter of the given games."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for game_id in game_ids:
            for loop, event in list(self._waiters.get(game_id, ())):
                if loop is running:
                    event.set()
                elif not loop.is_closed():
                    loop.call_soon_threadsafe(event.set)


def views_url_for(store_url: str) -> str:
    """Return the default view store next to an event store (a sibling SQLite file, or Redis)."""
    parts = urlsplit(store_url)
    if parts.scheme == "sqlite":
        path = parts.path[1:]
        if path == ":memory:":
            return "sqlite:///:memory:"
        stem = path[: -len(".db")] if path.endswith(".db") else path
        return f"sqlite:///{stem}.views.db"
    return store_url
