"""The values Fallen keeps between calls for speed follow every change of their inputs.

Each test asks once (filling the cache), then asks about a state whose inputs differ: a
stale answer would be the first one again.
"""

from __future__ import annotations

from services.rules.engine.state import FrozenMap, with_
from services.rules.fallen import derived as dv
from services.rules.fallen.cards import catalog_of, data_version
from services.rules.fallen.state import DL, HERO, State
from services.rules.fallen.windows import (
    _list_abilities,
    abilities_fitting,
    hero_abilities,
    window_options,
)


def _state(zones: dict[str, tuple[str, ...]], **vars_: object) -> State:
    base = {"char.hero": "merace", "char.dungeon_lord": "archivist"}
    return State(zones=FrozenMap(zones), vars=FrozenMap({**base, **vars_}))


def test_modifier_totals_follow_the_hero_s_cards() -> None:
    bare = _state({})
    skilled = _state({"hero.skills": ("sk_gladiator_3",)})  # armor +1
    assert dv.mod_total(bare, HERO, "armor") == 0
    assert dv.mod_total(skilled, HERO, "armor") == 1
    assert dv.mod_total(bare, HERO, "armor") == 0  # the skill left again
    assert dv.mod_total(skilled, DL, "armor") == 0  # a "self" modifier is its owner's


def test_modifier_dice_follow_the_skills_and_the_challenge_attribute() -> None:
    one = _state({"hero.skills": ("sk_titan_1",)})  # strength: blue
    two = _state({"hero.skills": ("sk_titan_1", "sk_brawler_3")})  # agility: red
    assert dv.mod_dice(one, HERO, "attribute_dice", "strength") == ["blue"]
    assert dv.mod_dice(one, HERO, "attribute_dice", "agility") == []
    assert dv.mod_dice(two, HERO, "attribute_dice", "agility") == ["red"]
    assert dv.mod_dice(one, HERO, "attribute_dice", "agility") == []


def test_modifier_totals_follow_the_challenge_s_temporary_mods() -> None:
    zones = {"hero.skills": ("sk_gladiator_3",)}
    plain = _state(zones)
    boosted = _state(
        zones, **{"ch.attribute": "agility", "ch.mods": [{"mod": "armor", "n": 2, "seat": HERO}]}
    )
    assert dv.mod_total(plain, HERO, "armor") == 1
    assert dv.mod_total(boosted, HERO, "armor") == 3
    assert dv.mod_total(plain, HERO, "armor") == 1


def test_sources_follow_the_challenge_vars_while_the_zones_stay_the_same_object() -> None:
    # a card bound to slot 0 applies only while slot 0 holds the active Creature
    base = _state({"hero.skills": ("sk_gladiator_3",), "augment.0": ("crit_crippled_defense",)})
    in_slot = with_(base, vars=FrozenMap({**base.vars, "ch.slot": 0}))
    boosted = with_(in_slot, vars=FrozenMap({**in_slot.vars, "ch.mods": [_MOD]}))
    assert in_slot.zones is base.zones is boosted.zones
    assert dv.mod_total(base, DL, "armor") == 0
    assert dv.mod_total(in_slot, DL, "armor") == -1
    assert dv.mod_total(boosted, HERO, "armor") == 3
    assert dv.mod_total(in_slot, HERO, "armor") == 1
    assert dv.mod_total(base, DL, "armor") == 0


_MOD = {"mod": "armor", "n": 2, "seat": HERO}


def test_triggers_follow_the_cards_in_play() -> None:
    hero = _state({})
    assert dv.triggers_of(hero, "win") == ()
    with_trigger = [
        cid
        for cid, c in catalog_of(data_version()).cards.items()
        if c["type"] == "skill" and any(t["when"] == "win" for t in c.get("triggers", ()))
    ][:1]
    assert with_trigger, "a Skill triggered by a win"
    skilled = _state({"hero.skills": tuple(with_trigger)})
    assert [t[3]["id"] for t in dv.triggers_of(skilled, "win")] == with_trigger
    assert dv.triggers_of(hero, "win") == ()


def test_hero_abilities_follow_the_hero_s_skills_and_equipment() -> None:
    first = _state({"hero.skills": ("sk_gladiator_1",)})
    second = _state({"hero.skills": ("sk_gladiator_1", "sk_brawler_3")})
    assert hero_abilities(first) == _list_abilities((), ("sk_gladiator_1",))
    assert [a[0] for a in hero_abilities(second)] == ["sk_gladiator_1", "sk_brawler_3"]
    assert [a[0] for a in hero_abilities(first)] == ["sk_gladiator_1"]
    assert hero_abilities(_state({})) == ()


def test_window_options_offer_the_abilities_of_the_skills_in_play() -> None:
    tokens = {"skill_tokens.blue": 1}
    with_brawler = _state({"hero.skills": ("sk_brawler_3",)})
    without = _state({})
    data = {"who": HERO, "name": "when_wounded"}
    with_brawler = State(
        zones=with_brawler.zones, vars=with_brawler.vars, counters=FrozenMap(tokens)
    )
    use = ("use", {"card": "sk_brawler_3", "ability": 0})
    assert use in window_options(with_brawler, data)
    assert use not in window_options(without, data)
    assert use in window_options(with_brawler, data)


def test_abilities_by_timing_follow_the_hero_s_skills() -> None:
    # kept per timings asked with the hero's abilities: a new Skill must not keep the old answer
    fits = ("when_wounded",)
    bare = _state({})
    brawler = _state({"hero.skills": ("sk_brawler_3",)})
    assert abilities_fitting(bare, fits) == ()
    assert [a[0] for a in abilities_fitting(brawler, fits)] == ["sk_brawler_3"]
    assert abilities_fitting(brawler, ("hero_roll",)) == tuple(
        a for a in hero_abilities(brawler) if a[2] == "hero_roll"
    )
    assert abilities_fitting(bare, fits) == ()
