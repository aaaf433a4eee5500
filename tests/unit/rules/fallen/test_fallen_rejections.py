"""Refused commands say why: actionable reasons, never hidden information."""

from __future__ import annotations

from typing import Any

import pytest
from fallen_harness import Game, dealt_start

from services.platform.errors import RuleViolation
from services.rules.engine.api import Command
from services.rules.fallen import RULES
from services.rules.fallen.explain import why_not
from services.rules.fallen.state import DL, HERO, State


def refusal(state: State, seat: str, kind: str, **args: Any) -> str:
    """Return the message of the RuleViolation a command raises (failing if it is accepted)."""
    before = state
    with pytest.raises(RuleViolation) as err:
        RULES.decide(state, Command(seat, kind, args))
    assert state is before
    return str(err.value)


def window(name: str, who: str = HERO, hand: tuple[str, ...] = (), fortune: int = 5) -> Game:
    """Return a game with a priority window open for a seat, holding the given cards."""
    g = Game(hero="merace", dl="archivist")
    g.do(HERO, "choose", choice=g.quest_choice)
    for cid in hand:
        g.put(cid, f"{who}.hand")
    g.set(f"fortune.{who}", fortune)
    g.run_tasks(("window_open", {"name": name, "who": who}))
    assert g.pending_kind == "window" and g.pending_seat == who
    return g


def fresh() -> State:
    """Return a new game's state, waiting for the Hero to choose a character."""
    return dealt_start()


# --- cards from hand --------------------------------------------------------------------------
def test_a_card_not_in_hand_is_refused_as_not_in_your_hand() -> None:
    # given the Hero's roll window and a Power card lying in the Hero's deck
    g = window("hero_roll")
    cid = g.zone("hero.deck")[0]
    # when the Hero plays it
    msg = refusal(g.state, HERO, "play", card=cid)
    # then the reason says it is not in his hand, and the decision is still legal to answer
    assert msg.startswith(f"card {cid} is not in your hand")
    assert "ask legal_commands" in msg


def test_a_card_played_outside_its_window_names_its_timing_and_the_window() -> None:
    # given Victory Cry (after winning a challenge) in hand during the Hero's roll
    g = window("hero_roll", hand=("hp_victory_cry",))
    # when the Hero plays it
    msg = refusal(g.state, HERO, "play", card="hp_victory_cry")
    # then the reason names the card's timing and the open window
    assert "hp_victory_cry (Victory Cry) is played 'after winning a challenge'" in msg
    assert 'not in the "Hero\'s roll" window (hero_roll)' in msg


def test_an_after_win_card_after_a_lost_challenge_says_the_challenge_was_lost() -> None:
    # given the after-result window of a challenge the Hero lost, Victory Cry in hand
    g = window("after_result", hand=("hp_victory_cry",))
    g.setv("ch.winner", DL)
    # when the Hero plays it
    msg = refusal(g.state, HERO, "play", card="hp_victory_cry")
    # then the reason says why this window does not fit
    assert "is played 'after winning a challenge', and you lost this challenge" in msg


def test_an_unaffordable_card_names_its_cost_and_the_fortune_held() -> None:
    # given Battle Trance (2 Fortune in the Light) in hand, 1 Fortune, the track in the Light
    g = window("hero_roll", hand=("hp_battle_trance",), fortune=1)
    g.set("shadow", 0)
    # when the Hero plays it
    msg = refusal(g.state, HERO, "play", card="hp_battle_trance")
    # then the reason names the cost, the side of the track and the Fortune held
    assert "hp_battle_trance (Battle Trance) costs 2 Fortune (Light) and you have 1" in msg


def test_the_dark_cost_is_named_in_the_dark() -> None:
    # given the same card with the Shadow Track in the Dark and 2 Fortune
    g = window("hero_roll", hand=("hp_battle_trance",), fortune=2)
    g.set("shadow", 5)
    # when the Hero plays it / then the Dark cost is named
    assert "costs 3 Fortune (Dark) and you have 2" in refusal(
        g.state, HERO, "play", card="hp_battle_trance"
    )


def test_discarding_a_card_not_in_hand_is_refused() -> None:
    # given the Dungeon Lord must discard down to his hand size
    g = window("hero_roll")
    for cid in g.zone("dungeon_lord.deck")[:6]:
        g.put(cid, "dungeon_lord.hand")
    g.run_tasks(("hand_limit", {"seat": DL}))
    assert g.pending_kind == "discard"
    # when he discards a card of the Hero's hand
    cid = g.zone("hero.hand")[0]
    # then it is simply not in his hand
    assert refusal(g.state, DL, "discard", card=cid).startswith(f"card {cid} is not in your hand")


# --- hidden information -----------------------------------------------------------------------
def test_the_reason_for_a_card_held_by_the_opponent_is_the_same_as_for_any_absent_card() -> None:
    # given the Hero's roll window, and cards in the opponent's hand, in decks, face down
    g = window("hero_roll")
    g.put("om_dark_tide", "dungeon_lord.hand")
    g.put(g.zone("treasure.deck")[0], "reward.face_down")
    places = {
        "opponent's hand": g.zone("dungeon_lord.hand")[0],
        "own deck": g.zone("hero.deck")[0],
        "opponent's deck": g.zone("dungeon_lord.deck")[0],
        "face-down treasure": g.zone("reward.face_down")[0],
        "omen deck": g.zone("omen.deck")[0],
        "box": next(iter(g.zone("power_box")), "hp_nowhere"),
        "no such card": "zz_no_such_card",
    }
    # when the Hero plays each of them
    reasons = {
        where: refusal(g.state, HERO, "play", card=cid).replace(cid, "<card>")
        for where, cid in places.items()
    }
    # then every refusal is word for word the same: nothing tells where a card is
    assert len(set(reasons.values())) == 1, reasons
    assert next(iter(reasons.values())).startswith("card <card> is not in your hand")


def test_a_refused_story_choice_lists_only_the_offered_paths() -> None:
    # given the Hero choosing a path of a Story card he cannot see
    g = Game(hero="merace", dl="archivist")
    g.do(HERO, "choose", choice=g.quest_choice)
    offered = [a["choice"] for _, a in g.legal()]
    story = RULES.view(g.state, DL)["story_card"]
    hidden = [c["name"] for c in story["choices"].values() if c["name"] not in offered]
    assert hidden
    # when he names a path that is not offered
    msg = refusal(g.state, HERO, "choose", choice="Fly Away")
    # then the offered names are listed and nothing else of the card
    assert "'Fly Away' is not one of the paths offered now" in msg
    assert all(name in msg for name in offered)
    assert not any(name in msg for name in hidden)
    assert story["id"] not in msg and "text" not in msg


# --- Fortune and the Ultimate
def test_fortune_dice_beyond_the_limit_name_the_limit() -> None:
    # given the Hero's roll window, 6 Fortune and a Fortune limit of 2 (Merace)
    g = window("hero_roll", fortune=6)
    # when he spends 5 / then the limit is named
    assert "you may spend at most 2 Fortune on dice, not 5" in refusal(
        g.state, HERO, "fortune", n=5
    )


def test_fortune_dice_beyond_the_fortune_held_name_the_fortune_held() -> None:
    g = window("hero_roll", fortune=1)
    assert "you have 1 Fortune, not 2" in refusal(g.state, HERO, "fortune", n=2)


def test_fortune_dice_outside_the_own_roll_window_name_the_right_window() -> None:
    # given the Dungeon Lord's roll window open for the Hero
    g = window("dl_roll")
    # when the Hero buys Fortune dice
    msg = refusal(g.state, HERO, "fortune", n=1)
    # then he is told to do it in his own roll window
    assert 'only in your own "Hero\'s roll" window (hero_roll)' in msg
    assert 'not in the "Dungeon Lord\'s roll" window (dl_roll)' in msg


def test_fortune_dice_twice_in_a_challenge_are_refused() -> None:
    g = window("hero_roll")
    g.setv("ch.fortune_spent.hero", True)
    assert "already spent Fortune on dice" in refusal(g.state, HERO, "fortune", n=1)


def test_an_initial_roll_beyond_the_fortune_limit_names_the_limit() -> None:
    # given the Hero's initial challenge roll with 6 Fortune
    g = window("hero_roll", fortune=6)
    g.run_tasks(("initial_roll", {"seat": HERO}))
    assert g.pending_kind == "challenge_roll"
    # when he adds 4 Fortune dice / then the limit of 2 is named
    msg = refusal(g.state, HERO, "challenge_roll", fortune=4, ultimate=False)
    assert "you may spend at most 2 Fortune on dice, not 4" in msg


def test_an_uncharged_ultimate_names_the_charges_needed() -> None:
    # given the Hero's roll window and 1 Charge of 3
    g = window("hero_roll")
    g.set("charges.hero", 1)
    # when he uses his Ultimate / then the Charges are named
    msg = refusal(g.state, HERO, "ultimate")
    assert "your Ultimate is not charged: it needs 3 Charges and you have 1" in msg
    # and with the initial roll the same reason is given
    g.run_tasks(("initial_roll", {"seat": HERO}))
    msg = refusal(g.state, HERO, "challenge_roll", fortune=0, ultimate=True)
    assert "needs 3 Charges and you have 1" in msg


def test_a_used_ultimate_is_refused() -> None:
    g = window("hero_roll")
    g.set("charges.hero", 3)
    g.setv("ch.ult_used.hero", True)
    assert "already used your Ultimate" in refusal(g.state, HERO, "ultimate")


# --- abilities --------------------------------------------------------------------------------
def test_using_equipment_not_in_play_and_an_exhausted_item_are_refused() -> None:
    # given the Hero's roll window; the Lantern is in play
    g = window("hero_roll")
    assert "eq_lantern" in g.zone("hero.equipment")
    # when he uses gear he does not have / then he is told so
    msg = refusal(g.state, HERO, "use", card="eq_short_sword", ability=0)
    assert "eq_short_sword is not an Equipment or Skill card you have in play" in msg
    # when he uses an ability the Lantern does not have / then its abilities are counted
    assert "has no ability 7" in refusal(g.state, HERO, "use", card="eq_lantern", ability=7)


def test_the_dungeon_lord_has_no_abilities_to_use() -> None:
    g = window("dl_roll", who=DL)
    assert "the Dungeon Lord has no Equipment or Skill abilities" in refusal(
        g.state, DL, "use", card="eq_lantern", ability=0
    )


# --- skills -----------------------------------------------------------------------------------
def purchases(xp: int) -> Game:
    """Return a game where the Hero (Arcanist I) may buy Skills with xp Experience."""
    g = window("hero_roll")
    g.set("xp.hero", xp)
    g.run_tasks(("purchases", {}))
    assert g.pending_kind == "buy"
    return g


def test_buying_no_such_skill() -> None:
    assert "no such skill 'sk_flying'" in refusal(
        purchases(3).state, HERO, "buy", skill="sk_flying"
    )


def test_buying_a_skill_already_owned() -> None:
    msg = refusal(purchases(3).state, HERO, "buy", skill="sk_arcanist_1")
    assert "skill already owned: you have the red Skill at rank 1" in msg


def test_buying_a_skill_out_of_order_names_the_one_to_buy_first() -> None:
    msg = refusal(purchases(9).state, HERO, "buy", skill="sk_evocator_2")
    assert "Skills are learned in order; buy sk_evocator_1 first" in msg


def test_buying_a_skill_without_enough_experience_names_cost_and_experience() -> None:
    msg = refusal(purchases(3).state, HERO, "buy", skill="sk_arcanist_2")
    assert "not enough Experience: sk_arcanist_2 needs 5, you have 3" in msg


def test_buying_another_heros_skill() -> None:
    msg = refusal(purchases(3).state, HERO, "buy", skill="sk_titan_1")
    assert "sk_titan_1 is a Skill of seroth, not of your Hero merace" in msg


# --- whose turn, what decision ----------------------------------------------------------------
def test_out_of_turn_names_who_the_game_waits_for_and_the_decision() -> None:
    # given the Dungeon Lord must activate a Creature
    g = Game()
    g.do(HERO, "choose", choice=g.quest_choice)
    g.challenge("strength")
    g.passes()
    assert g.pending_kind == "activate"
    # when the Hero answers / then he is told the game waits for the Dungeon Lord
    msg = refusal(g.state, HERO, "activate", slot=0)
    assert "the game waits for the Dungeon Lord to answer 'activate'" in msg
    assert "waiting for dungeon_lord" in msg


def test_out_of_turn_in_a_window_names_the_window() -> None:
    g = window("hero_roll")
    msg = refusal(g.state, DL, "pass")
    assert "waits for the Hero to answer 'window' in the \"Hero's roll\" window" in msg


def test_a_command_of_the_wrong_kind_names_the_kinds_that_answer() -> None:
    g = Game()
    msg = refusal(g.state, HERO, "pass")
    assert "'pass' does not answer the pending 'choose' decision; answer with choose" in msg


def test_an_unknown_character_lists_the_characters() -> None:
    # given a new game waiting for the Hero's character
    state = fresh()
    # when the Hero chooses 'bob' / then the heroes are listed
    msg = refusal(state, HERO, "choose_hero", character="bob")
    assert "unknown character 'bob'; choose one of seroth, merace, ranek" in msg
    # and a Dungeon Lord is not a Hero
    msg = refusal(state, HERO, "choose_hero", character="archivist")
    assert "'archivist' is a Dungeon Lord, not a Hero" in msg


def test_activating_a_missing_or_exhausted_creature() -> None:
    # given a challenge where the Creature in slot 1 is exhausted
    g = Game()
    g.do(HERO, "choose", choice=g.quest_choice)
    g.patch("card_exhausted", card=g.zone("slot.1")[0], exhausted=True)
    g.challenge("strength")
    g.passes()
    assert g.pending_kind == "activate"
    # when the Dungeon Lord activates slot 7 or slot 1 / then each reason is named
    assert "there is no Creature slot 7; slots are 0 to 3" in refusal(
        g.state, DL, "activate", slot=7
    )
    msg = refusal(g.state, DL, "activate", slot=1)
    assert (
        "the Creature in slot 1" in msg and "is exhausted; activate one in slot 0 or 2 or 3" in msg
    )


def test_upgrading_without_enough_experience_names_cost_and_experience() -> None:
    # given a level 2 Creature in slot 0 and 2 Experience (enough for level 1 Creatures only)
    g = window("hero_roll")
    g.put(g.zone("slot.0")[0], "creature.1.deck", bottom=True)
    g.put(g.zone("creature.2.deck")[0], "slot.0")
    g.set("xp.dungeon_lord", 2)
    g.run_tasks(("upgrades", {}))
    assert g.pending_kind == "upgrade"
    # when the Dungeon Lord upgrades slot 0 / then cost and Experience are named
    msg = refusal(g.state, DL, "upgrade", slot=0)
    assert "not enough Experience: upgrading slot 0 to level 3 costs 3 and you have 2" in msg


def test_a_reward_token_not_drawn_is_refused_with_the_drawn_tokens() -> None:
    g = window("hero_roll")
    cup = g.zone("reward.cup")
    g.put(cup[0], "reward.tokens")
    g.put(cup[1], "reward.tokens")
    g.run_tasks(("token_pick", {"seat": HERO, "role": "winner"}))
    msg = refusal(g.state, HERO, "take_token", token=cup[2])
    assert f"Reward token {cup[2]} is not among the drawn tokens" in msg
    assert cup[0] in msg and cup[1] in msg


def test_picking_a_die_to_reroll_when_asked_to_cancel() -> None:
    g = window("hero_roll")
    g.setv("ch.dice.dungeon_lord", [["black", "sword", False, True]])
    g.run_tasks(("pick_die", {"seat": HERO, "whose": DL, "left": 1, "do": "cancel"}))
    msg = refusal(g.state, HERO, "reroll", die=0)
    assert "this decision is to cancel a die, not to reroll one" in msg
    assert "there is no die 3 among the Dungeon Lord's dice" in refusal(
        g.state, HERO, "cancel", die=3
    )


def test_the_generic_reason_is_kept_when_no_specific_reason_is_known() -> None:
    # given a decision kind the explainer does not know
    g = window("hero_roll")
    pending = {
        "seat": HERO,
        "kind": "mystery",
        "prompt": "?",
        "data": {"resume": "window", "options": [["pass", {}]]},
    }
    g.patch("flow", tasks=[], pending=pending)
    # when the Hero answers something else
    assert why_not(g.state, Command(HERO, "done", {}), g.pending) is None
    msg = refusal(g.state, HERO, "done")
    # then the generic reason is given
    assert msg == "done {} is not a legal answer to 'mystery' now; ask legal_commands"


def test_every_timing_and_roll_window_has_words_for_reasons() -> None:
    # given the card timings the catalog allows / then each has a phrase for refusals
    from services.rules.fallen.cards import TIMINGS
    from services.rules.fallen.explain import TIMING_NAMES, WINDOW_NAMES

    assert set(TIMINGS) <= set(TIMING_NAMES)
    assert {t for t in TIMINGS if not t.startswith(("any_", "after_"))} <= set(WINDOW_NAMES)
