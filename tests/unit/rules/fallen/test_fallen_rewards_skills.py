"""Rewards, Experience & Skills, the Shadow Track, Equipment, Power cards, stealing."""

from __future__ import annotations

from fallen_harness import Game, finish_challenge

from services.rules.fallen.cards import LATEST
from services.rules.fallen.derived import power_cost
from services.rules.fallen.state import DL, HERO


def _game(hero: str = "merace", dl: str = "archivist", skill: str | None = None) -> Game:
    g = Game(hero=hero, dl=dl, skill=skill)
    g.do(HERO, "choose", choice=g.quest_choice)
    return g


def _to_result(g: Game, hero_wins: bool, attribute: str = "strength", **extra: object) -> None:
    g.challenge(attribute, **extra)
    g.passes()
    g.do(DL, "activate", slot=g.legal()[0][1]["slot"])
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    g.roll("sword", *["blank"] * (n - 1))
    g.passes()
    g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    g.roll(*(["two_swords"] if hero_wins else ["blank"]), *["blank"] * (n - 1))
    g.passes()


def _tokens_claimed(g: Game) -> None:
    """Draw and claim both seats' Reward tokens (they come before the stake, data 4+)."""
    while g.pending_kind == "take_token" or (
        g.pending_kind == "shuffle" and g.pending_data["count"] > 2
    ):
        if g.pending_kind == "shuffle":
            g.shuffle()
        else:
            g.do(g.pending_seat, "take_token", token=g.legal()[0][1]["token"])


def test_winner_gains_xp_and_claims_one_of_two_tokens_loser_one_of_two() -> None:
    g = _game()
    xp = g.count("xp.hero")
    _to_result(g, hero_wins=True)
    assert g.count("xp.hero") == xp + 1
    assert g.pending_kind == "shuffle"  # tokens are drawn at random from the cup
    g.shuffle()
    cup_before = 18
    offered = [a["token"] for _, a in g.legal()]
    assert len(offered) == 2 and g.pending_seat == HERO
    g.do(HERO, "take_token", token=offered[0])
    assert g.zone("reward.tokens") == (offered[1],)
    g.shuffle()
    # the loser chooses between the token left behind and the one just drawn
    loser = [a["token"] for _, a in g.legal()]
    assert g.pending_seat == DL and offered[1] in loser and len(loser) == 2
    g.do(DL, "take_token", token=offered[1])
    finish_challenge(g)
    assert len(g.zone("reward.discard")) == 3
    assert len(g.zone("reward.cup")) == cup_before - 3


def test_treasure_challenge_winner_looks_and_chooses_loser_claims_at_random() -> None:
    g = _game()
    _to_result(g, hero_wins=True, reward="treasure")
    _tokens_claimed(g)
    assert len(g.zone("reward.hero_looks")) == 2
    assert g.pending_kind == "take_card" and g.pending_seat == HERO
    assert {a["card"] for _, a in g.legal()} == set(g.zone("reward.hero_looks"))
    pick = g.legal()[1][1]["card"]
    g.do(HERO, "take_card", card=pick)
    assert g.zone("hero.new_treasure") == (pick,)
    assert g.pending_kind == "equip"

    g2 = _game()
    _to_result(g2, hero_wins=False, reward="treasure")
    _tokens_claimed(g2)
    assert g2.pending_kind == "shuffle" and g2.pending_data["count"] == 2
    stake = g2.zone("reward.face_down")
    g2.shuffle([1, 0])
    assert g2.zone("hero.new_treasure") == (stake[1],)
    assert g2.zone("treasure.deck")[-1] == stake[0]


def test_omen_challenge_dungeon_lord_winner_chooses_an_omen_into_his_hand() -> None:
    g = _game()
    _to_result(g, hero_wins=False, reward="omen")
    _tokens_claimed(g)
    assert g.pending_kind == "take_card" and g.pending_seat == DL
    pick = g.legal()[0][1]["card"]
    g.do(DL, "take_card", card=pick)
    assert pick in g.zone("dungeon_lord.hand")


def test_purchasing_arcanist_two_example() -> None:
    # Given Arcanist I from setup and 6 Experience
    g = _game(skill="sk_arcanist_1")
    g.set("xp.hero", 6)
    g.run_tasks(("purchases", {}))
    # Then the choices are the cheapest of each group: Sword Mage I, Arcanist II, Evocator I
    assert {a["skill"] for k, a in g.legal() if k == "buy"} == {
        "sk_sword_mage_1",
        "sk_arcanist_2",
        "sk_evocator_1",
    }
    # When Arcanist II is bought it replaces Arcanist I, leaving 1 XP
    g.do(HERO, "buy", skill="sk_arcanist_2")
    assert g.count("xp.hero") == 1
    assert g.zone("hero.skills") == ("sk_arcanist_2",)
    assert "sk_arcanist_1" in g.zone("box")


def test_titan_one_fortune_adds_to_the_first_story_five() -> None:
    # given Titan I and a Quest choice that gives the Hero nothing ("Read the Warding Tome")
    g = Game(hero="seroth", dl="archivist", skill="sk_titan_1", quest=1)
    g.do(HERO, "choose", choice=g.quest_choice)
    assert g.count("fortune.hero") == 6
    assert g.count("fortune.dungeon_lord") == 5


def test_shift_beyond_brilliant_gives_the_hero_fortune() -> None:
    g = _game()
    g.set("shadow", 1)
    f = g.count("fortune.hero")
    g.run_tasks(("shift", {"toward": "light", "n": 3}))
    assert g.count("shadow") == 0
    assert g.count("fortune.hero") == f + 2
    g.run_tasks(("shift", {"toward": "dark", "n": 8}))
    assert g.count("shadow") == 5
    assert g.count("fortune.dungeon_lord") == 5 + 3


def test_power_cost_follows_the_light_or_dark_gem() -> None:
    g = _game()
    g.set("shadow", 0)
    assert power_cost(g.state, DL, "dp_endless_reach") == 2
    g.set("shadow", 5)
    assert power_cost(g.state, DL, "dp_endless_reach") == 1
    g.put("crit_drained", "crit.hero")
    assert power_cost(g.state, HERO, "hp_battle_trance") == 4  # Dark 3, Drained +1
    assert power_cost(g.state, HERO, "hp_daring") == 1


def test_new_armor_carries_the_wounds_and_items_are_limited_to_two() -> None:
    g = _game()
    g.set("wounds.hero", 3)
    g.put("tr_raven_armor", "hero.new_treasure")
    g.run_tasks(("equip_decision", {}))
    assert sorted(str(a) for _, a in g.legal()) == ["{'replace': 'eq_leather_armor'}", "{}"]
    g.do(HERO, "equip", replace="eq_leather_armor")
    assert "tr_raven_armor" in g.zone("hero.equipment") and "eq_leather_armor" in g.zone("box")
    assert g.count("wounds.hero") == 3
    g.put("tr_lucky_coin", "hero.equipment")
    g.put("tr_rune_stone", "hero.new_treasure")
    g.run_tasks(("equip_decision", {}))
    assert ("equip", {}) not in g.legal()  # lantern + lucky coin: both item slots are full
    assert ("decline", {}) in g.legal()


def test_stealing_needs_enough_of_the_resource() -> None:
    g = _game()
    g.set("fortune.hero", 1)
    g.run_tasks(("effect", {"seat": DL, "eff": {"steal_fortune": 2}, "src": ""}))
    assert g.count("fortune.hero") == 1
    g.run_tasks(("effect", {"seat": DL, "eff": {"steal_fortune": 1}, "src": ""}))
    assert g.count("fortune.hero") == 0


def test_drawing_past_hand_size_forces_a_discard() -> None:
    g = _game(hero="seroth")  # hand size 3
    assert len(g.zone("hero.hand")) == 2
    g.run_tasks(("draw", {"seat": HERO, "n": 2}), ("hand_limit", {"seat": HERO}))
    assert g.pending_kind == "discard" and g.pending_seat == HERO
    k, a = g.legal()[0]
    g.do(HERO, k, **a)
    assert len(g.zone("hero.hand")) == 3


def _decisions_after_the_result(card_data: int) -> list[str]:
    g = Game(hero="merace", dl="archivist", card_data=card_data, dealt=True)
    g.do(HERO, "choose", choice=g.quest_choice)
    _to_result(g, hero_wins=True, reward="treasure")
    asked: list[str] = []
    while g.pending_kind != "equip":
        asked.append(f"{g.pending_kind}.{g.pending_seat}")
        if g.pending_kind == "shuffle":
            g.shuffle()
        else:
            k, a = g.legal()[0]
            g.do(g.pending_seat, k, **a)
    return asked


def test_given_a_treasure_challenge_then_the_stake_is_claimed_after_both_reward_tokens() -> None:
    # Challenge Summary: "5. The WINNER of the challenge gains 1 Experience token and draws 2
    # Reward tokens ... 6. The LOSER of the challenge draws 1 Reward token ... 7. If this was
    # a Treasure challenge: And the Hero was the winner, then the Hero looks at both Treasure
    # cards, claims one"
    # Given a Treasure challenge the Hero wins, in a new game
    asked = _decisions_after_the_result(LATEST)
    # Then the winner's and the loser's tokens come first, then the Treasure cards
    assert asked == [
        "shuffle.chance",
        "take_token.hero",
        "shuffle.chance",
        "take_token.dungeon_lord",
        "take_card.hero",
    ]


def test_given_card_data_three_then_the_stake_was_claimed_before_the_tokens() -> None:
    assert _decisions_after_the_result(3)[0] == "take_card.hero"
