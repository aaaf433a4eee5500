"""The rules runner keeps a bounded cache of folded games and refolds an evicted one."""

from __future__ import annotations

from services.dice.engine import DiceEngine
from services.kernel.store.sqlite import SqliteEventStore
from services.rules import runner as runner_mod
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
