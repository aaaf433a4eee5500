"""Both view stores: a view is never rolled back by an older write."""

from __future__ import annotations

import uuid

import pytest

from services.projections.open_views import open_view_store
from services.projections.viewstore import Batch


def batch(version: int, text: str) -> Batch:
    game = {"heads": {"game-v1": [version, "h"]}, "ended": False}
    return Batch(games={"v1": game}, views={"v1": {"": text, "hero": text + "-h"}})


@pytest.fixture(params=["sqlite", "redis"])
def views_url(request, tmp_path, redis_url):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/views.db"
    return f"{redis_url}?prefix=vs{uuid.uuid4().hex[:8]}"


async def test_given_a_newer_view_when_an_older_batch_lands_then_the_newer_view_stays(views_url):
    store = open_view_store(views_url)
    try:
        # given views written at version 5
        await store.commit(batch(5, '{"v":5}'))
        # when a late runner writes version 3
        await store.commit(batch(3, '{"v":3}'))
        # then version 5 is still served, for every seat
        spectator = await store.get_view("v1", "")
        hero = await store.get_view("v1", "hero")
        assert spectator is not None and hero is not None
        assert (spectator.version, spectator.view_json) == (5, '{"v":5}')
        assert (hero.version, hero.view_json) == (5, '{"v":5}-h')
        # and a newer write still lands
        await store.commit(batch(7, '{"v":7}'))
        latest = await store.get_view("v1", "")
        assert latest is not None and latest.version == 7
    finally:
        await store.close()


def record_batch(heads: dict[str, int], viewed: int) -> Batch:
    game = {"heads": {s: [v, f"h{v}"] for s, v in heads.items()}, "ended": False, "viewed": viewed}
    return Batch(games={"r1": game})


async def test_given_a_newer_record_when_a_runner_that_lost_the_game_writes_then_it_stays(
    views_url,
):
    store = open_view_store(views_url)
    try:
        # given the new owner of a game wrote its record at game 9, deck 4
        await store.commit(record_batch({"game-r1": 9, "deck-r1": 4}, 9))
        # when the worker that lost the game writes the record it held (game 7, deck 4)
        await store.commit(record_batch({"game-r1": 7, "deck-r1": 4}, 7))
        # and one that never saw the deck stream
        await store.commit(record_batch({"game-r1": 12}, 12))
        # then the newer record stays
        kept = await store.load_game("r1")
        assert kept is not None and kept["heads"]["game-r1"][0] == 9 and kept["viewed"] == 9
        # and a record that moves every stream on (or keeps it) still lands
        await store.commit(record_batch({"game-r1": 10, "deck-r1": 4, "dice-r1": 1}, 10))
        moved = await store.load_game("r1")
        assert moved is not None and moved["heads"]["game-r1"][0] == 10
        assert moved["heads"]["dice-r1"][0] == 1
    finally:
        await store.close()
