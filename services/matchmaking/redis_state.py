"""MatchState in Redis: sorted-set queues, and one Lua script for every atomic transition.

Every key carries the hash tag of the prefix ({mm} by default), so each script touches one
cluster slot. Queues are sorted sets scored by queue time; tickets are hashes.
"""

from __future__ import annotations

import importlib.resources
import json
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as aioredis

from services.matchmaking.model import (
    CANCELLED,
    EXPIRED,
    GameRecord,
    RatingRow,
    SeatMatch,
    Ticket,
    matches_json,
    ticket_fields,
    ticket_from,
)
from services.matchmaking.state import Completion, LiveTicket
from services.platform.errors import NotFound, RuleViolation

SCRIPT = (importlib.resources.files("services.matchmaking") / "redis_state.lua").read_text()


class RedisState:
    """MatchState on a Redis server (several matchmaker replicas may share it)."""

    def __init__(self, url: str, prefix: str = "mm") -> None:
        self.redis: Any = aioredis.from_url(url, decode_responses=True)  # str replies
        self.p = "{" + prefix + "}"
        self._script = self.redis.register_script(SCRIPT)

    async def _run(self, *args: Any) -> Any:
        return await self._script(keys=[self.p], args=list(args))

    async def enqueue(self, t: Ticket) -> None:
        """Store a queued ticket; raise LiveTicket when a player already has one."""
        players = json.dumps(list(t.players))
        res = await self._run("enqueue", t.ticket_id, t.key, t.queued_at, ticket_fields(t), players)
        if res[0] == "live":
            raise LiveTicket(res[1], res[2])

    async def ticket(self, ticket_id: str) -> Ticket:
        """Return a ticket; raise NotFound when unknown."""
        h = await self.redis.hgetall(f"{self.p}:tk:{ticket_id}")
        if not h:
            raise NotFound(f"ticket {ticket_id[:40]!r} does not exist")
        return ticket_from(h["fields"], h["state"], h.get("matches"))

    async def queued(self, key: str) -> list[Ticket]:
        """Return the queued tickets of a queue, oldest first."""
        ids = await self.redis.zrange(f"{self.p}:q:{key}", 0, -1)
        pipe = self.redis.pipeline(transaction=False)
        for i in ids:
            pipe.hmget(f"{self.p}:tk:{i}", "fields", "state")
        out = []
        for fields, state in await pipe.execute():
            if fields and state == "queued":
                out.append(ticket_from(fields, state, None))
        return out

    async def claim(self, ticket_ids: Sequence[str], claim_id: str, now: float) -> bool:
        """Claim tickets if every one is still queued."""
        return bool(await self._run("claim", claim_id, now, *ticket_ids))

    async def claim_many(
        self, groups: Sequence[tuple[str, Sequence[str]]], now: float
    ) -> list[bool]:
        """Claim several groups (claim id, ticket ids) in one round trip; say which won."""
        if not groups:
            return []
        args: list[Any] = []
        for claim_id, ids in groups:
            args += [claim_id, len(ids), *ids]
        return [bool(x) for x in await self._run("claim_many", now, *args)]

    async def complete(
        self, claim_id: str, matches: Mapping[str, Mapping[str, SeatMatch]], game: GameRecord
    ) -> None:
        """Mark a claim's tickets matched and record the game."""
        await self.complete_many([(claim_id, matches, game)])

    async def complete_many(self, done: Sequence[Completion]) -> None:
        """Complete several claims in one round trip."""
        if not done:
            return
        args: list[Any] = []
        for claim_id, matches, game in done:
            args += [claim_id, game.game_id, game.to_json(), len(matches)]
            args += [x for tid, m in matches.items() for x in (tid, matches_json(m))]
        await self._run("complete", *args)

    async def release(self, claim_id: str) -> None:
        """Put a claim's tickets back in their queue."""
        await self._run("release", claim_id)

    async def stale_claims(self, before: float) -> list[str]:
        """Return ids of claims older than before."""
        return list(await self.redis.zrangebyscore(f"{self.p}:claims", "-inf", f"({before}"))

    async def _finish(self, ticket_id: str, state: str) -> list[str]:
        return list(await self._run("finish", ticket_id, state))

    async def cancel(self, ticket_id: str) -> Ticket:
        """Cancel a queued ticket."""
        res = await self._finish(ticket_id, CANCELLED)
        if res[0] == "missing":
            raise NotFound(f"ticket {ticket_id[:40]!r} does not exist")
        if res[0] == "state":
            raise RuleViolation(f"ticket {ticket_id} is {res[1]}, not queued")
        return await self.ticket(ticket_id)

    async def expire(self, key: str, now: float) -> list[str]:
        """Expire queued tickets whose time ran out."""
        gone = []
        for t in await self.queued(key):
            if t.expires_at <= now and (await self._finish(t.ticket_id, EXPIRED))[0] == "ok":
                gone.append(t.ticket_id)
        return gone

    async def rating(self, key: str, player: str) -> RatingRow | None:
        """Return a player's rating row, or None."""
        text = await self.redis.hget(f"{self.p}:r:{key}", player)
        return RatingRow.from_json(text) if text else None

    async def record_result(self, game_id: str, key: str, rows: Sequence[RatingRow]) -> bool:
        """Store new ratings once per game id."""
        args = [x for r in rows for x in (r.player, r.to_json(), r.ordinal)]
        return bool(await self._run("rate", game_id, key, *args))

    async def leaderboard(self, key: str, limit: int) -> list[RatingRow]:
        """Return the best rows by ordinal."""
        names = await self.redis.zrevrange(f"{self.p}:lb:{key}", 0, limit - 1)
        if not names:
            return []
        texts = await self.redis.hmget(f"{self.p}:r:{key}", names)
        return [RatingRow.from_json(t) for t in texts if t]

    async def game(self, game_id: str) -> GameRecord | None:
        """Return a created game, or None."""
        text = await self.redis.get(f"{self.p}:g:{game_id}")
        return GameRecord.from_json(text) if text else None

    async def live_games(self) -> list[str]:
        """Return live game ids."""
        return sorted(await self.redis.smembers(f"{self.p}:live_games"))

    async def end_game(self, game_id: str) -> None:
        """Forget a game as live."""
        await self.redis.srem(f"{self.p}:live_games", game_id)

    async def close(self) -> None:
        """Close the connection pool."""
        await self.redis.aclose()
