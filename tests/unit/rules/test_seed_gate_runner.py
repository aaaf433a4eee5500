"""The runner and its sweeper keep chance behind the seed gate and start a game once it opens."""

from __future__ import annotations

from services.dice.engine import DiceEngine, dice_stream
from services.platform.games import game_stream
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import CHANCE
from services.rules.runner import GameRunner
from services.rules.sweeper import ChanceSweeper

SEATS = {"p1": "ann", "p2": "ben"}
DECKS = {"decks": {"p1": "keebo", "p2": "keebo"}}


async def _draws(store: SqliteEventStore, gid: str) -> int:
    events = await store.read(dice_stream(gid), 1)
    return sum(e.type in ("DiceRolled", "DiceShuffleDrawn") for e in events)


async def test_worlds_waits_for_both_players_then_the_sweeper_starts_it(tmp_path) -> None:
    store = SqliteEventStore(tmp_path / "r.db")
    dice = DiceEngine(store, seed_wait=600)
    runner = GameRunner(store, dice)
    sweeper = ChanceSweeper(runner, grace=0.0)
    # given a Fallen Worlds game just created ("The game will wait for both players to be
    # active"): no library shuffled, no hand dealt, no first player rolled
    loaded, _ = await runner.create("worlds", "w1", SEATS, DECKS)
    assert loaded.rules.pending(loaded.state).seat == CHANCE
    assert await _draws(store, "w1") == 0
    # when only one player is active, the sweeper looks and still draws nothing
    await dice.set_client_seed("w1", "p1", "ann")
    await sweeper.sweep_once()
    assert await _draws(store, "w1") == 0
    assert (await runner.current("w1")).rules.pending(loaded.state).seat == CHANCE
    # when the second player gives a seed, the sweeper starts the game by itself
    await dice.set_client_seed("w1", "p2", "ben")
    assert await sweeper.sweep_once() == 1
    started = await runner.load("w1")
    pending = started.rules.pending(started.state)
    assert pending is not None and pending.seat in SEATS
    assert await _draws(store, "w1") > 0
    types = [e.type for e in await store.read(game_stream("w1"), 1)]
    assert len(types) > len([t for t in types if t == "GameCreated"])
    await store.close()


async def test_a_game_whose_seats_are_all_bots_starts_at_creation(tmp_path) -> None:
    store = SqliteEventStore(tmp_path / "b.db")
    runner = GameRunner(store, DiceEngine(store, seed_wait=600))
    # given a game created with both seats played by bots
    loaded, _ = await runner.create("worlds", "w2", SEATS, {**DECKS, "bots": ["p1", "p2"]})
    # then nothing waits: every seed is derived, and the game is at a seat's turn
    pending = loaded.rules.pending(loaded.state)
    assert pending is not None and pending.seat in SEATS
    assert await _draws(store, "w2") > 0
    await store.close()
