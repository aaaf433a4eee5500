"""The map, faction chart, tables and card data: everything the rules name exists and is used."""

from __future__ import annotations

from collections import Counter
from typing import Any

from services.rules.land.data import (
    CARD_DATA_VERSIONS,
    DAMAGE_TYPES,
    LATEST_CARD_DATA,
    NPCM_CLASSES,
    SKILLS,
    TIMINGS,
    catalog,
    deck_cards,
    economy,
    factions,
    town_events,
)
from services.rules.land.effects import PERKS, check_ability, walk
from services.rules.land.hexmap import distances, game_map


def test_every_numbered_hex_1_to_100_exists_and_is_passable() -> None:
    m = game_map()
    assert sorted(m.numbered) == list(range(1, 101))
    assert len(set(m.numbered.values())) == 100
    assert all(m.passable(h) for h in m.numbered.values())


def test_fifteen_resources_and_ten_towns_are_on_passable_hexes() -> None:
    m = game_map()
    assert len(m.resources) == 15
    assert sorted(m.towns) == list(range(1, 11))
    places = [r.at for r in m.resources.values()] + list(m.towns.values())
    assert len(set(places)) == 25
    assert all(m.passable(h) for h in places)
    assert all("city" in m.terrain[t] for t in m.towns.values())
    assert all(m.number_of(t) is None for t in m.towns.values())


def test_passable_graph_is_connected_and_water_is_impassable() -> None:
    m = game_map()
    passable = {h for h in m.terrain if m.passable(h)}
    assert len(distances(m, m.towns[1])) == len(passable)
    water = [h for h, t in m.terrain.items() if "water" in t]
    assert water and not any(m.passable(h) for h in water)
    assert len(m.terrain) == m.width * m.height


def test_every_terrain_kind_and_a_multi_terrain_hex_exist() -> None:
    m = game_map()
    kinds = set().union(*m.terrain.values())
    assert {"plains", "mountain", "city", "rad", "water"} <= kinds
    assert any(len(t) > 1 for t in m.terrain.values())
    numbered_terrain = set().union(*(m.terrain[h] for h in m.numbered.values()))
    assert {"plains", "mountain", "city", "rad"} <= numbered_terrain


def test_faction_chart_has_four_perks_and_two_known_techs_each() -> None:
    techs = economy()["techs"]
    for roll, f in factions().items():
        assert 1 <= roll <= 10
        assert len(f["perks"]) == 4, f["id"]
        assert len(f["techs"]) == 2 and set(f["techs"]) <= set(techs), f["id"]
        assert all(p["kind"] in PERKS for p in f["perks"]), f["id"]
        for p in f["perks"]:
            if p["kind"] == "starting_spoils":
                assert catalog().cards[p["card"]]["deck"] == "spoils"


def test_town_events_chart_has_ten_rows_of_known_effects() -> None:
    rows = town_events()
    assert sorted(rows) == list(range(1, 11))
    for effects in rows.values():
        walk(effects, "town_events")


def _all_effects() -> list[tuple[str, list[dict[str, Any]]]]:
    out: list[tuple[str, list[dict[str, Any]]]] = []
    for c in catalog().cards.values():
        for key in ("effects", "success", "failure"):
            if key in c:
                out.append((c["id"], c[key]))
        if "optional" in c:
            out += [(c["id"], c["optional"]["success"]), (c["id"], c["optional"]["failure"])]
        if "ability" in c:
            out.append((c["id"], c["ability"]["effects"]))
    return out


def test_every_effect_primitive_is_known() -> None:
    for where, effects in _all_effects():
        walk(effects, where)


def test_every_special_ability_is_known_and_on_characters_or_spoils() -> None:
    abled = [c for c in catalog().cards.values() if "ability" in c]
    for c in abled:
        check_ability(c["ability"], c["id"])
        assert c["deck"] in ("characters", "spoils"), c["id"]
    # card data 2 adds one card per example of the solo Overview's converted abilities
    added = {c["id"]: c["ability"]["timing"] for c in abled if c.get("since") == 2}
    assert added == {
        "ch_61": "resource_production",
        "ch_62": "any",
        "ch_63": "any",
        "signal_scrambler": "played_on",
        "wiretap_kit": "town_business",
    }
    assert all(c.get("since", 1) in CARD_DATA_VERSIONS for c in catalog().cards.values())


def test_deck_sizes_per_card_data_version_and_the_nine_npcms() -> None:
    original = {
        "characters": 60,
        "spoils": 110,
        "action": 60,
        "encounter_plains": 40,
        "encounter_mountain": 40,
        "encounter_city_rad": 40,
        "missions": 20,
    }
    assert {d: len(deck_cards(d, 1)) for d in original} == original
    # card data 2 adds the five cards of the converted abilities (register 31)
    assert {d: len(deck_cards(d, 2)) for d in original} == {
        **original,
        "characters": 63,
        "spoils": 112,
    }
    assert {k: len(v) for k, v in catalog().decks.items()} == {
        d: len(deck_cards(d, LATEST_CARD_DATA)) for d in original
    }
    for d in original:  # a version only adds cards: every earlier deck is a prefix
        assert deck_cards(d, 2)[: len(deck_cards(d, 1))] == deck_cards(d, 1)
    npcms = [c for c in catalog().cards.values() if "npcm" in c]
    assert len(npcms) == 9 and all(c["deck"] == "action" for c in npcms)
    assert {c["npcm"]["class"] for c in npcms} == set(NPCM_CLASSES)
    assert all(c.get("red_dot") for c in npcms)


def test_red_dot_marks_on_action_encounter_and_mission_cards() -> None:
    marked = Counter(c["deck"] for c in catalog().cards.values() if c.get("red_dot"))
    assert marked["action"] > 9 and marked["missions"] > 0
    assert all(
        marked[d] > 0 for d in ("encounter_plains", "encounter_mountain", "encounter_city_rad")
    )


def test_every_skill_damage_type_and_timing_is_used() -> None:
    cards = catalog().cards.values()
    checked = {s for c in cards for s in c.get("checks", {})}
    assert checked == set(SKILLS)
    damaged: set[str] = set()
    for _, effects in _all_effects():
        damaged |= {e["damage"]["type"] for e in effects if "damage" in e}
    assert damaged == set(DAMAGE_TYPES)
    assert {c["timing"] for c in cards if c["deck"] == "action"} == set(TIMINGS)
    prevents = {t for c in cards for t in c.get("prevent", {})}
    assert prevents == set(DAMAGE_TYPES)


def test_spoils_include_every_type_the_rules_use() -> None:
    types = {t for c in catalog().cards.values() if c["deck"] == "spoils" for t in c["types"]}
    assert {"ranged_weapon", "melee_weapon", "armor", "equipment", "vehicle", "horse"} <= types
    assert {"ally", "event", "relic", "book", "alcohol"} <= types
    for c in catalog().cards.values():
        if "ally" in c.get("types", []):
            assert c["hire"] > 0 and c["weight"] == 0


def test_characters_have_six_skills_and_sane_stats() -> None:
    for c in catalog().cards.values():
        if c["deck"] != "characters":
            continue
        assert set(c["skills"]) == set(SKILLS), c["id"]
        assert c["carry"] > 0 and c["health"] > 0 and c["psych"] > 0
        assert c["link"]["skill"] in SKILLS


def test_encounter_checks_are_positive_and_tags_known() -> None:
    for c in catalog().cards.values():
        for skill, n in c.get("checks", {}).items():
            assert skill in SKILLS and n > 0, c["id"]
        assert set(c.get("tags", [])) <= {"melee_only", "ambush"}
