"""The Projector over a real SQLite view store: batches split anywhere, a restart between
them (cold cache, engine state not loaded) and redelivery still leave views equal to a rebuild.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.kernel.envelope import Envelope
from services.kernel.games import GAME_ENDED
from services.kernel.store.sqlite import SqliteEventStore
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
