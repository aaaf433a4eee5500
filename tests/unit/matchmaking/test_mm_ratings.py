"""Ratings from outcomes: winners rise, placements order players, bots are unrated."""

from __future__ import annotations

from services.matchmaking.model import RatingRow
from services.matchmaking.ratings import default_row, placements, rate
from services.platform.games import forfeit_outcome

SEATS = {"hero": "alice", "dungeon_lord": "bob"}


def test_the_winner_rises_and_the_loser_falls() -> None:
    groups = placements(SEATS, {"winner": "hero"})
    rows = {r.player: r for r in rate(SEATS, groups or [], {})}
    assert groups == [["hero"], ["dungeon_lord"]]
    assert rows["alice"].mu > default_row("alice").mu > rows["bob"].mu
    assert rows["alice"].games == rows["bob"].games == 1


def test_multiplayer_placements_order_the_ratings() -> None:
    seats = {f"p{i}": f"u{i}" for i in range(1, 7)}
    outcome = {"placements": [["p3"], ["p1"], ["p2", "p4"], ["p5"], ["p6"]]}
    rows = {r.player: r.mu for r in rate(seats, placements(seats, outcome) or [], {})}
    assert rows["u3"] > rows["u1"] > rows["u2"] >= rows["u5"] > rows["u6"]
    assert abs(rows["u2"] - rows["u4"]) < 1e-9


def test_a_forfeit_rates_like_a_loss() -> None:
    outcome = forfeit_outcome(list(SEATS), "hero")
    assert placements(SEATS, outcome) == [["dungeon_lord"], ["hero"]]


def test_bots_and_unranked_outcomes_change_no_player_row() -> None:
    seats = {"first": "carol", "second": "bot:worlds:0"}
    rows = rate(seats, placements(seats, {"winner": "second"}) or [], {})
    assert [r.player for r in rows] == ["carol"]
    assert rows[0].mu < default_row("carol").mu
    assert placements(SEATS, {"winner": None}) is None
    assert placements(SEATS, {"placements": [["nobody"]]}) is None


def test_previous_ratings_are_the_starting_point() -> None:
    old = {"alice": RatingRow("alice", 30.0, 2.0, 7)}
    rows = {r.player: r for r in rate(SEATS, [["dungeon_lord"], ["hero"]], old)}
    assert rows["alice"].games == 8
    assert 28.0 < rows["alice"].mu < 30.0


def test_shared_land_winners_share_first_place() -> None:
    # given a Land outcome whose tie-break left two winners ("winner" empty, "winners" both)
    seats = {f"p{i}": f"u{i}" for i in range(1, 5)}
    outcome = {"winner": "", "winners": ["p2", "p4"], "kind": "tiebreak", "scores": {}}
    # when it is rated
    groups = placements(seats, outcome)
    rows = {r.player: r.mu for r in rate(seats, groups or [], {})}
    # then both winners share first place and rise alike above the other two
    assert groups == [["p2", "p4"], ["p1", "p3"]]
    assert abs(rows["u2"] - rows["u4"]) < 1e-9 and rows["u2"] > rows["u1"]
    # and an outcome naming a seat the game does not have is unrated
    assert placements(seats, {"winners": ["p9"]}) is None
