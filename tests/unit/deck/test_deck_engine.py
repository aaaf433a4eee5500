"""DeckEngine on the SQLite store with the real DiceEngine: commands, retries, audit."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.deck import zones
from services.deck.audit import verify_deck
from services.deck.engine import DeckEngine, deck_stream
from services.dice import fair
from services.dice.engine import DiceEngine, dice_stream
from services.platform.envelope import NewEvent
from services.platform.errors import AlreadyExists, NotFound, RuleViolation
from services.platform.games import GAME_CREATED, GAME_ENDED, game_stream
from services.platform.store.sqlite import SqliteEventStore

GAME = "g1"
CARDS = [f"card.{i:02d}" for i in range(30)]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteEventStore]:
    s = SqliteEventStore(tmp_path / "events.db")
    try:
        yield s
    finally:
        await s.close()


@pytest.fixture
async def engine(store: SqliteEventStore) -> DeckEngine:
    """Return a deck engine for game g1 (seats hero, dungeon_lord; dice seed committed)."""
    seats = {"hero": "p1", "dungeon_lord": "p2"}
    await store.append(game_stream(GAME), 0, [NewEvent(GAME_CREATED, {"seats": seats})])
    dice = DiceEngine(store)
    await dice.commit_seed(GAME)
    deck = DeckEngine(store, dice)
    await deck.create_zone(GAME, "discard", zones.PILE)
    for seat in seats:
        await deck.create_zone(GAME, f"hand.{seat}", zones.HAND, seat)
    return deck


async def test_create_shuffled_deck_then_draw_gives_the_top_of_the_shuffled_order(
    engine: DeckEngine, store: SqliteEventStore
) -> None:
    created = await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS, shuffle=True)
    assert created.count == 30 and created.version == await store.version(deck_stream(GAME))
    events = await store.read(deck_stream(GAME))
    (shuffled,) = [e for e in events if e.type == "DeckShuffled"]
    (drawn_dice,) = [e for e in await store.read(dice_stream(GAME)) if e.data.get("order")]
    assert shuffled.data["nonce"] == drawn_dice.data["nonce"] == 0
    assert shuffled.data["order"] == drawn_dice.data["order"]
    assert shuffled.data["before"] == CARDS
    res = await engine.draw(GAME, "deck", "hero", 5)
    assert res.cards == tuple(shuffled.data["after"][:5])
    assert await engine.hand(GAME, "hero") == res.cards
    assert await engine.count(GAME, "deck") == 25


async def test_a_retried_draw_returns_the_first_result_and_appends_nothing(
    engine: DeckEngine, store: SqliteEventStore
) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS[:3])
    first = await engine.draw(GAME, "deck", "hero", 2, command_id="draw-1")
    version = await store.version(deck_stream(GAME))
    again = await engine.draw(GAME, "deck", "hero", 2, command_id="draw-1")
    assert again == first and first.version == version
    assert await store.version(deck_stream(GAME)) == version
    other = await engine.draw(GAME, "deck", "hero", 1, command_id="draw-2")
    assert other.cards == (CARDS[2],)


async def test_refused_commands_append_nothing_and_use_no_nonce(
    engine: DeckEngine, store: SqliteEventStore
) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS[:2])
    version = await store.version(deck_stream(GAME))
    with pytest.raises(RuleViolation):
        await engine.draw(GAME, "deck", "hero", 3)
    with pytest.raises(RuleViolation):
        await engine.shuffle(GAME, "discard")
    with pytest.raises(NotFound):
        await engine.shuffle(GAME, "nope")
    with pytest.raises(NotFound):
        await engine.create_zone("unknown-game", "deck", zones.DECK, "", CARDS)
    assert await store.version(deck_stream(GAME)) == version
    assert await store.version(dice_stream(GAME)) == 1  # only the commitment


async def test_shuffle_needs_a_committed_seed(store: SqliteEventStore) -> None:
    await store.append(game_stream("g2"), 0, [NewEvent(GAME_CREATED, {"seats": {"hero": "p"}})])
    deck = DeckEngine(store, DiceEngine(store))
    await deck.create_zone("g2", "deck", zones.DECK, "", CARDS)
    with pytest.raises(NotFound, match="seed"):
        await deck.shuffle("g2", "deck")
    assert await store.version(deck_stream("g2")) == 2


async def test_concurrent_shuffles_all_land_and_burn_no_nonce(
    engine: DeckEngine, store: SqliteEventStore
) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS)
    results = await asyncio.gather(*(engine.shuffle(GAME, "deck") for _ in range(5)))
    assert sorted(r.nonce for r in results) == [0, 1, 2, 3, 4]
    deck_events = await store.read(deck_stream(GAME))
    nonces = sorted(e.data["nonce"] for e in deck_events if e.type == "DeckShuffled")
    assert nonces == [0, 1, 2, 3, 4]
    assert await store.version(dice_stream(GAME)) == 6  # the commitment and five draws


async def test_concurrent_retries_of_one_draw_draw_once(engine: DeckEngine) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS)
    draws = (engine.draw(GAME, "deck", "hero", 3, "same") for _ in range(4))
    results = await asyncio.gather(*draws)
    assert len(set(results)) == 1 and results[0].cards == tuple(CARDS[:3])
    assert await engine.count(GAME, "deck") == 27


async def test_a_draw_id_is_per_seat_and_reusing_it_for_another_draw_is_refused(
    engine: DeckEngine,
) -> None:
    # given the hero drew 2 cards with command id c-1
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS)
    hero = await engine.draw(GAME, "deck", "hero", 2, "c-1")
    # when the dungeon lord draws with the same id, and the hero reuses it for 3 cards
    lord = await engine.draw(GAME, "deck", "dungeon_lord", 1, "c-1")
    with pytest.raises(AlreadyExists, match="c-1"):
        await engine.draw(GAME, "deck", "hero", 3, "c-1")
    # then the lord drew his own card, the hero's retry is his first draw, nothing else moved
    assert lord.cards == (CARDS[2],) and lord.version > hero.version
    assert await engine.draw(GAME, "deck", "hero", 2, "c-1") == hero
    assert await engine.count(GAME, "deck") == 27


async def test_concurrent_draws_conserve_cards(engine: DeckEngine) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS, shuffle=True)
    draws = [engine.draw(GAME, "deck", seat, 2) for seat in ("hero", "dungeon_lord") * 3]
    results = await asyncio.gather(*draws)
    drawn = [c for r in results for c in r.cards]
    assert len(set(drawn)) == 12
    hands = await engine.hand(GAME, "hero") + await engine.hand(GAME, "dungeon_lord")
    assert Counter(hands) == Counter(drawn)
    assert await engine.count(GAME, "deck") == 18


async def test_a_whole_game_verifies_from_the_revealed_seed(
    engine: DeckEngine, store: SqliteEventStore
) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS, shuffle=True)
    drawn = await engine.draw(GAME, "deck", "hero", 4)
    for card in drawn.cards[:3]:
        await engine.discard(GAME, card, "hand.hero", "discard")
    await engine.put_card(GAME, drawn.cards[3], "hand.hero", "deck", zones.BOTTOM)
    found = await engine.search(GAME, "deck", "dungeon_lord", "card.1", (), 2, shuffle_after=True)
    assert len(found.cards) == 2 and found.nonce == 1
    re = await engine.reshuffle_discard(GAME, "discard", "deck")
    assert re.count == 28 and re.nonce == 2
    assert (await engine.shuffle(GAME, "deck")).nonce == 3
    with pytest.raises(RuleViolation):
        await engine.reshuffle_discard(GAME, "deck", "discard")

    await store.append(game_stream(GAME), 1, [NewEvent(GAME_ENDED, {})])
    await engine.dice.reveal(GAME)  # type: ignore[attr-defined]
    deck_events = await store.read(deck_stream(GAME))
    dice_events = await store.read(dice_stream(GAME))
    result = verify_deck(GAME, deck_events, dice_events)
    assert result.ok, result.mismatch
    assert result.checked == 4 and result.state == await engine.state(GAME)

    seed = bytes.fromhex(dice_events[-1].data["server_seed"])
    for env in deck_events:
        if env.type == "DeckShuffled":
            d = env.data
            order = fair.shuffle(fair.Draws(seed, GAME, "", d["nonce"]), range(len(d["before"])))
            assert d["after"] == [d["before"][i] for i in order]


async def test_verify_reports_a_tampered_shuffle(
    engine: DeckEngine, store: SqliteEventStore
) -> None:
    await engine.create_zone(GAME, "deck", zones.DECK, "", CARDS, shuffle=True)
    await store.append(game_stream(GAME), 1, [NewEvent(GAME_ENDED, {})])
    await engine.dice.reveal(GAME)  # type: ignore[attr-defined]
    deck_events = await store.read(deck_stream(GAME))
    dice_events = await store.read(dice_stream(GAME))
    from dataclasses import replace

    tampered = [
        replace(e, data={**e.data, "after": sorted(e.data["after"])})
        if e.type == "DeckShuffled"
        else e
        for e in deck_events
    ]
    result = verify_deck(GAME, tampered, dice_events)
    assert not result.ok and "after" in result.mismatch
    assert not verify_deck(GAME, deck_events, dice_events[:-1]).ok
