"""The matchmaker: validate and queue tickets, match queues, create games on their pool."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from services.dice.seeds import check_seed
from services.matchmaking.matcher import assign_seats, find_groups
from services.matchmaking.model import (
    BOT_PREFIX,
    GameRecord,
    SeatMatch,
    Ticket,
)
from services.matchmaking.modes import Mode, find_mode
from services.matchmaking.ratings import default_row
from services.matchmaking.state import Completion, MatchState
from services.platform.auth import reserved_id
from services.platform.errors import DomainError, InvalidArgument, PermissionDenied, RuleViolation

log = logging.getLogger("fallen.matchmaking")
PLAYER_RE = re.compile(r"^[A-Za-z0-9_.@:-]{1,160}$")  # ids of provider tokens: "<ns>:<sub>"
CLAIM_LEASE_S = 30.0
CLAIM_BATCH = 16  # groups claimed per state call; their games are created concurrently


class GameCreator(Protocol):
    """Creates a game on a pool; returns its dice commitment (Pools is the real one)."""

    def endpoint(self, pool: str) -> str:
        """Return a pool's address."""
        ...

    async def create_game(
        self,
        endpoint: str,
        game: str,
        game_id: str,
        seats: Mapping[str, str],
        options: Mapping[str, Any],
        seeds: Mapping[str, str] | None = None,
    ) -> str:
        """Create the game with the client seeds given (seat -> seed); return the dice
        commitment."""
        ...

    async def bot_refusal(self, endpoint: str, game: str) -> str:
        """Return why the pool at endpoint cannot take bot seats of a game ("" = it can)."""
        ...


@dataclass(frozen=True)
class Request:
    """An Enqueue request as the domain sees it."""

    game: str
    mode: str
    role: str = ""
    seat_counts: tuple[int, ...] = ()
    challenge_level: int = 0
    bot_takeover: bool = False
    party: tuple[str, ...] = ()
    client_seed: str = ""


def party_of(caller: str, mode: Mode, party: Sequence[str]) -> tuple[str, ...]:
    """Return the ticket's players (caller first), or raise InvalidArgument on a bad party."""
    players = [caller]
    for p in party:
        if not PLAYER_RE.match(p) or p.startswith(BOT_PREFIX) or reserved_id(p):
            raise InvalidArgument("party", f"{p[:32]!r} is not a player id")
        if p in players:
            raise InvalidArgument("party", f"{p[:32]!r} is listed twice (or is the caller)")
        players.append(p)
    if len(players) > mode.max_party:
        raise InvalidArgument(
            "party", f"{mode.key()} takes parties of at most {mode.max_party} player(s)"
        )
    return tuple(players)


def check_preferences(mode: Mode, req: Request, size: int) -> str:
    """Return the normalised role, or raise InvalidArgument naming the bad preference."""
    role = "" if req.role in ("", "any") else req.role
    if role and (not mode.roles or role not in mode.seats):
        choices = [*mode.seats, "any"] if mode.roles else ["any"]
        raise InvalidArgument("preferences.role", f"{role[:32]!r} is not one of {choices}")
    if req.seat_counts:
        if not mode.seat_counts:
            raise InvalidArgument("preferences.seat_counts", f"{mode.key()} has a fixed size")
        bad = [n for n in req.seat_counts if not mode.min_players <= n <= mode.max_players]
        if bad or any(n < size for n in req.seat_counts):
            raise InvalidArgument(
                "preferences.seat_counts",
                f"each must be {max(mode.min_players, size)}-{mode.max_players}",
            )
    if mode.challenge and req.challenge_level not in mode.challenge_levels:
        levels = list(mode.challenge_levels)
        raise InvalidArgument("preferences.challenge_level", f"{mode.key()} takes one of {levels}")
    if not mode.challenge and req.challenge_level:
        raise InvalidArgument("preferences.challenge_level", f"{mode.key()} has no challenge level")
    return role


class Matchmaker:
    """Queues tickets in a MatchState and turns matched groups into games."""

    def __init__(
        self,
        state: MatchState,
        modes: Mapping[str, Mode],
        creator: GameCreator,
        clock: Callable[[], float] = time.time,
        lane: float | None = None,
    ) -> None:
        self.state = state
        self.modes = dict(modes)
        self.creator = creator
        self.clock = clock
        # where in each tick's list of groups this replica starts claiming (0-1): replicas
        # sharing one queue start at different places, so they seldom race for a group
        self.lane = (uuid.uuid4().int % 1000) / 1000 if lane is None else lane

    async def enqueue(self, caller: str, req: Request) -> Ticket:
        """Validate and queue a ticket; raise LiveTicket when a player has one already."""
        mode = find_mode(self.modes, req.game, req.mode)
        endpoint = self.creator.endpoint(mode.pool)  # FAILED_PRECONDITION: no pool serves it
        check_seed(req.client_seed)
        if mode.bots or req.bot_takeover:
            why = await self.creator.bot_refusal(endpoint, mode.game)
            if why:
                wants = "bot seats" if mode.bots else "preferences.bot_takeover"
                raise RuleViolation(f"{mode.key()}: {wants} need a bot player, but {why}")
        players = party_of(caller, mode, req.party)
        role = check_preferences(mode, req, len(players))
        if role and len(players) > 1:
            raise InvalidArgument("preferences.role", "a party cannot ask for one seat")
        rows = [await self.state.rating(mode.key(), p) or default_row(p) for p in players]
        now = self.clock()
        ticket = Ticket(
            ticket_id="t" + uuid.uuid4().hex,
            game=mode.game,
            mode=mode.name,
            players=players,
            queued_at=now,
            expires_at=now + mode.ticket_ttl_s,
            rating=sum(r.mu for r in rows) / len(rows),
            role=role,
            seat_counts=tuple(sorted(set(req.seat_counts))),
            challenge_level=req.challenge_level,
            bot_takeover=req.bot_takeover,
            client_seed=req.client_seed,
        )
        await self.state.enqueue(ticket)
        return ticket

    async def ticket_for(self, caller: str, ticket_id: str, service: bool = False) -> Ticket:
        """Return a ticket its caller belongs to; raise PermissionDenied otherwise."""
        if not ticket_id:
            raise InvalidArgument("ticket_id", "is required")
        t = await self.state.ticket(ticket_id)
        if not service and caller not in t.players:
            raise PermissionDenied(f"ticket {ticket_id[:40]} is not yours")
        return t

    async def cancel(self, caller: str, ticket_id: str) -> Ticket:
        """Cancel a queued ticket of the caller's party."""
        await self.ticket_for(caller, ticket_id)
        return await self.state.cancel(ticket_id)

    async def tick(self) -> int:
        """Expire, recover stale claims and match every queue once; return games created."""
        now = self.clock()
        for claim_id in await self.state.stale_claims(now - CLAIM_LEASE_S):
            await self.state.release(claim_id)
        made = 0
        for mode in self.modes.values():
            await self.state.expire(mode.key(), now)
            groups = find_groups(mode, await self.state.queued(mode.key()), now)
            start = int(self.lane * len(groups))
            made += await self._make_all(mode, groups[start:] + groups[:start], now)
        return made

    async def _make_all(self, mode: Mode, groups: list[list[Ticket]], now: float) -> int:
        """Claim groups a batch per call, then create each batch's games concurrently."""
        seated = [(g, assign_seats(mode, g)) for g in groups]
        todo = [(g, s, "c" + uuid.uuid4().hex) for g, s in seated if s is not None]
        made = 0
        for i in range(0, len(todo), CLAIM_BATCH):
            batch = todo[i : i + CLAIM_BATCH]
            won = await self.state.claim_many(
                [(c, [t.ticket_id for t in g]) for g, _, c in batch], now
            )
            claimed = [(g, s, c) for (g, s, c), ok in zip(batch, won, strict=True) if ok]
            done = await asyncio.gather(*(self._make(mode, g, s, c) for g, s, c in claimed))
            ready = [d for d in done if d is not None]
            await self.state.complete_many(ready)
            made += len(ready)
        return made

    async def _make(
        self, mode: Mode, group: list[Ticket], seats: dict[str, str], claim_id: str
    ) -> Completion | None:
        """Create a claimed group's game; return its completion (None: released)."""
        game_id = "g" + claim_id[1:17]
        options = dict(mode.options)
        if mode.challenge:
            options[mode.challenge_option] = group[0].challenge_level
        seat_of = {p: s for s, p in seats.items()}
        seeds = {seat_of[t.players[0]]: t.client_seed for t in group if t.client_seed}
        bots = [s for s, p in seats.items() if p.startswith(BOT_PREFIX)]
        if bots:  # the rules know the bot seats (in Worlds the human then starts)
            options["bots"] = bots
        try:
            endpoint = self.creator.endpoint(mode.pool)
            commitment = await self.creator.create_game(
                endpoint, mode.game, game_id, seats, options, seeds
            )
        except (DomainError, OSError) as exc:
            log.warning("create failed", extra={"pool": mode.pool, "reason": str(exc)[:200]})
            await self.state.release(claim_id)
            return None
        matches = {
            t.ticket_id: {
                p: SeatMatch(game_id, seat_of[p], endpoint, commitment, mode.pool)
                for p in t.players
            }
            for t in group
        }
        takeover = tuple(seat_of[p] for t in group if t.bot_takeover for p in t.players)
        record = GameRecord(game_id, mode.game, mode.name, seats, endpoint, takeover)
        return claim_id, matches, record
