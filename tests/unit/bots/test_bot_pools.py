"""Which bot pool plays which game: each pool plays the games its rules endpoint serves."""

from __future__ import annotations

import pytest

from services.app import BOT_POOLS
from services.bots.worker import bot_game, in_pool
from services.rules.pools import POOLS, pool_for


def created(game: str, seats: int, bots: int = 0) -> dict:
    names = [f"s{i}" for i in range(seats)]
    return {
        "game": game,
        "seats": {n: (f"bot:{n}" if i < bots else f"p{i}") for i, n in enumerate(names)},
        "options": {},
    }


def spec(bot_pool: str):
    rules_pool = BOT_POOLS[bot_pool]
    return POOLS[rules_pool] if rules_pool else None


def test_every_dedicated_rules_pool_has_a_bot_pool_named_after_it() -> None:
    # given the rules pools that serve one kind of game
    dedicated = {name for name, s in POOLS.items() if s is not None}
    # when the bot pools are listed
    served = {rules for rules in BOT_POOLS.values() if rules}
    # then each has exactly one bot pool, named bots-<pool>, and `bots` plays every game
    assert served == dedicated
    assert all(
        bot == "bots-" + rules.removeprefix("rules-") for bot, rules in BOT_POOLS.items() if rules
    )
    assert BOT_POOLS["bots"] is None


@pytest.mark.parametrize(
    ("game", "seats"),
    [("fallen", 2), ("worlds", 2), ("land", 1), ("land", 2), ("land", 5), ("land", 6)],
)
def test_a_bot_seat_is_played_by_the_one_pool_whose_rules_endpoint_serves_the_game(
    game: str, seats: int
) -> None:
    # given a game with a bot-filled seat
    bot = bot_game(created(game, seats, bots=1), "g1")
    # when each dedicated bot pool decides whether it plays it
    players = {name for name in BOT_POOLS if BOT_POOLS[name] and in_pool(spec(name), bot)}
    # then exactly the pool talking to the game's rules pool plays it, and `bots` too
    assert players == {"bots-" + pool_for(game, seats).removeprefix("rules-")}
    assert in_pool(spec("bots"), bot)


def test_the_land_pool_leaves_epic_games_to_the_epic_pool() -> None:
    # given a 6-seat Fallen Land Epic game and a 4-seat core game
    epic = bot_game(created("land", 6, bots=2), "epic")
    core = bot_game(created("land", 4, bots=1), "core")
    # then bots-land (rules-land) plays only the core game, bots-land-epic only the Epic one
    assert (epic.seat_count, core.seat_count) == (6, 4)
    assert not in_pool(spec("bots-land"), epic) and in_pool(spec("bots-land"), core)
    assert in_pool(spec("bots-land-epic"), epic) and not in_pool(spec("bots-land-epic"), core)
