"""The statistics of `fallenctl balance`: Wilson 95% intervals and the tallies."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binomtest

from services.balance.contests import Played
from services.balance.run import tally
from services.balance.stats import Rate, wilson


@pytest.mark.parametrize(
    ("wins", "games", "low", "high"),
    [
        # published Wilson score intervals (95%), e.g. Newcombe (1998) table I: 0/10, 10/10
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (1, 10, 0.0179, 0.4042),
        (81, 263, 0.2553, 0.3662),  # Newcombe's 81/263 example: 0.2553 to 0.3662
        (504, 1000, 0.4731, 0.5349),  # the Fallen Hero figure of docs/games/fallen.md
    ],
)
def test_given_known_counts_when_wilson_then_matches_published_intervals(
    wins: int, games: int, low: float, high: float
) -> None:
    lo, hi = wilson(wins, games)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_given_any_counts_when_wilson_then_equals_scipy(counts: tuple[int, int]) -> None:
    wins, games = counts
    ci = binomtest(wins, games).proportion_ci(confidence_level=0.95, method="wilson")
    lo, hi = wilson(wins, games)
    assert lo == pytest.approx(ci.low, abs=1e-9)
    assert hi == pytest.approx(ci.high, abs=1e-9)
    assert lo <= wins / games <= hi


def test_given_no_games_when_wilson_then_whole_range_and_bad_counts_refused() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"within 0\.\.games"):
        wilson(3, 2)


def test_given_a_rate_when_shown_then_percent_interval_and_counts() -> None:
    rate = Rate(104, 200)
    assert rate.text() == " 52.0% [45.1, 58.8] 104/200"
    assert rate.as_dict() == {"wins": 104, "games": 200, "rate": 0.52, "low": 0.451, "high": 0.5882}


def test_given_played_games_when_tallied_then_cells_and_contestants_add_up() -> None:
    played = [
        Played(
            (("a", "b", True), ("b", "a", False)), (("faction", "a", True), ("seat", "p1", True))
        ),
        Played(
            (("a", "b", False), ("b", "a", True)), (("faction", "a", False), ("seat", "p1", False))
        ),
        Played(
            (("b", "a", True), ("a", "b", False)), (("faction", "b", True), ("seat", "p1", True))
        ),
    ]
    cells, who = tally(played)
    assert cells == {("a", "b"): Rate(1, 3), ("b", "a"): Rate(2, 3)}
    assert who == {
        ("faction", "a"): Rate(1, 2),
        ("faction", "b"): Rate(1, 1),
        ("seat", "p1"): Rate(2, 3),
    }
    assert list(who) == [("faction", "a"), ("faction", "b"), ("seat", "p1")]  # grouped
