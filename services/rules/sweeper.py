"""Answer chance a crash left pending: follow the store's feed and resume open games.

A rules process can die between appending a command and answering the chance it caused.
The sweeper follows every shard's global feed, keeps the set of open games (created, not
ended) with its feed positions in the store's meta (so a restarted process picks up where
the last left off), and a short while after a game's last event it answers the chance the
game waits for (keyed, so it is drawn once whoever answers) and reveals the seed of an
ended game whose reveal was lost.

It also ends abandoned games: an open game with no event for ``FALLEN_ABANDON_AFTER_S``
(default 7 days; 0 = never) ends by a GameEnded whose outcome ranks nobody
(``{"conclusion": "abandoned"}``) and whose data names the idle time. The quiet time counts
from the last event this process saw (a restart starts every open game's clock anew).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from dataclasses import dataclass, field

from services.dice.ledger import CLIENT_SEED_SET
from services.dice.seeds import now_utc, parse_iso
from services.platform.envelope import stream_game
from services.platform.errors import DomainError, VersionConflict
from services.platform.gamemetrics import GAMES_ENDED
from services.platform.games import ABANDONED_KEY, ABANDONED_OUTCOME, GAME_CREATED, GAME_ENDED
from services.platform.store.base import EventStore, NewEvent
from services.platform.store.feed import FeedHead, read_heads
from services.rules.engine.api import CHANCE
from services.rules.runner import GameRunner

log = logging.getLogger("fallen.rules.sweeper")

INTERVAL_S = 1.0
GRACE_S = 1.0
BATCH = 1000
# Feed positions alone are saved at most this often: the checkpoint is a durable write (an
# fsync on SQLite) and a restart that re-reads a few seconds of feed derives the same open
# games. A change of the open games themselves is saved at once.
CHECKPOINT_S = 10.0
DEFAULT_ABANDON_AFTER_S = 7 * 24 * 3600.0


def abandon_after_s() -> float:
    """Return FALLEN_ABANDON_AFTER_S (seconds; 0 = games are never abandoned)."""
    return float(os.environ.get("FALLEN_ABANDON_AFTER_S", DEFAULT_ABANDON_AFTER_S))


@dataclass
class Tracked:
    """What the sweeper knows: feed positions per shard, open games, games to look at."""

    positions: list[int]
    open: set[str] = field(default_factory=set)
    due: dict[str, float] = field(default_factory=dict)
    reveal: set[str] = field(default_factory=set)
    last: dict[str, float] = field(default_factory=dict)  # open game -> its last event seen

    def see(self, env: FeedHead, now: float) -> None:
        """Fold one feed event into what is tracked (a seat's client seed may open a game's
        seed gate: the game is looked at again)."""
        if env.stream.startswith("dice-") and env.type == CLIENT_SEED_SET:
            if (gid := stream_game(env.stream)) in self.open:
                self.due[gid] = now
            return
        if not env.stream.startswith("game-"):
            return
        gid = stream_game(env.stream)
        if env.type == GAME_CREATED:
            self.open.add(gid)
        if env.type == GAME_ENDED:
            self.open.discard(gid)
            self.due.pop(gid, None)
            self.last.pop(gid, None)
            self.reveal.add(gid)
        elif gid in self.open:
            self.due[gid] = now
            self.last[gid] = now

    def to_json(self) -> str:
        """Return the checkpoint kept in the store's meta."""
        return json.dumps({"positions": self.positions, "open": sorted(self.open)})


def shard_count(store: EventStore) -> int:
    """Return how many global feeds (shards) a store has."""
    return int(getattr(store, "shards", 1))


async def read_feed(store: EventStore, shard: int, position: int) -> list[FeedHead]:
    """Return the heads of one shard's feed events from position on (at most BATCH): the
    sweeper needs each event's stream and type, never its payload."""
    return await read_heads(store, position, BATCH, shard)


class ChanceSweeper:
    """Resumes games a crash left waiting for chance, and reveals seeds a crash withheld."""

    def __init__(
        self,
        runner: GameRunner,
        interval: float = INTERVAL_S,
        grace: float = GRACE_S,
        abandon_after: float | None = None,
    ) -> None:
        self.runner = runner
        self.abandon_after = abandon_after_s() if abandon_after is None else abandon_after
        self.store = runner.store
        self.interval = interval
        self.grace = grace
        pool = ",".join(runner.only) if runner.only else "all"
        self.meta_key = f"chance-sweeper:{pool}"
        self.tracked: Tracked | None = None
        self._saved_at = float("-inf")  # monotonic time of the last checkpoint written

    async def _start(self) -> Tracked:
        raw = await self.store.get_meta(self.meta_key)
        saved = json.loads(raw) if raw else {}
        positions = list(saved.get("positions", []))
        positions += [0] * (shard_count(self.store) - len(positions))
        tracked = Tracked(positions, set(saved.get("open", [])))
        tracked.due = dict.fromkeys(tracked.open, 0.0)  # look at every open game once
        tracked.last = dict.fromkeys(tracked.open, time.monotonic())
        return tracked

    async def sweep_once(self) -> int:
        """Follow the feeds, then resume every quiet open game; return how many it resumed."""
        if self.tracked is None:
            self.tracked = await self._start()
        t = self.tracked
        before, open_before = t.to_json(), set(t.open)
        now = time.monotonic()
        for shard in range(len(t.positions)):
            while batch := await read_feed(self.store, shard, t.positions[shard] + 1):
                for env in batch:
                    t.see(env, now)
                t.positions[shard] = batch[-1].position
        for gid in sorted(t.reveal):
            with contextlib.suppress(DomainError):
                await self.runner.dice.reveal(gid)
            t.reveal.discard(gid)
        resumed = 0
        for gid, seen in sorted(t.due.items()):
            if seen > now - self.grace:
                continue
            del t.due[gid]
            try:
                resumed += await self._resume(gid)
            except Exception:  # dice or store down: look again next sweep
                log.exception("resuming chance failed", extra={"game_id": gid})
                t.due[gid] = now
        if self.abandon_after > 0:
            for gid, last in sorted(t.last.items()):
                if gid in t.open and now - last >= self.abandon_after:
                    await self._abandon(gid)
        after = t.to_json()
        if after != before and (t.open != open_before or now - self._saved_at >= CHECKPOINT_S):
            await self.store.set_meta(self.meta_key, after)
            self._saved_at = now
        return resumed

    async def _resume(self, gid: str) -> int:
        """Answer a game's pending chance if it waits for it; return 1 if it did."""
        assert self.tracked is not None
        try:
            loaded = await self.runner.load(gid)
        except DomainError:  # a game kind another pool serves, or gone
            self.tracked.open.discard(gid)
            return 0
        if loaded.ended:
            self.tracked.open.discard(gid)
            return 0
        pending = loaded.rules.pending(loaded.state)
        if pending is not None and pending.seat != CHANCE:
            return 0
        if gate := await self.runner.seed_gate(gid):  # look again at the seed deadline
            wait = (parse_iso(gate.seed_deadline) - now_utc()).total_seconds()
            self.tracked.due[gid] = time.monotonic() + max(0.0, wait) - self.grace
            return 0
        log.info("resuming chance", extra={"game_id": gid, "version": loaded.version})
        await self.runner.run_chance(gid)
        return 1

    async def _abandon(self, gid: str) -> None:
        """End a game nobody played for abandon_after seconds (unless it moved meanwhile)."""
        assert self.tracked is not None
        self.tracked.last.pop(gid, None)
        try:
            loaded = await self.runner.load(gid)
        except DomainError:
            self.tracked.open.discard(gid)
            return
        if loaded.ended:
            return
        data = {
            "outcome": dict(ABANDONED_OUTCOME),
            "state_hash": loaded.rules.state_hash(loaded.state),
            ABANDONED_KEY: int(self.abandon_after),
        }
        try:
            await self.store.append(
                f"game-{gid}",
                loaded.version,
                [NewEvent(GAME_ENDED, data, causation_id="abandoned")],
            )
        except VersionConflict:  # a command came in: the game is not abandoned
            return
        log.info("game abandoned", extra={"game_id": gid, "idle_s": int(self.abandon_after)})
        GAMES_ENDED.labels(loaded.game, "abandoned").inc()
        with contextlib.suppress(DomainError):
            await self.runner.dice.reveal(gid)

    async def run_forever(self, stop: asyncio.Event | None = None) -> None:
        """Sweep every interval until stopped (errors are logged and retried)."""
        while stop is None or not stop.is_set():
            try:
                await self.sweep_once()
            except Exception:  # keep sweeping: a store hiccup must not end the sweeper
                log.exception("chance sweep failed; retrying")
            await asyncio.sleep(self.interval)
