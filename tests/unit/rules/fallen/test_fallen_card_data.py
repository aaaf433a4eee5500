"""The card data: counts from the Component List, unique ids, only known effect primitives."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from services.rules.fallen.cards import ATTRIBUTES, SHADOW, TIMINGS, TRIGGERS, catalog
from services.rules.fallen.dice_faces import faces_of
from services.rules.fallen.effects import CONDITIONS, OPS

MODS = {"attribute_dice", "dl_dice", "creature_armor", "creature_dice", "armor", "fortune_limit",
        "hand_size", "charge_slots", "power_cost", "swords"}
COLOURS = {"white", "black", "red", "blue"}


def _walk_effects(effects: list[dict[str, Any]], where: str) -> None:
    for eff in effects:
        if "if" in eff:
            assert eff["if"] in CONDITIONS, f"{where}: unknown condition {eff['if']}"
            assert set(eff) <= {"if", "then", "else"}, where
            _walk_effects(eff.get("then", []), where)
            _walk_effects(eff.get("else", []), where)
            continue
        assert len(eff) == 1, f"{where}: one primitive per effect, got {eff}"
        (name, arg), = eff.items()
        assert name in OPS, f"{where}: unknown effect primitive {name!r}"
        if name == "add_dice":
            assert set(arg) <= COLOURS, where
        if name == "mod":
            _check_mods([arg], where)
        if name == "roll_die":
            _walk_effects(arg.get("hit", []), where)
            _walk_effects(arg.get("miss", []), where)


def _check_mods(mods: list[dict[str, Any]], where: str) -> None:
    for m in mods:
        assert m["mod"] in MODS, f"{where}: unknown modifier {m['mod']!r}"
        assert set(m.get("dice", [])) <= COLOURS, where
        assert m.get("attribute", "any") in (*ATTRIBUTES, "any"), where


def _check_card(c: dict[str, Any]) -> None:
    where = c["id"]
    _walk_effects(c.get("effects", []), where)
    _walk_effects(c.get("on_learn", []), where)
    _check_mods(c.get("mods", []), where)
    for t in c.get("triggers", []):
        assert t["when"] in TRIGGERS, where
        _walk_effects(t["effects"], where)
    for ab in c.get("abilities", []):
        assert ab["timing"] in TIMINGS, where
        _walk_effects(ab["effects"], where)
    if "timing" in c:
        assert c["timing"] in TIMINGS, where
    if "ultimate" in c:
        _walk_effects(c["ultimate"]["effects"], where)
    if "ability" in c:
        assert c["ability"]["when"] in ("activate", "win", "lose"), where
        _walk_effects(c["ability"]["effects"], where)
        _check_mods(c["ability"].get("mods", []), where)
    for seat in ("hero", "dungeon_lord"):
        if c["type"] == "final_battle":
            _walk_effects(c.get(seat, []), where)


def test_component_counts_match_the_rulebook() -> None:
    counts = Counter(c["type"] for c in catalog().cards.values())
    assert counts["hero"] == 3 and counts["dungeon_lord"] == 3
    assert counts["creature"] == 28
    assert counts["skill"] == 27
    assert counts["basic"] == 4
    assert counts["treasure"] == 20
    assert counts["critical"] == 16
    assert counts["power"] == 100
    assert counts["final_battle"] == 42
    assert counts["shadow"] == 6
    assert counts["omen"] == 12
    assert counts["token"] == 18
    assert counts["story"] >= 12


def test_power_decks_are_20_standard_plus_10_per_character() -> None:
    cat = catalog()
    for side, chars in (("hero", cat.heroes), ("dungeon_lord", cat.dungeon_lords)):
        assert len(cat.ids("power", side=side, character=None)) == 20
        for ch in chars:
            assert len(cat.ids("power", side=side, character=ch)) == 10


def test_each_hero_has_nine_skills_in_three_groups_of_ranks_one_to_three() -> None:
    cat = catalog()
    for hero in cat.heroes:
        skills = [cat[s] for s in cat.ids("skill", hero=hero)]
        assert len(skills) == 9
        groups = Counter(s["group"] for s in skills)
        assert set(groups.values()) == {3}
        assert {(s["rank"], s["cost"]) for s in skills} == {(1, 3), (2, 5), (3, 7)}


def test_each_dungeon_lord_has_a_begins_card_and_13_final_battle_cards() -> None:
    cat = catalog()
    for dl in cat.dungeon_lords:
        cards = [cat[c] for c in cat.ids("final_battle", dl=dl)]
        assert sum(1 for c in cards if c.get("begins")) == 1
        assert sum(1 for c in cards if not c.get("begins")) == 13
        assert all(c["attribute"] in ATTRIBUTES for c in cards if not c.get("begins"))


def test_creature_levels_and_stats() -> None:
    creatures = catalog().of_type("creature")
    assert {c["level"] for c in creatures} == {1, 2, 3}
    for level in (1, 2, 3):
        # enough for four slots plus replacements
        assert sum(1 for c in creatures if c["level"] == level) >= 5
    for c in creatures:
        assert c["armor"] >= 1 and set(c["dice"]) <= COLOURS
        assert set(c["icons"]) <= set(ATTRIBUTES) and c["icons"]


@pytest.mark.parametrize("cid", sorted(catalog().cards))
def test_every_card_uses_only_known_primitives(cid: str) -> None:
    _check_card(catalog()[cid])


def test_ids_are_unique_across_files() -> None:
    # catalog() raises on a duplicate; ids are also the zone contents, so check names too
    ids = list(catalog().cards)
    assert len(ids) == len(set(ids))


def _paths(story: dict[str, Any], key: str, depth: int) -> None:
    choices = story["choices"]
    assert key in choices, story["id"]
    assert choices[key]["icons"]["attribute"] in ATTRIBUTES
    if depth == 4:
        assert key in story["resolutions"], (story["id"], key)
        assert key not in story["next"], (story["id"], key)
        return
    for nxt in story["next"][key]:
        _paths(story, nxt, depth + 1)


def test_story_cards_branch_four_deep_and_resolve() -> None:
    for story in catalog().of_type("story"):
        names = [c["name"] for c in story["choices"].values()]
        assert len(names) == len(set(names)), story["id"]
        assert len(story["start"]) == 2
        for first in story["start"]:
            _paths(story, first, 1)


def test_quests_set_a_shadow_track_card_and_equipment_exists() -> None:
    cat = catalog()
    for dl in cat.dungeon_lords:
        quest = cat[dl]["quest"]
        assert len(quest["choices"]) == 2
        assert all(c["shadow"] in SHADOW for c in quest["choices"])
    for hero in cat.heroes:
        gear = [cat[e] for e in cat[hero]["equipment"]]
        assert [g["slot"] for g in gear].count("armor") == 1


def test_fallen_dice_have_six_faces_from_the_symbol_vocabulary() -> None:
    symbols = {"sword", "two_swords", "charge", "wound", "charge_or_wound", "sword_symbol", "blank"}
    for colour in COLOURS:
        faces = faces_of(f"fallen_{colour}")
        assert len(faces) == 6 and set(faces) <= symbols


def test_reward_tokens_only_use_known_symbols() -> None:
    for t in catalog().of_type("token"):
        assert set(t["gives"]) <= {"card", "charge", "fortune", "shift", "wound", "treasure_omen"}
