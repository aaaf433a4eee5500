"""Bot games from the matchmaker: the rules learn the bot seats, and a bot seat nothing plays
is refused at Enqueue."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest

from services.matchmaking.engine import Matchmaker, Request
from services.matchmaking.modes import load_modes
from services.matchmaking.state import MemoryState
from services.platform.errors import RuleViolation

MODES = load_modes()


class Creator:
    """Records CreateGame calls; its pool plays bot seats unless `refused` says why not."""

    def __init__(self, refused: str = "") -> None:
        self.refused = refused
        self.made: list[tuple[str, dict[str, str], dict[str, Any]]] = []

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
        return self.refused


@pytest.mark.parametrize(("game", "bot_seat"), [("worlds", "p2"), ("fallen", "dungeon_lord")])
def test_a_vs_bot_game_names_its_bot_seat_in_the_options(game: str, bot_seat: str) -> None:
    # given a player queued for a vs_bot game
    creator = Creator()
    mm = Matchmaker(MemoryState(), MODES, creator, clock=lambda: 1000.0, lane=0.0)

    async def run() -> int:
        await mm.enqueue("amy", Request(game, "vs_bot"))
        return await mm.tick()

    # when the matchmaker runs
    assert asyncio.run(run()) == 1
    # then CreateGame lists the bot-filled seat in options.bots (so in Worlds the human starts)
    [(made, seats, options)] = creator.made
    assert made == game and seats[bot_seat] == f"bot:{game}:0"
    assert options["bots"] == [bot_seat]


@pytest.mark.parametrize(
    ("mode", "request_"),
    [
        ("worlds/vs_bot", Request("worlds", "vs_bot")),
        ("fallen/vs_bot", Request("fallen", "vs_bot", role="hero")),
        ("fallen/ranked", Request("fallen", "ranked", bot_takeover=True)),
    ],
)
def test_a_bot_seat_no_worker_plays_is_refused_at_enqueue(mode: str, request_: Request) -> None:
    # given a pool that says no bot worker plays its games
    state = MemoryState()
    creator = Creator("no bot worker plays these games")
    mm = Matchmaker(state, MODES, creator, clock=lambda: 1000.0, lane=0.0)
    # when a player asks for a game that needs a bot
    with pytest.raises(RuleViolation) as refused:
        asyncio.run(mm.enqueue("amy", request_))
    # then the refusal names the mode and why, and nothing is queued
    assert mode in str(refused.value) and "no bot worker plays" in str(refused.value)
    assert not state.queues.get(mode)


def test_a_game_without_bots_is_queued_whatever_the_bot_pools() -> None:
    # given a pool with no bot worker, when a player queues for a game of humans only
    state = MemoryState()
    mm = Matchmaker(state, MODES, Creator("no bot worker"), clock=lambda: 1000.0, lane=0.0)
    asyncio.run(mm.enqueue("amy", Request("worlds", "pvp")))
    # then the ticket is queued
    assert len(state.queues["worlds/pvp"]) == 1
