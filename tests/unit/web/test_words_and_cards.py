"""Card data served to the page and events described in words (services/web)."""

from __future__ import annotations

import pytest

from services.web.carddata import UnknownCardData, card_data
from services.web.words import describer
from services.web.words.land import LandWords


def test_fallen_card_data_names_cards_and_keeps_story_branches_and_quests_hidden():
    # given Fallen's card data 3 as the page receives it
    cards = card_data("fallen", 3)["cards"]
    # then ids become names with texts, and only the read-aloud parts of secrets are served
    assert cards["eq_chain_mail"] == {"name": "Chain Mail", "type": "basic", "text": "Armor 11."}
    story = next(c for c in cards.values() if c["type"] == "story")
    assert set(story) == {"name", "type", "text"}
    quest = cards["archivist"]["quest"]
    assert set(quest) == {"title", "intro", "choices"} and all(
        isinstance(c, str) for c in quest["choices"]
    )
    fb = next(c for c in cards.values() if c["type"] == "final_battle")
    assert "conclusion" not in fb


def test_unknown_games_and_versions_are_refused():
    with pytest.raises(UnknownCardData, match="known: 1, 2, 3"):
        card_data("fallen", 9)
    with pytest.raises(UnknownCardData, match="unknown game"):
        card_data("chess", 1)


def test_land_card_data_carries_the_map_and_the_faction_chart():
    data = card_data("land", 2)
    assert len(data["map"]["numbered"]) == 100 and len(data["factions"]) == 10
    assert data["cards"]["shotgun"]["name"] == "Pump Shotgun"


def test_a_fallen_roll_is_one_sentence_with_seat_dice_and_faces():
    w = describer("fallen", card_data("fallen", 3)["cards"])
    data = {
        "seat": "hero",
        "dice": ["white", "white", "red"],
        "faces": ["two_swords", "sword", "charge"],
        "nonce": 4,
    }
    assert w.event("dice_rolled", data) == "Hero rolled 2 white, 1 red: two swords, sword, charge"
    assert (
        w.event("answered", {"decision": "window", "args": {}, "seat": "dungeon_lord"})
        == "Dungeon Lord passed"
    )
    assert w.event("var_set", {"key": "card_data", "value": 3}) == "Bookkeeping (var set)"


def test_worlds_names_cards_in_play_by_their_uid():
    w = describer("worlds", card_data("worlds", 1)["cards"])
    w.event(
        "card_deployed", {"card": "dae_pit_brute", "uid": "p2.4", "seat": "p2", "paid": 2, "on": ""}
    )
    line = w.event(
        "strike_rolled",
        {"striker": "p2.4", "target": "p1.9", "roll": 5, "needed": 3, "hit": True, "damage": 3},
    )
    assert (
        line == "Pit Brute (Player 2) strikes card p1.9 (Player 1): rolled 5 (needed 3), hits for 3"
    )


def test_land_names_physical_copies_factions_and_unknown_events_without_ids():
    data = card_data("land", 2)
    w = describer("land", data["cards"])
    assert isinstance(w, LandWords)
    w.factions = data["factions"]
    assert (
        w.event("spoils_sold", {"card": "shotgun#2", "seat": "p1", "price": 9})
        == "Player 1 sold Pump Shotgun for 9 coins"
    )
    assert "opposing faction" in w.event("secondary_effect_ignored", {"roll": 9, "faction": 10})
    assert (
        w.event("brand_new_event", {"card": "ch_01", "seat": "p2"})
        == "Brand new event: card Addie Holloway; seat Player 2"
    )
    assert w.command("roster", {"cards": ["ch_01"]}) == "Roster: cards Addie Holloway"
