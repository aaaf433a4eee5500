"""The rules runner answers deck requests through the deck service's stream deck-<game id>."""

from __future__ import annotations

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.deck.engine import deck_stream
from services.deck.zones import CARDS_DRAWN
from services.dice.engine import DiceEngine
from services.platform.envelope import NOBODY
from services.platform.games import game_stream
from services.platform.store.sqlite import SqliteEventStore
from services.rules.playout import pick
from services.rules.runner import GameRunner
from tests.support.deck_toy import RULES
from tests.support.projections_play import rechain


async def test_given_a_deck_game_when_run_then_the_deck_service_deals_every_card(tmp_path):
    # given a runner whose chance is the dice engine and the deck service over one store
    store = SqliteEventStore(tmp_path / "d.db")
    runner = GameRunner(store, DiceEngine(store), {"decktoy": RULES})
    loaded, _ = await runner.create("decktoy", "dt1", {"a": "p", "b": "q"}, {})
    # when both seats play random legal commands to the end
    step = 0
    while not loaded.ended:
        seat = RULES.pending(loaded.state).seat
        loaded, _ = await runner.submit(
            "dt1", pick(RULES.legal_commands(loaded.state, seat), "s", step)
        )
        step += 1
    # then the game stream holds no audit-only event and the deck stream dealt each draw:
    game = await store.read(game_stream("dt1"))
    deck = await store.read(deck_stream("dt1"))
    assert all(e.visibility != NOBODY for e in game)
    told = [e.data["cards"] for e in game if e.type == "CardDrawn"]
    dealt = [e.data["cards"] for e in deck if e.type == CARDS_DRAWN]
    assert told == dealt and len(told) == 6
    # and the deck was formed twice (opening, then the discard formed into it again)
    assert sum(e.type == "DeckFormed" for e in game) == 2
    # and the exported log verifies: every drawn card was the top of its deck at that moment
    records = await store_records(store, "dt1")
    report = verify_game("dt1", records, lambda game: RULES)
    assert report.verified, report.mismatch
    # but a log whose CardDrawn names another card (chain recomputed) does not
    at = next(i for i, r in enumerate(records) if r["type"] == "CardDrawn")
    forged = [dict(r) for r in records]
    forged[at] = dict(forged[at], data=dict(forged[at]["data"], cards=["card.forged"]))
    report = verify_game("dt1", rechain(forged, "game-dt1"), lambda game: RULES)
    assert not report.verified and "deck stream" in str(report.mismatch)
    await store.close()
