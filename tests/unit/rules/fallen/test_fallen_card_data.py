"""The card data: counts from the Component List, unique ids, only known effect primitives."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from services.rules.fallen.cards import ATTRIBUTES, SHADOW, TIMINGS, TRIGGERS, catalog
from services.rules.fallen.dice_faces import faces_of
from services.rules.fallen.effects import CONDITIONS, OPS

MODS = {
    "attribute_dice",
    "dl_dice",
    "creature_armor",
    "creature_dice",
    "armor",
    "fortune_limit",
    "hand_size",
    "charge_slots",
    "power_cost",
    "swords",
}
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
        ((name, arg),) = eff.items()
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
        for choice in c.get("quest", {}).get("choices", []):
            _walk_effects(choice.get(seat, []), where)


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


# --- the vocabulary is all in use -----------------------------------------------------------
TOKEN_KINDS = {"card", "charge", "fortune", "shift", "wound", "treasure_omen"}


def _effect_lists(c: dict[str, Any]) -> list[list[dict[str, Any]]]:
    lists = [c.get("effects", []), c.get("on_learn", [])]
    lists += [t["effects"] for t in c.get("triggers", [])]
    lists += [ab["effects"] for ab in c.get("abilities", [])]
    if "ultimate" in c:
        lists.append(c["ultimate"]["effects"])
    if "ability" in c:
        lists.append(c["ability"]["effects"])
    if c["type"] == "final_battle":
        lists += [c.get("hero", []), c.get("dungeon_lord", [])]
    if c["type"] in ("hero", "dungeon_lord") and "quest" in c:
        lists += [ch.get(s, []) for ch in c["quest"]["choices"] for s in ("hero", "dungeon_lord")]
    return lists


def _primitives(effects: list[dict[str, Any]]) -> set[str]:
    out: set[str] = set()
    for eff in effects:
        if "if" in eff:
            out |= _primitives(eff.get("then", [])) | _primitives(eff.get("else", []))
            continue
        ((name, arg),) = eff.items()
        out.add(name)
        if name == "roll_die":
            out |= _primitives(arg.get("hit", [])) | _primitives(arg.get("miss", []))
    return out


def _used() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {
        "timing": set(),
        "trigger": set(),
        "primitive": set(),
        "mod": set(),
        "token": set(),
    }
    for c in catalog().cards.values():
        if "timing" in c:
            used["timing"].add(c["timing"])
        used["timing"] |= {ab["timing"] for ab in c.get("abilities", [])}
        used["trigger"] |= {t["when"] for t in c.get("triggers", [])}
        for effects in _effect_lists(c):
            used["primitive"] |= _primitives(effects)
            used["mod"] |= {e["mod"]["mod"] for e in effects if "mod" in e}
        used["mod"] |= {m["mod"] for m in c.get("mods", [])}
        used["mod"] |= {m["mod"] for m in c.get("ability", {}).get("mods", [])}
        if c["type"] == "token":
            used["token"] |= set(c["gives"])
    return used


def test_every_timing_window_trigger_primitive_modifier_and_token_kind_is_used_by_a_card() -> None:
    # given the whole card catalog; then every part of the vocabulary has at least one card
    used = _used()
    assert set(TIMINGS) - used["timing"] == set(), "timing windows no card uses"
    assert set(TRIGGERS) - used["trigger"] == set(), "triggers no card uses"
    assert set(OPS) - used["primitive"] == set(), "effect primitives no card uses"
    assert MODS - used["mod"] == set(), "modifiers no card uses"
    assert TOKEN_KINDS - used["token"] == set(), "reward token kinds no token gives"


def test_the_two_triggered_timings_each_have_a_power_card_on_each_side() -> None:
    cat = catalog()
    for timing in ("creature_exhausted", "rewards_claimed"):
        for side in ("hero", "dungeon_lord"):
            assert cat.ids("power", side=side, timing=timing), (timing, side)


def _binds_to_slot(c: dict[str, Any]) -> bool:
    return any(
        e.get("bind", {}).get("to") == "slot"
        for e in c.get("effects", [])
        if isinstance(e.get("bind"), dict)
    )


def test_slot_binding_cards_are_augments_for_the_dungeon_lord_and_curses_for_the_hero() -> None:
    # given every Power card; then Augment/Curse keywords and binding to a slot go together
    keyword = {"dungeon_lord": "Augment", "hero": "Curse"}
    powers = catalog().of_type("power")
    for c in powers:
        assert c["keyword"], c["id"]
        assert _binds_to_slot(c) == (c["keyword"] == keyword[c["side"]]), c["id"]
        assert c["keyword"] not in set(keyword.values()) - {keyword[c["side"]]}, c["id"]
    for side, kw in keyword.items():
        assert any(c["keyword"] == kw and c["side"] == side for c in powers), kw


def test_every_final_battle_begins_card_has_a_conclusion_for_each_winner() -> None:
    for c in catalog().of_type("final_battle"):
        if c.get("begins"):
            assert set(c["conclusion"]) == {"hero", "dungeon_lord"}, c["id"]
            assert all(c["conclusion"].values()), c["id"]
