"""Bot seats of a game: which seats bots play, their options, and whether anything plays them.

A bot seat is one the options list (`bots`) or one seated with a `bot:` player (the
matchmaker's bot-filled seats). The bot options (`bots`, `bot_policy`, `bot_policies`,
`bot_seed`) are the same for every game: the rules service checks them and records them in
GameCreated for the bot workers; an engine that does not read them (every game but Worlds,
whose first player depends on them) never sees them.

Before a game with bot seats is created, the rules service asks its `BotCoverage` whether a
bot worker plays that game: in-process workers (`fallenctl serve all`) play every game; a
rules pool alone looks for a live bot pool on its Redis store (a pool admitting the game
with a worker that said it was alive in the last 30 s). A bot seat nothing would play is
refused (FAILED_PRECONDITION) rather than left to wait.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from services.bots.policies import policy_for
from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.pools import BOT_POOLS, admits, bot_pool_spec

BOT_PLAYER_PREFIX = "bot:"
BOT_KEYS = ("bots", "bot_policy", "bot_policies", "bot_seed")
MAX_SEED = 64
CACHE_S = 2.0  # how long a pool's answer is reused


def bot_seats(seats: Mapping[str, str], options: Mapping[str, Any]) -> tuple[str, ...]:
    """Return the seats bots play: those options.bots lists, then those of `bot:` players."""
    listed = options.get("bots") or []
    out = [str(s) for s in listed] if isinstance(listed, list) else []
    out += [s for s, p in seats.items() if str(p).startswith(BOT_PLAYER_PREFIX) and s not in out]
    return tuple(out)


def engine_options(rules: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Return the options an engine reads: the bot options only for an engine that reads them."""
    if getattr(rules, "reads_bot_options", False):
        return dict(options)
    return {k: v for k, v in options.items() if k not in BOT_KEYS}


def _policy(game: str, name: Any, field: str) -> None:
    if not isinstance(name, str):
        raise InvalidArgument(field, "a policy name (e.g. easy, random, heuristic)")
    try:
        policy_for(game, name)
    except ValueError as exc:
        raise InvalidArgument(field, str(exc)) from None


def check_bot_options(game: str, seats: Sequence[str], options: Mapping[str, Any]) -> None:
    """Check the bot options against the game's seats; raise InvalidArgument naming the field."""
    bots = options.get("bots", [])
    if (
        not isinstance(bots, list)
        or any(not isinstance(b, str) or b not in seats for b in bots)
        or len(set(bots)) != len(bots)
    ):
        raise InvalidArgument("options.bots", f"a list of distinct seats of this game, {seats}")
    if "bot_policy" in options:
        _policy(game, options["bot_policy"], "options.bot_policy")
    per_seat = options.get("bot_policies", {})
    if not isinstance(per_seat, Mapping) or any(s not in bots for s in per_seat):
        raise InvalidArgument("options.bot_policies", "a map of bot seat -> policy")
    for seat, name in per_seat.items():
        _policy(game, name, f"options.bot_policies.{seat}")
    seed = options.get("bot_seed", "")
    if not isinstance(seed, str) or len(seed) > MAX_SEED:
        raise InvalidArgument("options.bot_seed", f"a string of at most {MAX_SEED} characters")


class BotCoverage(Protocol):
    """Whether some bot worker plays the bot seats of a game kind."""

    async def refusal(self, game: str, seat_count: int | None) -> str:
        """Return "" when bot seats of such a game are played, else why not."""
        ...


class InProcess:
    """Bot workers in this process play every game."""

    async def refusal(self, game: str, seat_count: int | None) -> str:
        """Return "": served."""
        return ""


class Nobody:
    """No bot worker is configured for this server."""

    def __init__(self, why: str) -> None:
        self.why = why

    async def refusal(self, game: str, seat_count: int | None) -> str:
        """Return why bot seats are not played here."""
        return self.why


class FeedPools:
    """Bot pools on a Redis store: a pool plays a game when one of its workers said it was
    alive within LIVE_S (services/bots/feeds.py) and it admits the game
    (services/rules/pools.py)."""

    def __init__(self, redis_url: str, prefix: str) -> None:
        import redis.asyncio as aioredis

        self._redis: Any = aioredis.from_url(redis_url, decode_responses=True)
        self.prefix = prefix
        self._cache: tuple[float, set[str]] | None = None

    async def live_pools(self) -> set[str]:
        """Return the bot pools with a live worker (cached for CACHE_S)."""
        from services.bots.feeds import live_groups

        now = time.monotonic()
        if self._cache is None or now - self._cache[0] >= CACHE_S:
            live = await live_groups(self._redis, self.prefix)
            self._cache = (now, {g for g in live if g in BOT_POOLS})
        return self._cache[1]

    async def refusal(self, game: str, seat_count: int | None) -> str:
        """Return "" when a live bot pool plays such a game, else why not."""
        for pool in sorted(await self.live_pools()):
            if admits(bot_pool_spec(pool), game, seat_count):
                return ""
        return (
            f"no bot worker plays {game} games: start a bot pool for them "
            f"(fallenctl serve bots-{game} or bots, on this store)"
        )

    async def close(self) -> None:
        """Close the Redis connection."""
        await self._redis.aclose()


async def require_played(
    coverage: BotCoverage | None, game: str, seats: Mapping[str, str], options: Mapping[str, Any]
) -> None:
    """Raise RuleViolation (FAILED_PRECONDITION) when a game has bot seats nothing plays."""
    bots = bot_seats(seats, options)
    if coverage is None or not bots:
        return
    why = await coverage.refusal(game, len(seats))
    if why:
        raise RuleViolation(f"seats {list(bots)} are bot seats, but {why}")
