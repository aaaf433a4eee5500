"""A tiny two-seat game used as a test double engine for the generic rules service.

Each seat is dealt one secret card (a shuffle), then seats take turns asking for a
d6; after both rolled, the higher roll wins (a tie rolls again).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from services.platform.errors import InvalidArgument, RuleViolation
from services.rules.engine.api import CHANCE, ChanceRequest, Command, Event, Pending, Setup

CARDS = ("card.ace", "card.king", "card.queen", "card.jack")


@dataclass(frozen=True)
class ToyState:
    dealt: tuple[tuple[str, str], ...] = ()
    rolls: tuple[tuple[str, int], ...] = ()
    turn: str = "a"
    asked: bool = False
    winner: str = ""
    started: bool = False


class ToyRules:
    game = "toy"
    seats = ("a", "b")

    def initial_events(self, game_id: str, setup: Setup) -> list[Event]:
        if set(setup.seats) != set(self.seats):
            raise RuleViolation("toy needs seats a and b")
        return [Event("ToyStarted", {})]

    def initial_state(self) -> ToyState:
        return ToyState()

    def evolve(self, state: ToyState, event: Event) -> ToyState:
        d = event.data
        if event.type == "ToyStarted":
            return replace(state, started=True)
        if event.type == "CardDealt":
            return replace(state, dealt=(*state.dealt, (d["seat"], d["card"])))
        if event.type == "RollAsked":
            return replace(state, asked=True)
        if event.type == "Rolled":
            rolls = (*state.rolls, (d["seat"], d["value"]))
            turn = "b" if d["seat"] == "a" else "a"
            if len(rolls) == 2:
                (sa, va), (sb, vb) = rolls
                if va != vb:
                    return replace(state, rolls=rolls, asked=False, winner=sa if va > vb else sb)
                rolls = ()
            return replace(state, rolls=rolls, asked=False, turn=turn)
        return state

    def pending(self, state: ToyState) -> Pending | None:
        if state.winner:
            return None
        if len(state.dealt) < 2:
            return Pending(
                CHANCE, "deal", chance=ChanceRequest("shuffle", "deal", count=len(CARDS))
            )
        if state.asked:
            return Pending(CHANCE, "roll", chance=ChanceRequest("roll", "toy", dice=("d6",)))
        return Pending(state.turn, "ask_roll")

    def decide(self, state: ToyState, command: Command) -> list[Event]:
        pending = self.pending(state)
        if pending is None:
            raise RuleViolation("the game is over")
        if command.seat != pending.seat:
            raise RuleViolation(f"waiting for {pending.seat}, not {command.seat}")
        if command.seat == CHANCE:
            if pending.kind == "deal":
                order = command.args["order"]
                deck = [CARDS[i] for i in order]
                return [
                    Event("CardDealt", {"seat": "a", "card": deck[0]}, ("a",)),
                    Event("CardDealt", {"seat": "b", "card": deck[1]}, ("b",)),
                ]
            return [Event("Rolled", {"seat": state.turn, "value": int(command.args["faces"][0])})]
        if command.kind != "ask_roll":
            raise InvalidArgument("kind", f"unknown command {command.kind!r}; expected 'ask_roll'")
        return [Event("RollAsked", {"seat": command.seat})]

    def legal_commands(self, state: ToyState, seat: str) -> list[Command]:
        pending = self.pending(state)
        if pending is None or pending.seat != seat:
            return []
        return [Command(seat, "ask_roll", {})]

    def view(self, state: ToyState, seat: str | None) -> dict[str, Any]:
        return {
            "my_card": next((c for s, c in state.dealt if s == seat), None),
            "rolls": [list(r) for r in state.rolls],
            "turn": state.turn,
            "winner": state.winner,
        }

    def outcome(self, state: ToyState) -> dict[str, Any] | None:
        return {"winner": state.winner} if state.winner else None

    def state_hash(self, state: ToyState) -> str:
        blob = json.dumps([state.dealt, state.rolls, state.turn, state.winner], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()


RULES = ToyRules()
