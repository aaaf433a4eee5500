"""Setup, Quest stage, Story card stages and the Final Battle."""

from __future__ import annotations

from fallen_harness import Game, dealt_start, finish_challenge

from services.rules.fallen import RULES
from services.rules.fallen.cards import LATEST, card
from services.rules.fallen.state import DL, HERO


def test_setup_choices_and_starting_layout() -> None:
    g = Game(hero="ranek", dl="forge_master", skill="sk_cutpurse_1")
    s = g.state
    assert s.var("char.hero") == "ranek" and s.var("char.dungeon_lord") == "forge_master"
    assert set(g.zone("hero.equipment")) == {"eq_leather_armor", "eq_short_sword"}
    assert g.zone("hero.skills") == ("sk_cutpurse_1",)
    assert len(g.zone("hero.deck")) == 20 and len(g.zone("dungeon_lord.deck")) == 20
    assert len(g.zone("power_box")) == 20  # 10 unused standard cards per side
    assert sum(1 for c in g.zone("hero.deck") if card(c)["character"] == "ranek") == 10
    assert all(card(g.zone(f"slot.{i}")[0])["level"] == 1 for i in range(4))
    assert len(g.zone("fb.deck")) == 14 and card(g.zone("fb.deck")[0]).get("begins")


def test_starting_skill_must_be_a_level_one_skill_of_the_chosen_hero() -> None:
    g = Game.__new__(Game)
    g.events = []
    g.state = dealt_start()
    assert {a["character"] for _, a in g.legal()} == {"seroth", "merace", "ranek"}
    g.do(HERO, "choose_hero", character="seroth")
    g.do(DL, "choose_dungeon_lord", character="krogarn")
    assert {a["skill"] for _, a in g.legal()} == {"sk_titan_1", "sk_gladiator_1", "sk_brawler_1"}


def _setup_order(card_data: int) -> list[str]:
    g = Game(hero="seroth", dl="krogarn", skill="sk_titan_1", card_data=card_data, dealt=True)
    facts = [(e.type, e.data.get("seat")) for e in g.events]
    order = [("character_chosen", HERO), ("skill_learned", None), ("character_chosen", DL)]
    return [kind + (f".{seat}" if seat else "") for kind, seat in sorted(order, key=facts.index)]


def test_given_a_new_game_then_the_hero_takes_his_starting_skill_before_the_dungeon_lord() -> None:
    # Hero Setup 11: "The Hero player must choose one of the level I Skill cards" comes
    # before Dungeon Lord Setup 14: "The Dungeon Lord player should choose one of the
    # Dungeon Lord characters to play."
    assert _setup_order(LATEST) == [
        "character_chosen.hero",
        "skill_learned",
        "character_chosen.dungeon_lord",
    ]
    # and the Hero's choice is offered with his Starter Equipment already out (step 10)
    g = Game.__new__(Game)
    g.events = []
    g.state = dealt_start(options=RULES.new_game_options({}))
    g.do(HERO, "choose_hero", character="seroth")
    assert g.pending_kind == "choose_skill" and g.pending_seat == HERO
    assert {a["skill"] for _, a in g.legal()} == {"sk_titan_1", "sk_gladiator_1", "sk_brawler_1"}
    assert g.zone("hero.equipment") == tuple(card("seroth")["equipment"])[::-1]
    g.do(HERO, "choose_skill", skill="sk_brawler_1")
    assert g.zone("hero.skills") == ("sk_brawler_1",) and g.pending_kind == "choose_dungeon_lord"


def test_given_card_data_three_then_the_starting_skill_came_after_the_dungeon_lord() -> None:
    assert _setup_order(3) == [
        "character_chosen.hero",
        "character_chosen.dungeon_lord",
        "skill_learned",
    ]


def _larders(card_data: int) -> Game:
    g = Game(hero="seroth", dl="krogarn", quest=0, card_data=card_data, dealt=True)
    assert g.quest_choice == "Sneak Through the Larders"
    g.do(HERO, "choose", choice=g.quest_choice)
    return g


def _charge_changes(g: Game) -> list[tuple[int, str]]:
    out = []
    for e in g.events:
        counters = [e.data] if e.type == "counter_changed" else e.data.get("_counters", [])
        for c in counters:
            key, delta, reason = (
                (c["key"], c["delta"], c.get("reason")) if isinstance(c, dict) else c
            )
            if key == "charges.hero":
                out.append((delta, reason))
    return out


def test_given_krogarns_quest_charge_then_it_is_gained_before_the_charge_slots_are_filled() -> None:
    # Quest Stage "4. ... These starting conditions list initial resources given to one of
    # the players ... 5. Place three Charge tokens on the Charge slots of each player's
    # Character card." Given Krogarn's Quest; when the Hero sneaks through the larders
    g = _larders(LATEST)
    # then the Quest's Charge is gained on an empty slot (step 4), not lost, and step 5
    # fills the other slots: the Hero begins with every slot charged
    assert _charge_changes(g) == [(1, "charge"), (2, "quest")]
    assert g.count("charges.hero") == 3 and g.count("charges.dungeon_lord") == 3


def test_given_card_data_three_then_the_larders_gave_fortune_after_the_slots_were_filled() -> None:
    g = _larders(3)
    assert _charge_changes(g) == [(3, "quest")]


def test_quest_sets_the_shadow_track_charges_and_starting_resources() -> None:
    g = Game(hero="merace", dl="archivist", quest=1)
    assert g.quest_choice == "Read the Warding Tome"
    g.do(HERO, "choose", choice=g.quest_choice)
    assert g.count("shadow") == 3  # Clouded
    assert g.count("charges.hero") == 3 and g.count("charges.dungeon_lord") == 3
    assert g.count("xp.dungeon_lord") == 1
    # Preparation: 5 Fortune each, two Power cards each
    assert g.count("fortune.hero") == 5 and g.count("fortune.dungeon_lord") == 5
    assert len(g.zone("hero.hand")) == 2 and len(g.zone("dungeon_lord.hand")) == 2
    assert g.pending_kind == "choose"


def test_story_card_example_path_and_resolution() -> None:
    # The Story card from the rulebook example: Force the Door Open -> Grab the Orc -> ...
    g = Game(hero="seroth", dl="krogarn", stories=["st_01"])
    g.do(HERO, "choose", choice=g.quest_choice)
    assert g.zone("story.current") == ("st_01",)
    offer = [a["choice"] for _, a in g.legal()]
    assert offer == ["Down the Chute", "Force the Door Open"]
    g.do(HERO, "choose", choice="Force the Door Open")
    assert g.notes("story_choice")[-1]["icons"] == {"attribute": "strength"}
    _finish_story_challenge(g)
    assert [a["choice"] for _, a in g.legal()] == [
        "Jump Down the Chute",
        "Grab the Orc then Down the Chute",
    ]
    g.do(HERO, "choose", choice="Grab the Orc then Down the Chute")
    assert g.notes("story_choice")[-1]["icons"] == {"attribute": "agility", "difficulty": "hard"}
    _finish_story_challenge(g)
    # both branches lead to Soft Landing: it is taken without a choice (and then played)
    assert g.notes("story_choice")[-1]["name"] == "Soft Landing"
    assert g.notes("story_offer")[-2] == {"choices": ["Soft Landing"], "forced": True}
    g.do(HERO, "choose", choice="Hold Your Ground")
    assert g.notes("story_choice")[-1]["icons"] == {
        "attribute": "strength",
        "wound": 1,
        "reward": "treasure",
    }
    hero_xp, dl_xp = g.count("xp.hero"), g.count("xp.dungeon_lord")
    _finish_story_challenge(g, until_next_story=True)
    res = g.notes("story_resolution")[-1]
    # "the Hero earns 1 Experience token for choosing the resolution "Hold.""
    assert res["xp"] == 1
    assert g.count("stories") == 1
    assert g.notes("story_begins")[-1]["number"] == 2
    assert g.count("xp.dungeon_lord") >= dl_xp + 1 and g.count("xp.hero") >= hero_xp + 1


def _finish_story_challenge(g: Game, until_next_story: bool = False) -> None:
    start = len(g.notes("challenge_ended"))
    stories = g.count("stories")
    for _ in range(600):
        done = len(g.notes("challenge_ended")) > start
        if done and (not until_next_story or g.count("stories") > stories):
            if g.pending_kind == "choose":
                return
        kind, data = g.pending_kind, g.pending_data
        if kind == "shuffle":
            g.shuffle()
        elif kind == "roll":
            g.roll(*["blank"] * len(data["dice"]))
        elif kind == "window":
            g.do(g.pending_seat, "pass")
        elif kind in ("upgrade", "buy"):
            g.do(g.pending_seat, "done")
        else:
            k, a = g.legal()[0]
            g.do(g.pending_seat, k, **a)
    raise AssertionError("stuck")


def test_final_battle_first_to_three_cards_wins() -> None:
    g = Game(hero="seroth", dl="krogarn")
    g.do(HERO, "choose", choice=g.quest_choice)
    g.run_tasks(("final_battle", {}))
    assert g.state.phase == "final_battle"
    while g.pending_kind == "discard":  # hand size after drawing two Power cards
        k, a = g.legal()[0]
        g.do(g.pending_seat, k, **a)
    # "This card has a title that matches the Quest card's title"
    assert g.notes("final_battle_begins")[-1]["name"] == "The Ogre King's Feast"
    assert g.count("fortune.hero") == 5
    from services.rules.fallen import RULES

    for won in range(1, 4):
        # the hero rolls more swords every time
        for _ in range(200):
            kind, data = g.pending_kind, g.pending_data
            if kind == "roll":
                hero = data.get("seat") == HERO
                g.roll(
                    *[
                        ("two_swords" if hero and "fallen_white" == d else "blank")
                        for d in data["dice"]
                    ]
                )
            elif kind == "shuffle":
                g.shuffle()
            elif kind == "window":
                g.do(g.pending_seat, "pass")
            elif kind in ("upgrade", "buy"):
                g.do(g.pending_seat, "done")
            else:
                k, a = g.legal()[0]
                g.do(g.pending_seat, k, **a)
            if len(g.zone("fb.won.hero")) == won:
                break
        assert len(g.zone("fb.won.hero")) == won
    outcome = RULES.outcome(g.state)
    assert outcome is not None
    assert {k: outcome[k] for k in ("winner", "final_battle")} == {
        "winner": HERO,
        "final_battle": {HERO: 3, DL: 0},
    }
    assert outcome["conclusion"]["winner"] == HERO and outcome["conclusion"]["text"]
    assert RULES.pending(g.state) is None
    assert finish_challenge is not None
