"""The engine contract: malformed vs illegal commands, chance answers, views, hashes."""

from __future__ import annotations

import pytest
from fallen_harness import Game

from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.engine.api import CHANCE, Command, Setup
from services.rules.fallen import RULES
from services.rules.fallen.state import DL, HERO


def _game() -> Game:
    g = Game(hero="merace", dl="archivist")
    g.do(HERO, "choose", choice=g.quest_choice)
    return g


def test_rules_object_identity() -> None:
    assert RULES.game == "fallen" and tuple(RULES.seats) == (HERO, DL)
    with pytest.raises(InvalidArgument, match="seats"):
        RULES.initial_events("x", Setup({"hero": "a"}))


def test_malformed_commands_raise_invalid_argument() -> None:
    g = _game()
    with pytest.raises(InvalidArgument) as e:
        RULES.decide(g.state, Command(HERO, "fly", {}))
    assert e.value.field == "kind"
    with pytest.raises(InvalidArgument):
        RULES.decide(g.state, Command(HERO, "choose", {"choice": 3}))
    with pytest.raises(InvalidArgument):
        RULES.decide(g.state, Command(HERO, "choose", {}))
    with pytest.raises(InvalidArgument):
        RULES.decide(g.state, Command(HERO, "choose", {"choice": "x", "extra": 1}))
    with pytest.raises(InvalidArgument):
        RULES.decide(g.state, Command("ghost", "pass", {}))


def test_commands_that_do_not_answer_the_pending_decision_are_rule_violations() -> None:
    g = _game()
    with pytest.raises(RuleViolation, match="waiting for hero"):
        RULES.decide(g.state, Command(DL, "pass", {}))
    with pytest.raises(RuleViolation, match="not a legal answer"):
        RULES.decide(g.state, Command(HERO, "choose", {"choice": "Nowhere"}))
    with pytest.raises(RuleViolation):
        RULES.decide(g.state, Command(HERO, "pass", {}))


def test_chance_answers_are_checked() -> None:
    g = _game()
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    p = RULES.pending(g.state)
    assert p is not None and p.seat == CHANCE and p.chance is not None
    assert p.chance.kind == "roll" and p.chance.dice[0] == "fallen_black"
    n = len(p.chance.dice)
    with pytest.raises(InvalidArgument):
        RULES.decide(g.state, Command(CHANCE, "roll", {"faces": ["blank"], "nonce": 1}))
    with pytest.raises(InvalidArgument):
        RULES.decide(g.state, Command(CHANCE, "roll", {"faces": ["seven"] * n, "nonce": 1}))
    with pytest.raises(RuleViolation):
        RULES.decide(g.state, Command(CHANCE, "shuffle", {"order": [0], "nonce": 1}))
    example = RULES.legal_commands(g.state, CHANCE)
    assert len(example) == 1 and len(example[0].args["faces"]) == n
    evs = RULES.decide(g.state, Command(CHANCE, "roll", {"faces": ["sword"] * n, "nonce": 7}))
    rolled = [e for e in evs if e.type == "dice_rolled"]
    assert rolled and rolled[0].data["nonce"] == 7 and rolled[0].visibility == "public"


def test_deck_shuffles_are_recorded_for_nobody_with_a_public_count() -> None:
    g = Game()
    shuffles = [e for e in g.events if e.type == "zone_shuffled"]
    assert shuffles and all(e.visibility == "nobody" for e in shuffles)
    assert [e for e in g.events if e.type == "deck_shuffled"]


def test_views_hide_hands_decks_and_the_story_card() -> None:
    g = _game()
    hero, dl, spectator = (
        RULES.view(g.state, HERO),
        RULES.view(g.state, DL),
        RULES.view(g.state, None),
    )
    assert hero["zones"]["hero.hand"] == list(g.zone("hero.hand"))
    assert hero["zones"]["dungeon_lord.hand"] == {"count": 2}
    assert dl["zones"]["hero.hand"] == {"count": 2}
    assert spectator["zones"]["hero.hand"] == {"count": 2}
    assert hero["zones"]["hero.deck"] == {"count": len(g.zone("hero.deck"))}
    assert hero["zones"]["story.current"] == {"count": 1}
    assert "story_card" in dl and "story_card" not in hero
    assert dl["zones"]["story.current"] == list(g.zone("story.current"))
    assert hero["legal"] and dl["legal"] == [] and "legal" not in spectator
    for e in g.events:
        if e.type == "card_moved" and e.data["to"] == "hero.hand":
            assert e.visibility == (HERO,)


def test_state_hash_is_stable_and_changes_with_the_state() -> None:
    g = _game()
    h = RULES.state_hash(g.state)
    assert h == RULES.state_hash(g.state) and len(h) == 64
    g.do(HERO, "choose", choice=g.legal()[0][1]["choice"])
    assert RULES.state_hash(g.state) != h
    assert RULES.outcome(g.state) is None
