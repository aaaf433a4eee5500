"""The watch hub over a real SQLite view store: bounded queues, clean ends, re-subscribing."""

from __future__ import annotations

import asyncio
from pathlib import Path

from services.projections.open_views import open_view_store
from services.projections.viewstore import Batch
from services.projections.watch import QUEUE_SIZE, WatchHub


def batch(version: int, ended: bool = False) -> Batch:
    game = {"heads": {"game-w1": [version, "h"]}, "ended": ended}
    return Batch(games={"w1": game}, views={"w1": {"": f'{{"v":{version}}}'}})


async def test_a_reader_that_lags_gets_the_newest_and_final_views_without_holding_others(
    tmp_path: Path,
):
    views = open_view_store(f"sqlite:///{tmp_path}/views.db")
    hub = WatchHub(views, idle_s=5)
    await views.commit(batch(1))
    fast_seen: list[int] = []
    # given a fast watcher and a slow one that does not read while the game moves
    slow = hub.watch("w1", "", 0)
    assert (await anext(slow)).version == 1

    async def fast() -> None:
        async for rec in hub.watch("w1", "", 0):
            fast_seen.append(rec.version)

    task = asyncio.create_task(fast())
    await asyncio.sleep(0.05)
    # when many views are committed, each waking the hub
    last = 3 * QUEUE_SIZE
    for v in range(2, last + 1):
        await views.commit(batch(v, ended=v == last))
        await asyncio.sleep(0.01)
    await asyncio.wait_for(task, 5)
    # then the fast watcher saw every version to the end, and its stream ended
    assert fast_seen == list(range(1, last + 1))
    # and the slow one holds at most QUEUE_SIZE views, ending with the final one
    rest = [rec.version async for rec in slow]
    assert len(rest) <= QUEUE_SIZE and rest[-1] == last and rest == sorted(rest)
    assert hub.watcher_count() == 0
    await hub.close()
    await views.close()


async def test_a_watcher_arriving_right_after_the_last_one_left_still_gets_views(tmp_path: Path):
    views = open_view_store(f"sqlite:///{tmp_path}/views.db")
    hub = WatchHub(views, idle_s=5)
    await views.commit(batch(1))
    first = hub.watch("w1", "", 0)
    assert (await anext(first)).version == 1
    await first.aclose()  # the last watcher leaves: its pump is cancelled
    # when a new watcher subscribes at once and the game moves on
    second = hub.watch("w1", "", 1)
    pending = asyncio.create_task(anext(second))
    await asyncio.sleep(0.05)
    await views.commit(batch(2, ended=True))
    # then it is pushed the new view (a fresh pump serves it)
    assert (await asyncio.wait_for(pending, 5)).version == 2
    await second.aclose()
    await hub.close()
    await views.close()
