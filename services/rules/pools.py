"""Rules pools: which games (and seat counts) each `fallenctl serve rules-*` pool serves."""

from __future__ import annotations

from collections.abc import Mapping

SeatRange = tuple[int, int]

# Response header (and, from a client, request metadata) naming a game's rules pool: the
# deployed stack's one address routes RulesService calls on it (deploy/door, docs/clients.md).
POOL_HEADER = "x-fallen-pool"
PoolSpec = Mapping[str, SeatRange | None]

# pool -> {game: seat-count range or None for any}; "rules" (None) serves every game.
# Fallen Land's 6-seat Epic games are long and heavy: they get their own pool, scaled on
# its own, while 1-5 seat games (the solo variants and the core game) run on rules-land
# (docs/games/land.md, "Pools").
POOLS: dict[str, PoolSpec | None] = {
    "rules": None,
    "rules-fallen": {"fallen": None},
    "rules-worlds": {"worlds": None},
    "rules-land": {"land": (1, 5)},
    "rules-land-epic": {"land": (6, 6)},
}


# bot pool -> the rules pool whose games it plays (None: every game). Each worker talks to
# one rules endpoint (--rules), so each dedicated rules pool has its bot pool; the bot
# pool's name is its consumer group on the feed (docs/matchmaking.md, "Seats that go quiet").
BOT_POOLS: dict[str, str | None] = {
    "bots": None,
    "bots-fallen": "rules-fallen",
    "bots-worlds": "rules-worlds",
    "bots-land": "rules-land",
    "bots-land-epic": "rules-land-epic",
}


def bot_pool_spec(group: str) -> PoolSpec | None:
    """Return what a bot pool (by its name, its consumer group) plays; KeyError if unknown."""
    rules = BOT_POOLS[group]
    return POOLS[rules] if rules else None


def admits(spec: PoolSpec | None, game: str, seat_count: int | None) -> bool:
    """Return whether a pool serves a game of this kind and seat count (None = not known yet)."""
    if spec is None:
        return True
    if game not in spec:
        return False
    seats = spec[game]
    return seats is None or seat_count is None or seats[0] <= seat_count <= seats[1]


def pool_for(game: str, seat_count: int) -> str:
    """Return the dedicated pool of a game kind and seat count, or "rules" (serves all)."""
    for name, spec in POOLS.items():
        if spec is not None and game in spec and admits(spec, game, seat_count):
            return name
    return "rules"


def describe(spec: PoolSpec) -> str:
    """Return a short text of what a pool serves, e.g. "land with 2-5 seats"."""
    parts = []
    for game, seats in sorted(spec.items()):
        if seats is None:
            parts.append(game)
        elif seats[0] == seats[1]:
            parts.append(f"{game} with {seats[0]} seats")
        else:
            parts.append(f"{game} with {seats[0]}-{seats[1]} seats")
    return ", ".join(parts)
