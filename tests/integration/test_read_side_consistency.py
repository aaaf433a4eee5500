"""The read side is checked against the event store it is built from, and rebuilt from it.

Real SQLite files for the store and the views (as `make run` keeps them), and a real
redis-server for the Redis view store's wipe.
"""

from __future__ import annotations

import shutil
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import pytest

from services.platform.errors import Unavailable
from services.platform.store.sqlite import SqliteEventStore
from services.projections.check import check
from services.projections.consistency import known_mismatch
from services.projections.open_views import open_view_store
from services.projections.projector import Projector
from services.projections.runners import InProcessRunner
from services.projections.service import ProjectionServicer
from tests.support.projections_check import assert_equal_to_rebuild, drive
from tests.support.projections_play import engines, runner_for


def _runner(store: SqliteEventStore, views: Any, on_mismatch: str = "rebuild") -> InProcessRunner:
    return InProcessRunner(Projector(store, views, engines()), on_mismatch=on_mismatch)


async def test_given_views_of_one_store_when_an_empty_store_replaces_it_then_they_are_rebuilt(
    tmp_path: Path,
) -> None:
    # given views built from a store with games
    views = open_view_store(f"sqlite:///{tmp_path / 'views.db'}")
    first = SqliteEventStore(tmp_path / "events.db")
    await drive(runner_for(first), "a")
    runner = _runner(first, views)
    assert await runner.verify() is None
    await runner.catch_up()
    await first.close()
    # when the store file is replaced by an empty one that then holds other games
    (tmp_path / "events.db").unlink()
    second = SqliteEventStore(tmp_path / "events.db")
    ids = await drive(runner_for(second), "b", seed=3)
    runner = _runner(second, views)
    found = await runner.verify()
    # then the mismatch names both positions, nothing of the old store survives, and the
    # views rebuilt from the new store equal a fold of it
    assert found is not None and "another event store" in found.reason
    assert found.checkpoint > 0
    assert not [g for g in await views.games() if g.startswith("a")]
    await runner.catch_up()
    await assert_equal_to_rebuild(second, views, ids)
    assert await known_mismatch(views) is None
    await views.close()
    await second.close()


async def test_given_an_older_backup_restored_then_views_ahead_of_it_are_rebuilt(
    tmp_path: Path,
) -> None:
    # given a backup of the store taken early, and views built after more games
    path = tmp_path / "events.db"
    store = SqliteEventStore(path)
    views = open_view_store(f"sqlite:///{tmp_path / 'views.db'}")
    ids = await drive(runner_for(store), "e")
    await _runner(store, views).verify()  # the store gets its identity before the backup
    await store.close()
    shutil.copy(path, tmp_path / "backup.db")
    store = SqliteEventStore(path)
    await drive(runner_for(store), "f", seed=5)
    await _runner(store, views).catch_up()
    await store.close()
    # when the backup is restored under those views
    shutil.copy(tmp_path / "backup.db", path)
    for leftover in (tmp_path / "events.db-wal", tmp_path / "events.db-shm"):
        leftover.unlink(missing_ok=True)
    store = SqliteEventStore(path)
    runner = _runner(store, views)
    found = await runner.verify()
    # then the runner sees views ahead of the head and rebuilds them to equal the store
    assert found is not None and found.checkpoint > found.head
    await runner.catch_up()
    await assert_equal_to_rebuild(store, views, ids)
    assert not [g for g in await views.games() if g.startswith("f")]
    await views.close()
    await store.close()


async def test_given_on_mismatch_stop_then_no_view_is_served_and_nothing_is_applied(
    tmp_path: Path,
) -> None:
    # given views of one store, then another store under them, and a runner told to stop
    views = open_view_store(f"sqlite:///{tmp_path / 'views.db'}")
    first = SqliteEventStore(tmp_path / "one.db")
    ids = await drive(runner_for(first), "s")
    await _runner(first, views).catch_up()
    await _runner(first, views).verify()
    second = SqliteEventStore(tmp_path / "two.db")
    await drive(runner_for(second), "t", seed=7)
    runner = _runner(second, views, on_mismatch="stop")
    # when it checks
    found = await runner.verify()
    # then it applies nothing, the status says why, and GetView refuses with UNAVAILABLE
    assert found is not None
    assert await runner.run_once() == 0
    assert (await known_mismatch(views)) == found
    servicer = ProjectionServicer(second, views, engines())
    with pytest.raises(Unavailable, match="disagrees with the event store"):
        await servicer._view(ids[0], None, 0, 1)
    await views.close()
    await first.close()
    await second.close()


async def test_projections_check_finds_no_difference_after_catch_up_and_one_after_tampering(
    tmp_path: Path,
) -> None:
    # given views caught up with a store of played games
    store = SqliteEventStore(tmp_path / "events.db")
    views = open_view_store(f"sqlite:///{tmp_path / 'views.db'}")
    ids = await drive(runner_for(store), "k")
    await _runner(store, views).catch_up()
    # when the check folds the store again
    compared, found = await check(store, views, engines())
    # then it compares every game and finds nothing
    assert compared == len(await views.games()) >= len(ids)
    assert found == []
    # and when a stored spectator view is changed behind the runners' back
    rec = await views.get_view(ids[0], "")
    assert rec is not None
    with sqlite3.connect(tmp_path / "views.db") as db:
        db.execute(
            "UPDATE proj_views SET view = ? WHERE game_id = ? AND seat = ''",
            ('{"tampered": true}', ids[0]),
        )
    compared, found = await check(store, views, engines(), only=[ids[0]])
    # then that one difference is named
    assert compared == 1 and len(found) == 1 and found[0].what == "view spectator"
    await views.close()
    await store.close()


async def test_the_redis_view_store_clears_only_its_own_keys(redis_url: str) -> None:
    # given two view stores on one Redis server, each holding a meta value
    mine = open_view_store(f"{redis_url}?prefix=c{uuid.uuid4().hex[:8]}")
    other = open_view_store(f"{redis_url}?prefix=o{uuid.uuid4().hex[:8]}")
    await mine.set_meta("checkpoint:x", "5")
    await other.set_meta("checkpoint:x", "7")
    # when one is cleared
    await mine.clear()
    # then its keys are gone and the other's remain
    assert await mine.get_meta("checkpoint:x") is None
    assert await other.get_meta("checkpoint:x") == "7"
    await mine.close()
    await other.close()


async def test_the_health_check_is_not_serving_while_a_mismatch_is_recorded(
    tmp_path: Path,
) -> None:
    # given a view store and the health job watching it
    import asyncio

    from grpc_health.v1 import health, health_pb2

    from services.projections.consistency import MISMATCH, Mismatch
    from services.projections.wiring import health_job

    views = open_view_store(f"sqlite:///{tmp_path / 'views.db'}")
    servicer = health.aio.HealthServicer()
    name = "fallen.projections.v1.ProjectionService"
    state = health_pb2.HealthCheckResponse

    async def status() -> int:
        request = health_pb2.HealthCheckRequest(service=name)
        return int((await servicer.Check(request, None)).status)

    task = asyncio.create_task(health_job(views, servicer, name)())
    await asyncio.sleep(0.1)
    assert await status() == state.SERVING
    # when a runner records a mismatch, then the service is not serving until it is cleared
    await views.set_meta(MISMATCH, Mismatch("test", 5, 2).to_json())
    await asyncio.sleep(2.3)
    assert await status() == state.NOT_SERVING
    await views.set_meta(MISMATCH, "")
    await asyncio.sleep(2.3)
    assert await status() == state.SERVING
    task.cancel()
    await views.close()
