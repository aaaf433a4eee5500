"""One contract for every projection runner: in-process, Redis consumer group, faust agent.

Every runner, fed the stored events (at least once), leaves views, audit records and
per-stream versions equal to a rebuild from scratch; redelivery applies nothing twice; a
new runner (cold cache) resumes from the persisted state; lag is reported. The faust agent
runs here without a broker (agent.test_context); tests/integration/test_projections_faust.py
runs it against a real broker, with a kill -9.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from services.platform.canonical import canonical_json
from services.platform.envelope import stream_game
from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore, feed_key
from services.platform.store.sqlite import SqliteEventStore
from services.projections.open_views import open_view_store
from services.projections.projector import Projector
from services.projections.redis_runner import RedisGroupRunner
from services.projections.runners import InProcessRunner
from services.projections.viewstore import ViewStore
from tests.support.projections_check import assert_equal_to_rebuild, drive, more
from tests.support.projections_play import engines, runner_for

TIMEOUT = 30.0


class Harness:
    """Drives one kind of runner the same way for every test."""

    kind = ""

    def __init__(self, store: EventStore, views: ViewStore) -> None:
        self.store = store
        self.views = views
        self.projector = self._new_projector()

    def _new_projector(self) -> Projector:
        return Projector(self.store, self.views, engines(), runner=self.kind)

    async def catch_up(self) -> None:
        """Apply everything stored so far."""
        raise NotImplementedError

    async def redeliver(self) -> None:
        """Deliver every stored event again (as at-least-once delivery may)."""
        raise NotImplementedError

    async def restart(self) -> None:
        """Replace the runner by a new one with a cold cache (a process restart)."""
        self.projector = self._new_projector()

    async def lag(self) -> int:
        """Return the runner's own lag figure."""
        raise NotImplementedError

    async def close(self) -> None:
        """Release what the harness opened."""


class InProcess(Harness):
    kind = "inprocess"

    def runner(self) -> InProcessRunner:
        return InProcessRunner(self.projector, name="contract")

    async def catch_up(self) -> None:
        await self.runner().catch_up()

    async def redeliver(self) -> None:
        await self.views.set_meta("checkpoint:contract", "0")
        await self.catch_up()

    async def lag(self) -> int:
        return await self.runner().lag()


class RedisGroup(Harness):
    kind = "redis"

    def __init__(self, store: EventStore, views: ViewStore) -> None:
        super().__init__(store, views)
        assert isinstance(store, RedisEventStore)
        self.group = RedisGroupRunner(self.projector, store.url, store.prefix, group="contract")

    async def catch_up(self) -> None:
        await self.group.catch_up()

    async def redeliver(self) -> None:
        assert isinstance(self.store, RedisEventStore)
        await self.group._redis.xgroup_setid(feed_key(self.store.prefix, 0), "contract", "0")
        await self.catch_up()

    async def restart(self) -> None:
        await self.group.close()
        await super().restart()
        assert isinstance(self.store, RedisEventStore)
        self.group = RedisGroupRunner(
            self.projector, self.store.url, self.store.prefix, group="contract"
        )

    async def lag(self) -> int:
        await self.group._ensure_group()
        return await self.group.lag()

    async def close(self) -> None:
        await self.group.close()


class FaustAgent(Harness):
    """The faust `project` agent fed through agent.test_context (no broker)."""

    kind = "faust"

    def __init__(self, store: EventStore, views: ViewStore) -> None:

        from services.projections.faust_app import FaustConfig, make_app

        assert isinstance(store, SqliteEventStore) and isinstance(views, ViewStoreWithUrl)
        from services.projections import faust_app

        # the toy game for this runner only: setting FALLEN_EXTRA_GAMES in os.environ would
        # leak into every process later tests start (where `tests` may not be importable)
        from tests.support.toy_game import RULES as TOY

        faust_app.extra_games_from_env = lambda var="": {"toy": TOY}  # type: ignore[assignment]
        self.app = make_app(FaustConfig("127.0.0.1:1", f"sqlite:///{store.path}", views.url))
        self.sent = 0
        super().__init__(store, views)

    async def _put(self, start: int) -> int:
        agent = self.app.agents["services.projections.faust_app.project"]
        envs = await self.store.read_all(start, 100_000)
        self.projector = self.app.fallen_projector()
        async with agent.test_context() as ctx:
            for env in envs:
                await ctx.put(
                    canonical_json(env.to_dict()).encode(), key=stream_game(env.stream).encode()
                )
            await asyncio.sleep(0.3)
        return envs[-1].position if envs else start - 1

    async def catch_up(self) -> None:
        self.sent = await self._put(self.sent + 1)
        await self._wait_applied()

    async def _wait_applied(self) -> None:
        """Wait until the game records count every stored event as applied."""
        head = await self.store.head_position()
        for _ in range(int(TIMEOUT / 0.05)):
            total = 0
            for gid in await self.views.games():
                total += int((await self.views.load_game(gid) or {}).get("events", 0))
            if total >= head:
                return
            await asyncio.sleep(0.05)
        raise AssertionError("the faust agent did not apply every event")

    async def redeliver(self) -> None:
        self.sent = 0
        await self.catch_up()

    async def restart(self) -> None:
        from services.projections.faust_app import FaustConfig, make_app

        assert isinstance(self.store, SqliteEventStore) and isinstance(self.views, ViewStoreWithUrl)
        self.app = make_app(
            FaustConfig("127.0.0.1:1", f"sqlite:///{self.store.path}", self.views.url)
        )

    async def lag(self) -> int:
        return await self.store.head_position() - self.sent


class ViewStoreWithUrl:
    """A view store opened from a URL that remembers the URL (the faust app opens its own)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.inner = open_view_store(url)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture(params=["inprocess", "redis", "faust"])
async def harness(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Harness]:
    """Yield a fresh store, view store and runner harness of each kind."""
    kind: str = request.param
    store: EventStore
    h: Harness
    if kind == "redis":
        url = request.getfixturevalue("redis_url")
        prefix = f"t{uuid.uuid4().hex[:10]}"
        store = RedisEventStore(url, prefix=prefix)
        views: Any = open_view_store(f"{url}?prefix={prefix}v")
        h = RedisGroup(store, views)
    elif kind == "faust":
        store = SqliteEventStore(tmp_path / "events.db")
        views = ViewStoreWithUrl(f"sqlite:///{tmp_path / 'views.db'}")
        h = FaustAgent(store, views)
    else:
        store = SqliteEventStore(tmp_path / "events.db")
        views = open_view_store(f"sqlite:///{tmp_path / 'views.db'}")
        h = InProcess(store, views)
    try:
        yield h
    finally:
        await h.close()
        await views.close()
        await store.close()


async def test_given_stored_games_when_the_runner_catches_up_then_views_equal_a_rebuild(harness):
    # given finished games, games in progress and (when available) a Fallen game
    ids = await drive(runner_for(harness.store), "c")
    # when the runner applies everything
    await asyncio.wait_for(harness.catch_up(), TIMEOUT)
    # then views, audit records and stream versions equal a rebuild from scratch
    await assert_equal_to_rebuild(harness.store, harness.views, ids)


async def test_given_every_event_delivered_again_then_nothing_is_applied_twice(harness):
    ids = await drive(runner_for(harness.store), "d")
    await asyncio.wait_for(harness.catch_up(), TIMEOUT)
    applied = harness.projector.applied
    # when every event arrives a second time
    await asyncio.wait_for(harness.redeliver(), TIMEOUT)
    # then none is applied again and the views are unchanged
    assert harness.projector.applied == applied
    await assert_equal_to_rebuild(harness.store, harness.views, ids)


async def test_given_a_restarted_runner_when_games_go_on_then_it_resumes_from_its_state(harness):
    game_runner = runner_for(harness.store)
    ids = await drive(game_runner, "r")
    await asyncio.wait_for(harness.catch_up(), TIMEOUT)
    # given a new runner with nothing in memory, and the games moving on
    await harness.restart()
    await more(game_runner, ids)
    # when it catches up (refolding the engine states it needs from the store)
    await asyncio.wait_for(harness.catch_up(), TIMEOUT)
    # then the views equal a rebuild
    await assert_equal_to_rebuild(harness.store, harness.views, ids)
    assert 0 < harness.projector.applied < await harness.store.head_position()


async def test_given_unapplied_events_then_the_runner_reports_its_lag(harness):
    await drive(runner_for(harness.store), "l")
    head = await harness.store.head_position()
    assert await harness.lag() == head
    await asyncio.wait_for(harness.catch_up(), TIMEOUT)
    assert await harness.lag() == 0
    status = await harness.projector.report(await harness.lag())
    stored = json.loads(await harness.views.get_meta(f"status:{harness.projector.runner}") or "{}")
    assert stored == status and stored["lag_events"] == 0 and stored["applied"] == head
