"""How a server runs projections: the read API plus, by default, a runner in the same process.

FALLEN_PROJECTIONS=embedded (default): SQLite store -> in-process runner; Redis store -> one
Redis consumer-group runner per shard. FALLEN_PROJECTIONS=external: only the read API; the
views come from runners elsewhere (faust workers, ``fallenctl projections run``).
FALLEN_VIEWS names the view store (default: a sibling SQLite file, or the store's Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from services.platform.grpcx.server import Mount
from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore
from services.platform.store.sqlite import SqliteEventStore
from services.projections.open_views import open_view_store
from services.projections.projector import Projector, extra_games_from_env
from services.projections.runners import InProcessRunner, RedisGroupRunner
from services.projections.service import mount
from services.projections.viewstore import ViewStore, views_url_for
from services.rules.engine.api import GameRules

EMBEDDED = "embedded"
EXTERNAL = "external"


def default_views(store: EventStore) -> ViewStore:
    """Return the view store that goes with an event store (FALLEN_VIEWS overrides)."""
    url = os.environ.get("FALLEN_VIEWS", "")
    if url:
        return open_view_store(url)
    if isinstance(store, SqliteEventStore):
        return open_view_store(views_url_for(f"sqlite:///{store.path}"))
    if isinstance(store, RedisEventStore):
        from services.projections.redis_views import RedisViewStore

        return RedisViewStore(store.url, prefix=store.prefix)
    raise ValueError(f"no default view store for {type(store).__name__}; set FALLEN_VIEWS")


def runners_for(
    store: EventStore, views: ViewStore, games: Mapping[str, GameRules]
) -> list[InProcessRunner | RedisGroupRunner]:
    """Return the runners that keep the views of store current (one projector each)."""
    if isinstance(store, RedisEventStore):
        return [
            RedisGroupRunner(Projector(store, views, games), store.url, store.prefix, shard)
            for shard in range(store.shards)
        ]
    on_mismatch = os.environ.get("FALLEN_ON_MISMATCH", "rebuild")
    return [InProcessRunner(Projector(store, views, games), on_mismatch=on_mismatch)]


def projections(
    store: EventStore, extra_games: Mapping[str, GameRules] | None = None
) -> tuple[Mount, Callable[[], Coroutine[Any, Any, None]]]:
    """Return the ProjectionService mount and the background job that runs the runners."""
    games = {**extra_games_from_env(), **(extra_games or {})}
    views = default_views(store)
    mode = os.environ.get("FALLEN_PROJECTIONS", EMBEDDED)

    async def job() -> None:
        runners = runners_for(store, views, games) if mode == EMBEDDED else []
        try:
            if runners:
                await asyncio.gather(*(r.run() for r in runners))
            else:
                await asyncio.Event().wait()
        finally:
            for r in runners:
                if isinstance(r, RedisGroupRunner):
                    with contextlib.suppress(Exception):
                        await r.close()
            await views.close()

    return mount(store, views, games), job
