"""The SQLite view store commits on the event loop and checkpoints its WAL on worker threads
(services/platform/store/sqlite_wal.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from services.projections.sqlite_views import SqliteViewStore
from services.projections.viewstore import Batch
from tests.support.thread_hops import count_thread_hops


def checkpoint(n: int) -> Batch:
    return Batch(checkpoint=("checkpoint:test", str(n)))


async def test_given_commits_then_they_run_inline_and_checkpoints_go_to_a_worker_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # given a view store that checkpoints every 5 commits, its thread hops counted
    views = SqliteViewStore(tmp_path / "v.db")
    views.wal.every = 5
    hops = count_thread_hops(monkeypatch)
    # when 20 batches are committed
    for n in range(1, 21):
        await views.commit(checkpoint(n))
    # then every 6th commit (the first past 5 unchecked ones) went to a worker thread and
    # checkpointed there; the others ran inline
    assert hops == ["_commit_sync"] * 3
    assert views.wal.done == 3 and views.wal.unchecked == 2
    assert await views.get_meta("checkpoint:test") == "20"
    await views.close()


async def test_given_a_busy_writer_when_committing_then_it_waits_off_the_event_loop(
    tmp_path: Path,
) -> None:
    views = SqliteViewStore(tmp_path / "b.db")
    views._lock.acquire()
    pending = asyncio.ensure_future(views.commit(checkpoint(1)))
    await asyncio.sleep(0.05)
    assert not pending.done()  # the loop ran on while the commit waited on a thread
    views._lock.release()
    await pending
    assert await views.get_meta("checkpoint:test") == "1"
    await views.close()
