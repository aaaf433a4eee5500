"""A 1-6 seat test double engine (registered as 'land' in tests): seats act in turn once.

Each seat in seat order answers "finish"; when all have, the game ends and the outcome
places the seats in the order they finished (a multiplayer placement for ratings).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from services.kernel.errors import RuleViolation
from services.rules.common.api import Command, Event, Pending, Setup

SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")


@dataclass(frozen=True)
class RaceState:
    seats: tuple[str, ...] = ()
    done: tuple[str, ...] = ()


class SeatRaceRules:
    game = "land"
    seats = SEATS

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        order = [s for s in SEATS if s in setup.seats]
        return [Event("RaceStarted", {"seats": order, "options": dict(setup.options)})]

    def initial_state(self) -> RaceState:
        return RaceState()

    def evolve(self, state: RaceState, event: Event) -> RaceState:
        if event.type == "RaceStarted":
            return replace(state, seats=tuple(event.data["seats"]))
        if event.type == "Finished":
            return replace(state, done=(*state.done, event.data["seat"]))
        return state

    def pending(self, state: RaceState) -> Pending | None:
        left = [s for s in state.seats if s not in state.done]
        return Pending(left[0], "finish") if left else None

    def decide(self, state: RaceState, command: Command) -> list[Event]:
        pending = self.pending(state)
        if pending is None or command.seat != pending.seat or command.kind != "finish":
            raise RuleViolation("not your turn to finish")
        return [Event("Finished", {"seat": command.seat})]

    def legal_commands(self, state: RaceState, seat: str) -> list[Command]:
        pending = self.pending(state)
        return [Command(seat, "finish", {})] if pending and pending.seat == seat else []

    def view(self, state: RaceState, seat: str | None) -> dict[str, Any]:
        return {"done": list(state.done)}

    def outcome(self, state: RaceState) -> dict[str, Any] | None:
        if self.pending(state) is not None or not state.seats:
            return None
        return {"placements": [[s] for s in state.done]}

    def state_hash(self, state: RaceState) -> str:
        return hashlib.sha256(json.dumps([state.seats, state.done]).encode()).hexdigest()


RULES = SeatRaceRules()
