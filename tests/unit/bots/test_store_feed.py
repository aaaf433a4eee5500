"""The embedded server's bot feed: the store's global feed from a checkpoint in the store."""

from __future__ import annotations

import asyncio
from pathlib import Path

from services.bots.feeds import StoreFeed
from services.platform.envelope import NewEvent
from services.platform.store.sqlite import SqliteEventStore


async def _append(store: SqliteEventStore, stream: str, version: int) -> None:
    await store.append(stream, version, [NewEvent("Moved", {"n": version + 1})])


def test_a_first_start_reads_only_what_is_appended_after_it(tmp_path: Path) -> None:
    async def run() -> list[int]:
        store = SqliteEventStore(tmp_path / "e.db")
        await _append(store, "game-a", 0)  # before the feed starts
        feed = StoreFeed(store)
        await feed.start()
        await _append(store, "game-a", 1)
        got = await feed.read()
        await store.close()
        return [env.version for _, _, env in got]

    # given an event before the feed's first start and one after, then it reads the second
    assert asyncio.run(run()) == [2]


def test_a_restart_resumes_at_the_first_entry_not_handled(tmp_path: Path) -> None:
    async def run() -> tuple[list[str], list[str]]:
        store = SqliteEventStore(tmp_path / "e.db")
        feed = StoreFeed(store)
        await feed.start()
        await _append(store, "game-a", 0)
        await _append(store, "game-b", 0)
        entries = await feed.read()
        # when only game-a's entry was handled before the server stopped
        await feed.ack([e for e in entries if e[2].stream == "game-a"])
        await feed.close()
        again = StoreFeed(store)
        await again.start()
        resumed = await again.read()
        await store.close()
        return [e[2].stream for e in entries], [e[2].stream for e in resumed]

    # then the restarted feed reads game-b's entry again, and not game-a's
    first, resumed = asyncio.run(run())
    assert first == ["game-a", "game-b"] and resumed == ["game-b"]


def test_an_entry_given_back_is_retried_later(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("services.bots.feeds.RETRY_AFTER_S", 0.0)

    async def run() -> tuple[int, list[str]]:
        store = SqliteEventStore(tmp_path / "e.db")
        feed = StoreFeed(store)
        await feed.start()
        await _append(store, "game-a", 0)
        entries = await feed.read()
        await feed.nack(entries)  # its move failed
        lag = await feed.lag()
        retried = await feed.claim()
        await store.close()
        return lag, [e[2].stream for e in retried]

    # then it counts as not handled, and the next claim hands it out again
    assert asyncio.run(run()) == (1, ["game-a"])
