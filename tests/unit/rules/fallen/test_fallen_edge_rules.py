"""Edge rules that change play, for games of card data 2 and later.

Each test quotes the rulebook sentence it enforces; where the original rules (card data 1,
kept so that old games replay) differ, a contrast test shows the old behaviour is kept.
Rules that once held only on the engine-held decks run on both paths: card data 2 with the
engine-held decks, and the newest data dealt by the deck service (the path of new games).
"""

from __future__ import annotations

import pytest
from fallen_harness import EXAMPLE_DATA as LATEST
from fallen_harness import Game

from services.rules.fallen import derived as dv
from services.rules.fallen.cards import using
from services.rules.fallen.state import DL, HERO

# (card data, dealt by the deck service): the engine-held decks of card data 2, and new games
BOTH_PATHS = pytest.mark.parametrize(("card_data", "dealt"), [(2, False), (LATEST, True)])


def _game(
    hero: str = "merace", skill: str | None = None, card_data: int = 2, dealt: bool = False
) -> Game:
    g = Game(hero=hero, dl="archivist", skill=skill, card_data=card_data, dealt=dealt)
    g.do(HERO, "choose", choice=g.quest_choice)
    g.set("fortune.hero", 5)
    g.set("fortune.dungeon_lord", 5)
    return g


def _creature(g: Game, slot: int, cid: str) -> None:
    """Put a Creature into a slot (the one there goes back under its deck)."""
    old = dv.creature_in(g.state, slot)
    g.put(cid, f"slot.{slot}")
    if old and old != cid:
        g.put(old, "creature.1.deck", bottom=True)


def _fortune_limit(g: Game) -> int:
    with using(int(g.state.var("card_data"))):  # as the engine reads it: the game's own data
        return dv.fortune_limit(g.state, HERO)


def _window(g: Game) -> tuple[str, str]:
    assert g.pending_kind == "window"
    return g.pending_data["name"], g.pending_seat


# --- item 1: Creature abilities can be pre-empted -----------------------------------------
def test_given_a_creature_killed_as_it_is_activated_then_it_rolls_but_gains_no_ability() -> None:
    # "If a Creature is killed just as it is activated, it still rolls its Creature dice but
    # does not gain its Creature ability."
    # Given the Skeleton Guard (armor 3, red die; Bone Shield: block 1 Wound this challenge)
    # with 2 Wounds, and Ambush in the Hero's hand
    g = _game()
    _creature(g, 2, "cr_skeleton_guard")
    g.set("wounds.slot.2", 2)
    g.put("hp_ambush", "hero.hand")
    g.challenge("strength")
    g.passes()
    # When the Dungeon Lord activates it and the Hero ambushes it as it is exhausted
    g.do(DL, "activate", slot=2)
    assert _window(g) == ("creature_exhausted", DL)
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_ambush")
    g.passes()
    # Then it is killed before its ability: no shield stands for the Dungeon Lord
    assert g.notes("creature_killed")[-1]["creature"] == "cr_skeleton_guard"
    assert g.count("shield.dungeon_lord") == 0
    assert g.notes("creature_ability_skipped") == [{"creature": "cr_skeleton_guard"}]
    # And it still rolls its Creature dice (the red die)
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    assert g.pending_data["colours"] == ["black", "black", "red"]


def test_given_original_data_then_the_ability_came_first_and_blocked_the_ambush() -> None:
    # Given the same situation in a game of card data 1 (replayed old games keep their rules)
    g = _game(card_data=1)
    _creature(g, 2, "cr_skeleton_guard")
    g.set("wounds.slot.2", 2)
    g.put("hp_ambush", "hero.hand")
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=2)
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_ambush")
    g.passes()
    # Then the Bone Shield was already up and blocked the Ambush: the Creature lives
    assert not g.notes("creature_killed")
    assert g.count("wounds.slot.2") == 2


def test_given_an_ability_cancelled_after_activation_then_its_lasting_effect_ends() -> None:
    # "Some effects in the game may cancel a Creature's ability when it is activated. If this
    # occurs, the Creature's ability is canceled before it can use it."
    # Given the Kobold Trapper (Snare: the Hero's Fortune limit is 1 lower this challenge)
    g = _game()
    _creature(g, 0, "cr_kobold_trapper")
    g.put("hp_merace_dispel", "hero.hand")
    g.challenge("agility")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()
    assert _fortune_limit(g) == 2  # Merace's 3, lowered by Snare
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll("blank", "blank", "blank")
    # When the Hero plays Dispel (cancel the active Creature's ability) in the roll window
    assert _window(g) == ("dl_roll", DL)
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_merace_dispel")
    # Then the ability is cancelled and its Fortune-limit penalty no longer applies
    assert g.notes("ability_cancelled")
    assert g.notes("creature_ability_ended")[-1]["reason"] == "cancelled"
    assert _fortune_limit(g) == 3


# --- item 2: always an active Creature when one can be activated ---------------------------
def test_given_the_last_refreshed_creature_exhausted_before_activation_then_all_refresh() -> None:
    # "At the start of any challenge, if all of the Creature cards in play are exhausted,
    # refresh all the Creature cards." (Refreshing Creatures) / "Power cards may be played
    # after the Dungeon Lord has announced the type of challenge but before the Dungeon Lord
    # activates a Creature." The check is made again at the moment of activation, so a card
    # played in that window cannot leave the Dungeon Lord with no Creature to activate.
    # Given three exhausted Creatures and Scout Ahead in the Hero's hand
    g = _game()
    for slot in (0, 1, 2):
        g.patch("card_exhausted", card=dv.creature_in(g.state, slot), exhausted=True)
    g.put("hp_scout_ahead", "hero.hand")
    g.challenge("strength")
    # When the Hero exhausts the last refreshed Creature before activation
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_scout_ahead")
    g.do(HERO, "target", slot=3)
    g.passes()
    # Then all Creatures refresh and the Dungeon Lord activates one
    assert g.notes("creatures_refreshed")
    assert g.pending_kind == "activate"
    assert len(g.legal(DL)) == 4
    assert not g.notes("no_creature_to_activate")


# --- item 3: Block cancels the Wounds being dealt ---------------------------------------------
def _two_wounds_with_shield_wall(card_data: int) -> Game:
    g = _game(card_data=card_data)
    g.put("hp_shield_wall", "hero.hand")
    g.run_tasks(("wound", {"side": HERO, "n": 1}), ("wound", {"side": HERO, "n": 1}))
    # the first Wound is being dealt: the Hero blocks with Shield Wall (block 2)
    assert g.pending_kind == "window" and g.pending_data["name"] == "when_wounded"
    g.do(HERO, "play", card="hp_shield_wall")
    g.do(HERO, "pass")
    # the second Wound is being dealt: the Hero has nothing more to play
    if g.pending_kind == "window" and g.pending_data["name"] == "when_wounded":
        g.do(HERO, "pass")
    return g


def test_given_a_block_of_two_against_one_wound_then_the_spare_block_is_lost() -> None:
    # "When a Wound token is being dealt, a block ability can be announced. A number of Wound
    # tokens are canceled equal to the amount of the block"
    # Given one Wound being dealt, then another; when the Hero blocks 2 against the first
    g = _two_wounds_with_shield_wall(card_data=2)
    # Then the first is cancelled, the spare block does not carry over, the second lands
    assert g.count("wounds.hero") == 1
    assert g.count("shield.hero") == 0 and g.count("parry.hero") == 0
    assert [n["n"] for n in g.notes("wounds_blocked")] == [1]


def test_given_original_data_then_the_spare_block_stood_for_the_challenge() -> None:
    g = _two_wounds_with_shield_wall(card_data=1)
    assert g.count("wounds.hero") == 0  # register #5 before issue 12: a standing shield


def test_given_a_block_this_challenge_card_then_it_stands_against_later_wounds() -> None:
    # "... unless a card says 'this challenge'": Hold the Line, "Block 2 Wounds this challenge."
    g = _game()
    g.put("hp_hold_the_line", "hero.hand")
    g.challenge("strength")
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_hold_the_line")
    assert g.count("shield.hero") == 2
    g.run_tasks(("wound", {"side": HERO, "n": 1}), ("wound", {"side": HERO, "n": 1}))
    assert g.count("wounds.hero") == 0 and g.count("shield.hero") == 0


# --- item 4: dice gained mid-challenge are gained at once ------------------------------------
def _slowed_drawn_after_the_dl_rolled(card_data: int, dealt: bool) -> Game:
    # Given an Agility challenge in which the Dungeon Lord has rolled, Slowed on the deck
    g = _game(card_data=card_data, dealt=dealt)
    _creature(g, 0, "cr_goblin_sneak")
    g.challenge("agility")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll("blank", "blank", "blank")
    g.put("crit_slowed", "critical.deck")
    # When the Critical card is drawn (the Hero's armor is breached)
    g.run_tasks(("draw_critical", {}))
    return g


@BOTH_PATHS
def test_given_slowed_claimed_mid_agility_challenge_then_the_dl_rolls_its_blue_die_at_once(
    card_data: int, dealt: bool
) -> None:
    # "If Slowed is claimed during an agility challenge before the challenge has been
    # resolved, the Dungeon Lord immediately gains the blue die from the Slowed card."
    g = _slowed_drawn_after_the_dl_rolled(card_data, dealt)
    # Then the Dungeon Lord rolls the blue die at once, and it joins his challenge dice
    assert g.notes("dice_gained") == [{"seat": DL, "dice": ["blue"]}]
    assert g.pending_kind == "roll" and g.pending_data["colours"] == ["blue"]
    g.roll("sword")
    assert [d[0] for d in dv.dice_of(g.state, DL)] == ["black", "black", "blue", "blue"]


def test_given_a_dealt_game_of_card_data_three_then_slowed_keeps_its_recorded_rules() -> None:
    # Games dealt by the deck service with card data 2 or 3 were played without the die
    # (their recorded rolls replay only so); from card data 4 the rule holds on this path
    old = _slowed_drawn_after_the_dl_rolled(card_data=3, dealt=True)
    assert "crit_slowed" in old.zone("crit.dl") and old.notes("dice_gained") == []
    new = _slowed_drawn_after_the_dl_rolled(card_data=LATEST, dealt=True)
    assert new.notes("dice_gained") == [{"seat": DL, "dice": ["blue"]}]


# --- item 5: each Skill effect once per challenge ----------------------------------------------
def test_given_gladiator_one_when_three_creatures_die_in_one_challenge_then_one_token() -> None:
    # "Each effect on a Skill card can only be used once per challenge."
    # Given Seroth with Gladiator I ("When you kill a Creature, put a token here")
    g = _game(hero="seroth", skill="sk_gladiator_1")
    g.challenge("strength")
    # When three kills happen in the same challenge
    g.run_tasks(*[("fire", {"event": "kill"})] * 3)
    # Then the trigger put one token, not three
    assert g.count("skill_tokens.green") == 1
    # And in the next challenge it may trigger again
    g.run_tasks(("challenge_end", {}))
    g.challenge("strength")
    g.run_tasks(("fire", {"event": "kill"}))
    assert g.count("skill_tokens.green") == 2


# --- item 6: hand size at any time ---------------------------------------------------------
@BOTH_PATHS
def test_given_deep_cut_when_it_lowers_the_hand_size_then_the_discard_is_asked_at_once(
    card_data: int, dealt: bool
) -> None:
    # "Hand Size: The maximum amount of cards the player can have in their hand at any time"
    # Given Merace (hand size 4) holding 4 cards and Deep Cut on top of the Critical deck
    g = _game(card_data=card_data, dealt=dealt)
    for cid in list(g.zone("hero.hand")):
        g.put(cid, "hero.deck")
    for cid in g.deck("hero.deck")[:4]:
        g.put(cid, "hero.hand")
    assert len(g.zone("hero.hand")) == 4 == dv.hand_size(g.state, HERO)
    g.put("crit_deep_cut", "critical.deck")
    # When the Critical card is drawn
    g.run_tasks(("draw_critical", {}))
    # Then the Hero must discard down to 3 at once
    assert dv.hand_size(g.state, HERO) == 3
    assert g.pending_kind == "discard" and g.pending_seat == HERO
    k, a = g.legal()[0]
    g.do(HERO, k, **a)
    assert len(g.zone("hero.hand")) == 3
    assert g.pending_data.get("name") == "test_end"


# --- Block protects its own card (card data 4) --------------------------------------------
def _bone_shield_up(card_data: int) -> Game:
    # Given the Skeleton Guard (Bone Shield: "Block 1 Wound this challenge") activated in
    # slot 2, its block standing, and another Creature in the adjacent slot 1
    g = _game(card_data=card_data, dealt=card_data >= 4)
    _creature(g, 2, "cr_skeleton_guard")
    _creature(g, 1, "cr_giant_rats")  # armor 2
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=2)
    g.passes()
    return g


def _wound_creature(g: Game, slot: int) -> None:
    g.run_tasks(("wound", {"side": DL, "n": 1, "slot": slot}))
    g.passes()


def test_given_a_creatures_own_block_then_it_protects_that_creature_only() -> None:
    # "Block is an ability to protect a Hero or Creature from taking Wound tokens."
    g = _bone_shield_up(LATEST)
    assert g.count("shield.slot.2") == 1 and g.count("shield.dungeon_lord") == 0
    # When a Wound is dealt to the Creature in slot 1, it is not blocked by the Skeleton's
    _wound_creature(g, 1)
    assert g.count("wounds.slot.1") == 1
    assert g.notes("wounds_blocked") == []
    # And a Wound dealt to the Skeleton Guard itself is blocked
    _wound_creature(g, 2)
    assert g.count("wounds.slot.2") == 0
    assert g.notes("wounds_blocked") == [{"seat": DL, "n": 1}]


def test_given_card_data_three_then_a_creatures_block_stood_for_every_creature() -> None:
    g = _bone_shield_up(3)
    _wound_creature(g, 1)
    assert g.count("wounds.slot.1") == 0 and g.notes("wounds_blocked") == [{"seat": DL, "n": 1}]


# --- thresholds hold at all times (card data 4) --------------------------------------------
def _hex_on_a_wounded_skeleton(card_data: int) -> Game:
    # Given the Skeleton Guard (armor 3) with 2 Wounds, and Hex of Frailty in Merace's hand
    g = _game(card_data=card_data, dealt=card_data >= 4)
    _creature(g, 2, "cr_skeleton_guard")
    g.set("wounds.slot.2", 2)
    g.put("hp_merace_hex", "hero.hand")
    g.challenge("strength")
    # When the Hero binds Hex of Frailty (the Creature there has 1 less armor) to its slot
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_merace_hex")
    g.do(HERO, "target", slot=2)
    return g


def test_given_hex_lowers_a_creatures_armor_to_its_wounds_then_it_is_killed_at_once() -> None:
    # "A Creature that has an amount of Wound tokens equal to or more than its armor rating
    # is killed."
    g = _hex_on_a_wounded_skeleton(LATEST)
    # Then its armor is 2, equal to its Wounds: it is killed and the Hero gains its level
    assert g.notes("creature_killed") == [{"slot": 2, "creature": "cr_skeleton_guard", "xp": 1}]
    assert dv.creature_in(g.state, 2) is None and g.count("wounds.slot.2") == 0


def test_given_card_data_three_then_hex_left_the_creature_alive_at_its_threshold() -> None:
    g = _hex_on_a_wounded_skeleton(3)
    assert not g.notes("creature_killed") and g.count("wounds.slot.2") == 2


def _armor_swapped_down(card_data: int) -> Game:
    # Given Merace in Dragonscale Mail (armor 12) with 10 Wounds on it, and a new Raven
    # Armor (armor 10) just claimed
    g = _game(card_data=card_data, dealt=card_data >= 4)
    g.put("tr_dragonscale_mail", "hero.equipment")
    g.put("eq_leather_armor", "box")
    g.set("wounds.hero", 10)
    g.put("tr_raven_armor", "hero.new_treasure")
    # When the Hero puts it into play in place of the Dragonscale Mail
    g.run_tasks(("equip_decision", {}))
    g.do(HERO, "equip", replace="tr_dragonscale_mail")
    return g


def test_given_an_armor_swapped_for_one_below_its_wounds_then_it_is_breached_at_once() -> None:
    # "any Wound tokens on the original card are carried over to the new Armor card" /
    # "When an armor card is dealt an amount of Wound tokens equal to or more than the
    # card's armor rating ..., the armor is breached."
    g = _armor_swapped_down(LATEST)
    # Then the 10 Wounds carried over breach the Raven Armor: a Critical card is drawn
    assert g.notes("armor_breached") == [{"rating": 10, "left": 0}]
    assert g.count(f"xp.{DL}") == 1 and len(g.zone("crit.hero") + g.zone("crit.dl")) == 1


def test_given_card_data_three_then_a_swapped_armor_held_wounds_over_its_rating() -> None:
    g = _armor_swapped_down(3)
    assert not g.notes("armor_breached") and g.count("wounds.hero") == 10
