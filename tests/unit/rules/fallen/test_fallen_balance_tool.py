"""The balance measurement tool: its interval and its seeded games (figure: docs)."""

from __future__ import annotations

from services.rules.fallen.balance import wilson, winners


def test_given_half_the_games_won_then_the_wilson_interval_is_centred_and_narrows_with_n() -> None:
    lo, hi = wilson(50, 100)
    assert abs((lo + hi) / 2 - 0.5) < 1e-9 and 0.40 < lo < 0.41 and 0.59 < hi < 0.60
    lo2, hi2 = wilson(500, 1000)
    assert hi2 - lo2 < hi - lo


def test_given_the_same_seeds_when_measured_twice_then_the_winners_are_the_same() -> None:
    first = winners(2, "tool-test")
    assert sum(first.values()) == 2 and set(first) <= {"hero", "dungeon_lord"}
    assert winners(2, "tool-test") == first
