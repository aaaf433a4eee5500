"""The ratings follower reads the feed on from its checkpoint (services/matchmaking/follow.py).

A restarted matchmaker must not read every game ever played again: its feed positions are
kept in the event store's meta, on SQLite and on a real redis-server.
"""

from __future__ import annotations

from services.matchmaking.follow import CHECKPOINT_KEY, FeedFollower, saved_positions
from services.matchmaking.model import GameRecord, SeatMatch, Ticket
from services.matchmaking.state import MemoryState
from services.platform.envelope import NewEvent
from services.platform.games import GAME_ENDED
from services.platform.store.base import EventStore

KEY = "fallen/ranked"
SEATS = {"hero": "ann", "dungeon_lord": "bob"}


async def matched(state: MemoryState, game_id: str) -> None:
    """Record game_id as a ranked game ann and bob were matched into."""
    tickets = [
        Ticket(f"{game_id}-{p}", "fallen", "ranked", (p,), 1.0, 900.0) for p in SEATS.values()
    ]
    for t in tickets:
        await state.enqueue(t)
    assert await state.claim([t.ticket_id for t in tickets], f"c-{game_id}", 1.0)
    seat_of = {p: s for s, p in SEATS.items()}
    matches = {
        t.ticket_id: {p: SeatMatch(game_id, seat_of[p], "x:1", "c0", "rules") for p in t.players}
        for t in tickets
    }
    await state.complete(
        f"c-{game_id}", matches, GameRecord(game_id, "fallen", "ranked", SEATS, "x:1")
    )


async def ended(store: EventStore, game_id: str, winner: str) -> None:
    """Append a game stream that ends with winner winning."""
    await store.append(
        f"game-{game_id}", 0, [NewEvent(GAME_ENDED, {"outcome": {"winner": winner}})]
    )


async def test_a_restarted_follower_reads_on_from_its_checkpoint(event_store: EventStore) -> None:
    # given game g1 ended and a follower that rated it and stopped (its checkpoint forced)
    first = MemoryState()
    await matched(first, "g1")
    await ended(event_store, "g1", "hero")
    follower = FeedFollower(event_store, first)
    assert await follower.poll() == 1
    await follower.checkpoint(force=True)
    assert saved_positions(await event_store.get_meta(CHECKPOINT_KEY)) == {0: 2}
    # when a new follower starts with matchmaking state that knows g1 and g2, and g2 ends
    second = MemoryState()
    await matched(second, "g1")
    await matched(second, "g2")
    await ended(event_store, "g2", "dungeon_lord")
    assert await FeedFollower(event_store, second).poll() == 1
    # then it rated g2 only: g1's GameEnded lies before the checkpoint
    bob = await second.rating(KEY, "bob")
    assert bob is not None and bob.games == 1
    assert len(await second.leaderboard(KEY, 10)) == 2
    assert await second.live_games() == ["g1"]


async def test_an_unreadable_checkpoint_means_reading_from_the_start(
    event_store: EventStore,
) -> None:
    # given a damaged checkpoint and one ended matchmade game
    await event_store.set_meta(CHECKPOINT_KEY, '["not", "positions"]')
    state = MemoryState()
    await matched(state, "g1")
    await ended(event_store, "g1", "hero")
    # when a follower polls, then it reads the feed from its first event and rates g1
    assert await FeedFollower(event_store, state).poll() == 1
    assert saved_positions("{broken") == {}


async def test_positions_are_saved_at_most_every_few_seconds(event_store: EventStore) -> None:
    # given a follower that just saved its checkpoint
    state = MemoryState()
    follower = FeedFollower(event_store, state)
    await ended(event_store, "g1", "hero")
    await follower.poll()
    assert saved_positions(await event_store.get_meta(CHECKPOINT_KEY)) == {0: 2}
    # when more of the feed is read within CHECKPOINT_S, then the saved positions wait
    await ended(event_store, "g2", "hero")
    await follower.poll()
    assert follower.positions == {0: 3}
    assert saved_positions(await event_store.get_meta(CHECKPOINT_KEY)) == {0: 2}
    # and a forced checkpoint (the matchmaker stopping) saves them
    await follower.checkpoint(force=True)
    assert saved_positions(await event_store.get_meta(CHECKPOINT_KEY)) == {0: 3}
