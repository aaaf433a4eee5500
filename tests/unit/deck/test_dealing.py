"""Dealing (services/deck/dealing.py): a repeated deck request answers as the first did and
appends nothing; an interrupted one is finished by its repeat; bad requests are refused
before any deck command."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from services.deck.dealing import DEALT, DealRequest, LocalDealing, part_key
from services.deck.engine import DeckEngine, deck_stream
from services.dice.engine import DiceEngine
from services.platform.decision import decision_key
from services.platform.envelope import NewEvent
from services.platform.errors import InvalidArgument, NotFound, RuleViolation
from services.platform.games import GAME_CREATED, game_stream
from services.platform.store.sqlite import SqliteEventStore

GAME = "dl1"
CARDS = tuple(f"c{i:02d}" for i in range(12))


@dataclass
class Table:
    store: SqliteEventStore
    engine: DeckEngine
    dealing: LocalDealing

    async def version(self) -> int:
        return await self.store.version(deck_stream(GAME))

    async def cards(self, zone: str) -> tuple[str, ...]:
        return (await self.engine.state(GAME)).get(zone).cards


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    """A game with seats a and b, its dice seed, a's (empty) hand and a 12-card deck "d"
    in order."""
    store = SqliteEventStore(tmp_path / "deal.db")
    seats = {"a": "pa", "b": "pb"}
    await store.append(game_stream(GAME), 0, [NewEvent(GAME_CREATED, {"seats": seats})])
    dice = DiceEngine(store)
    await dice.commit_seed(GAME)
    engine = DeckEngine(store, dice)
    dealing = LocalDealing(engine)
    await dealing.deal(GAME, DealRequest("deck_form", "d", CARDS, shuffled=False), key(1))
    await engine.create_zone(GAME, "hand-a", "hand", "a")
    yield Table(store, engine, dealing)
    await store.close()


def key(version: int) -> str:
    return decision_key(GAME, version)


REQUESTS = [
    DealRequest("deck_draw", "d", count=2, visible_to=("a",)),
    DealRequest("deck_draw", "d", count=3, visible_to=("a", "b")),
    DealRequest("deck_search", "d", count=1, match=("c07",), visible_to=("b",)),
    DealRequest("deck_move", "d", count=4, to="other", position="bottom"),
    DealRequest("deck_put", "d", cards=("x1", "x2"), position="top"),
    DealRequest("deck_form", "d", cards=("y1",), shuffled=True),
    DealRequest("deck_shuffle", "d"),
]


@pytest.mark.parametrize("req", REQUESTS, ids=lambda r: r.kind)
async def test_given_a_request_answered_when_it_is_repeated_then_the_answer_is_the_first(
    table: Table, req: DealRequest
) -> None:
    # given a deck request answered once under its decision key
    first = await table.dealing.deal(GAME, req, key(5))
    after = await table.version()
    # when the same request comes again (a retry after a lost answer)
    again = await table.dealing.deal(GAME, req, key(5))
    # then it answers the same and the deck stream did not change
    assert again == first and await table.version() == after


async def test_given_a_public_deal_cut_short_when_repeated_then_it_deals_the_same_cards(
    table: Table,
) -> None:
    # given a public deal of three cards of which only the first reached the dealt pile
    # (the process died after one of its keyed commands)
    await table.engine.create_zone(GAME, DEALT, "pile", key=part_key(key(7), "create", DEALT))
    await table.engine.discard(GAME, "c00", "d", DEALT, part_key(key(7), "deal", "d#0"))
    # when the request is made again under its key
    req = DealRequest("deck_draw", "d", count=3, visible_to=())
    dealt = await table.dealing.deal(GAME, req, key(7))
    # then it answers the three cards that were on top before it began, each dealt once
    assert dealt.cards == ("c00", "c01", "c02")
    assert await table.cards(DEALT) == ("c02", "c01", "c00")
    assert await table.cards("d") == CARDS[3:]


async def test_given_a_move_cut_short_when_repeated_then_the_original_top_cards_move(
    table: Table,
) -> None:
    # given a move of the top three cards to the bottom of "o" of which one was done
    req = DealRequest("deck_move", "d", count=3, to="o", position="bottom")
    await table.engine.create_zone(GAME, "o", "deck", key=part_key(key(9), "create", "o"))
    await table.engine.put_card(GAME, "c00", "d", "o", "bottom", part_key(key(9), "move", "d#0"))
    # when it is made again
    moved = await table.dealing.deal(GAME, req, key(9))
    # then exactly the three original top cards moved, in order, and the count left is 9
    assert moved.count == 9
    assert await table.cards("o") == ("c00", "c01", "c02")


@pytest.mark.parametrize(
    ("req", "error", "text"),
    [
        (DealRequest("deck_peek", "d"), InvalidArgument, "kind"),
        (DealRequest("deck_draw", "bad name!", count=1), InvalidArgument, "deck"),
        (
            DealRequest("deck_put", "d", cards=("x",), position="middle"),
            InvalidArgument,
            "position",
        ),
        (DealRequest("deck_search", "d", count=1, match=("c01",)), InvalidArgument, "visible_to"),
        (DealRequest("deck_search", "d", count=0, visible_to=("a",)), InvalidArgument, "count"),
        (DealRequest("deck_draw", "nope", count=1, visible_to=("a",)), NotFound, "nope"),
        (DealRequest("deck_draw", "d", count=13, visible_to=("a",)), RuleViolation, "holds 12"),
        (DealRequest("deck_draw", "d", count=13), RuleViolation, "holds 12"),
        (DealRequest("deck_move", "d", count=13, to="o"), RuleViolation, "holds 12"),
        (DealRequest("deck_draw", "d", count=1, visible_to=("zz",)), InvalidArgument, "owner"),
        (DealRequest("deck_form", "hand-a", cards=("q",)), RuleViolation, "not a deck"),
        (
            DealRequest("deck_search", "hand-a", count=1, match=("q",), visible_to=("b",)),
            RuleViolation,
            "not a deck",
        ),
        (DealRequest("deck_move", "d", count=1, to="hand-a"), RuleViolation, "not a deck"),
    ],
    ids=lambda v: v.kind if isinstance(v, DealRequest) else None,
)
async def test_given_a_bad_request_then_it_is_refused_with_its_reason_and_changes_nothing(
    table: Table, req: DealRequest, error: type[Exception], text: str
) -> None:
    before = await table.version()
    with pytest.raises(error, match=text):
        await table.dealing.deal(GAME, req, key(11))
    assert await table.version() == before


async def test_given_a_key_with_a_part_or_of_another_game_then_it_is_refused(table: Table) -> None:
    req = DealRequest("deck_shuffle", "d")
    with pytest.raises(InvalidArgument, match="key"):
        await table.dealing.deal(GAME, req, f"{key(3)}/x")
    with pytest.raises(InvalidArgument, match="key"):
        await table.dealing.deal(GAME, req, decision_key("other", 3))


async def test_given_draws_of_zero_then_nothing_is_dealt(table: Table) -> None:
    before = await table.version()
    for req in (
        DealRequest("deck_draw", "d", count=0, visible_to=("a",)),
        DealRequest("deck_move", "d", count=0, to="o"),
    ):
        done = await table.dealing.deal(GAME, req, key(13))
        assert done.cards == () and await table.version() == before
    assert (await table.dealing.deal(GAME, replace(req, count=0), key(13))).count == 12


async def test_given_a_sealed_deck_when_sealed_again_then_the_first_is_kept(tmp_path: Path) -> None:
    store = SqliteEventStore(tmp_path / "seal.db")
    dealing = LocalDealing(DeckEngine(store, DiceEngine(store)))
    # when a library is sealed before its game exists, then again (a retried create)
    assert await dealing.seal("s1", "lib.p1", ("a", "b", "c")) is True
    assert await dealing.seal("s1", "lib.p1", ("z",)) is False
    # then the first deck stays
    assert (await dealing.engine.state("s1")).get("lib.p1").cards == ("a", "b", "c")
    await store.close()
