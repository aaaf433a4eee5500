"""The turn timer: warn a quiet seat, then forfeit it or hand it to a bot.

Bot seats (bot-filled or taken over) are played by the bot workers (services/bots/worker.py),
never by the matchmaker; a bot seat that stays quiet (no worker, or one that fails) is timed
like a human's: warned, then forfeited (a bot's seat is never handed to another bot).

Deadlines come from the game's own log (the time of its last event), so a restarted
scheduler picks up exactly where the log says the game is.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Protocol

from services.matchmaking.model import BOT_PREFIX, GameRecord
from services.matchmaking.modes import Mode
from services.matchmaking.pools import GameSummary
from services.matchmaking.state import MatchState
from services.platform.errors import DomainError
from services.platform.games import SEAT_WARNED, game_stream
from services.platform.store.base import EventStore

log = logging.getLogger("fallen.matchmaking.timers")
IDLE, WARN, FORFEIT, TAKE_OVER = "idle", "warned", "forfeited", "taken_over"


class RulesPort(Protocol):
    """The rules calls the timer needs (Pools is the real one)."""

    async def summary(self, endpoint: str, game_id: str) -> GameSummary:
        """Return a game's summary."""
        ...

    async def record_seat(
        self, endpoint: str, game_id: str, seat: str, kind: str, expected: int
    ) -> None:
        """Append a seat fact."""
        ...


def decide_timer(
    mode: Mode,
    record: GameRecord,
    game: GameSummary,
    last_type: str,
    last_seat: str,
    idle_s: float,
) -> str:
    """Return what the timer does now: idle, warned, forfeited or taken_over.

    A quiet bot seat (bot-filled or taken over) is warned like any seat, then forfeits.
    """
    seat = game.waiting_for
    if game.ended or seat not in game.seats:
        return IDLE
    bot = game.seats[seat].startswith(BOT_PREFIX) or game.seat_status.get(seat) == TAKE_OVER
    if last_type == SEAT_WARNED and last_seat == seat:
        if idle_s < mode.grace_s:
            return IDLE
        if bot:
            return FORFEIT
        return TAKE_OVER if mode.quiet == "takeover" or seat in record.takeover else FORFEIT
    return WARN if idle_s >= mode.turn_timer_s else IDLE


def _age(occurred_at: str, now: float) -> float:
    return now - datetime.fromisoformat(occurred_at).timestamp()


async def check_game(
    state: MatchState,
    store: EventStore,
    rules: RulesPort,
    modes: Mapping[str, Mode],
    game_id: str,
    now: float,
) -> str:
    """Look at one live game and act on its quiet seat; return the action taken."""
    record = await state.game(game_id)
    mode = modes.get(f"{record.game}/{record.mode}") if record else None
    if record is None or mode is None:
        await state.end_game(game_id)
        return IDLE
    game = await rules.summary(record.endpoint, game_id)
    if game.ended:
        return IDLE  # the feed follower closes and rates it
    envs = await store.read(game_stream(game_id), max(game.version, 1))
    if not envs:
        return IDLE
    last: Any = envs[-1]
    action = decide_timer(
        mode, record, game, last.type, str(last.data.get("seat", "")), _age(last.occurred_at, now)
    )
    if action == IDLE:
        return IDLE
    try:
        await rules.record_seat(record.endpoint, game_id, game.waiting_for, action, game.version)
    except DomainError as exc:  # another replica acted first, or the player did
        log.info("timer skipped", extra={"game_id": game_id, "reason": str(exc)[:120]})
        return IDLE
    return action


async def check_all(
    state: MatchState, store: EventStore, rules: RulesPort, modes: Mapping[str, Mode], now: float
) -> dict[str, str]:
    """Check every live game once; return game id -> action for those that acted."""
    done = {}
    for game_id in await state.live_games():
        try:
            action = await check_game(state, store, rules, modes, game_id, now)
        except DomainError as exc:
            log.info("timer check failed", extra={"game_id": game_id, "reason": str(exc)[:120]})
            continue
        if action != IDLE:
            done[game_id] = action
    return done
