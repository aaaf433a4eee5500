"""Challenges (rulebook "Challenges", "Dice Symbols", "Winning the Challenge", worked examples)."""

from __future__ import annotations

from fallen_harness import Game

from services.rules.fallen.cards import catalog, using
from services.rules.fallen.state import DL, HERO


def _given_flesh_binder_in_the_dark(dealt: bool = False) -> Game:
    g = Game(hero="merace", dl="archivist", skill="sk_arcanist_1", dealt=dealt)
    g.do(HERO, "choose", choice=g.quest_choice)
    g.put("cr_goblin_sneak", "creature.1.deck", bottom=True)
    g.put("cr_flesh_binder", "slot.0")
    g.put("dp_endless_reach", "dungeon_lord.hand")
    g.set("shadow", 3)  # Clouded: the Dark
    g.set("charges.dungeon_lord", 0)
    g.set("fortune.dungeon_lord", 5)
    g.set("fortune.hero", 5)
    return g


def test_dungeon_lords_seven_sword_roll_example() -> None:
    # Given the Flesh Binder in play, an Intelligence challenge, and Endless Reach in hand
    g = _given_flesh_binder_in_the_dark()
    g.challenge("intelligence")
    g.passes()
    # When the Dungeon Lord exhausts the Flesh Binder and rolls 2 black + its 2 blue dice
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    assert "cr_flesh_binder" in g.state.exhausted
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    assert g.pending_data["dice"] == ["fallen_black", "fallen_black", "fallen_blue", "fallen_blue"]
    g.roll("two_swords", "two_swords", "charge", "blank")
    # 4 swords and a Charge, gained immediately (plus the Flesh Binder's own Charge)
    assert g.state.var("ch.dice.dungeon_lord")[2][3] is True
    assert g.count("charges.dungeon_lord") == 2
    # He spends two Fortune (his limit) for two blue dice: a sword and a blank
    assert ("fortune", {"n": 3}) not in g.legal()
    g.do(DL, "fortune", n=2)
    g.roll("sword", "blank")
    g.do(HERO, "pass")
    # Then plays Endless Reach (1 Fortune in the Dark) for a red die: two swords
    g.do(DL, "play", card="dp_endless_reach")
    g.roll("two_swords")
    g.do(HERO, "pass")
    g.do(DL, "pass")
    # Then his final roll is 7 swords and he paid 3 Fortune
    from services.rules.fallen.derived import swords

    assert swords(g.state, DL) == 7
    assert g.count("fortune.dungeon_lord") == 2
    assert g.pending_kind == "challenge_roll" and g.pending_seat == HERO


def test_heros_roll_example_ultimate_turns_six_swords_into_eight() -> None:
    g = _given_flesh_binder_in_the_dark()
    g.challenge("intelligence")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=2, ultimate=False)
    g.roll("two_swords", "two_swords", "charge", "sword", "sword", "sword")  # 7 swords
    g.passes()
    # Merace rolls 2 white + red (Intelligence) + red (Arcanist I)
    g.do(HERO, "challenge_roll", fortune=2, ultimate=False)
    assert g.pending_data["dice"] == [
        "fallen_white",
        "fallen_white",
        "fallen_red",
        "fallen_red",
        "fallen_blue",
        "fallen_blue",
    ]
    g.roll("sword", "two_swords", "sword", "two_swords", "blank", "blank")  # 6 swords
    # Arcane Rift: all three Charges are removed, two blue dice rolled
    assert ("ultimate", {}) in g.legal()
    g.do(HERO, "ultimate")
    assert g.count("charges.hero") == 0
    g.roll("sword", "sword")
    g.passes()
    assert g.notes("challenge_result")[-1] == {"hero_swords": 8, "dl_swords": 7, "winner": HERO}
    assert g.state.var("ch.winner") == HERO


def _to_hero_roll(g: Game, dl_faces: list[str], attribute: str = "strength") -> None:
    g.challenge(attribute)
    g.passes()
    g.do(DL, "activate", slot=g.legal()[0][1]["slot"])
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    g.roll(*(dl_faces + ["blank"] * (n - len(dl_faces))))
    g.passes()


def test_a_tie_goes_to_the_dungeon_lord_and_one_more_sword_wins() -> None:
    for hero_faces, winner in ((["two_swords"], DL), (["two_swords", "sword"], HERO)):
        g = Game(hero="seroth", dl="krogarn")
        g.do(HERO, "choose", choice=g.quest_choice)
        _to_hero_roll(g, ["two_swords"])
        g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
        n = len(g.pending_data["dice"])
        g.roll(*(hero_faces + ["blank"] * (n - len(hero_faces))))
        g.passes()
        assert g.state.var("ch.winner") == winner


def test_easy_gives_the_hero_and_hard_gives_the_dungeon_lord_a_blue_die() -> None:
    for difficulty, seat in (("easy", HERO), ("hard", DL)):
        g = Game(hero="seroth", dl="krogarn")
        g.do(HERO, "choose", choice=g.quest_choice)
        g.challenge("intelligence", difficulty=difficulty)
        g.passes()
        g.do(DL, "activate", slot=0)
        g.passes()  # the "when a Creature is exhausted" window
        g.do(DL, "challenge_roll", fortune=0, ultimate=False)
        dl_dice = g.pending_data["dice"]
        g.roll(*["blank"] * len(dl_dice))
        g.passes()
        g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
        hero_dice = g.pending_data["dice"]
        # Seroth rolls two white and his Intelligence die (red), plus the easy blue die
        easy = ["fallen_blue"] if seat == HERO else []
        assert hero_dice == ["fallen_white", "fallen_white", "fallen_red", *easy]
        assert dl_dice[-1:] == (["fallen_blue"] if seat == DL else dl_dice[-1:])


def test_fortune_dice_are_spent_all_at_once_once_per_roll() -> None:
    g = Game(hero="seroth", dl="krogarn")
    g.do(HERO, "choose", choice=g.quest_choice)
    _to_hero_roll(g, [])
    g.do(HERO, "challenge_roll", fortune=1, ultimate=False)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    assert g.pending_seat == HERO
    assert not [k for k, _ in g.legal() if k == "fortune"]


def test_charge_or_wound_is_the_rollers_choice_and_only_the_choice_counts() -> None:
    g = Game(hero="seroth", dl="krogarn")
    g.do(HERO, "choose", choice=g.quest_choice)
    g.set("charges.dungeon_lord", 0)
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    assert n == 3  # two black dice and the Goblin Sneak's blue die
    g.roll("wound", "blank", "charge_or_wound")
    # Symbol order: the roller picks which symbol to gain first and what a Charge/Wound is
    assert g.pending_kind == "resolve_symbol"
    assert sorted(a["as"] for _, a in g.legal()) == ["charge", "wound", "wound"]
    g.do(DL, "resolve_symbol", die=2, **{"as": "charge"})
    assert g.count("charges.dungeon_lord") == 1
    # the remaining Wound is dealt to the Hero (after his chance to block)
    assert g.pending_kind == "window" and g.pending_data["name"] == "when_wounded"
    g.do(HERO, "pass")
    assert g.count("wounds.hero") == 1


def test_rerolled_dice_keep_symbols_from_both_rolls_but_only_final_swords() -> None:
    g = Game(hero="seroth", dl="krogarn")
    g.do(HERO, "choose", choice=g.quest_choice)
    _to_hero_roll(g, [])
    g.set("charges.hero", 0)
    g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    g.roll("charge", *["blank"] * (n - 1))
    assert g.count("charges.hero") == 1
    # Short Sword: exhaust to re-roll one die
    g.do(HERO, "use", card="eq_short_sword", ability=0)
    g.do(HERO, "reroll", die=0)
    g.roll("sword_symbol")  # white: a sword and a Charge
    assert g.count("charges.hero") == 2
    from services.rules.fallen.derived import swords

    assert swords(g.state, HERO) == 1


def test_wound_symbols_hit_the_active_creature_and_dice_gained_by_the_opponent_roll_now() -> None:
    g = Game(hero="merace", dl="archivist")
    g.do(HERO, "choose", choice=g.quest_choice)
    g.put("hp_merace_arcane_bolt", "hero.hand")
    g.put("hp_seroth_headbutt", "hero.hand")
    g.set("fortune.hero", 5)
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=1)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    g.do(DL, "pass")
    # The hero plays Headbutt during the Dungeon Lord's roll: a Wound to the active Creature
    g.do(HERO, "play", card="hp_seroth_headbutt")
    g.do(DL, "pass")  # the Dungeon Lord does not block
    assert g.count("wounds.slot.1") == 1


def test_creature_ability_only_when_an_icon_matches_the_challenge() -> None:
    for attribute, expected in (("agility", 1), ("strength", 0)):
        g = Game(hero="seroth", dl="krogarn")
        g.do(HERO, "choose", choice=g.quest_choice)
        g.set("fortune.hero", 3)
        slot = g.zone("slot.0")
        assert slot == ("cr_goblin_sneak",)  # Pilfer (Agility): steal 1 Fortune
        g.challenge(attribute)
        g.passes()
        g.do(DL, "activate", slot=0)
        g.passes()  # the "when a Creature is exhausted" window
        assert g.count("fortune.hero") == 3 - expected


def test_creatures_refresh_when_all_are_exhausted_at_the_start_of_a_challenge() -> None:
    g = Game(hero="seroth", dl="krogarn")
    g.do(HERO, "choose", choice=g.quest_choice)
    for s in range(4):
        g.patch("card_exhausted", card=g.zone(f"slot.{s}")[0], exhausted=True)
    g.challenge("strength")
    g.passes()
    assert len(g.legal()) == 4


def test_ultimate_needs_full_charges_and_is_used_once_per_challenge() -> None:
    g = Game(hero="seroth", dl="krogarn")
    g.do(HERO, "choose", choice=g.quest_choice)
    _to_hero_roll(g, [])
    g.do(HERO, "challenge_roll", fortune=0, ultimate=True)
    assert g.count("charges.hero") == 0
    # Unbridled Fury's two red dice roll with the initial roll
    assert g.pending_data["dice"].count("fallen_red") == 3
    g.roll(*["charge"] * 2, *["blank"] * (len(g.pending_data["dice"]) - 2))
    g.set("charges.hero", 3)
    assert ("ultimate", {}) not in g.legal()


def test_given_the_heros_roll_example_then_two_fortune_is_merace_s_fortune_limit() -> None:
    # "Fortune tokens may be spent up to the character's Fortune limit (usually 2)"; the
    # Hero's roll example: "He spends two Fortune (his Fortune limit)"
    # Given the example's challenge in a new game, Merace with 5 Fortune
    g = _given_flesh_binder_in_the_dark(dealt=True)
    g.challenge("intelligence")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()
    g.do(DL, "challenge_roll", fortune=2, ultimate=False)
    g.roll("two_swords", "two_swords", "charge", "sword", "sword", "sword")
    g.passes()
    # When she makes her initial roll / then two Fortune dice are the most she may buy
    offered = {a["fortune"] for k, a in g.legal() if k == "challenge_roll"}
    assert offered == {0, 1, 2}
    # and in card data 4 the Heroes' limits are the rulebook's "usually 2" (the Thief's 3);
    # card data 5 departs for balance, as the register records with its measurement
    with using(4):
        heroes = catalog().heroes
        assert {h: catalog()[h]["fortune_limit"] for h in heroes} == {
            "seroth": 2,
            "merace": 2,
            "ranek": 3,
        }
    with using(5):
        assert {h: catalog()[h]["fortune_limit"] for h in heroes} == {
            "seroth": 3,
            "merace": 4,
            "ranek": 4,
        }
