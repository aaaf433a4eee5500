"""Both view stores: a view is never rolled back by an older write."""

from __future__ import annotations

import uuid

import pytest

from services.projections.viewstore import Batch, open_view_store


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
