"""The Projector over a real SQLite view store: batches split anywhere, a restart between
them (cold cache, engine state not loaded) and redelivery still leave views equal to a rebuild.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.platform.envelope import Envelope
from services.platform.games import GAME_ENDED
from services.platform.store.sqlite import SqliteEventStore
from services.projections import core
from services.projections.projector import Projector
from services.projections.records import audit_record
from services.projections.sqlite_views import SqliteViewStore
from services.projections.viewstore import Batch
from tests.support.projections_check import assert_equal_to_rebuild
from tests.support.projections_play import engines, finished_game

GAME = "g1"


@pytest.fixture
async def store() -> AsyncIterator[SqliteEventStore]:
    """Yield an event store holding one finished toy game."""
    store = SqliteEventStore(":memory:")
    await finished_game(store, "toy", GAME, seed=4)
    try:
        yield store
    finally:
        await store.close()


def projector(store: SqliteEventStore, views: SqliteViewStore) -> Projector:
    """Return a new projector (a cold cache, as after a process restart)."""
    return Projector(store, views, engines(), runner="test")


async def logged(store: SqliteEventStore) -> list[Envelope]:
    """Return every stored event in global order."""
    return await store.read_all(1, 10_000)


def ended_at(envs: list[Envelope]) -> int:
    """Return the index of the game's GameEnded event."""
    return next(i for i, e in enumerate(envs) if e.type == GAME_ENDED)


async def test_given_a_restart_before_game_ended_when_it_arrives_then_views_show_the_end(
    store: SqliteEventStore, tmp_path: Path
):
    envs = await logged(store)
    end = ended_at(envs)
    views = SqliteViewStore(tmp_path / "views.db")
    # given a worker committed the game up to the move that decided it, then died
    await projector(store, views).process(envs[:end])
    # when a restarted worker (no engine state in memory) applies the rest of the append
    await projector(store, views).process(envs[end:])
    # then the views reflect GameEnded (its version, ended) as a rebuild does
    await assert_equal_to_rebuild(store, views, [GAME])
    await views.close()


async def test_given_views_lagging_the_record_when_any_event_of_the_game_arrives_then_views_heal(
    store: SqliteEventStore, tmp_path: Path
):
    envs = await logged(store)
    end = ended_at(envs)
    views = SqliteViewStore(tmp_path / "views.db")
    await projector(store, views).process(envs[:end])
    # given GameEnded committed without views (its record and audit, as before this fix)
    ahead = core.fold_game(GAME, envs[: end + 1], engines().get).to_record()
    ahead.pop("viewed", None)
    await views.commit(Batch(games={GAME: ahead}, audit=[(GAME, audit_record(envs[end]))]))
    # when a restarted worker gets only events that change no game state (dice, duplicates)
    await projector(store, views).process([*envs[end + 1 :], envs[end]])
    # then the views are rewritten to the game's state
    await assert_equal_to_rebuild(store, views, [GAME])
    await views.close()


async def test_given_batches_split_anywhere_with_a_restart_then_views_equal_a_rebuild(
    store: SqliteEventStore, tmp_path: Path
):
    envs = await logged(store)
    for cut in range(1, len(envs)):
        views = SqliteViewStore(tmp_path / f"views-{cut}.db")
        # given one worker applied the events before the cut, then died
        await projector(store, views).process(envs[:cut])
        # when a restarted worker gets the rest, with the last batch redelivered first
        await projector(store, views).process([*envs[max(0, cut - 3) : cut], *envs[cut:]])
        # then the views, audit records and heads equal a rebuild
        await assert_equal_to_rebuild(store, views, [GAME])
        await views.close()


class Clock:
    """A monotonic clock the test moves by hand (no sleeping, no timing)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def on_a_hand_clock(
    store: SqliteEventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Clock, list[Envelope], list[int], SqliteViewStore]:
    """Return the projector's monotonic clock (moved by hand), a logged game's events, the
    indexes of its game-stream events and an empty view store."""
    from services.projections import projector as projector_mod

    clock = Clock()
    monkeypatch.setattr(projector_mod.time, "monotonic", clock)
    envs = await logged(store)
    games = [i for i, e in enumerate(envs) if e.stream.startswith("game-")]
    return clock, envs, games, SqliteViewStore(tmp_path / "views.db")


async def test_given_views_at_most_every_interval_then_busy_games_are_deferred_and_flushed(
    store: SqliteEventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    clock, envs, games, views = await on_a_hand_clock(store, tmp_path, monkeypatch)
    proj = Projector(store, views, engines(), runner="test", view_every_s=0.025)
    # given the game's first batch, viewed at once (no views were written before)
    first = games[len(games) // 3]
    await proj.process(envs[:first])
    written = await views.get_view(GAME, "")
    assert written is not None and not proj.deferred
    # when the next batch comes within the interval
    clock.now += 0.010
    second = games[2 * len(games) // 3]
    await proj.process(envs[first:second])
    # then its events are applied but the game's views wait (deferred), due in 15 ms
    assert proj.deferred == {GAME}
    assert (await views.get_view(GAME, "")).version == written.version  # type: ignore[union-attr]
    assert proj.next_flush_in() == pytest.approx(0.015)
    # and a flush before the interval has passed writes nothing
    clock.now += 0.005
    assert await proj.flush() == set() and proj.deferred == {GAME}
    # when the interval has passed, then a flush writes the views of the state applied
    clock.now += 0.011
    assert await proj.flush() == {GAME} and not proj.deferred
    assert proj.next_flush_in() is None
    # and after a quiet interval the rest is viewed at once; views equal a rebuild
    clock.now += 1.0
    await proj.process(envs[second:])
    assert not proj.deferred
    await assert_equal_to_rebuild(store, views, [GAME])
    # and every event's lag was measured once, when its views were written
    assert len(proj.lag_samples) == len(envs)
    await views.close()


class CountingReads(SqliteEventStore):
    """A real SQLite store that counts reads of a stream (the projector's refolds)."""

    reads = 0

    async def read(self, stream: str, from_version: int = 1) -> list[Envelope]:
        self.reads += 1
        return await super().read(stream, from_version)


async def test_given_a_game_ending_while_its_views_wait_then_the_flush_needs_no_refold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    from services.projections import projector as projector_mod

    clock = Clock()
    monkeypatch.setattr(projector_mod.time, "monotonic", clock)
    store = CountingReads(":memory:")
    await finished_game(store, "toy", GAME, seed=4)
    envs = await logged(store)
    end = ended_at(envs)
    views = SqliteViewStore(tmp_path / "views.db")
    proj = Projector(store, views, engines(), runner="test", view_every_s=0.025)
    # given the game viewed up to just before its end
    await proj.process(envs[:end])
    # when GameEnded (and the rest) arrive within the interval, so its views wait
    clock.now += 0.010
    await proj.process(envs[end:])
    assert proj.deferred == {GAME}
    # then the flush writes the final views from the state in memory: no refold
    clock.now += 0.020
    reads = store.reads
    assert await proj.flush() == {GAME}
    assert store.reads == reads
    await assert_equal_to_rebuild(store, views, [GAME])
    await views.close()
    await store.close()


async def test_given_a_starting_runner_when_warmed_then_every_engine_is_loaded_first(
    store: SqliteEventStore, tmp_path: Path
):
    views = SqliteViewStore(tmp_path / "views.db")
    proj = Projector(store, views, engines(), runner="test")
    # when warmed before any event
    loaded = proj.warm()
    # then the deployment's engines and the extra ones are loaded, and events apply as before
    assert {"fallen", "worlds", "land", "toy"} <= set(loaded)
    await proj.process(await logged(store))
    await assert_equal_to_rebuild(store, views, [GAME])
    await views.close()


async def test_given_a_busy_worker_then_views_wait_the_longer_busy_interval(
    store: SqliteEventStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    clock, envs, games, views = await on_a_hand_clock(store, tmp_path, monkeypatch)
    proj = Projector(
        store, views, engines(), runner="test", view_every_s=0.025, view_every_busy_s=0.05
    )
    first, second = games[len(games) // 3], games[2 * len(games) // 3]
    await proj.process(envs[:first])
    # given a worker that was busy for 0.6 of the last second
    proj.busy.add(clock.now - 0.6, clock.now)
    assert proj.interval(clock.now) == 0.05
    # when the game's next batch comes 30 ms later (past the idle interval)
    clock.now += 0.030
    await proj.process(envs[first:second])
    # then its views still wait, until 50 ms after the last ones
    assert proj.deferred == {GAME}
    assert proj.next_flush_in() == pytest.approx(0.020)
    clock.now += 0.021
    assert await proj.flush() == {GAME}
    # and once the worker has been idle for a second, the short interval is back
    clock.now += 1.0
    assert proj.interval(clock.now) == 0.025
    await proj.process(envs[second:])
    assert not proj.deferred
    await assert_equal_to_rebuild(store, views, [GAME])
    await views.close()
