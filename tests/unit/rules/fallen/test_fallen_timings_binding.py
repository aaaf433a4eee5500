"""Triggered timings, symbol cancels, Hero Curses on Creature slots, the Final Battle conclusion.

Rulebook: Playing Power Cards ("Power cards may also be triggered by other events, such as
when a Creature is exhausted or when rewards are claimed"), Dice Symbols and the codex entry
for Crystalline Orb, Advanced Rules "Binding", and the Battle Phase ("turn over the Final
Battle Begins card to the 'Conclusion' side").
"""

from __future__ import annotations

from fallen_harness import Game

from services.rules.fallen.cards import card
from services.rules.fallen.derived import creature_armor
from services.rules.fallen.state import DL, HERO


def _game(hero: str = "merace", dl: str = "archivist", skill: str | None = None) -> Game:
    g = Game(hero=hero, dl=dl, skill=skill)
    g.do(HERO, "choose", choice=g.quest_choice)
    g.set("fortune.hero", 5)
    g.set("fortune.dungeon_lord", 5)
    return g


def _window(g: Game) -> tuple[str, str]:
    assert g.pending_kind == "window"
    return g.pending_data["name"], g.pending_seat


def _dl_rolls(g: Game, *faces: str) -> None:
    g.do(DL, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    g.roll(*faces, *["blank"] * (n - len(faces)))


def _hero_rolls(g: Game, *faces: str) -> None:
    g.do(HERO, "challenge_roll", fortune=0, ultimate=False)
    n = len(g.pending_data["dice"])
    g.roll(*faces, *["blank"] * (n - len(faces)))


# --- "when a Creature is exhausted" ------------------------------------------------------
def test_given_an_activation_when_the_creature_is_exhausted_then_a_window_opens_dl_first() -> None:
    # Given the Hero holds Ambush and the Flesh Binder (Stitch Soul: gain 1 Charge) is in slot 3
    g = _game()
    g.put("hp_ambush", "hero.hand")
    g.set("charges.dungeon_lord", 0)
    g.challenge("intelligence")
    g.passes()
    # When the Dungeon Lord activates it
    g.do(DL, "activate", slot=3)
    # Then the window opens for the Dungeon Lord, and the Creature's own ability waits until
    # it closes (card data 2: a kill or cancel played here pre-empts it, issue 12 item 1)
    assert g.count("charges.dungeon_lord") == 0
    assert _window(g) == ("creature_exhausted", DL)
    assert ("play", {"card": "hp_ambush"}) not in g.legal(DL)
    g.do(DL, "pass")
    # And then for the Hero, who plays Ambush: 1 Wound on the Creature just exhausted
    assert _window(g) == ("creature_exhausted", HERO)
    g.do(HERO, "play", card="hp_ambush")
    g.passes()
    assert g.count("wounds.slot.3") == 1
    assert g.count("charges.dungeon_lord") == 1  # Stitch Soul, once the window closed
    assert g.pending_kind == "challenge_roll" and g.pending_seat == DL


def test_given_a_card_exhausts_a_creature_then_the_window_opens_for_that_creature() -> None:
    # Given Scout Ahead and Ambush in the Hero's hand
    g = _game()
    g.put("hp_scout_ahead", "hero.hand")
    g.put("hp_ambush", "hero.hand")
    g.challenge("strength")
    g.do(DL, "pass")
    # When the Hero exhausts the Skeleton Guard (slot 2) before any Creature is activated
    g.do(HERO, "play", card="hp_scout_ahead")
    g.do(HERO, "target", slot=2)
    # Then the "when a Creature is exhausted" window opens, and Ambush wounds that Creature
    assert _window(g) == ("creature_exhausted", DL)
    g.do(DL, "pass")
    g.do(HERO, "play", card="hp_ambush")
    g.do(DL, "pass")  # no block
    assert g.count("wounds.slot.2") == 1
    assert "cr_skeleton_guard" in g.state.exhausted


def test_given_dark_ritual_when_a_creature_is_exhausted_then_the_dl_gains_a_charge() -> None:
    g = _game()
    g.put("dp_dark_ritual", "dungeon_lord.hand")
    g.set("charges.dungeon_lord", 0)
    g.challenge("strength")
    g.passes()
    assert ("play", {"card": "dp_dark_ritual"}) not in g.legal(DL)  # not before activation
    g.do(DL, "activate", slot=2)
    g.do(DL, "play", card="dp_dark_ritual")
    assert g.count("charges.dungeon_lord") == 1


def test_given_exhaustion_critical_when_a_creature_is_exhausted_then_hero_loses_charge() -> None:
    # Given the Exhaustion Critical by the Dungeon Lord (an Omen Critical: its trigger is his)
    g = _game()
    g.put("crit_exhaustion", "crit.dl")
    g.set("charges.hero", 3)
    g.set("shadow", 4)  # Dusk: the Dark
    g.challenge("strength")
    g.passes()
    # When a Creature is exhausted
    g.do(DL, "activate", slot=2)
    # Then the Hero loses one Charge
    assert g.count("charges.hero") == 2


# --- "when rewards are claimed" ---------------------------------------------------------
def _to_rewards(g: Game, hero_wins: bool) -> None:
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=2)
    g.passes()
    _dl_rolls(g, "sword")
    g.passes()
    _hero_rolls(g, "two_swords" if hero_wins else "blank")
    g.passes()
    for _ in range(2):  # winner, then loser: draw from the cup and claim
        g.shuffle()
        k, a = g.legal()[0]
        g.do(g.pending_seat, k, **a)


def test_given_both_claims_then_the_rewards_claimed_window_opens_before_replacements() -> None:
    # Given Grim Tithe for the Dungeon Lord, Regroup for the Hero, and an exhausted Lantern
    g = _game()
    g.put("dp_grim_tithe", "dungeon_lord.hand")
    g.put("hp_regroup", "hero.hand")
    g.patch("card_exhausted", card="eq_lantern", exhausted=True)
    g.set("charges.hero", 0)
    # When the challenge's Reward tokens have been claimed by both seats
    _to_rewards(g, hero_wins=True)
    # Then the window opens for the Dungeon Lord first (the challenge is not over yet)
    assert _window(g) == ("rewards_claimed", DL)
    assert g.notes("rewards_claimed")
    fortune = g.count("fortune.hero")
    g.do(DL, "play", card="dp_grim_tithe")
    assert g.count("fortune.hero") == fortune - 1
    # And the Hero answers with Regroup: Equipment refreshed and a Charge
    assert _window(g) == ("rewards_claimed", HERO)
    g.do(HERO, "play", card="hp_regroup")
    assert "eq_lantern" not in g.state.exhausted
    assert g.count("charges.hero") == 1
    g.passes()
    assert g.notes("challenge_ended")


def test_given_whispers_of_the_dead_when_rewards_are_claimed_then_an_omen_is_gained() -> None:
    g = _game()
    g.put("dp_arch_whispers", "dungeon_lord.hand")
    top = g.zone("omen.deck")[0]
    _to_rewards(g, hero_wins=False)
    g.do(DL, "play", card="dp_arch_whispers")
    assert top in g.zone("dungeon_lord.hand")


def test_given_cutpurse_one_when_rewards_are_claimed_then_it_steals_only_after_a_win() -> None:
    for hero_wins, stolen in ((True, 1), (False, 0)):
        g = _game(hero="ranek", dl="krogarn", skill="sk_cutpurse_1")
        _to_rewards(g, hero_wins=hero_wins)
        assert _window(g) == ("rewards_claimed", DL)
        # the trigger has run before the window opened
        moved = [n for n in g.notes("counter_changed") if n.get("reason") == "steal"]
        assert len(moved) == stolen


# --- cancelling rolled symbols -------------------------------------------------------------
def test_given_despair_when_the_hero_rolls_charges_then_two_are_cancelled() -> None:
    # Given Despair played during the Dungeon Lord's roll
    g = _game()
    g.put("dp_despair", "dungeon_lord.hand")
    g.set("charges.hero", 0)
    g.challenge("strength")
    g.passes()
    g.do(DL, "activate", slot=2)
    g.passes()
    _dl_rolls(g, "sword")
    g.do(DL, "play", card="dp_despair")
    g.passes()
    # When the Hero rolls three Charge symbols (white charge, white sword+charge, blue charge;
    # Merace's red Strength die shows a blank)
    g.do(HERO, "challenge_roll", fortune=1, ultimate=False)
    assert g.pending_data["dice"] == ["fallen_white", "fallen_white", "fallen_red", "fallen_blue"]
    g.roll("charge", "sword_symbol", "blank", "charge")
    # Then the first two are cancelled and the third is gained; the sword still counts
    assert g.notes("symbols_cancelled") == [{"seat": HERO, "symbol": "charge", "n": 2}]
    assert g.count("charges.hero") == 1
    assert g.state.var(f"ch.symbol_ward.{HERO}") is None


def test_given_crystalline_orb_when_dl_chooses_charge_then_it_cannot_take_the_wound() -> None:
    # Given the Crystalline Orb in play, used before a Creature is activated
    g = _game()
    g.put("tr_crystalline_orb", "hero.equipment")
    g.set("charges.dungeon_lord", 0)
    g.challenge("strength")
    g.do(DL, "pass")
    g.do(HERO, "use", card="tr_crystalline_orb", ability=0)
    g.passes()
    g.do(DL, "activate", slot=2)  # Skeleton Guard: 2 black + red
    g.passes()
    # When the Dungeon Lord rolls a red Charge/Wound and a black Wound, and gains the Charge first
    _dl_rolls(g, "sword", "wound", "charge_or_wound")
    assert ("resolve_symbol", {"die": 2, "as": "wound"}) in g.legal()
    g.do(DL, "resolve_symbol", die=2, **{"as": "charge"})
    # Then the Charge is cancelled and that die is spent: it cannot be taken as a Wound any more
    assert g.count("charges.dungeon_lord") == 0
    assert g.notes("symbols_cancelled") == [{"seat": DL, "symbol": "charge", "n": 1}]
    assert g.state.var(f"ch.dice.{DL}")[2][3] is True
    # And the other symbol is gained as usual (the Orb cancels one): the Wound is being dealt
    assert _window(g) == ("when_wounded", HERO)
    g.do(HERO, "pass")
    assert g.count("wounds.hero") == 1


# --- Hero cards bound to a Creature slot (Curses) ---------------------------------------------
def test_given_hex_when_bound_then_it_curses_the_slot_not_the_creature() -> None:
    # Given Hex of Frailty in the Hero's hand
    g = _game()
    g.put("hp_merace_hex", "hero.hand")
    g.challenge("strength")
    g.do(DL, "pass")
    # When the Hero plays it and binds it to slot 2 (Skeleton Guard, armor 3)
    g.do(HERO, "play", card="hp_merace_hex")
    assert g.pending_kind == "target"
    g.do(HERO, "target", slot=2)
    # Then it lies by the slot as a Curse (not an Augment) and the Creature has 1 less armor
    assert g.zone("curse.2") == ("hp_merace_hex",) and not g.zone("augment.2")
    assert g.notes("card_bound")[-1] == {"card": "hp_merace_hex", "slot": 2, "binding": "curse"}
    assert creature_armor(g.state, 2) == 2
    # And when the Creature in that slot is activated, the Dungeon Lord loses 1 Fortune
    g.passes()
    fortune = g.count("fortune.dungeon_lord")
    g.do(DL, "activate", slot=2)
    assert g.count("fortune.dungeon_lord") == fortune - 1


def test_given_a_cursed_slot_then_it_stays_for_the_game_and_only_its_creature_is_affected() -> None:
    g = _game()
    g.put("hp_merace_hex", "curse.0")
    # the Curse stays when the Creature is killed and applies to the replacement
    g.run_tasks(("pick_creature", {"seat": HERO, "then": "kill", "n": 1}))
    g.do(HERO, "target", slot=0)
    assert g.zone("dead.0") == ("cr_goblin_sneak",)
    g.run_tasks(("replace_dead", {}))
    new = g.zone("slot.0")[0]
    assert g.zone("curse.0") == ("hp_merace_hex",)
    assert creature_armor(g.state, 0) == max(1, int(card(new)["armor"]) - 1)
    # activating another slot does not trigger the Curse
    g.challenge("strength")
    g.passes()
    fortune = g.count("fortune.dungeon_lord")
    g.do(DL, "activate", slot=2)
    assert g.count("fortune.dungeon_lord") == fortune


# --- the Final Battle conclusion ----------------------------------------------------------------
def _final_claim(winner: str) -> Game:
    g = _game()
    deck = list(g.zone("fb.deck"))
    begins = next(c for c in deck if card(c).get("begins"))
    others = [c for c in deck if c != begins]
    g.put(begins, "fb.begins")
    for cid in others[:2]:
        g.put(cid, f"fb.won.{winner}")
    g.put(others[2], "fb.current")
    g.setv("ch.winner", winner)
    g.run_tasks(("fb_claim", {}))
    return g


def test_given_a_third_final_battle_card_then_the_winners_conclusion_is_read() -> None:
    for winner in (HERO, DL):
        # When the winner claims a third Final Battle card
        g = _final_claim(winner)
        # Then the game is over and the Begins card's Conclusion for that winner is recorded
        assert g.state.phase == "over" and g.state.winner == winner
        begins = g.zone("fb.begins")[0]
        text = card(begins)["conclusion"][winner]
        assert text
        assert g.notes("final_battle_conclusion") == [
            {"card": begins, "name": card(begins)["name"], "winner": winner, "text": text}
        ]
        assert g.notes("game_over")[-1]["conclusion"] == text
        assert g.state.var("conclusion") == {"card": begins, "winner": winner, "text": text}
