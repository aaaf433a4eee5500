"""Random legal playouts of the Worlds engine on the kernel: invariants on every game."""

from __future__ import annotations

from collections import Counter

import pytest

from services.bots.policies import policy_for
from services.rules.engine.api import Setup
from services.rules.playout import play
from services.rules.registry import load
from services.rules.worlds import vocab
from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import build_library
from services.rules.worlds.state import WorldsState

RULES = load("worlds")
PLAYOUTS = 1000  # the issue asks for at least 1,000 per CI run (about 55 s CPU)
BATCH = 50


def _check(n: int) -> None:
    decks = {"p1": vocab.FACTIONS[n % 7], "p2": vocab.FACTIONS[(n // 7 + n + 1) % 7]}
    result = play(RULES, Setup({"p1": "a", "p2": "b"}, {"decks": decks}), f"po-{n}", f"g{n}")
    state = result.state
    assert isinstance(state, WorldsState)
    table = state.table
    # the game ended with a winner whose opponent is out of Capital
    assert state.phase == "over" and state.winner in ("p1", "p2")
    assert table.board.side(table.board.other(state.winner)).capital <= 0
    for seat in ("p1", "p2"):
        side = table.board.side(seat)
        # every card of the deck is in the library (a count), hand, play or graveyard
        held = Counter(side.hand) + Counter(side.graveyard)
        for p in table.board.play:
            if p.owner == seat:
                held += Counter([p.card, *p.attached])
        deck = Counter(build_library(decks[seat], catalog()))
        assert sum(held.values()) + side.library == sum(deck.values())
        assert not held - deck
        # Capital is 20 plus every recorded change
        changes = [e.data["delta"] for e in result.events if e.type == "capital_changed"]
        mine = [
            e.data["delta"]
            for e in result.events
            if e.type == "capital_changed" and e.data["seat"] == seat
        ]
        assert side.capital == 20 + sum(mine) and len(mine) <= len(changes)
        # the opponent's view shows a hand count, never the cards
        view = RULES.view(state, table.board.other(seat))
        assert view["sides"][seat]["hand"] == len(side.hand)
    # no event is for nobody, drawn cards are shown to the drawer only
    for e in result.events:
        assert e.visibility != "nobody"
        if e.type == "card_drawn":
            assert e.visibility == (e.data["seat"],)
    # replay equals live
    replayed = RULES.initial_state()
    for e in result.events:
        replayed = RULES.evolve(replayed, e)
    assert RULES.state_hash(replayed) == RULES.state_hash(state)


@pytest.mark.parametrize("batch", range(PLAYOUTS // BATCH))
def test_random_playouts_keep_every_invariant(batch: int) -> None:
    for n in range(batch * BATCH, (batch + 1) * BATCH):
        _check(n)


def test_the_service_heuristic_plays_from_the_view_and_beats_random() -> None:
    # given the heuristic as the bot worker runs it: from the seat's view and legal commands
    heuristic = policy_for("worlds", "heuristic")
    wins = 0
    for n in range(6):
        seat = ("p1", "p2")[n % 2]
        setup = Setup({"p1": "a", "p2": "b"}, {"decks": {"p1": "uea", "p2": "draga"}})
        result = play(RULES, setup, f"h-{n}", f"h{n}", policies={seat: heuristic})
        wins += result.state.winner == seat
    # then it wins most games against random legal play
    assert wins >= 4
