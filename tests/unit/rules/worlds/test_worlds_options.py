"""CreateGame options: decks per seat, bot seats, refusals naming the field."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.kernel.errors import InvalidArgument
from services.rules.worlds.options import parse


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
