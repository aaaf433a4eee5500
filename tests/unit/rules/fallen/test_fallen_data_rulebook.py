"""Card data against the rulebook's words: quests, resolutions, titles, names, Story shapes."""

from __future__ import annotations

from typing import Any

from services.rules.fallen.cards import catalog, catalog_of

# Codex entries whose rulebook meaning our cards do not implement: no card may use the name.
CODEX_NAMES_NOT_MODELLED = {
    "Cursed Treasure",
    "Glyph of Pain",
    "Hunted",
    "Library of Souls",
    "Recycled",
    "Terrified",
}


def _ops(effects: list[dict[str, Any]]) -> set[str]:
    found: set[str] = set()
    for eff in effects:
        if "if" in eff:
            found |= _ops(eff.get("then", [])) | _ops(eff.get("else", []))
        else:
            found |= set(eff)
    return found


def test_quest_choices_give_no_charge_in_card_data_two_and_three() -> None:
    # Card data 2 and 3 filled the Charge slots before the Quest's starting conditions, so a
    # Quest Charge was lost; none granted one. Card data 4 takes the rulebook's order (step 4,
    # then step 5) and Krogarn's Quest gives its Charge again (test_fallen_stages.py).
    for version in (2, 3):
        cat = catalog_of(version)
        for dl in cat.dungeon_lords:
            for choice in cat[dl]["quest"]["choices"]:
                for seat in ("hero", "dungeon_lord"):
                    assert "gain_charge" not in _ops(choice.get(seat, [])), (dl, choice["name"])
    larders = catalog()["krogarn"]["quest"]["choices"][0]
    assert larders["name"] == "Sneak Through the Larders"
    assert larders["hero"] == [{"gain_charge": 1}]


def test_quest_choices_give_resources_to_one_player() -> None:
    # "During the Quest stage ... resources are gained by one of the players"
    # given every Quest choice; then at most one seat gains from it
    cat = catalog()
    for dl in cat.dungeon_lords:
        for choice in cat[dl]["quest"]["choices"]:
            seats = [s for s in ("hero", "dungeon_lord") if choice.get(s)]
            assert len(seats) == 1, (dl, choice["name"], seats)


def test_final_battle_begins_card_title_matches_its_quest_title() -> None:
    # "This card has a title that matches the Quest card's title"
    # given each Dungeon Lord; then its Begins card bears its Quest's title
    cat = catalog()
    begins = {c["dl"]: c for c in cat.of_type("final_battle") if c.get("begins")}
    for dl in cat.dungeon_lords:
        assert begins[dl]["name"] == cat[dl]["quest"]["title"]


def test_hold_resolution_of_the_chute_gives_one_experience() -> None:
    # "The Dungeon Lord finds "Hold" ... the Hero earns 1 Experience token for choosing the
    # resolution "Hold.""
    # given the example card (Down the Chute / Force the Door Open); when it resolves on Hold
    stories = catalog().of_type("story")
    chute = next(s for s in stories if s["choices"][s["start"][1]]["name"] == "Force the Door Open")
    hold = [r for r in chute["resolutions"].values() if r["name"] == "Hold"]
    # then the Hero gains 1 Experience
    assert [r["xp"] for r in hold] == [1]


def test_every_resolution_is_named_after_the_choice_that_leads_to_it() -> None:
    # "the Dungeon Lord finds the resolution at the bottom of the card that matches the last choice"
    for story in catalog().of_type("story"):
        for key, res in story["resolutions"].items():
            assert story["choices"][key]["name"].startswith(res["name"]), (story["id"], key)


def test_no_card_borrows_a_codex_name_with_another_meaning() -> None:
    # "Below are additional details for several cards to help explain their function." (Card
    # Codex), e.g. "Hunted (Critical card) — If Hunted is added to the active creature, it
    # immediately gains the blue die." The Codex gives these names a meaning our cards do not
    # have, so none may use them.
    names = {c.get("name") for c in catalog().cards.values()}
    assert not names & CODEX_NAMES_NOT_MODELLED


def _chapters() -> list[tuple[str, str, dict[str, Any]]]:
    return [(s["id"], k, c) for s in catalog().of_type("story") for k, c in s["choices"].items()]


def test_every_story_shape_the_rulebook_describes_occurs() -> None:
    # "Just under the introduction are arrows leading to two choices"; "Since both "Jump Down
    # the Chute" and "Grab the Orc" lead to "Soft Landing," ... "Soft Landing" must be taken";
    # "Up to three levels of icons may appear in a single chapter: Story Wound, Treasure/Omen,
    # and the Attribute"; "If no Story Wound, Treasure, or Omen icons are present, then they do
    # not apply"; "Some challenges are considered Easy ... Some challenges are considered Hard"
    # given every Story card; when their arrows and icons are collected
    stories = catalog().of_type("story")
    fan_outs = {len(dest) for s in stories for dest in s["next"].values()}
    merges = [
        s["id"]
        for s in stories
        if any(sum(n in dest for dest in s["next"].values()) > 1 for n in s["choices"])
    ]
    icons = [c["icons"] for _, _, c in _chapters()]
    # then every shape occurs somewhere
    assert all(len(s["start"]) == 2 for s in stories)
    assert fan_outs == {1, 2}  # a forced onward choice and a two-way choice
    assert merges  # two choices whose arrows lead to the same chapter
    assert {i["attribute"] for i in icons} == {"agility", "strength", "intelligence"}
    assert {i.get("difficulty") for i in icons} == {None, "easy", "hard"}
    assert {i.get("reward") for i in icons} == {None, "treasure", "omen"}
    assert any(i.get("wound") and i.get("reward") for i in icons)  # all three levels at once
    assert any(not i.get("wound") and not i.get("reward") for i in icons)  # attribute only


def test_the_story_deck_holds_thirty_cards_whose_every_path_ends_on_a_resolution() -> None:
    # "The Dungeon Lord selects a random Story card from the box" (Preparation 5): the
    # box holds the game's 30 Story cards; every path is four choices long (four challenges,
    # "Once the fourth challenge has been resolved, the Resolution Phase begins").
    stories = catalog().of_type("story")
    assert len(stories) == 30 and len({s["title"] for s in stories}) == 30

    def ends(story: dict[str, Any], key: str, depth: int) -> list[tuple[str, int]]:
        onward = story["next"].get(key)
        if not onward:
            return [(key, depth)]
        return [e for k in onward for e in ends(story, k, depth + 1)]

    for story in stories:
        leaves = [e for k in story["start"] for e in ends(story, k, 1)]
        assert {d for _, d in leaves} == {4}, story["id"]
        assert {k for k, _ in leaves} == set(story["resolutions"]), story["id"]
        reached = set(story["start"]) | {k for dest in story["next"].values() for k in dest}
        assert reached == set(story["choices"]), story["id"]
