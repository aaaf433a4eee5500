"""The search bot: it reads only its information set, stays reproducible, and is scored fairly."""

from __future__ import annotations

from dataclasses import replace

import pytest

from services.rules.worlds import search
from services.rules.worlds.arena import wilson
from services.rules.worlds.board import with_side
from services.rules.worlds.simulate import Game, action_options, play_turn, start


def _mid_game() -> Game:
    game = start("search-test", {"p1": "uea", "p2": "draga"})
    game.policies = {"p1": search.heuristic, "p2": search.heuristic}
    for seat in ("p1", "p2", "p1", "p2"):
        play_turn(game, seat)
    return game


def _with_other_secrets(game: Game) -> Game:
    """The same public game, but p2's hand and both libraries hold other cards."""
    side = game.table.board.side("p2")
    board = with_side(game.table.board, replace(side, hand=("kee_rootwall",) * len(side.hand)))
    other = Game(seed=game.seed, table=replace(game.table, board=board), decks=dict(game.decks))
    other.libraries = {s: sorted(lib) for s, lib in game.libraries.items()}
    other.step = game.step
    return other


def test_a_determinization_does_not_depend_on_hidden_cards() -> None:
    # given a game in progress and a copy whose hidden cards differ
    game = _mid_game()
    twin = _with_other_secrets(game)
    # when p1 samples what it cannot see, then both samples are the same
    a, b = search.determinize(game, "p1", "s"), search.determinize(twin, "p1", "s")
    assert a.table == b.table and a.libraries == b.libraries
    # and the sample keeps the public counts
    assert len(a.table.board.side("p2").hand) == len(game.table.board.side("p2").hand)
    assert len(a.libraries["p2"]) == game.table.board.side("p2").library


def test_search_picks_the_same_legal_option_for_the_same_information() -> None:
    game = _mid_game()
    turn = replace(game.table.turn, active="p1", phase="deploy")
    game.table = replace(game.table, turn=turn)
    options = action_options(game, "p1", deploy=True)
    pick = search.search(game, "p1", options)
    assert 0 <= pick < len(options)
    assert search.search(_with_other_secrets(game), "p1", options) == pick


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"), [(0, 10, 0.0, 0.2775), (100, 200, 0.4314, 0.5686)]
)
def test_wilson_interval(wins: int, games: int, low: float, high: float) -> None:
    got = wilson(wins, games)
    assert got == pytest.approx((low, high), abs=1e-3)
