"""Rebuilding the read side: one game online, everything from the command line, and the
Redis group runner finding that its store was emptied under it.

Real SQLite files and a real redis-server (the fixtures start it).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import uuid
from pathlib import Path

import redis.asyncio as aioredis
from typer.testing import CliRunner

from services.cli.main import app
from services.platform.store.redis import RedisEventStore
from services.platform.store.sqlite import SqliteEventStore
from services.projections.check import check
from services.projections.consistency import known_mismatch
from services.projections.open_views import open_view_store
from services.projections.projector import Projector
from services.projections.rebuild import rebuild_game
from services.projections.redis_runner import RedisGroupRunner
from services.projections.runners import InProcessRunner
from tests.support.projections_check import assert_equal_to_rebuild, drive
from tests.support.projections_play import engines, runner_for


async def test_given_a_tampered_game_when_it_is_rebuilt_online_then_it_equals_the_store(
    tmp_path: Path,
) -> None:
    # given caught-up views in which one game's spectator view and audit were damaged
    store = SqliteEventStore(tmp_path / "events.db")
    views = open_view_store(f"sqlite:///{tmp_path / 'events.views.db'}")
    ids = await drive(runner_for(store), "r")
    await InProcessRunner(Projector(store, views, engines())).catch_up()
    with sqlite3.connect(tmp_path / "events.views.db") as db:
        db.execute("UPDATE proj_views SET view='{}' WHERE game_id=?", (ids[0],))
        db.execute("DELETE FROM proj_audit WHERE game_id=? AND version > 3", (ids[0],))
    assert (await check(store, views, engines(), only=[ids[0]]))[1]
    # when that game alone is rebuilt while the view store stays open
    events = await rebuild_game(store, views, engines(), ids[0])
    # then it holds every event of the game again and the check finds nothing
    assert events == len(await views.read_audit(ids[0])) > 3
    assert (await check(store, views, engines()))[1] == []
    await views.close()
    await store.close()


async def _played_views_lost(tmp_path: Path) -> list[str]:
    store = SqliteEventStore(tmp_path / "events.db")
    ids = await drive(runner_for(store), "w")
    views = open_view_store(f"sqlite:///{tmp_path / 'events.views.db'}")
    await InProcessRunner(Projector(store, views, engines())).catch_up()
    await views.clear()
    await views.close()
    await store.close()
    return ids


async def _rebuilt_equal(tmp_path: Path, ids: list[str], summary: dict[str, int]) -> int:
    store = SqliteEventStore(tmp_path / "events.db")
    views = open_view_store(f"sqlite:///{tmp_path / 'events.views.db'}")
    try:
        assert summary["events"] == await store.head_position()
        assert summary["games"] >= len(ids)
        await assert_equal_to_rebuild(store, views, ids)
        return await InProcessRunner(Projector(store, views, engines())).catch_up()
    finally:
        await views.close()
        await store.close()


def test_fallenctl_projections_rebuild_switches_in_a_complete_view_file(tmp_path: Path) -> None:
    # given a store of played games and a view file that lost its views
    ids = asyncio.run(_played_views_lost(tmp_path))
    # when fallenctl rebuilds everything
    url = f"sqlite:///{tmp_path / 'events.db'}"
    toy = {"FALLEN_EXTRA_GAMES": "toy=tests.support.toy_game:RULES"}
    result = CliRunner().invoke(app, ["projections", "rebuild", "--store", url], env=toy)
    # then it reports the events it folded, the new file equals a fold of the store, and
    # the runner goes on from the rebuilt checkpoint without reading anything again
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    assert not (tmp_path / "events.views.db.rebuild").exists()
    assert asyncio.run(_rebuilt_equal(tmp_path, ids, summary)) == 0


async def test_given_a_redis_store_emptied_under_its_group_runner_then_the_shard_is_rebuilt(
    redis_url: str,
) -> None:
    # given a Redis event store, its views (another prefix) and a group runner caught up
    prefix = f"e{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    views = open_view_store(f"{redis_url}?prefix=v{prefix}")
    old = await drive(runner_for(store), "x")
    runner = RedisGroupRunner(Projector(store, views, engines()), redis_url, prefix)
    await runner.catch_up()
    assert set(old) <= set(await views.games())
    # when every key of the store is deleted (an emptied store) and new games are played
    client = aioredis.from_url(redis_url)
    async for key in client.scan_iter(match=f"{prefix}:*"):
        await client.unlink(key)
    await client.aclose()
    new = await drive(runner_for(store), "y", seed=4)
    found = await runner.verify()
    await runner.catch_up()
    # then the mismatch was found, the old games are gone, and the views equal the store
    assert found is not None and "another event store" in found.reason
    assert not set(old) & set(await views.games())
    await assert_equal_to_rebuild(store, views, new)
    assert await known_mismatch(views) is None
    await runner.close()
    await views.close()
    await store.close()


async def test_given_on_mismatch_stop_the_group_runner_applies_nothing(redis_url: str) -> None:
    # given a group runner told to stop, whose views came from another store
    prefix = f"s{uuid.uuid4().hex[:8]}"
    store = RedisEventStore(redis_url, prefix=prefix)
    views = open_view_store(f"{redis_url}?prefix=v{prefix}")
    runner = RedisGroupRunner(
        Projector(store, views, engines()), redis_url, prefix, on_mismatch="stop"
    )
    await views.set_meta(f"store:id:{runner.name}", "some-other-store")
    await drive(runner_for(store), "z")
    # when it catches up
    applied = await runner.catch_up()
    # then nothing was applied and the mismatch is recorded for the status
    assert applied == 0 and await views.games() == []
    assert await known_mismatch(views) is not None
    await runner.close()
    await views.close()
    await store.close()
