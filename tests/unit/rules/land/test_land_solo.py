"""Solo Variant I: each rule tested by the sentence of the expansion it enforces."""

from __future__ import annotations

from collections import Counter

import pytest

from services.platform.errors import InvalidArgument
from services.rules.engine.api import Setup
from services.rules.land import RULES
from services.rules.land.data import card, catalog, deck_cards
from services.rules.land.setup import setup_numbers, validate_options
from services.rules.land.solo import buy_options, solo_price
from services.rules.land.solo_decks import RED_DOT_DECKS, solo_deck
from services.rules.land.state import DECK_NAMES
from services.rules.land.victory import Standing, solo_end
from services.rules.playout import play

SOLO1 = {"variant": "solo1"}
TOTAL_CARDS = sum(len(solo_deck(d, SOLO1)) for d in DECK_NAMES)


def test_red_dot_cards_are_removed_from_action_encounter_and_mission_decks() -> None:
    # "Remove all cards with the Red Dot next to their titles from the Action, Encounter and
    # Mission decks. Place them in the box."
    for name in DECK_NAMES:
        # given the solo deck and the core deck
        solo, core = solo_deck(name, SOLO1), deck_cards(name, 1)  # the original card data
        red = [c for c in core if card(c).get("red_dot")]
        # then exactly the Red Dot cards of those decks are gone
        if name in RED_DOT_DECKS:
            assert red and set(solo) == set(core) - set(red)
        else:
            assert solo == core


def test_solo_setup_numbers() -> None:
    # "Deal yourself 6 Character cards, 10 Spoils cards and 3 Action cards. Then retrieve 10
    # Salvage Coins." / "attach your five Characters ... The sixth Character is placed face down
    # in your Town Roster."
    n = setup_numbers(1, validate_options(SOLO1))
    assert (n.characters, n.spoils, n.action, n.salvage) == (6, 10, 3, 10)
    assert (n.crowned, n.roster) == (5, 1)
    assert (n.town_health, n.prestige) == (30, 1)  # "30 Town Health and 1 Prestige"


def test_solo_is_one_seat_and_standard_stays_two_to_six() -> None:
    # given a solo variant with two seats, or the standard game with one, then both are refused
    with pytest.raises(InvalidArgument, match="seats"):
        RULES.initial_events("g", Setup({"p1": "a", "p2": "b"}, SOLO1))
    with pytest.raises(InvalidArgument, match="seats"):
        RULES.initial_events("g", Setup({"p1": "a"}, {}))


def test_the_player_always_goes_first_without_a_roll() -> None:
    # "The First Player: The player functions as the First Player; always going first."
    p = play(RULES, Setup({"p1": "u1"}, {"variant": "solo1", "max_turns": 1}), "f", "f")
    assert p.state.var("first") == "p1"
    assert not [e for e in p.events if e.type == "first_player_rolled"]


def test_setup_deals_and_crowns_five_with_one_in_the_roster() -> None:
    # "attach your five Characters to the numbered Character Crowns. The sixth Character is
    # placed face down in your Town Roster."
    p = play(RULES, Setup({"p1": "u1"}, {"variant": "solo1", "max_turns": 1}), "c", "c")
    first_turn = next(i for i, e in enumerate(p.events) if e.type == "turn_started")
    state = RULES.initial_state()
    for ev in p.events[:first_turn]:
        state = RULES.evolve(state, ev)
    crowned = [k for k in range(1, 6) if state.zone(f"crown.p1.{k}")]
    assert len(crowned) == 5 and len(state.zone("roster.p1")) == 1


def test_event_cards_cost_five_and_others_their_value() -> None:
    # "If drawn during the Auction House Sub-Phase, you may purchase them for 5 Salvage Coins"
    events = [c for c in catalog().decks["spoils"] if "event" in card(c)["types"]]
    others = [c for c in catalog().decks["spoils"] if "event" not in card(c)["types"]]
    assert events and all(solo_price(c) == 5 for c in events)
    assert all(solo_price(c) == int(card(c)["value"]) for c in others)


def test_auction_house_offers_only_what_the_player_can_pay() -> None:
    # "The player may purchase two of them from the Bank at their listed Salvage Coin value."
    cheap = min(catalog().decks["spoils"], key=solo_price)
    dear = max(catalog().decks["spoils"], key=solo_price)
    opts = buy_options([cheap, dear], solo_price(cheap))
    assert ("buy", {"card": cheap, "from": "bank"}) in opts
    assert ("buy", {"card": dear, "from": "bank"}) not in opts
    assert opts[0] == ("pass", {})


def test_auction_house_draws_three_buys_at_most_two_and_discards_the_rest() -> None:
    # "draw three Spoils cards from the Spoils deck and place them face up. The player may
    # purchase two of them ... Unpurchased cards are then placed in the discard pile."
    seen = 0
    for i in range(3):
        setup = Setup({"p1": "u1"}, {"variant": "solo1", "max_turns": 2})
        p = play(RULES, setup, f"a{i}", f"a{i}")
        # given each Auction House sub-phase of the game
        starts = [k for k, e in enumerate(p.events) if e.type == "phase_started"]
        for k, e in enumerate(p.events):
            if e.type != "phase_started" or e.data["subphase"] != "auction_house":
                continue
            end = next((j for j in starts if j > k), len(p.events))
            window = p.events[k:end]
            drawn = [w for w in window if w.type == "zone_set" and w.data["zone"] == "auction.bank"]
            bought = [w for w in window if w.type == "auction_bought"]
            # then three cards are drawn face up, at most two bought from the Bank
            assert drawn and len(drawn[-1].data["cards"]) == 3
            assert len(bought) <= 2 and all(w.data["seller"] == "bank" for w in bought)
            seen += 1
        # and nothing stays on the Bank's Auction House after the sub-phase
        assert not p.state.zone("auction.bank")
    assert seen > 0


def test_solo_victory_records_kind_and_turns() -> None:
    # "Record the number of Turns it took you to achieve victory and document whether it was a
    # Town Health or Prestige Victory."
    opts = validate_options(SOLO1)
    v = solo_end({"p1": Standing(20, 40, 0)}, opts, 7, False)
    assert v is not None and v.winners == ("p1",) and v.kind == "prestige"
    v = solo_end({"p1": Standing(5, 80, 0)}, opts, 7, False)
    assert v is not None and v.kind == "town_health"
    assert solo_end({"p1": Standing(19, 79, 0)}, opts, 7, True) is None


def test_solo_turn_limit_is_a_loss() -> None:
    # given the max_turns option reached without 20 Prestige or 80 Town Health, then no winner
    opts = validate_options({"variant": "solo1", "max_turns": 3})
    v = solo_end({"p1": Standing(4, 40, 0)}, opts, 3, True)
    assert v is not None and v.winners == () and v.kind == "turn_limit"


@pytest.mark.parametrize("chunk", range(2))
def test_random_solo1_playouts_end_with_invariants_and_replay(chunk: int) -> None:
    for i in range(chunk * 12, (chunk + 1) * 12):
        opts = {"variant": "solo1", "short_game": i % 2 == 0, "max_turns": 1 + (i % 6 == 0)}
        p = play(RULES, Setup({"p1": "u1"}, opts), f"s1-{i}", f"s1-{i}")
        out = RULES.outcome(p.state)
        assert out is not None and out["kind"] in ("prestige", "town_health", "turn_limit")
        assert p.state.var("result")["turns"] >= 1
        in_zones = Counter(c for cards in p.state.zones.values() for c in cards)
        assert all(n == 1 for n in in_zones.values())
        in_decks = sum(p.state.count(f"deck.{d}") for d in DECK_NAMES)
        assert sum(in_zones.values()) + in_decks == TOTAL_CARDS
        assert not any(card(c).get("red_dot") for c in in_zones)
        assert 0 <= p.state.count("prestige.p1") <= 20 and 0 <= p.state.count("th.p1") <= 80
        state = RULES.initial_state()
        for ev in p.events:
            state = RULES.evolve(state, ev)
        assert RULES.state_hash(state) == RULES.state_hash(p.state)


def test_event_cards_received_at_setup_give_their_bonus() -> None:
    # "Event Cards: Found in the Spoils deck, these cards are received in the initial set up
    # and the player receives the bonus."
    from services.rules.land.flow import REGISTRY
    from tests.unit.rules.land.support import place_card, run_tasks

    # given a Solo I game whose set-up deal gave the player a Buried Cache (an Event: +6
    # Salvage Coins) and a Refugees Arrive (+3 Town Health)
    p = play(RULES, Setup({"p1": "u1"}, {"variant": "solo1", "max_turns": 1}), "ev", "ev")
    ctx = REGISTRY.ctx(p.state)
    ctx.tasks = []
    held = {c for cs in ctx.state.zones.values() for c in cs}
    cache = next(c for c in catalog().decks["spoils"] if c.startswith("ev_cache") and c not in held)
    refugees = next(
        c for c in catalog().decks["spoils"] if c.startswith("ev_refugees") and c not in held
    )
    for c in (cache, refugees):
        place_card(ctx, c, "stash.p1")
    salvage, th = ctx.state.count("salvage.p1"), ctx.state.count("th.p1")
    # when the set-up Events resolve
    run_tasks(ctx, ("events_at_setup", {"i": 0}))
    # then the player receives both bonuses and the Events go to the discard pile
    assert ctx.state.count("salvage.p1") == salvage + 6
    assert ctx.state.count("th.p1") == min(80, th + 3)
    assert {cache, refugees} <= set(ctx.state.zone("discard.spoils"))
    assert not ctx.state.zone("stash.p1")
