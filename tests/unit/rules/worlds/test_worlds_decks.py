"""Deck lists: known cards, at most five copies, Specials unique, refusals name the card."""

from __future__ import annotations

import pytest

from services.rules.worlds.cards import catalog
from services.rules.worlds.decks import (
    MAX_DECK_ENTRIES,
    DeckError,
    build_library,
    copy_limit,
    largest_library,
)

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


def test_a_library_of_400_cards_is_legal() -> None:
    # "there is no limit to the size of your Library (minimum or maximum)"
    # given 400 cards, no card over its copy limit
    deck = _legal_deck(400)
    # when it is built, then every card is in the library
    assert len(build_library(deck, CAT)) == 400


def test_every_legal_library_fits_the_request_bound() -> None:
    # given the largest legal library (each card at its copy limit)
    everything = [c for c in CAT.cards for _ in range(copy_limit(CAT, c))]
    # then the request bound does not refuse it, as a list or as a map
    assert len(everything) == largest_library(CAT) <= MAX_DECK_ENTRIES
    assert len(build_library(everything, CAT)) == largest_library(CAT)
    assert len(build_library(dict.fromkeys(CAT.cards, 1), CAT)) == len(CAT.cards)


def test_a_deck_option_over_the_request_bound_is_refused_naming_the_bound() -> None:
    # given a list with one entry more than a request may hold
    spec = ["uea_marine"] * (MAX_DECK_ENTRIES + 1)
    # when it is built, then the refusal names the bound (not a rule of the game)
    with pytest.raises(DeckError, match=f"at most {MAX_DECK_ENTRIES} cards"):
        build_library(spec, CAT)


def _legal_deck(n: int) -> list[str]:
    """n cards, each non-Special card at most five times, in catalog order."""
    cards = [c.id for c in CAT.cards.values() if not c.special for _ in range(5)]
    assert len(cards) >= n
    return cards[:n]
