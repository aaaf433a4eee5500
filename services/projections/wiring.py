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
from services.projections.consistency import known_mismatch
from services.projections.open_views import open_view_store
from services.projections.projector import Projector, extra_games_from_env
from services.projections.redis_runner import RedisGroupRunner
from services.projections.runners import InProcessRunner
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
    on_mismatch = os.environ.get("FALLEN_ON_MISMATCH", "rebuild")
    if isinstance(store, RedisEventStore):
        return [
            RedisGroupRunner(
                Projector(store, views, games),
                store.url,
                store.prefix,
                shard,
                shards=store.shards,
                on_mismatch=on_mismatch,
            )
            for shard in range(store.shards)
        ]
    return [InProcessRunner(Projector(store, views, games), on_mismatch=on_mismatch)]


HEALTH_EVERY_S = 2.0

Job = Callable[[], Coroutine[Any, Any, None]]


def health_job(views: ViewStore, health: Any, service_name: str) -> Job:
    """Return a job that keeps the ProjectionService's health NOT_SERVING while the views
    are known to disagree with the event store (a recorded mismatch), SERVING otherwise."""
    from grpc_health.v1 import health_pb2

    async def job() -> None:
        last = None
        while True:
            try:
                wrong = await known_mismatch(views) is not None
            except Exception:
                wrong = last is not None and last
            if wrong != last:
                state = health_pb2.HealthCheckResponse
                await health.set(service_name, state.NOT_SERVING if wrong else state.SERVING)
                last = wrong
            await asyncio.sleep(HEALTH_EVERY_S)

    return job


def projections(
    store: EventStore, extra_games: Mapping[str, GameRules] | None = None
) -> tuple[Mount, Job, Callable[[Any], Job]]:
    """Return the ProjectionService mount, the background job that runs the runners, and a
    factory of the job that reports mismatches in the health service."""
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

    served = mount(store, views, games)
    return served, job, lambda health: health_job(views, health, served.service_name)
