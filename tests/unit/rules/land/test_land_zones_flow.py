"""Who sees which zone, and the order of play: I Effects, II Town Business, III Exploits, IV End."""

from __future__ import annotations

import itertools

import pytest

from services.rules.land.zones import ends_phase, next_step, seen_by, turn_order

SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")


def test_hands_and_rosters_are_seen_only_by_their_seat() -> None:
    assert seen_by("hand.p3", SEATS) == ("p3",)
    assert seen_by("roster.p6", SEATS) == ("p6",)


def test_face_down_decks_are_seen_by_nobody_and_tables_by_all() -> None:
    assert seen_by("deck.action", SEATS) == ()
    assert seen_by("deck.encounter_city_rad", SEATS) == ()
    assert seen_by("crown.p1.2", SEATS) == SEATS
    assert seen_by("auction.p2", SEATS) == SEATS
    assert seen_by("discard.spoils", SEATS) == SEATS
    with pytest.raises(ValueError):
        seen_by("attic.p1", SEATS)


def test_order_of_play_walks_every_sub_phase_and_wraps_to_a_new_turn() -> None:
    step, seen, new_turn = ("effects", "resolve"), [], False
    while not new_turn:
        seen.append(step)
        *step_, new_turn = next_step(*step)
        step = (step_[0], step_[1])
    assert seen == [
        ("effects", "resolve"),
        ("town_business", "deal"),
        ("town_business", "production"),
        ("town_business", "auction_house"),
        ("town_business", "town_events"),
        ("town_business", "sell"),
        ("town_business", "purchase"),
        ("town_business", "hire"),
        ("party_exploits", "npcms"),
        ("party_exploits", "parties"),
        ("end_turn", "turn_marker"),
    ]
    assert step == ("effects", "resolve")


def test_victory_is_checked_after_the_last_sub_phase_of_each_phase() -> None:
    assert ends_phase("town_business", "hire") and not ends_phase("town_business", "deal")
    assert ends_phase("party_exploits", "parties") and ends_phase("effects", "resolve")


def test_turn_order_starts_with_the_first_player() -> None:
    assert turn_order(SEATS, "p4") == ["p4", "p5", "p6", "p1", "p2", "p3"]


def test_end_turn_advances_the_turn_marker_and_passes_first_player_to_the_next_seat() -> None:
    # IV End Turn: "A. Adjust the Turn Marker"; the next first player is the next seat
    # (docs/games/land.md register 6)
    from services.rules.engine.api import Setup
    from services.rules.land import RULES
    from services.rules.playout import play

    # given a four-player game played for three turns
    seats = {f"p{k}": f"u{k}" for k in range(1, 5)}
    p = play(RULES, Setup(seats, {"max_turns": 3}), "end-turn", "end-turn")
    starts = [e.data for e in p.events if e.type == "turn_started"]
    # then each turn starts one later, led by the seat after the last turn's first player
    assert [s["turn"] for s in starts] == [1, 2, 3]
    order = list(seats)
    for before, after in itertools.pairwise(starts):
        assert after["first"] == order[(order.index(before["first"]) + 1) % len(order)]
