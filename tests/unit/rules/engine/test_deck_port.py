"""DeckServicePort performs each deck request kind against the deck service's stream."""

from __future__ import annotations

from services.deck.engine import DeckEngine
from services.dice.engine import DiceEngine
from services.platform.envelope import NewEvent
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import ChanceRequest
from services.rules.engine.deck import DEALT, DeckServicePort


async def test_given_a_game_when_each_deck_kind_is_asked_then_the_deck_stream_does_it(tmp_path):
    # given a game and the deck service over a real store
    store = SqliteEventStore(tmp_path / "p.db")
    await store.append("game-p1", 0, [NewEvent("GameCreated", {"seats": {"a": "x", "b": "y"}})])
    dice = DiceEngine(store)
    await dice.commit_seed("p1")
    engine = DeckEngine(store, dice)
    port = DeckServicePort(engine)

    async def ask(kind: str, **fields: object) -> dict[str, object]:
        return dict((await port.answer("p1", ChanceRequest(kind, "test", **fields))).args)  # type: ignore[arg-type]

    # when a deck is formed in order, cards are put on top and bottom, searched and drawn
    assert await ask("deck_form", deck="d", cards=("c1", "c2"), shuffled=False) == {
        "deck": "d",
        "count": 2,
    }
    assert (await ask("deck_put", deck="d", cards=("t1", "t2"), position="top"))["count"] == 4
    assert (await ask("deck_put", deck="d", cards=("z",), position="bottom"))["count"] == 5
    assert (await engine.state("p1")).get("d").cards == ("t1", "t2", "c1", "c2", "z")
    found = await ask("deck_search", deck="d", match=("c2", "nope"), count=1, visible_to=("a",))
    drawn = await ask("deck_draw", deck="d", count=2, visible_to=("b",))
    public = await ask("deck_draw", deck="d", count=1, visible_to=("a", "b"))
    # then each answer names what the deck stream did, and the cards went where it says
    assert found["cards"] == ["c2"] and drawn["cards"] == ["t1", "t2"] and public["cards"] == ["c1"]
    state = await engine.state("p1")
    assert state.get("hand-a").cards == ("c2",) and state.get("hand-b").cards == ("t1", "t2")
    assert state.get(DEALT).cards == ("c1",) and state.get("d").cards == ("z",)
    # and cards put back come out of the hand they were dealt to, then the deck is reshuffled
    back = await ask("deck_form", deck="d", cards=("t1", "c2"), shuffled=True)
    assert back["count"] == 3 and (await ask("deck_shuffle", deck="d"))["count"] == 3
    state = await engine.state("p1")
    assert sorted(state.get("d").cards) == ["c2", "t1", "z"] and state.get("hand-b").cards == (
        "t2",
    )
    await store.close()
