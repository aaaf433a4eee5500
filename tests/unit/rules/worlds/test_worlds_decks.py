"""Deck lists: known cards, at most five copies, Specials unique, refusals name the card."""

from __future__ import annotations

import pytest

from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import DeckError, build_library

CAT = catalog()


def test_a_starter_deck_name_builds_its_library() -> None:
    # given the name of a starter deck, when it is built, then its cards are all there
    library = build_library("daemons", CAT)
    assert len(library) == sum(CAT.starters["daemons"].values())
    assert library.count("dae_ashling") == CAT.starters["daemons"]["dae_ashling"]


def test_a_list_of_ids_counts_copies() -> None:
    assert build_library(["uea_marine", "uea_marine", "uea_rifleman"], CAT) == (
        "uea_marine",
        "uea_marine",
        "uea_rifleman",
    )


def test_five_copies_are_allowed_and_six_are_refused_naming_the_card() -> None:
    assert len(build_library({"uea_marine": 5}, CAT)) == 5
    with pytest.raises(DeckError) as e:
        build_library({"uea_marine": 6}, CAT)
    assert e.value.card == "uea_marine" and "five" in str(e.value)


def test_a_special_is_unique() -> None:
    # given a Special twice, then the deck is refused naming it
    assert build_library({"dae_vorhaal": 1}, CAT) == ("dae_vorhaal",)
    with pytest.raises(DeckError) as e:
        build_library(["dae_vorhaal", "dae_vorhaal"], CAT)
    assert e.value.card == "dae_vorhaal" and "Special" in str(e.value)


def test_an_unknown_card_is_refused_by_name() -> None:
    with pytest.raises(DeckError) as e:
        build_library({"uea_marine": 2, "dragon_of_nowhere": 1}, CAT)
    assert e.value.card == "dragon_of_nowhere"


def test_an_unknown_starter_is_refused_and_long_input_is_cut() -> None:
    with pytest.raises(DeckError) as e:
        build_library("x" * 500, CAT)
    assert len(e.value.card) < 50 and "starter" in str(e.value)


@pytest.mark.parametrize("copies", [0, -1, "3", 2.5, True])
def test_copies_must_be_a_positive_integer(copies: object) -> None:
    with pytest.raises(DeckError) as e:
        build_library({"uea_marine": copies}, CAT)
    assert e.value.card == "uea_marine"


@pytest.mark.parametrize("spec", [3, None, [1, 2]])
def test_a_deck_of_the_wrong_shape_is_refused(spec: object) -> None:
    with pytest.raises(DeckError):
        build_library(spec, CAT)


def test_factions_may_be_mixed_and_a_deck_may_be_empty() -> None:
    # the rulebook sets no minimum and no faction rule (see the register)
    assert build_library({}, CAT) == ()
    assert len(build_library({"dae_ashling": 1, "kee_tinker": 1}, CAT)) == 2


def test_an_oversized_deck_is_refused() -> None:
    everything = {c.id: 1 if c.special else 5 for c in CAT.cards.values()}
    with pytest.raises(DeckError, match="at most"):
        build_library(everything, CAT)
