"""Chance is drawn once per decision and a crash never stalls a game, on every store.

A crash between appending a command and answering the chance it caused is reproduced
without a crash: the command's events are appended the way the runner appends them, and
nothing more. Every path that finds the game waiting for chance (a later load, the client's
retry, the sweeper of a restarted process, a served store) answers it exactly once.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from services.app import serve
from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.deck.engine import DeckEngine
from services.dice.engine import DiceEngine, dice_stream
from services.platform.decision import decision_key
from services.platform.errors import InvalidArgument, RuleViolation
from services.platform.games import game_stream
from services.platform.store.base import EventStore
from services.platform.store.redis import RedisEventStore
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import CHANCE, Command
from services.rules.runner import GameRunner, command_key, to_new_event
from services.rules.sweeper import ChanceSweeper
from tests.support.projections_play import advance, engines, players, runner_for

RULES_OF = engines().get


def reopen(store: EventStore) -> EventStore:
    """Return a second connection to the same store (another process's view of it)."""
    if isinstance(store, SqliteEventStore):
        return SqliteEventStore(store.path)
    assert isinstance(store, RedisEventStore)
    return RedisEventStore(store.url, store.shards, store.prefix)


async def new_toy(runner: GameRunner, gid: str) -> int:
    """Create a toy game (its deal answered); return its version."""
    loaded, _ = await runner.create("toy", gid, players(runner.extra["toy"], gid), {})
    return loaded.version


async def crash_after_command(store: EventStore, gid: str, command_id: str, draw: bool) -> int:
    """Land seat a's ask_roll as the runner does, then stop as a killed process would
    (optionally after drawing the dice); return the version the command left."""
    runner = runner_for(store)
    loaded = await runner.load(gid)
    command = Command("a", "ask_roll")
    events = loaded.rules.decide(loaded.state, command)
    key = command_key(loaded, command, command_id)
    res = await store.append(
        game_stream(gid), loaded.version, [to_new_event(e, command_id) for e in events], key
    )
    if draw:
        await runner.dice.roll(gid, "toy", ["d6"], ["a", "b"], decision_key(gid, res.version))
    return res.version


async def draws(store: EventStore, gid: str) -> int:
    """Return how many draws a game's dice stream holds."""
    return sum(
        e.type in ("DiceRolled", "DiceShuffleDrawn") for e in await store.read(dice_stream(gid))
    )


async def waits_for_chance(store: EventStore, gid: str) -> bool:
    """Return whether a fresh runner finds the game waiting for chance."""
    loaded = await runner_for(store).load(gid)
    pending = loaded.rules.pending(loaded.state)
    return pending is not None and pending.seat == CHANCE


async def finish_and_verify(store: EventStore, gid: str) -> None:
    """Play the game to its end and assert it verifies with no unused draw."""
    assert await advance(runner_for(store), gid, random.Random(2), steps=200)
    report = verify_game(gid, await store_records(store, gid), RULES_OF)
    assert report.verified, report.mismatch
    assert report.unused_draws == ()


# --- the dice and deck answer a repeated key with the same draw -------------------------


async def test_a_repeated_key_rolls_nothing_new_even_from_another_process(event_store):
    runner = runner_for(event_store)
    await new_toy(runner, "k1")
    other = DiceEngine(reopen(event_store))
    key = decision_key("k1", 7)
    first = await runner.dice.roll("k1", "toy", ["d6", "d6"], None, key)
    again = await other.roll("k1", "toy", ["d6", "d6"], None, key)
    assert (again.nonce, again.results) == (first.nonce, first.results)
    assert await draws(event_store, "k1") == 2  # the deal and this roll
    shuffled = await other.shuffle("k1", "deal", 5, decision_key("k1", 9))
    assert (await runner.dice.shuffle("k1", "deal", 5, decision_key("k1", 9))) == shuffled
    assert await draws(event_store, "k1") == 3
    await other.store.close()


async def test_a_key_drawn_for_other_dice_or_another_game_is_refused(event_store):
    runner = runner_for(event_store)
    await new_toy(runner, "k2")
    await runner.dice.roll("k2", "toy", ["d6"], None, decision_key("k2", 4))
    with pytest.raises(RuleViolation, match="other dice"):
        await runner.dice.roll("k2", "toy", ["d10"], None, decision_key("k2", 4))
    with pytest.raises(InvalidArgument, match="key"):
        await runner.dice.roll("k2", "toy", ["d6"], None, decision_key("zz", 4))
    with pytest.raises(InvalidArgument, match="key"):
        await runner.dice.shuffle("k2", "deal", 3, "not a key")
    assert await draws(event_store, "k2") == 2


async def test_a_repeated_deck_key_returns_the_first_result_and_appends_nothing(event_store):
    runner = runner_for(event_store)
    at = await new_toy(runner, "k3")
    deck = DeckEngine(event_store, runner.dice)
    cards = [f"card.c{i}" for i in range(8)]
    lib = decision_key("k3", at, "lib")
    await deck.create_zone("k3", "lib", "deck", cards=cards, shuffle=True, key=lib)
    await deck.create_zone("k3", "hand.a", "hand", owner="a", key=decision_key("k3", at, "hand"))
    drawn = await deck.draw("k3", "lib", "a", 2, key=decision_key("k3", at, "draw"))
    other = DeckEngine(reopen(event_store), DiceEngine(reopen(event_store)))
    before = await event_store.version("deck-k3")
    again = await other.draw("k3", "lib", "a", 2, key=decision_key("k3", at, "draw"))
    made = await other.create_zone("k3", "lib", "deck", cards=cards, shuffle=True, key=lib)
    assert again == drawn and made.count == len(cards)
    assert await event_store.version("deck-k3") == before
    assert await draws(event_store, "k3") == 2  # the deal and one deck shuffle
    await other.store.close()


# --- a retried command is answered with its first result --------------------------------


async def test_a_retry_with_the_same_expected_version_answers_the_first_result(event_store):
    runner = runner_for(event_store)
    v = await new_toy(runner, "r1")
    first, dedup = await runner.submit("r1", Command("a", "ask_roll"), "c-1", expected=v)
    assert not dedup and first.version > v + 1  # the command, then chance's roll
    again, dedup = await runner_for(event_store).submit(
        "r1", Command("a", "ask_roll"), "c-1", expected=v
    )
    assert dedup and again.version == first.version
    assert await event_store.version(game_stream("r1")) == first.version


async def test_retrying_the_command_that_ended_the_game_answers_its_result(event_store):
    runner = runner_for(event_store)
    version = await new_toy(runner, "r2")
    n = 0
    while True:
        loaded = await runner.load("r2")
        seat = loaded.rules.pending(loaded.state).seat
        n += 1
        loaded, _ = await runner.submit("r2", Command(seat, "ask_roll"), f"c-{n}", version)
        if loaded.ended:
            break
        version = loaded.version
    again, dedup = await runner_for(event_store).submit(
        "r2", Command(seat, "ask_roll"), f"c-{n}", version
    )
    assert dedup and again.ended and again.version == loaded.version
    assert again.rules.outcome(again.state) == loaded.rules.outcome(loaded.state)


# --- a game left waiting for chance is answered exactly once ----------------------------


@pytest.mark.parametrize("drawn", [False, True], ids=["before-the-draw", "after-the-draw"])
async def test_the_clients_retry_answers_the_chance_a_crash_left(event_store, drawn):
    v = await new_toy(runner_for(event_store), "s1")
    await crash_after_command(event_store, "s1", "c-1", drawn)
    assert await waits_for_chance(event_store, "s1")
    before = await draws(event_store, "s1")
    again, dedup = await runner_for(reopen(event_store)).submit(
        "s1", Command("a", "ask_roll"), "c-1", expected=v
    )
    assert dedup and not await waits_for_chance(event_store, "s1")
    assert again.version == await event_store.version(game_stream("s1"))
    assert await draws(event_store, "s1") == before + (0 if drawn else 1)
    await finish_and_verify(event_store, "s1")


async def test_a_load_answers_the_chance_a_crash_left(event_store):
    await new_toy(runner_for(event_store), "s2")
    await crash_after_command(event_store, "s2", "c-1", draw=True)
    loaded = await runner_for(reopen(event_store)).current("s2")
    assert loaded.rules.pending(loaded.state).seat == "b"
    await finish_and_verify(event_store, "s2")


async def test_a_restarted_sweeper_answers_the_chance_a_crash_left(event_store):
    # given a sweeper that has seen the game open, then a crash leaving it waiting for chance
    await ChanceSweeper(runner_for(event_store), grace=0).sweep_once()
    await new_toy(runner_for(event_store), "s3")
    first = ChanceSweeper(runner_for(event_store), grace=0)
    assert await first.sweep_once() == 0
    await crash_after_command(event_store, "s3", "c-1", draw=False)
    # when a new process's sweeper starts from the checkpoint and sweeps
    other = reopen(event_store)
    assert await ChanceSweeper(runner_for(other), grace=0).sweep_once() == 1
    # then the game goes on, and a second sweep finds nothing to do
    assert not await waits_for_chance(event_store, "s3")
    assert await ChanceSweeper(runner_for(other), grace=0).sweep_once() == 0
    await finish_and_verify(event_store, "s3")


async def test_a_served_store_answers_the_chance_a_crash_left_with_no_client(
    event_store, monkeypatch
):
    monkeypatch.setenv("FALLEN_PROJECTIONS", "external")  # only the rules matter here
    await new_toy(runner_for(event_store), "s4")
    await crash_after_command(event_store, "s4", "c-1", draw=False)
    backend = await serve(reopen(event_store), "127.0.0.1:0", extra_games=engines())
    try:
        for _ in range(200):
            if not await waits_for_chance(event_store, "s4"):
                break
            await asyncio.sleep(0.05)
        assert not await waits_for_chance(event_store, "s4"), "the served store left it stalled"
    finally:
        await backend.stop()
    await finish_and_verify(event_store, "s4")


async def test_a_crash_between_game_end_and_reveal_is_revealed_by_the_sweeper(tmp_path: Path):
    store = SqliteEventStore(tmp_path / "e.db")
    runner = runner_for(store)
    await new_toy(runner, "s5")
    loaded = await runner.load("s5")
    while (pending := loaded.rules.pending(loaded.state)) is not None:
        if pending.seat == CHANCE:
            key = decision_key("s5", loaded.version)
            cmd = await runner.draw("s5", pending.chance, key)
            events = loaded.rules.decide(loaded.state, cmd)
            await store.append(
                game_stream("s5"), loaded.version, [to_new_event(e, key) for e in events]
            )
        else:
            events = loaded.rules.decide(loaded.state, Command(pending.seat, "ask_roll"))
            await store.append(game_stream("s5"), loaded.version, [to_new_event(e) for e in events])
        loaded = await runner.load("s5")
    # the game is over but GameEnded and the reveal were never written
    assert await ChanceSweeper(runner_for(store), grace=0).sweep_once() == 1
    await ChanceSweeper(runner_for(store), grace=0).sweep_once()
    report = verify_game("s5", await store_records(store, "s5"), RULES_OF)
    assert report.verified, report.mismatch
    await store.close()


async def test_deck_decisions_answered_again_after_a_crash_deal_nothing_twice(event_store):
    # given a deck game whose every chance decision is first drawn by a process that dies
    # before appending the answer (the deck service and dice keep what it did)
    from services.rules.playout import pick
    from tests.support.deck_toy import RULES as DECKTOY

    runner = GameRunner(event_store, DiceEngine(event_store), {"decktoy": DECKTOY})
    await runner.create("decktoy", "dk1", {"a": "p", "b": "q"}, {})
    step = 0
    while True:
        loaded = await runner.load("dk1")
        pending = loaded.rules.pending(loaded.state)
        if loaded.ended or pending is None:
            break
        if pending.seat != CHANCE:
            cmd = pick(loaded.rules.legal_commands(loaded.state, pending.seat), "s", step)
            events = loaded.rules.decide(loaded.state, cmd)
            new = [to_new_event(e, f"c{step}") for e in events]
            key = command_key(loaded, cmd, f"c{step}")
            await event_store.append(game_stream("dk1"), loaded.version, new, key)
            step += 1
            continue
        assert pending.chance is not None
        await runner.draw("dk1", pending.chance, decision_key("dk1", loaded.version))
        # when another process answers the decision again
        await GameRunner(reopen(event_store), runner.dice, {"decktoy": DECKTOY}).current("dk1")
    # then the game ends and verifies: every deck call and draw happened once
    loaded = await runner.current("dk1")
    assert loaded.ended
    report = verify_game("dk1", await store_records(event_store, "dk1"), lambda g: DECKTOY)
    assert report.verified, report.mismatch
    assert report.unused_draws == ()


async def test_a_repeated_key_is_answered_even_after_the_game_ended(event_store):
    # given a finished game (seed revealed) and the key of its last roll
    runner = runner_for(event_store)
    await new_toy(runner, "k4")
    assert await advance(runner, "k4", random.Random(4), steps=200)
    rolls = [e for e in await event_store.read(dice_stream("k4")) if e.type == "DiceRolled"]
    last = rolls[-1].data
    # when a racing runner asks that decision again, then a new decision
    again = await runner.dice.roll("k4", last["purpose"], last["requested"], None, last["key"])
    # then it gets the recorded roll, while a new key is refused
    assert again.nonce == last["nonce"]
    with pytest.raises(RuleViolation, match="revealed"):
        await runner.dice.roll("k4", "toy", ["d6"], None, decision_key("k4", 999))


async def test_a_sweeper_saves_new_open_games_at_once_and_bare_feed_positions_seldom(
    event_store,
):
    import json

    runner = runner_for(event_store)
    sweeper = ChanceSweeper(runner, grace=3600)  # nothing is quiet long enough to resume
    await sweeper.sweep_once()
    # given a sweeper that saved its checkpoint when a game opened
    await new_toy(runner, "s9")
    await sweeper.sweep_once()
    saved = json.loads(await event_store.get_meta(sweeper.meta_key) or "{}")
    assert "s9" in saved["open"]
    # when the open game moves on (only feed positions change) and the sweeper sweeps again
    assert not await advance(runner, "s9", random.Random(9), steps=1)
    await sweeper.sweep_once()
    # then the checkpoint is not rewritten yet (a restart re-reads those events harmlessly)
    assert json.loads(await event_store.get_meta(sweeper.meta_key) or "{}") == saved
    # and a newly opened game is saved at once, with the positions reached
    await new_toy(runner, "s10")
    await sweeper.sweep_once()
    now = json.loads(await event_store.get_meta(sweeper.meta_key) or "{}")
    assert {"s9", "s10"} <= set(now["open"]) and now["positions"] > saved["positions"]
