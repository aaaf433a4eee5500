"""The card set as data: coverage of every type, sub-type, keyword and primitive; legal starters."""

from __future__ import annotations

import pytest

from services.rules.worlds import vocab
from services.rules.worlds.cards import CardDataError, catalog, parse_card
from services.rules.worlds.decks import build_library

CAT = catalog()
CARDS = list(CAT.cards.values())


@pytest.mark.parametrize("faction", vocab.FACTIONS)
def test_each_faction_has_at_least_twenty_cards_of_every_type_and_a_special(faction: str) -> None:
    cards = CAT.faction(faction)
    assert len(cards) >= 20
    assert {c.type for c in cards} == set(vocab.TYPES)
    assert any(c.special for c in cards)


@pytest.mark.parametrize("faction", vocab.FACTIONS)
def test_each_faction_has_every_attachment_subtype(faction: str) -> None:
    assert {c.subtype for c in CAT.faction(faction) if c.type == "attachment"} == set(
        vocab.SUBTYPES
    )


def test_specials_exist_of_every_card_type() -> None:
    assert {c.type for c in CARDS if c.special} == set(vocab.TYPES)


def test_every_keyword_is_used() -> None:
    used = set().union(*(c.keywords | c.grants for c in CARDS))
    assert used == set(vocab.KEYWORDS)


def test_every_effect_primitive_and_target_is_used() -> None:
    effects = [
        e
        for c in CARDS
        for e in (*c.effects, *c.on_upkeep, *(x for a in c.abilities for x in a.effects))
    ]
    assert {e.op for e in effects} == set(vocab.PRIMITIVES)
    assert {e.target for e in effects if e.target} == set(vocab.TARGETS) - {"any_creature"}


def test_costs_fit_one_turns_resources() -> None:
    # the pool is emptied each turn and holds at most 3 (see the register)
    assert all(1 <= c.res <= 3 for c in CARDS)
    assert all(1 <= a.cost <= 3 for c in CARDS for a in c.abilities)


def test_faction_traits_show_in_the_numbers() -> None:
    def mean(faction: str, stat: str) -> float:
        cs = [c for c in CAT.faction(faction) if c.type == "creature"]
        return sum(getattr(c.stats, stat) for c in cs) / len(cs)

    assert mean("draga", "defence") < mean("uea", "defence") < mean("keebo", "defence")
    assert mean("night_stalkers", "atk") > mean("uea", "atk") > mean("night_stalkers", "defence")
    assert mean("reptilians", "hp") < mean("uea", "hp") < mean("daemons", "hp")
    felids = [c for c in CAT.faction("felidites") if c.type == "creature"]
    assert sum("frenzy" in c.keywords for c in felids) >= len(felids) // 2
    assert all("regenerate" in c.keywords for c in felids if c.logo == "spirit")
    stalkers = [c for c in CAT.faction("night_stalkers") if c.type == "creature"]
    assert sum("beast" in c.keywords for c in stalkers) >= len(stalkers) // 2


@pytest.mark.parametrize("faction", vocab.FACTIONS)
def test_each_faction_has_a_legal_starter_deck_of_its_own_cards(faction: str) -> None:
    library = build_library(faction, CAT)
    assert len(library) >= 20
    assert {CAT[c].faction for c in library} == {faction}


def test_heal_is_a_healing_phase_ability() -> None:
    priestess = CAT["fel_fang_priestess"]
    (heal,) = priestess.abilities
    assert heal.phase == "healing" and heal.cost == 1
    assert heal.effects[0].op == "heal" and heal.effects[0].n == 2


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"id": "x1", "name": "X", "type": "trap", "res": 1}, "unknown type"),
        ({"id": "x2", "name": "X", "type": "attachment", "res": 1}, "subtype"),
        (
            {
                "id": "x3",
                "name": "X",
                "type": "creature",
                "res": 1,
                "hp": 2,
                "keywords": ["flying"],
            },
            "keyword",
        ),
        (
            {"id": "x4", "name": "X", "type": "event", "res": 1, "effects": [{"explode": {}}]},
            "primitive",
        ),
        (
            {
                "id": "x5",
                "name": "X",
                "type": "event",
                "res": 1,
                "effects": [{"heal": {"n": 1, "target": "moon"}}],
            },
            "target",
        ),
        ({"id": "x6", "name": "X", "type": "creature", "res": 1, "hp": 0}, "health"),
        ({"id": "x7", "name": "X", "type": "creature", "res": "two", "hp": 1}, "res"),
    ],
)
def test_bad_card_data_is_refused_naming_the_card(raw: dict[str, object], message: str) -> None:
    with pytest.raises(CardDataError, match=message) as e:
        parse_card(raw, "uea")
    assert str(raw["id"]) in str(e.value)
