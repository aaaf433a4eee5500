"""The Epic game's setup as the engine plays it: each number of the expansion, in a real game.

Expansion, "rules modified for Epic play" / Epic set up: Action hand limit 8; the Bank holds
one less of each Town Technology than the number of players; Town Defense chips run out;
7 Characters, 11 Spoils, 4 Action cards and 15 Salvage Coins each, five crowned and two in
the Town Roster; the turn marker at 1/1; the first player by the lowest d10, ties re-rolled.
(setup_numbers is tested alone in test_land_setup_economy.py; this drives the engine.)
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable
from typing import Any

from services.rules.engine.api import CHANCE, Event
from services.rules.engine.dealer import Dealer
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.data import catalog, deck_cards, economy
from services.rules.land.flow import REGISTRY
from services.rules.land.party import CROWNS
from services.rules.playout import pick
from tests.unit.rules.land.support import place_card, run_tasks, setup

EPIC = [f"p{k}" for k in range(1, 7)]


def _created(n: int = 6, **options: Any) -> tuple[State, list[Event]]:
    """Return the state and events of a new game of n seats (setup up to its first chance)."""
    events = RULES.initial_events("g", setup(n, **options))
    state = RULES.initial_state()
    for ev in events:
        state = RULES.evolve(state, ev)
    return state, list(events)


def _play_until(
    state: State, events: list[Event], until: Callable[[State], bool], seed: str = "epic"
) -> State:
    """Play fair chance and random legal commands until `until(state)`; events are appended."""
    dealer = Dealer(hashlib.sha256(seed.encode()).digest(), "g")
    for step in range(20_000):
        if until(state):
            return state
        p = RULES.pending(state)
        assert p is not None, "the game ended first"
        cmd = dealer.answer(p.chance) if p.seat == CHANCE else None  # type: ignore[arg-type]
        if cmd is None:
            cmd = pick(RULES.legal_commands(state, p.seat), seed, step)
        new_events, state = RULES.step(state, cmd)
        events.extend(new_events)
    raise AssertionError("never reached")


def _turn_one(state: State) -> bool:
    return state.count("turn") == 1 and state.var("step") is not None


def test_each_epic_seat_starts_with_15_salvage_30_town_health_1_prestige() -> None:
    # given a game created with six seats
    state, _ = _created()
    # then it is the Epic game and every town starts with the Epic numbers
    assert state.var("epic") is True
    for seat in EPIC:
        assert state.count(f"salvage.{seat}") == 15  # "15 Salvage Coins each"
        assert (state.count(f"th.{seat}"), state.count(f"prestige.{seat}")) == (30, 1)


def test_the_epic_bank_holds_one_less_of_each_technology_than_players_and_30_defense() -> None:
    # "The Bank holds one less of each Town Technology than the number of players"
    state, _ = _created()
    for tech in economy()["techs"]:
        assert state.count(f"bank.tech.{tech}") == 6 - 1
    # "Town Defense chips run out": a counted supply (30, our number)
    assert state.count("bank.defense") == economy()["epic_defense_supply"] == 30
    # and a 2-5 player game has an unlimited Bank (no stock counters at all)
    core, _ = _created(5)
    assert core.var("epic") is False
    assert not [k for k in core.counters if k.startswith("bank.")]


def test_each_epic_seat_is_dealt_7_characters_11_spoils_and_4_action_cards() -> None:
    # given a six-seat game, when setup deals (before equipping)
    state, events = _created()
    state = _play_until(state, events, lambda s: _turn_one(s))
    # then the first deal of each seat is 7 Characters, 11 Spoils and 4 Action cards
    dealt = [
        (e.data["seat"], e.data["deck"], e.data["count"]) for e in events if e.type == "cards_dealt"
    ]
    want = [(s, d, n) for s in EPIC for d, n in (("characters", 7), ("spoils", 11), ("action", 4))]
    assert dealt[: len(want)] == want
    # and no card is handed out twice
    held = [c for z, cs in state.zones.items() for c in cs]
    assert len(held) == len(set(held))
    assert len(held) + sum(state.count(f"deck.{d}") for d in catalog().decks) == sum(
        len(deck_cards(d, 1))
        for d in catalog().decks  # a game of the original card data
    )


def test_five_crowned_two_in_the_roster_turn_marker_1_1_and_the_lowest_d10_goes_first() -> None:
    # given a six-seat game played through setup
    state, events = _created()
    state = _play_until(state, events, _turn_one)
    # then every party has five crowned Characters and two face down in the Town Roster
    for seat in EPIC:
        assert all(state.zone(f"crown.{seat}.{k}") for k in CROWNS)
        assert len(state.zone(f"roster.{seat}")) == 2
    # and the turn marker is at 1/1: turn 1, the first phase (Effects)
    assert state.count("turn") == 1 and state.var("step")[0] == "effects"
    # and the first player rolled the lowest d10; tied lowest seats rolled again
    rolls = [e.data["rolls"] for e in events if e.type == "first_player_rolled"]
    assert rolls and set(rolls[0]) == set(EPIC)
    for earlier, later in itertools.pairwise(rolls):
        low = min(earlier.values())
        assert sorted(later) == sorted(s for s, r in earlier.items() if r == low)
    last = rolls[-1]
    assert list(last.values()).count(min(last.values())) == 1
    assert state.var("first") == min(last, key=last.get)


def _hand_limit_asks(n_players: int, hand: int) -> bool:
    """Return whether the Deal's hand-limit step asks p1 to discard with `hand` cards."""
    state, events = _created(n_players)
    state = _play_until(state, events, _turn_one, seed=f"hand{n_players}")
    ctx = REGISTRY.ctx(state)
    for c in list(ctx.state.zone("hand.p1")):
        ctx.move(c, "hand.p1", "discard.action")
    deck = [
        c for c in catalog().decks["action"] if not any(c in cs for cs in ctx.state.zones.values())
    ]
    for c in deck[:hand]:
        place_card(ctx, c, "hand.p1")
    assert len(ctx.state.zone("hand.p1")) == hand
    run_tasks(ctx, ("hand_limit", {"seat": "p1"}))
    return ctx.pending is not None and ctx.pending["kind"] == "discard"


def test_the_epic_action_hand_limit_is_8_and_the_core_limit_7() -> None:
    # "Action card hand limit: 8" in the Epic game: 8 cards are kept, a 9th is discarded
    assert not _hand_limit_asks(6, 8)
    assert _hand_limit_asks(6, 9)
    # and in a 2-5 player game the limit is 7
    assert not _hand_limit_asks(3, 7)
    assert _hand_limit_asks(3, 8)
