"""Creatures, wounds, armor and blocking (rulebook "Creatures", "Wounds & Critical Cards")."""

from __future__ import annotations

from fallen_harness import Game, finish_challenge

from services.rules.fallen.derived import armor_rating, creature_armor
from services.rules.fallen.state import DL, HERO


def _game(hero: str = "merace", dl: str = "archivist") -> Game:
    g = Game(hero=hero, dl=dl)
    g.do(HERO, "choose", choice=g.quest_choice)
    return g


def test_shadow_fiend_kill_example() -> None:
    # Given a Shadow Fiend (level 2, armor 3) with 2 Wounds, and Ember Sentinel next in its deck
    g = _game()
    g.put("cr_goblin_sneak", "creature.1.deck", bottom=True)
    g.put("cr_shadow_fiend", "slot.0")
    g.set("wounds.slot.0", 2)
    g.put("cr_ember_sentinel", "creature.2.deck")
    xp = g.count("xp.hero")
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    g.passes()
    # When the Hero rolls two Charge/Wound symbols and deals both as Wounds (Merace's
    # Strength die is a red one)
    g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
    assert g.pending_data["dice"] == ["fallen_white", "fallen_white", "fallen_red"]
    g.roll("sword", "sword", "charge_or_wound")
    g.do(HERO, "resolve_symbol", die=2, **{"as": "wound"})
    g.do(DL, "pass")
    # Then the Shadow Fiend is killed: Wounds discarded, face down in its slot, +2 XP
    assert g.zone("dead.0") == ("cr_shadow_fiend",) and g.zone("slot.0") == ()
    assert g.count("wounds.slot.0") == 0
    assert g.count("xp.hero") == xp + 2
    assert g.state.var("ch.ability") is False or g.notes("creature_killed")
    # And after the rewards it goes under the level 2 deck; Ember Sentinel enters exhausted
    finish_challenge(g)
    assert g.zone("creature.2.deck")[-1] == "cr_shadow_fiend"
    assert g.zone("slot.0") == ("cr_ember_sentinel",)
    assert "cr_ember_sentinel" in g.state.exhausted


def test_wounds_beyond_a_dead_creature_are_discarded() -> None:
    g = _game()
    g.put("cr_goblin_sneak", "creature.1.deck", bottom=True)
    g.put("cr_shadow_fiend", "slot.0")
    g.set("wounds.slot.0", 2)
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    g.passes()
    g.do(HERO, "challenge_roll", fortune=1, ultimate=False)  # her Strength red + 1 Fortune
    g.roll("sword", "sword", "charge_or_wound", "charge_or_wound")
    g.do(HERO, "resolve_symbol", die=2, **{"as": "wound"})
    g.do(DL, "pass")
    g.do(HERO, "resolve_symbol", die=3, **{"as": "wound"})
    assert g.notes("wounds_discarded")
    assert g.count("wounds.slot.0") == 0


def test_orc_captain_upgrade_example() -> None:
    # Given a wounded, refreshed level 2 Orc Captain, 3 XP, and the Dragon atop level 3
    g = _game()
    g.put("cr_giant_rats", "creature.1.deck", bottom=True)
    g.put("cr_orc_captain", "slot.1")
    g.set("wounds.slot.1", 2)
    g.set("xp.dungeon_lord", 3)
    g.put("cr_dragon", "creature.3.deck")
    hero_xp = g.count("xp.hero")
    g.run_tasks(("upgrades", {}))
    assert ("upgrade", {"slot": 1}) in g.legal()
    # When the Dungeon Lord upgrades it
    g.do(DL, "upgrade", slot=1)
    # Then he pays 3, the Wounds go and the Hero gains 1 XP, the Dragon enters refreshed
    assert g.count("xp.dungeon_lord") == 0
    assert g.count("wounds.slot.1") == 0
    assert g.count("xp.hero") == hero_xp + 1
    assert g.zone("creature.2.deck")[-1] == "cr_orc_captain"
    assert g.zone("slot.1") == ("cr_dragon",)
    assert "cr_dragon" not in g.state.exhausted


def test_upgrade_costs_level_plus_one_and_level_three_cannot_upgrade() -> None:
    g = _game()
    g.put("cr_giant_rats", "creature.1.deck", bottom=True)
    g.put("cr_dragon", "slot.1")
    g.set("xp.dungeon_lord", 1)
    g.run_tasks(("upgrades", {}))
    assert g.pending_data.get("name") == "test_end"  # nothing affordable: no decision at all
    g.set("xp.dungeon_lord", 9)
    g.run_tasks(("upgrades", {}))
    assert {a["slot"] for k, a in g.legal() if k == "upgrade"} == {0, 2, 3}


def test_leather_armor_breach_example() -> None:
    # Given Merace's Leather Armor (rating 9) with 7 Wounds
    g = _game()
    assert armor_rating(g.state) == 9
    g.set("wounds.hero", 7)
    g.put("crit_lost_nerve", "critical.deck")
    dl_xp = g.count("xp.dungeon_lord")
    # When a Story Wound is dealt and then the Dungeon Lord rolls two Wounds
    g.challenge("intelligence", wound=1)
    g.do(HERO, "pass")
    assert g.count("wounds.hero") == 8
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll("wound", "wound", *["blank"] * (len(g.pending_data["dice"]) - 2))
    g.do(HERO, "pass")
    # Then the ninth Wound breaches: 9 discarded, 1 left, +1 XP and a Critical card in play
    assert g.count("wounds.hero") == 1
    assert g.count("xp.dungeon_lord") == dl_xp + 1
    assert g.zone("crit.hero") == ("crit_lost_nerve",)


def test_blocked_wounds_are_not_dealt() -> None:
    g = _game()
    g.put("hp_parry", "hero.hand")
    g.set("fortune.hero", 3)
    g.challenge("intelligence", wound=1)
    # When the Story Wound is being dealt the Hero may block it with Parry
    assert ("play", {"card": "hp_parry"}) in g.legal()
    g.do(HERO, "play", card="hp_parry")
    g.do(HERO, "pass")
    assert g.count("wounds.hero") == 0
    assert g.notes("wounds_blocked")


def test_archivist_ultimate_in_the_dark_blocks_one_wound_this_challenge() -> None:
    g = _game()
    g.set("shadow", 4)
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=True)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    assert g.count("shield.dungeon_lord") == 1
    g.passes()
    g.do(HERO, "challenge_roll", fortune=0, ultimate=False)  # 2 white + her Strength red
    g.roll("sword", "sword", "charge_or_wound")
    g.do(HERO, "resolve_symbol", die=2, **{"as": "wound"})
    assert g.count("wounds.slot.0") == 0 and g.count("shield.dungeon_lord") == 0


def test_augment_stays_with_its_slot_after_the_creature_dies() -> None:
    g = _game(dl="forge_master")
    g.put("dp_forge_anvil", "dungeon_lord.hand")
    g.set("fortune.dungeon_lord", 5)
    base = creature_armor(g.state, 0)
    g.challenge("strength")
    g.do(DL, "play", card="dp_forge_anvil")
    g.do(DL, "target", slot=0)
    assert g.zone("augment.0") == ("dp_forge_anvil",)
    assert creature_armor(g.state, 0) == base + 2
    g.patch(
        "card_moved",
        card=g.zone("slot.0")[0],
        **{"from": "slot.0", "to": "dead.0", "bottom": False},
    )
    g.passes()
    finish_challenge(g)
    assert g.zone("augment.0") == ("dp_forge_anvil",)
    new = g.zone("slot.0")[0]
    from services.rules.fallen.cards import card

    assert creature_armor(g.state, 0) == card(new)["armor"] + 2


def test_adjacent_creatures_do_not_wrap_around() -> None:
    g = _game()
    g.put("hp_merace_fireball", "hero.hand")
    g.set("fortune.hero", 5)
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=0)
    g.passes()  # the "when a Creature is exhausted" window
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    g.passes()
    g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
    g.roll(*["blank"] * len(g.pending_data["dice"]))
    g.do(HERO, "play", card="hp_merace_fireball")
    for _ in range(2):
        g.do(DL, "pass")
    assert [g.count(f"wounds.slot.{s}") for s in range(4)] == [1, 1, 0, 0]
