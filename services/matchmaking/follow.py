"""Consume GameEnded from the event store's global feed: rate the game once, close it.

The follower keeps its feed positions in the event store's meta (`CHECKPOINT_KEY`), so a
restarted matchmaker reads on from where the last one stopped instead of the whole history.
Positions are saved at most every CHECKPOINT_S seconds (the write is durable: an fsync on
SQLite); a restart re-reads those seconds, which is harmless because a game is rated once
by its id. The checkpoint lives with the feed it counts, so a new, empty store starts
from its first event whatever matchmaking state is reused.
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from services.matchmaking.ratings import default_row, placements, rate
from services.matchmaking.state import MatchState
from services.platform.envelope import Envelope
from services.platform.games import GAME_ENDED
from services.platform.store.base import EventStore
from services.platform.store.feed import FeedHead, envelope_at, read_heads

log = logging.getLogger("fallen.matchmaking.ratings")
BATCH = 500
CHECKPOINT_KEY = "matchmaking-ratings:feed"
CHECKPOINT_S = 5.0


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
        self.positions: dict[int, int] = {}  # shard -> next position; loaded on first poll
        self._saved: dict[int, int] = {}
        self._saved_at = float("-inf")  # monotonic time of the last checkpoint written

    async def _start(self) -> None:
        """Load the saved positions (1 for a shard never read)."""
        raw = await self.store.get_meta(CHECKPOINT_KEY)
        saved = saved_positions(raw)
        shards = int(getattr(self.store, "shards", 1))
        self.positions = {n: max(1, saved.get(n, 1)) for n in range(shards)}
        self._saved = dict(self.positions)

    async def _read(self, shard: int) -> list[FeedHead]:
        """Return the heads of the next feed events: only GameEnded's payload is needed."""
        return await read_heads(self.store, self.positions[shard], BATCH, shard)

    async def poll(self) -> int:
        """Handle every new event once; return how many games were rated."""
        if not self.positions:
            await self._start()
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
        await self.checkpoint()
        return rated

    async def checkpoint(self, force: bool = False) -> None:
        """Save the positions if they moved and the last save is CHECKPOINT_S old (or force)."""
        now = time.monotonic()
        if self.positions == self._saved or not (force or now - self._saved_at >= CHECKPOINT_S):
            return
        await self.store.set_meta(CHECKPOINT_KEY, json.dumps(self.positions, sort_keys=True))
        self._saved, self._saved_at = dict(self.positions), now


def saved_positions(raw: str | None) -> dict[int, int]:
    """Return the positions a checkpoint holds (shard -> next position); {} for none or junk."""
    try:
        loaded = json.loads(raw) if raw else {}
        return {int(k): int(v) for k, v in loaded.items()} if isinstance(loaded, dict) else {}
    except (ValueError, TypeError):
        log.warning("ignoring an unreadable ratings feed checkpoint")
        return {}
