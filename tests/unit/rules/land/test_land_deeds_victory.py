"""Deed costs in weeks, the deficit, victory at the end of a phase and the tie-break."""

from __future__ import annotations

import pytest

from services.platform.errors import RuleViolation
from services.rules.land.deeds import Weeks, deed_cost, gain, new_turn, spend
from services.rules.land.victory import Standing, check_end_of_phase, clamp_track, thresholds


@pytest.mark.parametrize(
    ("deed", "weeks"),
    [
        ("movement", 1),
        ("encounter", 1),
        ("pvp", 1),
        ("resource", 2),
        ("healing", 2),
        ("mission", 3),
    ],
)
def test_each_deed_costs_its_weeks(deed: str, weeks: int) -> None:
    # given a fresh turn of 4 weeks, when the deed is done, then its weeks are spent
    assert deed_cost(deed) == weeks
    assert spend(Weeks(4), deed) == Weeks(4 - weeks, 0)


def test_unknown_deed_is_refused() -> None:
    with pytest.raises(RuleViolation):
        deed_cost("nap")


def test_overspending_carries_a_deficit_into_next_turn() -> None:
    # given 1 week left, when a mission (3 weeks) starts, then 2 weeks are owed
    after = spend(Weeks(1), "mission")
    assert after == Weeks(0, 2)
    # then next turn has 4 - 2 = 2 weeks and no deficit
    assert new_turn(after) == Weeks(2, 0)


def test_a_deficit_larger_than_a_turn_carries_on() -> None:
    assert new_turn(Weeks(0, 6)) == Weeks(0, 2)
    assert new_turn(Weeks(0, 2)) == Weeks(2, 0)


def test_no_deed_without_a_week_left() -> None:
    with pytest.raises(RuleViolation):
        spend(Weeks(0), "movement")


def test_cards_add_or_take_weeks() -> None:
    assert gain(Weeks(2), 1) == Weeks(3, 0)
    assert gain(Weeks(1), -2) == Weeks(0, 1)


def test_thresholds_standard_and_short() -> None:
    assert thresholds({}) == (20, 80)
    assert thresholds({"short_game": True}) == (10, 50)


def _st(p: int, th: int, r: int = 0) -> Standing:
    return Standing(p, th, r)


def test_single_player_reaching_prestige_wins() -> None:
    v = check_end_of_phase({"p1": _st(20, 40), "p2": _st(19, 79)}, {}, turn=3, last_phase=False)
    assert v is not None and v.winners == ("p1",) and v.kind == "prestige"


def test_town_health_victory() -> None:
    v = check_end_of_phase({"p1": _st(5, 80), "p2": _st(19, 79)}, {}, turn=3, last_phase=False)
    assert v is not None and v.winners == ("p1",) and v.kind == "town_health"


def test_nobody_reaching_means_play_on() -> None:
    assert (
        check_end_of_phase({"p1": _st(19, 79), "p2": _st(1, 30)}, {}, turn=3, last_phase=True)
        is None
    )


def test_tiebreak_one_prestige_is_four_town_health_then_resources() -> None:
    # given both reach at once: 20*4+40 = 120 vs 10*4+80 = 120, resources 2 vs 1
    v = check_end_of_phase(
        {"p1": _st(20, 40, 2), "p2": _st(10, 80, 1)}, {}, turn=3, last_phase=False
    )
    assert v is not None and v.winners == ("p1",) and v.kind == "tiebreak"
    # given equal scores and resources, then the win is shared
    v = check_end_of_phase(
        {"p1": _st(20, 40, 1), "p2": _st(10, 80, 1)}, {}, turn=3, last_phase=False
    )
    assert v is not None and v.winners == ("p1", "p2")


def test_short_game_wins_at_ten_prestige() -> None:
    v = check_end_of_phase({"p1": _st(10, 30), "p2": _st(1, 30)}, {"short_game": True}, 1, False)
    assert v is not None and v.winners == ("p1",)


def test_turn_limit_ends_after_the_last_phase_of_that_turn() -> None:
    s = {"p1": _st(3, 30), "p2": _st(2, 35)}
    assert check_end_of_phase(s, {"max_turns": 5}, turn=5, last_phase=False) is None
    v = check_end_of_phase(s, {"max_turns": 5}, turn=5, last_phase=True)
    # then the tie-break decides: 4*3+30 = 42 against 4*2+35 = 43
    assert v is not None and v.winners == ("p2",) and v.kind == "turn_limit"


def test_tracks_are_clamped() -> None:
    assert clamp_track("prestige", 25) == 20 and clamp_track("prestige", -1) == 0
    assert clamp_track("town_health", 90) == 80
