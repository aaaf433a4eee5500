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


class _Clock:
    """A clock that advances a fixed step at every reading (the bot's own accounting)."""

    def __init__(self, step_ms: float) -> None:
        self.now, self.step = 0.0, step_ms / 1000

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def _deploy_decision() -> tuple[Game, list[search.Option]]:
    game = _mid_game()
    rich = with_side(game.table.board, replace(game.table.board.side("p1"), pool=9))
    turn = replace(game.table.turn, active="p1", phase="deploy")
    game.table = replace(game.table, board=rich, turn=turn)
    return game, action_options(game, "p1", deploy=True)


def test_a_time_budget_stops_the_rollouts_within_it_and_replays_with_its_rollout_count() -> None:
    # given a Deploy decision and a clock that moves 5 ms at every reading
    game, options = _deploy_decision()
    assert len(options) >= 2
    # when the search gets 100 ms
    pick, spent = search.search_within(game, "p1", options, search.Budget(100, clock=_Clock(5)))
    # then it made some rollouts, stopped before the cap, and took no more than its budget
    assert spent.searched and 0 < spent.rollouts < search.MAX_ROLLOUTS
    assert spent.within and spent.spent_ms <= 100
    # and the same seed with the recorded number of rollouts (no time limit) picks the same
    again, replay = search.search_within(
        game, "p1", options, search.Budget(1e9, max_rollouts=spent.rollouts, clock=_Clock(5))
    )
    assert (again, replay.rollouts) == (pick, spent.rollouts)


def test_decisions_outside_deploy_cost_no_rollouts() -> None:
    game, options = _deploy_decision()
    game.table = replace(game.table, turn=replace(game.table.turn, phase="combat"))
    _, spent = search.search_within(game, "p1", options, search.Budget(100, clock=_Clock(5)))
    assert not spent.searched and spent.rollouts == 0
