"""Where matchmaking keeps its state: one interface, in memory (embedded) or in Redis."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

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
from services.platform.errors import AlreadyExists, NotFound, RuleViolation

# a claim to complete: claim id, ticket id -> player -> seat, and the game record
Completion = tuple[str, Mapping[str, Mapping[str, SeatMatch]], GameRecord]


class LiveTicket(AlreadyExists):
    """A player already has a live ticket for this game and mode; carries its id."""

    def __init__(self, player: str, ticket_id: str) -> None:
        super().__init__(f"player {player[:32]!r} already has live ticket {ticket_id}")
        self.ticket_id = ticket_id


class MatchState(Protocol):
    """Tickets, claims, ratings and game records; every change is atomic."""

    async def enqueue(self, t: Ticket) -> None:
        """Store a queued ticket; raise LiveTicket when a player already has one for its queue."""
        ...

    async def ticket(self, ticket_id: str) -> Ticket:
        """Return a ticket; raise NotFound when unknown."""
        ...

    async def queued(self, key: str) -> list[Ticket]:
        """Return the queued tickets of a queue, oldest first."""
        ...

    async def claim(self, ticket_ids: Sequence[str], claim_id: str, now: float) -> bool:
        """Claim tickets for one game if every one is still queued; else change nothing."""
        ...

    async def claim_many(
        self, groups: Sequence[tuple[str, Sequence[str]]], now: float
    ) -> list[bool]:
        """Claim several groups (claim id, ticket ids) at once; say which were claimed."""
        ...

    async def complete(
        self, claim_id: str, matches: Mapping[str, Mapping[str, SeatMatch]], game: GameRecord
    ) -> None:
        """Mark a claim's tickets matched (ticket id -> player -> seat) and record the game."""
        ...

    async def complete_many(self, done: Sequence[Completion]) -> None:
        """Complete several claims at once."""
        ...

    async def release(self, claim_id: str) -> None:
        """Put a claim's tickets back in their queue (the game could not be created)."""
        ...

    async def stale_claims(self, before: float) -> list[str]:
        """Return ids of claims made before a time and not completed."""
        ...

    async def cancel(self, ticket_id: str) -> Ticket:
        """Cancel a queued ticket; raise RuleViolation when it is no longer queued."""
        ...

    async def expire(self, key: str, now: float) -> list[str]:
        """Expire queued tickets of a queue whose time ran out; return their ids."""
        ...

    async def rating(self, key: str, player: str) -> RatingRow | None:
        """Return a player's rating row in a queue, or None before any rated game."""
        ...

    async def record_result(self, game_id: str, key: str, rows: Sequence[RatingRow]) -> bool:
        """Store new ratings once per game id; return False (changing nothing) if seen."""
        ...

    async def leaderboard(self, key: str, limit: int) -> list[RatingRow]:
        """Return the best rows of a queue by ordinal."""
        ...

    async def game(self, game_id: str) -> GameRecord | None:
        """Return a game the matchmaker created, or None."""
        ...

    async def live_games(self) -> list[str]:
        """Return ids of created games not known to have ended."""
        ...

    async def end_game(self, game_id: str) -> None:
        """Forget a game as live."""
        ...

    async def close(self) -> None:
        """Release connections."""
        ...


class MemoryState:
    """MatchState in one process's memory (the embedded default); asyncio makes it atomic."""

    def __init__(self) -> None:
        self.tickets: dict[str, Ticket] = {}
        self.queues: dict[str, dict[str, None]] = {}
        self.live: dict[tuple[str, str], str] = {}
        self.claims: dict[str, tuple[float, list[str]]] = {}
        self.ratings: dict[str, dict[str, RatingRow]] = {}
        self.rated: set[str] = set()
        self.games: dict[str, GameRecord] = {}
        self.live_set: dict[str, None] = {}

    async def enqueue(self, t: Ticket) -> None:
        """Store a queued ticket; raise LiveTicket when a player already has one."""
        for p in t.players:
            held = self.live.get((t.key, p))
            if held is not None:
                raise LiveTicket(p, held)
        self.tickets[t.ticket_id] = t
        self.queues.setdefault(t.key, {})[t.ticket_id] = None
        for p in t.players:
            self.live[(t.key, p)] = t.ticket_id

    async def ticket(self, ticket_id: str) -> Ticket:
        """Return a ticket; raise NotFound when unknown."""
        found = self.tickets.get(ticket_id)
        if found is None:
            raise NotFound(f"ticket {ticket_id[:40]!r} does not exist")
        return found

    async def queued(self, key: str) -> list[Ticket]:
        """Return the queued tickets of a queue, oldest first."""
        return sorted(
            (self.tickets[i] for i in self.queues.get(key, {})), key=lambda t: t.queued_at
        )

    async def claim(self, ticket_ids: Sequence[str], claim_id: str, now: float) -> bool:
        """Claim tickets if every one is still queued."""
        ts = [self.tickets.get(i) for i in ticket_ids]
        if any(t is None or t.state != QUEUED for t in ts):
            return False
        for t in ts:
            assert t is not None
            self.tickets[t.ticket_id] = t.with_state(CLAIMED)
            self.queues[t.key].pop(t.ticket_id, None)
        self.claims[claim_id] = (now, list(ticket_ids))
        return True

    async def claim_many(
        self, groups: Sequence[tuple[str, Sequence[str]]], now: float
    ) -> list[bool]:
        """Claim several groups at once; say which were claimed."""
        return [await self.claim(ids, claim_id, now) for claim_id, ids in groups]

    async def complete(
        self, claim_id: str, matches: Mapping[str, Mapping[str, SeatMatch]], game: GameRecord
    ) -> None:
        """Mark a claim's tickets matched and record the game."""
        claim = self.claims.pop(claim_id, None)
        if claim is None:
            return  # released meanwhile (a stale claim): its tickets went back to the queue
        for i in claim[1]:
            t = self.tickets[i]
            self.tickets[i] = t.with_state(MATCHED, matches[i])
            self._unlock(t)
        self.games[game.game_id] = game
        self.live_set[game.game_id] = None

    async def complete_many(self, done: Sequence[Completion]) -> None:
        """Complete several claims."""
        for claim_id, matches, game in done:
            await self.complete(claim_id, matches, game)

    async def release(self, claim_id: str) -> None:
        """Put a claim's tickets back in their queue."""
        claim = self.claims.pop(claim_id, None)
        for i in claim[1] if claim else []:
            t = self.tickets[i]
            if t.state == CLAIMED:
                self.tickets[i] = t.with_state(QUEUED)
                self.queues.setdefault(t.key, {})[i] = None

    async def stale_claims(self, before: float) -> list[str]:
        """Return ids of claims older than before."""
        return [c for c, (at, _) in self.claims.items() if at < before]

    def _unlock(self, t: Ticket) -> None:
        for p in t.players:
            if self.live.get((t.key, p)) == t.ticket_id:
                del self.live[(t.key, p)]

    def _end(self, ticket_id: str, state: str) -> Ticket:
        t = self.tickets[ticket_id].with_state(state)
        self.tickets[ticket_id] = t
        self.queues.get(t.key, {}).pop(ticket_id, None)
        self._unlock(t)
        return t

    async def cancel(self, ticket_id: str) -> Ticket:
        """Cancel a queued ticket."""
        t = await self.ticket(ticket_id)
        if t.state != QUEUED:
            raise RuleViolation(f"ticket {ticket_id} is {t.state}, not queued")
        return self._end(ticket_id, CANCELLED)

    async def expire(self, key: str, now: float) -> list[str]:
        """Expire queued tickets whose time ran out."""
        gone = [i for i in self.queues.get(key, {}) if self.tickets[i].expires_at <= now]
        for i in gone:
            self._end(i, EXPIRED)
        return gone

    async def rating(self, key: str, player: str) -> RatingRow | None:
        """Return a player's rating row, or None."""
        return self.ratings.get(key, {}).get(player)

    async def record_result(self, game_id: str, key: str, rows: Sequence[RatingRow]) -> bool:
        """Store new ratings once per game id."""
        if game_id in self.rated:
            return False
        self.rated.add(game_id)
        table = self.ratings.setdefault(key, {})
        for r in rows:
            table[r.player] = r
        return True

    async def leaderboard(self, key: str, limit: int) -> list[RatingRow]:
        """Return the best rows by ordinal."""
        rows = sorted(self.ratings.get(key, {}).values(), key=lambda r: (-r.ordinal, r.player))
        return rows[:limit]

    async def game(self, game_id: str) -> GameRecord | None:
        """Return a created game, or None."""
        return self.games.get(game_id)

    async def live_games(self) -> list[str]:
        """Return live game ids."""
        return list(self.live_set)

    async def end_game(self, game_id: str) -> None:
        """Forget a game as live."""
        self.live_set.pop(game_id, None)

    async def close(self) -> None:
        """Nothing to release."""
