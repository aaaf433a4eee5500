"""Rules pools: games are placed by kind and seat count; a replica of the pool continues a game."""

from __future__ import annotations

import pytest

from services.app import SINGLE_SERVICES
from services.dice.engine import ROLLED, DiceEngine, dice_stream
from services.dice.service import check_visible_to
from services.platform.errors import InvalidArgument
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import Command
from services.rules.pools import POOLS, admits, describe, pool_for
from services.rules.runner import GameRunner
from tests.support.toy_game import RULES as TOY


@pytest.mark.parametrize(
    ("game", "seats", "pool"),
    [
        ("land", 1, "rules-land"),
        ("land", 2, "rules-land"),
        ("land", 5, "rules-land"),
        ("land", 6, "rules-land-epic"),
        ("fallen", 2, "rules-fallen"),
        ("worlds", 2, "rules-worlds"),
    ],
)
def test_each_game_and_seat_count_has_one_dedicated_pool(game: str, seats: int, pool: str) -> None:
    assert pool_for(game, seats) == pool
    assert admits(POOLS[pool], game, seats)


def test_epic_games_are_not_served_by_the_land_pool_and_back() -> None:
    assert not admits(POOLS["rules-land"], "land", 6)
    assert not admits(POOLS["rules-land-epic"], "land", 5)
    assert admits(POOLS["rules"], "land", 6)
    assert describe({"land": (2, 5)}) == "land with 2-5 seats"
    assert {"rules-land", "rules-land-epic"} <= set(SINGLE_SERVICES)


async def test_a_pool_refuses_a_game_of_another_seat_count(tmp_path) -> None:
    store = SqliteEventStore(tmp_path / "p.db")
    two = GameRunner(store, DiceEngine(store), {"toy": TOY}, only={"toy": (2, 2)})
    big = GameRunner(store, DiceEngine(store), {"toy": TOY}, only={"toy": (3, 6)})
    other = GameRunner(store, DiceEngine(store), {"toy": TOY}, only={"fallen": None})
    # given a 2-seat game created on the pool that serves it
    await two.create("toy", "pool1", {"a": "p", "b": "q"}, {})
    # when the wrong pool is asked to create or continue one, then it names the field and pool
    with pytest.raises(InvalidArgument) as create_err:
        await big.create("toy", "pool2", {"a": "p", "b": "q"}, {})
    assert create_err.value.field == "seats" and "toy with 3-6 seats" in str(create_err.value)
    with pytest.raises(InvalidArgument) as load_err:
        await big.load("pool1")
    assert load_err.value.field == "game_id"
    with pytest.raises(InvalidArgument) as game_err:
        await other.create("toy", "pool3", {"a": "p", "b": "q"}, {})
    assert game_err.value.field == "game"
    # and nothing was written for the refused games
    assert await store.version("game-pool2") == 0 and await store.version("game-pool3") == 0
    await store.close()


async def test_another_replica_of_the_pool_continues_a_game_from_the_log(tmp_path) -> None:
    store = SqliteEventStore(tmp_path / "r.db")
    first = GameRunner(store, DiceEngine(store), {"toy": TOY}, only={"toy": (2, 2)})
    loaded, _ = await first.create("toy", "rep1", {"a": "p", "b": "q"}, {})
    seat = loaded.rules.pending(loaded.state).seat  # type: ignore[union-attr]
    # given the first replica gone, when a fresh replica gets the next command
    second = GameRunner(store, DiceEngine(store), {"toy": TOY}, only={"toy": (2, 2)})
    after, _ = await second.submit("rep1", Command(seat, "ask_roll", {}), "c1")
    # then it folded the game from the log and moved it on
    assert after.version > loaded.version
    assert after.version == await store.version("game-rep1")
    await store.close()


class CheckedDice(DiceEngine):
    """The dice engine behind the dice service's visible_to check, as a pool reaches it."""

    async def roll(self, game_id, purpose, dice, visible_to=None, key=""):  # type: ignore[no-untyped-def]
        await check_visible_to(self.store, game_id, list(visible_to or []))
        return await super().roll(game_id, purpose, dice, visible_to, key)


async def test_a_land_pool_game_with_fewer_than_six_seats_rolls_for_its_own_seats(tmp_path) -> None:
    # given the rules-land pool, whose dice refuse a visible_to entry that is no seat
    store = SqliteEventStore(tmp_path / "l.db")
    runner = GameRunner(store, CheckedDice(store), only=POOLS["rules-land"])
    seats = {f"p{i}": f"u{i}" for i in range(1, 6)}
    # when a 5-seat game is created (its setup rolls are public: every seat sees them)
    loaded, _ = await runner.create("land", "five", seats, {"short_game": True, "max_turns": 1})
    # then setup got past its rolls, each visible to the game's five seats, not to a p6
    rolls = await store.read(dice_stream("five"))
    visibility = [e.visibility for e in rolls if e.type == ROLLED]
    assert visibility and all(v == sorted(seats) for v in visibility), visibility
    assert loaded.version > 1
    await store.close()
