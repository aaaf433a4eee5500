"""CreateGame options: decks per seat, bot seats, refusals naming the field."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.errors import InvalidArgument
from services.rules.worlds.options import parse, seal


def test_no_options_gives_the_default_starters_and_no_bots() -> None:
    opts = parse({})
    assert len(opts.libraries["p1"]) > 20 and opts.bots == () and opts.human_starts == ""


def test_a_starter_name_and_a_card_list() -> None:
    opts = parse({"decks": {"p1": "keebo", "p2": ["uea_marine"] * 5}})
    assert all(c.startswith("kee_") for c in opts.libraries["p1"])
    assert opts.libraries["p2"] == ("uea_marine",) * 5


def test_in_a_bot_game_the_human_starts() -> None:
    assert parse({"bots": ["p1"]}).human_starts == "p2"
    assert parse({"bots": ["p1", "p2"]}).human_starts == ""


def test_a_bad_card_is_refused_naming_the_seat_and_the_card() -> None:
    with pytest.raises(InvalidArgument) as e:
        parse({"decks": {"p2": {"uea_marine": 2, "dae_vorhaal": 2}}})
    assert e.value.field == "options.decks.p2" and "dae_vorhaal" in str(e.value)
    with pytest.raises(InvalidArgument) as e:
        parse({"decks": {"p1": ["no_such_card"]}})
    assert e.value.field == "options.decks.p1" and "no_such_card" in str(e.value)


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"colour": "red"}, "options.colour"),
        ({"decks": "uea"}, "options.decks"),
        ({"decks": {"p3": "uea"}}, "options.decks"),
        ({"bots": "p2"}, "options.bots"),
        ({"bots": ["p2", "p2"]}, "options.bots"),
        ({"bots": ["dealer"]}, "options.bots"),
        ({"bot_policy": "genius"}, "options.bot_policy"),
        ({"bot_seed": 7}, "options.bot_seed"),
        ({"bots": ["p2"], "bot_policies": {"p1": "search"}}, "options.bot_policies"),
        ({"bots": ["p2"], "bot_policies": {"p2": "genius"}}, "options.bot_policies"),
        ({"bots": ["p2"], "bot_policies": ["search"]}, "options.bot_policies"),
        ({"libraries": {"p1": 40}}, "options.libraries"),
        ({"libraries": {"p1": 40, "p2": -1}}, "options.libraries"),
        ({"libraries": {"p1": 40, "p2": 40}, "decks": {}}, "options.decks"),
    ],
)
def test_malformed_options_name_the_field(options: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidArgument) as e:
        parse(options)
    assert e.value.field == field


@settings(deadline=None)  # a shared CI machine: no per-example timing
@given(
    st.dictionaries(
        st.text(max_size=5),
        st.one_of(st.text(max_size=5), st.integers(), st.lists(st.text(max_size=3))),
    )
)
def test_any_generated_options_are_parsed_or_refused_as_invalid_argument(
    options: dict[str, object],
) -> None:
    try:
        parsed = parse({"decks": options})
    except InvalidArgument as e:
        assert e.field.startswith("options.decks")
    else:
        assert set(parsed.libraries) == {"p1", "p2"}


def test_a_client_may_not_send_library_sizes_and_sealing_keeps_the_cards_out() -> None:
    # given a client's options naming a deck list
    decks = {"p1": "uea", "p2": ["dae_ashling"] * 5}
    # when they are sealed for the game's public record
    public, sealed = seal({"decks": decks, "bots": ["p2"]})
    # then the public options hold the sizes and no card; the cards go to the deck service
    assert public == {"bots": ["p2"], "libraries": {"p1": len(sealed["library.p1"]), "p2": 5}}
    assert sealed["library.p2"] == ("dae_ashling",) * 5
    assert parse(public).sealed and parse(public).size("p2") == 5
    # and a client sending sizes itself is refused (only the server seals)
    with pytest.raises(InvalidArgument) as e:
        seal(public)
    assert e.value.field == "options.libraries"
