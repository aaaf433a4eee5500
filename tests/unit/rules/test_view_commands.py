"""Every game's seat view lists the seat's legal commands in one shape: {kind, args}."""

from __future__ import annotations

from typing import Any

import pytest

from services.rules.engine.api import GameRules, Setup
from services.rules.fallen import RULES as FALLEN
from services.rules.land import RULES as LAND
from services.rules.playout import play
from services.rules.worlds import RULES as WORLDS

GAMES: dict[str, tuple[GameRules, dict[str, str], dict[str, Any]]] = {
    "fallen": (FALLEN, {"hero": "a", "dungeon_lord": "b"}, {}),
    "worlds": (WORLDS, {"p1": "a", "p2": "b"}, {}),
    "land": (LAND, {"p1": "a", "p2": "b", "p3": "c"}, {"short_game": True, "max_turns": 1}),
}


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_seat_view_lists_its_legal_commands_as_kind_and_args(game: str) -> None:
    # given a game folded to its middle, where a seat must act
    rules, seats, options = GAMES[game]
    events = play(rules, Setup(seats, options), f"vc-{game}", f"vc-{game}").events
    state = rules.initial_state()
    for event in events[: len(events) // 2]:
        state = rules.evolve(state, event)
    rest = iter(events[len(events) // 2 :])
    pending = rules.pending(state)
    while pending is None or pending.seat not in seats:
        state = rules.evolve(state, next(rest))
        pending = rules.pending(state)
    # when that seat's view and the spectator's are built
    view = rules.view(state, pending.seat)
    spectator = rules.view(state, None)
    # then the seat's view lists exactly its legal commands, each {kind, args}; the
    # spectator's lists none
    legal = rules.legal_commands(state, pending.seat)
    assert legal
    assert view["commands"] == [{"kind": c.kind, "args": dict(c.args)} for c in legal]
    assert "commands" not in spectator
