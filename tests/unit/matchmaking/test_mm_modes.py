"""Game options per mode as data: fixed options (a variant) and a player-chosen challenge."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.matchmaking.engine import Matchmaker, Request
from services.matchmaking.matcher import find_groups
from services.matchmaking.model import Ticket
from services.matchmaking.modes import load_modes
from services.matchmaking.state import MemoryState
from services.platform.errors import InvalidArgument

# a solo mode with a challenge level, as Land's Solo Variant II will be, and a 2-player
# mode with one, to check that one game never mixes levels
YAML = """
land:
  seats: [p1, p2]
  modes:
    solo2: {pool: rules-land, players: [1, 1], instant: true, options: {variant: solo2},
            challenge: {option: challenge, levels: [1, 2, 3, 4]}}
    duel: {pool: rules-land, players: [2, 2], challenge: {option: level, levels: [1, 2]}}
"""
MODES = load_modes(YAML)


class Creator:
    """Records the CreateGame calls the matchmaker makes."""

    def __init__(self) -> None:
        self.made: list[tuple[str, Mapping[str, str], dict[str, Any]]] = []

    def endpoint(self, pool: str) -> str:
        return "127.0.0.1:1"

    async def create_game(
        self,
        endpoint: str,
        game: str,
        game_id: str,
        seats: Mapping[str, str],
        options: Mapping[str, Any],
        seeds: Mapping[str, str] | None = None,
    ) -> str:
        self.made.append((game, dict(seats), dict(options)))
        return "c" * 64

    async def bot_refusal(self, endpoint: str, game: str) -> str:
        return ""


def test_a_mode_carries_its_options_and_challenge_levels() -> None:
    # given the modes file above, then each mode carries what CreateGame is given
    solo = MODES["land/solo2"]
    assert dict(solo.options) == {"variant": "solo2"}
    assert (solo.challenge_option, solo.challenge_levels) == ("challenge", (1, 2, 3, 4))
    # and the packaged Land solo I mode is one player, at once, with the engine's variant
    solo1 = load_modes()["land/solo1"]
    assert (solo1.min_players, solo1.max_players, solo1.instant) == (1, 1, True)
    assert dict(solo1.options) == {"variant": "solo1"} and not solo1.challenge


def test_the_chosen_level_reaches_create_game_next_to_the_fixed_options() -> None:
    # given a player queued for solo2 at challenge level 3
    creator = Creator()
    mm = Matchmaker(MemoryState(), MODES, creator, clock=lambda: 1000.0, lane=0.0)

    async def run() -> int:
        await mm.enqueue("amy", Request("land", "solo2", challenge_level=3))
        return await mm.tick()

    # when the matchmaker runs, then one game is created with the variant and the level
    assert asyncio.run(run()) == 1
    assert creator.made == [("land", {"p1": "amy"}, {"variant": "solo2", "challenge": 3})]


@settings(max_examples=40, deadline=None)
@given(level=st.integers(0, 2**32 - 1))
def test_a_level_the_mode_does_not_offer_is_refused_and_queues_nothing(level: int) -> None:
    # given any requested level
    state = MemoryState()
    mm = Matchmaker(state, MODES, Creator(), clock=lambda: 1000.0, lane=0.0)

    async def run() -> str:
        try:
            await mm.enqueue("amy", Request("land", "solo2", challenge_level=level))
        except InvalidArgument as exc:
            return str(exc)
        return ""

    refusal = asyncio.run(run())
    # then a level outside 1-4 names the field and queues nothing, and one inside is queued
    if level in (1, 2, 3, 4):
        assert refusal == "" and len(state.queues["land/solo2"]) == 1
    else:
        assert "preferences.challenge_level" in refusal and "[1, 2, 3, 4]" in refusal
        assert not state.queues.get("land/solo2")


def test_one_game_never_mixes_challenge_levels() -> None:
    def t(n: int, level: int) -> Ticket:
        return Ticket(f"t{n}", "land", "duel", (f"u{n}",), 1000.0, 1600.0, 25.0,
                      challenge_level=level)  # fmt: skip

    # given two players at level 1 and one at level 2
    groups = find_groups(MODES["land/duel"], [t(1, 1), t(2, 2), t(3, 1)], 1000.0)
    # then only the two level-1 players meet
    assert [[x.ticket_id for x in g] for g in groups] == [["t1", "t3"]]


@pytest.mark.parametrize(
    "spec",
    [
        "{pool: p, players: [1, 1], challenge: {option: challenge}}",
        "{pool: p, players: [1, 1], challenge: {levels: [1, 2]}}",
        "{pool: p, players: [1, 1], options: {c: 1}, challenge: {option: c, levels: [1]}}",
        "{pool: p, players: [1, 1], options: {variant: [a, b]}}",
        "{pool: p, players: [1, 1], challenge: true}",
    ],
)
def test_a_malformed_mode_is_refused_at_load(spec: str) -> None:
    with pytest.raises(ValueError, match="land/bad"):
        load_modes(f"land:\n  seats: [p1]\n  modes:\n    bad: {spec}\n")
