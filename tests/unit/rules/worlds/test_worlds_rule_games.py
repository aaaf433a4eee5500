"""Whole games played with the pure rule steps: cards conserved, Capital consistent, games end."""

from __future__ import annotations

from collections import Counter

import pytest

from services.rules.worlds import vocab
from services.rules.worlds.board import health_left
from services.rules.worlds.effects import run
from services.rules.worlds.search import heuristic
from services.rules.worlds.simulate import SEATS, Game, play
from services.rules.worlds.table import Table

GAMES = 30


def _cards_of(game: Game, seat: str) -> Counter[str]:
    board = game.table.board
    side = board.side(seat)
    held = Counter(side.hand) + Counter(side.graveyard) + Counter(game.libraries[seat])
    for p in board.play:
        if p.owner == seat:
            held += Counter([p.card])
        # attachments sit on their owner's creatures
        if p.owner == seat:
            held += Counter(p.attached)
    return held


@pytest.mark.parametrize("n", range(GAMES))
def test_a_random_game_keeps_every_invariant(n: int) -> None:
    # given two starter decks of the rotating factions
    p1 = vocab.FACTIONS[n % 7]
    p2 = vocab.FACTIONS[(n * 3 + 1) % 7]
    # when a whole game is played with random legal choices
    game = play(f"rules-{n}", {"p1": p1, "p2": p2})
    table = game.table
    # then someone won by bringing the other to 0 Capital
    assert table.winner in SEATS
    assert table.board.side(table.board.other(table.winner)).capital <= 0
    for seat in SEATS:
        # every card of the deck is somewhere, exactly once
        assert _cards_of(game, seat) == Counter(game.decks[seat])
        assert table.board.side(seat).library == len(game.libraries[seat])
        # Capital is 20 plus every recorded change
        deltas = sum(
            e.data["delta"]
            for e in game.log
            if e.type == "capital_changed" and e.data["seat"] == seat
        )
        assert table.board.side(seat).capital == 20 + deltas
        assert table.board.side(seat).pool >= 0
    # nothing in play is dead, and folding the log again gives the same table
    assert all(health_left(table.board, p.uid) > 0 for p in table.board.play)
    assert run(Table(), game.log) == table
    # drawn cards were shown only to their drawer
    for event in game.log:
        if event.type == "card_drawn":
            assert event.visibility == (event.data["seat"],)


def test_the_heuristic_beats_random_play_most_of_the_time() -> None:
    # given the heuristic on alternating seats against random legal choices, over seeded games
    wins = 0
    for n in range(12):
        seat = SEATS[n % 2]
        game = play(
            f"bot-{n}",
            {"p1": vocab.FACTIONS[n % 7], "p2": vocab.FACTIONS[(n + 3) % 7]},
            {seat: heuristic},
        )
        wins += game.table.winner == seat
    # then it wins clearly more than half (90% over 40 games when measured)
    assert wins >= 9
