"""A card's stats in play are those of the game's own card data, whatever ran before."""

from __future__ import annotations

from services.rules.worlds.board import Board, InPlay, Side, stats
from services.rules.worlds.cards import catalog, using


def _changed_creature() -> str:
    with using(1):
        one = {k: v.stats for k, v in catalog().cards.items() if v.type == "creature"}
    with using(2):
        two = {k: v.stats for k, v in catalog().cards.items() if v.type == "creature"}
    return next(k for k in sorted(one) if k in two and one[k] != two[k])


def test_stats_computed_under_one_version_never_serve_another() -> None:
    # given a creature whose numbers differ between card data 1 and 2, in play
    card = _changed_creature()
    board = Board(sides=(Side("p1"), Side("p2")), play=(InPlay(uid="c1", card=card, owner="p1"),))
    # when its stats are read under version 1, then under version 2 (a cache in between)
    with using(1):
        first = stats(board, "c1")
    with using(2):
        second = stats(board, "c1")
    # then each version's numbers come from its own card data
    assert first != second
