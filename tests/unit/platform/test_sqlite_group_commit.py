"""Group commit on SQLite: a command's appends share one fsync, and nobody outside the
command reads them before it (services/platform/store/sqlite_sync.py)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from services.dice.engine import DiceEngine
from services.platform.envelope import Envelope, NewEvent
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import Command
from services.rules.runner import GameRunner
from tests.support.thread_hops import count_thread_hops
from tests.support.toy_game import RULES as TOY


def ev(n: int) -> list[NewEvent]:
    return [NewEvent("Noted", {"n": n})]


async def outside(ctx: contextvars.Context, call: Callable[[], Awaitable[Any]]) -> Any:
    """Run call in a context taken outside any scope (another task's view of the store)."""
    return await asyncio.create_task(call(), context=ctx)  # type: ignore[arg-type]


def reads(store: SqliteEventStore, stream: str) -> Callable[[], Awaitable[Any]]:
    async def read() -> Any:
        return (
            len(await store.read(stream)),
            await store.version(stream),
            len(await store.read_all(1)),
            await store.head_position(),
        )

    return read


async def test_given_appends_in_one_fsync_then_they_share_one_fsync_and_stay_unseen_till_then(
    tmp_path,
):
    # given a store with one durable event and a listener
    store = SqliteEventStore(tmp_path / "g.db")
    heard: list[list[Envelope]] = []
    store.add_listener(heard.append)
    await store.append("game-a", 0, ev(0))
    ctx = contextvars.copy_context()
    before = store.full_commits
    # when three appends are made in one block
    async with store.one_fsync():
        for n in (1, 2, 3):
            await store.append("game-a", n, ev(n))
        # then the block reads its own appends
        assert await reads(store, "game-a")() == (4, 4, 4, 4)
        # and a reader outside it sees none of them, and no listener heard of them
        assert await outside(ctx, reads(store, "game-a")) == (1, 1, 1, 1)
        assert len(heard) == 1
        assert store.full_commits == before  # no fsync yet
    # then leaving it made them durable with one fsync, and everyone sees them
    assert store.full_commits == before + 1
    assert await outside(ctx, reads(store, "game-a")) == (4, 4, 4, 4)
    assert [e[0].version for e in heard] == [1, 2, 3, 4]
    # and an append outside any block fsyncs on its own again
    await store.append("game-a", 4, ev(4))
    assert store.full_commits == before + 2
    await store.close()


async def test_given_two_blocks_ending_together_then_one_fsync_covers_both(tmp_path):
    # given two commands' blocks on one store, each having appended
    store = SqliteEventStore(tmp_path / "two.db")
    appended = [asyncio.Event(), asyncio.Event()]
    before = store.full_commits

    async def command(i: int) -> None:
        async with store.one_fsync():
            await store.append(f"game-{i}", 0, ev(i))
            appended[i].set()
            for other in appended:
                await other.wait()

    # when both leave their blocks
    await asyncio.gather(command(0), command(1))
    # then one fsync made both durable (the second found it done)
    assert store.full_commits == before + 1
    assert await store.head_position() == 2
    await store.close()


async def test_given_a_nested_block_or_an_error_then_the_outer_block_still_syncs_once(tmp_path):
    # given a block holding a nested block, failing after its appends
    store = SqliteEventStore(tmp_path / "n.db")
    heard: list[list[Envelope]] = []
    store.add_listener(heard.append)
    ctx = contextvars.copy_context()
    before = store.full_commits
    with pytest.raises(RuntimeError):
        async with store.one_fsync():
            async with store.one_fsync():
                await store.append("game-n", 0, ev(0))
            # when the inner block ends, then nothing is synced or announced yet
            assert store.full_commits == before and heard == []
            assert await outside(ctx, reads(store, "game-n")) == (0, 0, 0, 0)
            await store.append("game-n", 1, ev(1))
            raise RuntimeError("the command failed after appending")
    # then the appends made are synced once and announced all the same
    assert store.full_commits == before + 1
    assert await outside(ctx, reads(store, "game-n")) == (2, 2, 2, 2)
    assert len(heard) == 2
    await store.close()


async def test_given_a_served_command_with_chance_then_its_appends_share_one_fsync(tmp_path):
    # given a toy game on SQLite (its command asks chance for a roll: several appends)
    store = SqliteEventStore(tmp_path / "r.db")
    runner = GameRunner(store, DiceEngine(store), {"toy": TOY})
    loaded, _ = await runner.create("toy", "r1", {"a": "p", "b": "q"}, {})
    before_commits, before_head = store.full_commits, await store.head_position()
    # when seat a submits its command
    after, _ = await runner.submit("r1", Command("a", "ask_roll", {}), "c1", loaded.version)
    # then its events, the dice draw and chance's answer were appended (more than one
    # append) and made durable by one fsync, before the runner answered
    assert await store.head_position() - before_head >= 3
    assert after.version - loaded.version >= 2
    assert store.full_commits == before_commits + 1
    await store.close()


class Context:
    """The part of a grpc.aio.ServicerContext the rpc wrapper reads."""

    def __init__(self) -> None:
        from services.platform.auth import issue_token

        self.md = (("authorization", f"Bearer {issue_token('service:t', service=True)}"),)

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self.md

    async def abort(self, code: Any, reason: str) -> None:
        raise AssertionError(f"aborted: {code} {reason}")


async def test_given_a_servicer_with_an_event_store_then_each_call_is_one_group_commit(
    tmp_path, monkeypatch
):
    from services.platform.grpcx.rpc import rpc

    monkeypatch.setenv("FALLEN_DEV", "1")
    store = SqliteEventStore(tmp_path / "rpc.db")
    ctx = contextvars.copy_context()
    seen: list[Any] = []

    class Servicer:
        event_store = store

        @rpc
        async def Append(self, request: Any, context: Any, principal: Any) -> int:
            for n in range(3):
                await store.append("game-rpc", n, ev(n))
            # what another caller reads meanwhile (outside this call)
            seen.append(await outside(ctx, reads(store, "game-rpc")))
            return n

    before = store.full_commits
    # when a call appends three times
    await Servicer().Append(None, Context())
    # then nobody else read the appends before the call answered, and one fsync covered all
    assert seen == [(0, 0, 0, 0)]
    assert store.full_commits == before + 1
    assert await store.version("game-rpc") == 3
    await store.close()


async def test_given_a_free_writer_when_appending_in_one_fsync_then_no_worker_thread_is_used(
    tmp_path, monkeypatch: pytest.MonkeyPatch
):
    # given a store whose worker-thread hops are counted
    store = SqliteEventStore(tmp_path / "i.db")
    hops = count_thread_hops(monkeypatch)
    # when a command's appends are made in one block
    async with store.one_fsync():
        for n in range(3):
            await store.append("game-i", n, ev(n))
    # then they ran inline, and only the barrier (the fsync) went to a worker thread
    assert hops == ["_barrier"]
    assert await store.version("game-i") == 3
    await store.close()


async def test_given_a_busy_writer_when_appending_in_one_fsync_then_it_waits_on_a_thread(
    tmp_path,
):
    # given a store whose writer is held (another command's barrier fsyncing)
    store = SqliteEventStore(tmp_path / "b.db")
    store._lock.acquire()
    async with store.one_fsync():
        # when an append is made, then it waits off the event loop until the writer is free
        pending = asyncio.ensure_future(store.append("game-b", 0, ev(0)))
        await asyncio.sleep(0.05)
        assert not pending.done()
        store._lock.release()
        assert (await pending).version == 1
    await store.close()


async def test_given_many_commands_then_the_wal_is_checkpointed_off_the_event_loop(tmp_path):
    # given a store that checkpoints every 10 commits
    store = SqliteEventStore(tmp_path / "c.db")
    store.wal.every = 10
    # when 60 commands append inline, each with its barrier
    for n in range(60):
        async with store.one_fsync():
            await store.append("game-c", n, ev(n))
    # then the WAL was checkpointed about every 10 commits (append + barrier: 2 each)
    assert store.wal.done >= 10
    assert await store.version("game-c") == 60
    await store.close()
