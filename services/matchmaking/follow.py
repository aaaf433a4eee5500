"""Consume GameEnded from the event store's global feed: rate the game once, close it."""

from __future__ import annotations

import logging
from typing import Any

from services.kernel.envelope import Envelope
from services.kernel.games import GAME_ENDED
from services.kernel.store.base import EventStore
from services.kernel.store.feed import FeedHead, envelope_at, read_heads
from services.matchmaking.ratings import default_row, placements, rate
from services.matchmaking.state import MatchState

log = logging.getLogger("fallen.matchmaking.ratings")
BATCH = 500


async def on_game_ended(state: MatchState, game_id: str, outcome: dict[str, Any]) -> bool:
    """Rate a finished matchmade game once (by game id); return whether ratings changed."""
    record = await state.game(game_id)
    if record is None:
        return False  # not a matchmade game: unrated
    await state.end_game(game_id)
    groups = placements(record.seats, outcome)
    key = f"{record.game}/{record.mode}"
    if groups is None:
        return await state.record_result(game_id, key, [])
    players = [record.seats[s] for g in groups for s in g]
    old = {p: await state.rating(key, p) or default_row(p) for p in players}
    return await state.record_result(game_id, key, rate(record.seats, groups, old))


async def handle(state: MatchState, env: Envelope) -> bool:
    """Handle one feed event; return whether it rated a game."""
    if env.type != GAME_ENDED or not env.stream.startswith("game-"):
        return False
    return await on_game_ended(state, env.stream.removeprefix("game-"), dict(env.data["outcome"]))


class FeedFollower:
    """Reads every shard's global feed from a position on, handing events to handle()."""

    def __init__(self, store: EventStore, state: MatchState) -> None:
        self.store = store
        self.state = state
        self.positions = {n: 1 for n in range(int(getattr(store, "shards", 1)))}

    async def _read(self, shard: int) -> list[FeedHead]:
        """Return the heads of the next feed events: only GameEnded's payload is needed."""
        return await read_heads(self.store, self.positions[shard], BATCH, shard)

    async def poll(self) -> int:
        """Handle every new event once; return how many games were rated."""
        rated = 0
        for shard in self.positions:
            while True:
                heads = await self._read(shard)
                for head in heads:
                    if head.type == GAME_ENDED and head.stream.startswith("game-"):
                        env = await envelope_at(self.store, head)
                        if env is not None:
                            rated += await handle(self.state, env)
                    self.positions[shard] = head.position + 1
                if len(heads) < BATCH:
                    break
        return rated
