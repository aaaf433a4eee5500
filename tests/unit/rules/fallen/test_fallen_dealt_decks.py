"""Fallen's face-down decks live in the deck service: the game stream reveals no order, the
deck stream deals every card, and the exported log verifies card by card."""

from __future__ import annotations

from collections import Counter

from services.audit.logfile import store_records
from services.audit.verify import verify_game
from services.deck.engine import deck_stream
from services.deck.zones import CARD_DISCARDED, CARDS_DRAWN, DECK_SHUFFLED
from services.dice.engine import DiceEngine
from services.platform.envelope import NOBODY
from services.platform.games import game_stream
from services.platform.store.sqlite import SqliteEventStore
from services.rules.engine.api import Setup
from services.rules.fallen import RULES
from services.rules.fallen.state import DL, HERO
from services.rules.playout import pick, play
from services.rules.runner import GameRunner
from tests.support.projections_play import rechain
from tests.unit.rules.fallen.fallen_harness import dealt_start

SEATS = {HERO: "h", DL: "d"}


def test_given_a_new_game_then_its_decks_are_counts_and_the_setup_reveals_no_order() -> None:
    # given a new game whose decks the deck service formed (the kernel's Dealer here)
    state = dealt_start("fresh")
    # then the engine holds no card of a face-down deck, only its count
    assert state.zone("treasure.deck") == () and state.count("deck.treasure.deck") > 0
    assert state.count("deck.hero.std.deck") == 20 and state.count("deck.creature.1.deck") > 4
    # and every seat's view shows the deck as a count
    view = RULES.view(state, HERO)
    assert view["zones"]["treasure.deck"] == {"count": state.count("deck.treasure.deck")}
    # and the creation events hold no audit-only ("nobody") event
    events = RULES.initial_events("fresh", Setup(SEATS))
    assert all(e.visibility != NOBODY for e in events)


def test_given_random_playouts_then_no_event_is_for_nobody() -> None:
    # "the game stream holds no nobody event: nothing in it reveals a face-down order"
    for i in range(3):
        p = play(RULES, Setup(SEATS), f"dealt-{i}", f"dealt{i}")
        assert RULES.outcome(p.state) is not None
        kinds = Counter(e.type for e in p.events)
        assert all(e.visibility != NOBODY for e in p.events), i
        assert kinds["deck_dealt"] > 10 and "zone_shuffled" not in kinds, i
        # and the engine's bookkeeping is no event of its own: the vars, the task queue and
        # the pending decision ride in each command's last public fact (kernel README)
        played = Counter(e.type for e in p.events[p.batches[0] :])  # after the creation
        assert not {"var_set", "vars_set", "vars_cleared"} & set(played), i
        assert kinds["flow"] < p.commands / 2, i
        assert sum("_flow" in e.data for e in p.events) > p.commands / 2, i


def test_given_new_games_then_their_log_is_facts_at_half_the_events_of_the_first_kernel() -> None:
    # "Engine bookkeeping (the task queue, the continuation) is not an event a player has to
    # read" / "Target: at most half today's events per Fallen game" (2,156 before the kernel)
    options = RULES.new_game_options({})
    total = 0
    for i in range(3):
        # when new games (record format 2) are played out
        p = play(RULES, Setup(SEATS, options), f"facts-{i}", f"facts{i}")
        played = Counter(e.type for e in p.events[p.batches[0] :])
        # then after the creation no event is bookkeeping: an answer with no other
        # consequence is the fact `answered`, and counter changes ride on their facts ...
        assert not {"flow", "var_set", "vars_set", "zone_set"} & set(played)
        assert played["answered"] > 0 and sum("_counters" in e.data for e in p.events) > 0
        # ... unless the change is the decision's only fact ("the Hero spends 3 Fortune")
        start = p.batches[0]
        for n in p.batches[1:]:
            kinds = {e.type for e in p.events[start : start + n] if e.visibility == "public"}
            assert "counter_changed" not in kinds or kinds == {"counter_changed"}
            start += n
        total += len(p.events)
    assert total / 3 <= 2156 / 2


async def test_given_a_fallen_game_run_by_the_runner_then_the_deck_stream_deals_and_verifies(
    tmp_path,
):
    # given a runner whose chance is the dice engine and the deck service over one store
    store = SqliteEventStore(tmp_path / "f.db")
    runner = GameRunner(store, DiceEngine(store), {"fallen": RULES})
    loaded, _ = await runner.create("fallen", "fd1", SEATS, {})
    # when both seats play random legal commands to the end
    step = 0
    while not loaded.ended:
        seat = RULES.pending(loaded.state).seat
        cmd = pick(RULES.legal_commands(loaded.state, seat), "fd", step)
        loaded, _ = await runner.submit("fd1", cmd)
        step += 1
    # then the game stream holds no audit-only event
    game = await store.read(game_stream("fd1"))
    deck = await store.read(deck_stream("fd1"))
    assert all(e.visibility != NOBODY for e in game)
    # and every card the game was dealt was dealt by the deck stream, in the same order
    told = [c for e in game if e.type == "deck_dealt" for c in e.data["cards"]]
    taken = [e for e in deck if e.type in (CARDS_DRAWN, CARD_DISCARDED)]
    dealt = [c for e in taken for c in e.data.get("cards", [e.data.get("card")])]
    assert told == dealt and len(told) > 20
    assert sum(e.type == DECK_SHUFFLED for e in deck) >= 9  # every deck shuffled with dice
    # and the exported log verifies: shuffles against the dice seed, draws against the decks
    records = await store_records(store, "fd1")
    report = verify_game("fd1", records, lambda game: RULES)
    assert report.verified, report.mismatch
    # but a log whose deck_dealt names another card (chain recomputed) does not
    at = next(i for i, r in enumerate(records) if r["type"] == "deck_dealt")
    forged = [dict(r) for r in records]
    data = forged[at]["data"]
    forged[at] = dict(forged[at], data=dict(data, cards=["cr_forged"] * len(data["cards"])))
    report = verify_game("fd1", rechain(forged, "game-fd1"), lambda game: RULES)
    assert not report.verified and "deck stream" in str(report.mismatch)
    await store.close()
