"""The rules runner keeps a bounded cache of folded games and refolds an evicted one."""

from __future__ import annotations

import pytest

from services.dice.engine import DiceEngine
from services.platform.errors import VersionConflict
from services.platform.store.sqlite import SqliteEventStore
from services.rules import runner as runner_mod
from services.rules.engine.api import Command
from services.rules.runner import GameRunner
from tests.support.toy_game import RULES as TOY


async def test_given_more_games_than_the_cache_holds_then_old_ones_are_refolded(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(runner_mod, "MAX_CACHED_GAMES", 2)
    store = SqliteEventStore(tmp_path / "c.db")
    runner = GameRunner(store, DiceEngine(store), {"toy": TOY})
    # given three games created (each creation folds and caches its game)
    for gid in ("c1", "c2", "c3"):
        await runner.create("toy", gid, {"a": "p", "b": "q"}, {})
    # then only two stay cached, and the evicted first game still loads, folded afresh
    assert len(runner._cache) == 2 and "c1" not in runner._cache
    again = await runner.load("c1")
    assert again.version == await store.version("game-c1")
    assert len(again.state.dealt) == 2
    await store.close()


class CountingStore(SqliteEventStore):
    """The SQLite store, counting reads of game streams."""

    reads = 0

    async def read(self, stream: str, from_version: int = 1):  # type: ignore[no-untyped-def]
        if stream.startswith("game-"):
            CountingStore.reads += 1
        return await super().read(stream, from_version)


async def test_given_a_cached_game_when_a_command_is_submitted_then_the_stream_is_not_read(
    tmp_path,
):
    # given a toy game created (and so cached) by this runner
    store = CountingStore(tmp_path / "r.db")
    runner = GameRunner(store, DiceEngine(store), {"toy": TOY})
    loaded, _ = await runner.create("toy", "r1", {"a": "p", "b": "q"}, {})
    CountingStore.reads = 0
    # when seat a submits with the expected version (the chance roll it causes follows)
    after, dedup = await runner.submit("r1", Command("a", "ask_roll", {}), "c1", loaded.version)
    # then no game-stream read was needed, and the cached state equals a fold from disk
    assert CountingStore.reads == 0 and not dedup
    assert after.version == await store.version("game-r1")
    fresh = GameRunner(store, DiceEngine(store), {"toy": TOY})
    assert (await fresh.load("r1")).state == after.state
    await store.close()


async def test_given_two_runners_when_one_is_behind_then_its_commands_still_apply(tmp_path):
    # given two runners (two rules processes) on one store, both caching game r2
    store = SqliteEventStore(tmp_path / "two.db")
    one = GameRunner(store, DiceEngine(store), {"toy": TOY})
    two = GameRunner(store, DiceEngine(store), {"toy": TOY})
    created, _ = await one.create("toy", "r2", {"a": "p", "b": "q"}, {})
    await two.load("r2")
    # when runner one plays seat a (runner two's cache is now behind) ...
    moved, _ = await one.submit("r2", Command("a", "ask_roll", {}), "c1", created.version)
    # ... then runner two accepts seat b's command at the real version (no false conflict)
    after, dedup = await two.submit("r2", Command("b", "ask_roll", {}), "c2", moved.version)
    assert not dedup and after.version > moved.version
    assert after.version == await store.version("game-r2")
    # and runner one, now behind, refuses a stale expected version with the real one
    with pytest.raises(VersionConflict) as err:
        await one.submit("r2", Command("a", "ask_roll", {}), "c3", moved.version)
    assert err.value.actual == after.version
    # and a retry of c1 through runner two answers the first result, appending nothing
    again, dedup = await two.submit("r2", Command("a", "ask_roll", {}), "c1", created.version)
    assert dedup and again.version == moved.version
    assert await store.version("game-r2") == after.version
    await store.close()
