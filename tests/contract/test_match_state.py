"""One contract for matchmaking state, in memory and on a real redis-server."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from services.matchmaking.model import (
    CANCELLED,
    CLAIMED,
    EXPIRED,
    MATCHED,
    QUEUED,
    GameRecord,
    RatingRow,
    SeatMatch,
    Ticket,
)
from services.matchmaking.redis_state import RedisState
from services.matchmaking.state import LiveTicket, MatchState, MemoryState
from services.platform.errors import NotFound, RuleViolation

KEY = "fallen/ranked"


@pytest.fixture(params=["memory", "redis"])
async def state(request: pytest.FixtureRequest) -> AsyncIterator[MatchState]:
    if request.param == "memory":
        s: MatchState = MemoryState()
    else:
        url = request.getfixturevalue("redis_url")
        s = RedisState(url, prefix=f"mm-{uuid.uuid4().hex[:8]}")
    yield s
    await s.close()


def ticket(n: int, *players: str, at: float = 100.0, ttl: float = 600.0) -> Ticket:
    return Ticket(f"t{n}", "fallen", "ranked", players or (f"u{n}",), at, at + ttl)


def match(game_id: str, seat: str) -> SeatMatch:
    return SeatMatch(game_id, seat, "127.0.0.1:1", "c0ffee", "rules-fallen")


async def test_a_player_has_one_live_ticket_per_queue(state: MatchState) -> None:
    # given alice queued
    await state.enqueue(ticket(1, "alice"))
    # when she (alone or in a party) queues again, the live ticket id comes back
    for again in (ticket(2, "alice"), ticket(3, "bob", "alice")):
        with pytest.raises(LiveTicket) as err:
            await state.enqueue(again)
        assert err.value.ticket_id == "t1"
    # then nothing of the refused tickets was stored
    assert [t.ticket_id for t in await state.queued(KEY)] == ["t1"]
    with pytest.raises(NotFound):
        await state.ticket("t3")
    # and another queue of the same game is free
    await state.enqueue(Ticket("t4", "fallen", "vs_bot", ("alice",), 100.0, 700.0))


async def test_queued_tickets_come_oldest_first(state: MatchState) -> None:
    await state.enqueue(ticket(1, at=300))
    await state.enqueue(ticket(2, at=100))
    await state.enqueue(ticket(3, "x", "y", at=200))
    assert [t.ticket_id for t in await state.queued(KEY)] == ["t2", "t3", "t1"]
    assert (await state.ticket("t3")).players == ("x", "y")


async def test_a_claim_takes_all_tickets_or_none(state: MatchState) -> None:
    for n in (1, 2, 3):
        await state.enqueue(ticket(n))
    # given t1 and t2 claimed
    assert await state.claim(["t1", "t2"], "c1", 100.0)
    # when another claim wants t2 and t3, it gets nothing, and t3 stays queued
    assert not await state.claim(["t3", "t2"], "c2", 100.0)
    assert (await state.ticket("t3")).state == QUEUED
    assert (await state.ticket("t2")).state == CLAIMED
    assert [t.ticket_id for t in await state.queued(KEY)] == ["t3"]


async def test_completing_a_claim_matches_and_frees_the_players(state: MatchState) -> None:
    await state.enqueue(ticket(1, "alice"))
    await state.enqueue(ticket(2, "bob"))
    assert await state.claim(["t1", "t2"], "c1", 100.0)
    record = GameRecord("g1", "fallen", "ranked", {"hero": "alice", "dungeon_lord": "bob"}, "e")
    await state.complete(
        "c1", {"t1": {"alice": match("g1", "hero")}, "t2": {"bob": match("g1", "dungeon_lord")}},
        record,
    )  # fmt: skip
    t1 = await state.ticket("t1")
    assert t1.state == MATCHED and t1.matches["alice"].seat == "hero"
    assert await state.game("g1") == record
    assert await state.live_games() == ["g1"]
    assert await state.stale_claims(1e12) == []
    # alice may queue again
    await state.enqueue(ticket(5, "alice"))
    await state.end_game("g1")
    assert await state.live_games() == []


async def test_a_released_or_stale_claim_goes_back_to_the_queue(state: MatchState) -> None:
    await state.enqueue(ticket(1, at=50))
    assert await state.claim(["t1"], "c1", 100.0)
    assert await state.stale_claims(99.0) == []
    assert await state.stale_claims(101.0) == ["c1"]
    await state.release("c1")
    assert (await state.ticket("t1")).state == QUEUED
    assert [t.queued_at for t in await state.queued(KEY)] == [50]
    # a release of a claim already gone changes nothing
    await state.release("c1")
    assert [t.ticket_id for t in await state.queued(KEY)] == ["t1"]


async def test_cancel_and_expire_only_queued_tickets(state: MatchState) -> None:
    await state.enqueue(ticket(1, "alice", at=0, ttl=10))
    await state.enqueue(ticket(2, "bob", at=0, ttl=1000))
    await state.enqueue(ticket(3, "carol", at=0, ttl=1000))
    assert (await state.cancel("t2")).state == CANCELLED
    with pytest.raises(RuleViolation):
        await state.cancel("t2")
    with pytest.raises(NotFound):
        await state.cancel("nope")
    assert await state.expire(KEY, 20.0) == ["t1"]
    assert (await state.ticket("t1")).state == EXPIRED
    assert [t.ticket_id for t in await state.queued(KEY)] == ["t3"]
    # alice and bob are free to queue again
    await state.enqueue(ticket(4, "alice"))
    await state.enqueue(ticket(5, "bob"))


async def test_ratings_are_recorded_once_per_game(state: MatchState) -> None:
    rows = [RatingRow("alice", 28.0, 7.0, 1), RatingRow("bob", 22.0, 7.0, 1)]
    assert await state.record_result("g1", KEY, rows)
    # a replayed GameEnded for the same game changes nothing
    assert not await state.record_result("g1", KEY, [RatingRow("alice", 1.0, 1.0, 9)])
    assert await state.rating(KEY, "alice") == rows[0]
    assert await state.rating(KEY, "carol") is None
    assert await state.rating("fallen/vs_bot", "alice") is None
    await state.record_result("g2", KEY, [RatingRow("carol", 40.0, 1.0, 1)])
    assert [r.player for r in await state.leaderboard(KEY, 10)] == ["carol", "alice", "bob"]
    assert [r.player for r in await state.leaderboard(KEY, 1)] == ["carol"]


async def test_claiming_many_groups_at_once_skips_only_the_taken_ones(state: MatchState) -> None:
    for n in (1, 2, 3, 4, 5):
        await state.enqueue(ticket(n))
    # given t3 already claimed by another replica
    assert await state.claim(["t3"], "c0", 100.0)
    # when three groups are claimed at once, the one holding t3 is refused, the others won
    won = await state.claim_many(
        [("c1", ["t1", "t2"]), ("c2", ["t3", "t4"]), ("c3", ["t5"])], 100.0
    )
    assert won == [True, False, True]
    assert (await state.ticket("t4")).state == QUEUED
    assert sorted(await state.stale_claims(1e12)) == ["c0", "c1", "c3"]
    assert await state.claim_many([], 100.0) == []


async def test_a_late_completion_of_a_released_claim_changes_nothing(state: MatchState) -> None:
    # given a claim that went stale and was released (its creator was too slow)
    await state.enqueue(ticket(1, "alice"))
    assert await state.claim(["t1"], "c1", 100.0)
    await state.release("c1")
    # when the slow creator completes it after all
    record = GameRecord("g9", "fallen", "ranked", {"hero": "alice"}, "e")
    await state.complete_many([("c1", {"t1": {"alice": match("g9", "hero")}}, record)])
    # then the ticket is still queued for a new game and no game was recorded
    assert (await state.ticket("t1")).state == QUEUED
    assert await state.game("g9") is None
