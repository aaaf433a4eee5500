"""The kernel: per-engine registries, legality keys, the Dealer, and a deck game played out."""

from __future__ import annotations

from typing import Any

import pytest

from services.dice import fair
from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.engine.api import CHANCE, NOBODY, ChanceRequest, Command, Setup
from services.rules.engine.chance import faces_of
from services.rules.engine.dealer import Dealer
from services.rules.engine.engine import KernelRules
from services.rules.engine.flow import Ctx, Registry, answer_key, is_answer, legal_keys
from services.rules.engine.state import State
from services.rules.engine.zones import ZoneRules
from services.rules.playout import play
from tests.support.deck_toy import CARDS, DECK, RULES

ZONES = ZoneRules(("a", "b"), lambda z: ())


def test_given_two_registries_when_each_registers_a_task_then_neither_sees_the_other() -> None:
    # given two games' registries
    one, two = Registry("one", ZONES), Registry("two", ZONES)
    # when each registers a task of the same name
    one.task("start")(lambda ctx, a: None)
    two.task("start")(lambda ctx, a: None)
    # then they are separate, and a second registration in one game is refused
    assert one.tasks["start"] is not two.tasks["start"]
    with pytest.raises(ValueError, match="registered twice"):
        one.task("start")(lambda ctx, a: None)


def test_answer_keys_equal_exactly_when_canonical_json_is_equal() -> None:
    assert answer_key("use", {"card": "x", "ability": 1}) == answer_key(
        "use", {"ability": 1, "card": "x"}
    )
    assert answer_key("use", {"card": "x"}) != answer_key("play", {"card": "x"})
    assert answer_key("k", {"o": [1, 2]}) != answer_key("k", {"o": [2, 1]})
    assert answer_key("k", {"o": [True]}) != answer_key("k", {"o": [1]})


def test_given_answers_when_a_command_is_checked_then_it_is_legal_exactly_when_its_key_is() -> None:
    # given answers with flat and nested args
    answers = [
        ("pass", {}),
        ("use", {"card": "x", "ability": 1}),
        ("pick", {"o": [1, 2]}),
        ("flag", {"on": True}),
    ]
    keys = legal_keys(answers)
    commands: list[tuple[str, dict[str, Any]]] = [
        ("pass", {}),
        ("pass", {"x": 1}),
        ("play", {}),
        ("use", {"ability": 1, "card": "x"}),
        ("use", {"card": "x", "ability": 2}),
        ("use", {"card": "x"}),
        ("pick", {"o": [1, 2]}),
        ("pick", {"o": [2, 1]}),
        ("pick", {"o": [True, 2]}),
        ("flag", {"on": True}),
        ("flag", {"on": False}),
        ("flag", {"on": [True]}),
    ]
    # when each command is checked, then the fast check agrees with the legality keys
    for kind, args in commands:
        assert is_answer(answers, kind, args) == (answer_key(kind, args) in keys), (kind, args)
    assert is_answer(answers, "use", {"ability": 1, "card": "x"})
    assert not is_answer(answers, "use", {"card": "x"})


def test_given_a_seed_when_the_dealer_forms_a_deck_then_it_is_the_fair_shuffle_of_nonce_0() -> None:
    # given a dealer for a game
    seed = b"s" * 32
    dealer = Dealer(seed, "g1")
    cards = tuple(f"c{i}" for i in range(10))
    # when it forms a shuffled deck and draws three cards
    formed = dealer.answer(ChanceRequest("deck_form", "form", deck="d", cards=cards))
    drawn = dealer.answer(ChanceRequest("deck_draw", "draw", deck="d", count=3))
    # then the deck is the dice scheme's permutation for nonce 0, dealt from the top
    expected = fair.shuffle(fair.Draws(seed, "g1", "", 0), list(cards))
    assert formed == Command(CHANCE, "deck_formed", {"deck": "d", "count": 10})
    assert drawn.args["cards"] == expected[:3]
    assert dealer.decks["d"] == expected[3:] and dealer.nonce == 1


def test_the_dealer_puts_searches_and_reshuffles() -> None:
    dealer = Dealer(b"k" * 32, "g2")
    dealer.answer(ChanceRequest("deck_form", "f", deck="d", cards=("a", "b"), shuffled=False))
    dealer.answer(ChanceRequest("deck_put", "p", deck="d", cards=("t",), position="top"))
    dealer.answer(ChanceRequest("deck_put", "p", deck="d", cards=("z",), position="bottom"))
    assert dealer.decks["d"] == ["t", "a", "b", "z"]
    found = dealer.answer(ChanceRequest("deck_search", "s", deck="d", match=("b", "q"), count=2))
    assert found.args == {"deck": "d", "cards": ["b"]}
    shuffled = dealer.answer(ChanceRequest("deck_shuffle", "s", deck="d"))
    assert shuffled.args["count"] == 3 and sorted(dealer.decks["d"]) == ["a", "t", "z"]


def test_given_a_deck_game_when_played_out_then_cards_are_conserved_and_nothing_is_nobodys() -> (
    None
):
    # when the deck toy is played to the end with the in-process dealer
    p = play(RULES, Setup({"a": "p", "b": "q"}), "decktoy-1", "d1")
    # then it ends, its log has no audit-only event, and every card is somewhere exactly once
    assert RULES.outcome(p.state) is not None
    assert all(e.visibility != NOBODY for e in p.events)
    held = [c for z in ("hand.a", "hand.b", "discard") for c in p.state.zone(z)]
    drawn = sum(len(e.data["cards"]) for e in p.events if e.type == "CardDrawn")
    assert drawn == 6 and len(held) + p.state.count(f"count.{DECK}") == len(CARDS)
    assert len(set(held)) == len(held)


def test_chance_answers_to_deck_requests_are_checked() -> None:
    # given a game waiting for the deck service to form its deck
    state = RULES.initial_state()
    for ev in RULES.initial_events("x", Setup({"a": "p", "b": "q"})):
        state = RULES.evolve(state, ev)
    # then a wrong kind, a wrong deck or a seat's command are refused
    with pytest.raises(RuleViolation):
        RULES.decide(state, Command(CHANCE, "deck_drawn", {"deck": DECK, "cards": []}))
    with pytest.raises(InvalidArgument, match=r"args\.deck"):
        RULES.decide(state, Command(CHANCE, "deck_formed", {"deck": "other", "count": 4}))
    with pytest.raises(RuleViolation):
        RULES.decide(state, Command("a", "draw", {}))
    events = RULES.decide(state, Command(CHANCE, "deck_formed", {"deck": DECK, "count": 4}))
    assert [e.type for e in events][:2] == ["counter_changed", "DeckFormed"]


def _percentile_rules() -> tuple[Registry, KernelRules]:
    """A one-decision game: chance rolls the composite 2d10 and the reading is recorded."""
    reg = Registry("pct", ZONES)

    @reg.task("start")
    def _start(ctx: Ctx, a: dict[str, Any]) -> None:
        ctx.roll(["2d10"], "percentile", "rolled")

    @reg.task("rolled")
    def _rolled(ctx: Ctx, a: dict[str, Any]) -> None:
        ctx.emit("PercentileRolled", {"value": int(a["faces"][0])})
        ctx.emit("game_over", {"winner": "a"})

    class Pct(KernelRules):
        game = "pct"
        seats = ("a", "b")
        registry = reg

    return reg, Pct()


def test_given_a_2d10_roll_pending_when_chance_answers_a_reading_then_it_is_accepted() -> None:
    # given a game whose pending decision is chance rolling the composite kind 2d10
    # (services/dice/kinds.yaml: "tens + units, with 00 + 0 read as 100")
    reg, rules = _percentile_rules()
    ctx = reg.ctx(State())
    ctx.push(("start", {}))
    ctx.run()
    state = State()
    for ev in ctx.finish():
        state = rules.evolve(state, ev)
    pending = rules.pending(state)
    assert pending is not None and pending.chance is not None
    assert pending.chance.dice == ("2d10",)
    # when chance answers with readings, as the dice service and the Dealer report them
    hundred = rules.decide(state, Command(CHANCE, "roll", {"faces": ["100"], "nonce": 0}))
    dealt = Dealer(b"p" * 32, "pct").answer(pending.chance)
    events = rules.decide(state, dealt)
    # then both are accepted and read as 1-100; a face outside 1-100 is refused by field
    assert hundred[0].data == {"value": 100}
    assert 1 <= events[0].data["value"] <= 100
    assert sorted(faces_of("2d10"), key=int) == [str(n) for n in range(1, 101)]
    with pytest.raises(InvalidArgument, match=r"args\.faces"):
        rules.decide(state, Command(CHANCE, "roll", {"faces": ["0"], "nonce": 0}))
    with pytest.raises(InvalidArgument, match=r"args\.faces"):
        rules.decide(state, Command(CHANCE, "roll", {"faces": ["101"], "nonce": 0}))
    assert rules.legal_commands(state, CHANCE)[0].args["faces"][0] in faces_of("2d10")


def test_given_a_roll_of_no_dice_when_the_dealer_answers_then_it_refuses_as_the_service() -> None:
    # the dice service refuses a roll of 0 dice (INVALID_ARGUMENT), so playouts must too:
    # an engine that asks for none is found by the property playouts, not in a served game
    with pytest.raises(ValueError, match="roll 1 to 100 dice, not 0"):
        Dealer(b"z" * 32, "g0").answer(ChanceRequest("roll", "checks", dice=()))
