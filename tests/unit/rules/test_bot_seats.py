"""Bot options are the same for every game (services/rules/bot_seats.py)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.platform.errors import InvalidArgument
from services.rules.bot_seats import bot_seats, check_bot_options, engine_options

SEATS = ["hero", "dungeon_lord"]
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=6,
)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["bots", "bot_policy", "bot_policies", "bot_seed"]) | st.text(max_size=6),
        values | st.just(SEATS[1:]) | st.just("easy"),
        max_size=4,
    )
)
def test_any_bot_options_are_accepted_or_refused_naming_the_field(options: dict[str, Any]) -> None:
    try:
        check_bot_options("fallen", SEATS, options)
    except InvalidArgument as exc:
        assert str(exc).startswith("options.bot")
        return
    bots = options.get("bots", [])
    assert all(b in SEATS for b in bots)


def test_listed_seats_and_bot_players_are_bot_seats() -> None:
    seats = {"p1": "amy", "p2": "bot:land:0", "p3": "ben"}
    assert bot_seats(seats, {"bots": ["p3"]}) == ("p3", "p2")
    assert bot_seats(seats, {}) == ("p2",)


def test_an_engine_that_does_not_read_bot_options_never_sees_them() -> None:
    class Plain:
        pass

    class Reads:
        reads_bot_options = True

    options = {"variant": "standard", "bots": ["p2"], "bot_policy": "easy", "bot_seed": "s"}
    assert engine_options(Plain(), options) == {"variant": "standard"}
    assert engine_options(Reads(), options) == options


@pytest.mark.parametrize("policy", ["easy", "random", "first", "heuristic"])
def test_each_games_own_policies_are_accepted(policy: str) -> None:
    for game, seats in (("fallen", SEATS), ("land", ["p1", "p2"])):
        check_bot_options(game, seats, {"bots": [seats[1]], "bot_policy": policy})
