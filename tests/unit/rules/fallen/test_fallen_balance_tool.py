"""The balance measurement tool: its interval and its seeded games (figure: docs)."""

from __future__ import annotations

from services.rules.fallen.balance import wilson, winners


def test_given_half_the_games_won_then_the_wilson_interval_is_centred_and_narrows_with_n() -> None:
    lo, hi = wilson(50, 100)
    assert abs((lo + hi) / 2 - 0.5) < 1e-9 and 0.40 < lo < 0.41 and 0.59 < hi < 0.60
    lo2, hi2 = wilson(500, 1000)
    assert hi2 - lo2 < hi - lo


def test_given_the_same_seeds_when_measured_in_two_parts_then_the_winners_add_up() -> None:
    # Given two seeded games; when they are played in one run, then again split by start
    first = winners(2, "tool-test")
    assert sum(first.values()) == 2 and set(first) <= {"hero", "dungeon_lord"}
    # Then the two parts replay the same games: their counts add up to the whole run's
    assert winners(1, "tool-test") + winners(1, "tool-test", start=1) == first
