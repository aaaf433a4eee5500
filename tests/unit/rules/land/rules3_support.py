"""Positions of new games (card data 3, the options the runner pins) for the rules-3 tests.

The Dealer plays the deck service: it holds the face-down decks, so a position keeps the
dealer that formed them (`Game`) and every later draw is dealt from the same decks."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from services.rules.engine.api import CHANCE, Command, Event
from services.rules.engine.dealer import Dealer
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.flow import REGISTRY
from services.rules.playout import pick
from tests.unit.rules.land.support import setup, waiting


@dataclass
class Game:
    """A game in progress: its state and the dealer (dice and deck service) behind it."""

    state: State
    dealer: Dealer
    events: list[Event] = field(default_factory=list)  # every event since the game was made

    def play(self, until: Callable[[State], bool], seed: str = "r3", seats: bool = True) -> None:
        """Answer chance (and, with `seats`, random legal seat commands) until `until`."""
        for step in range(20_000):
            if until(self.state):
                return
            p = RULES.pending(self.state)
            assert p is not None, "the game ended before the wanted position"
            if p.seat == CHANCE:
                assert p.chance is not None
                cmd = self.dealer.answer(p.chance)
            else:
                assert seats, p
                cmd = pick(RULES.legal_commands(self.state, p.seat), seed, step)
            evs, self.state = RULES.step(self.state, cmd)
            self.events += evs
        raise AssertionError("the wanted position never came")

    def edit(self, fn: Callable[[Any], None]) -> None:
        """Change the position through events (the pending decision stays)."""
        ctx = REGISTRY.ctx(self.state)
        fn(ctx)
        self.state = ctx.state
        self.events += ctx.events

    def run(self, *tasks: tuple[str, dict[str, Any]]) -> None:
        """Run tasks (the queue set aside, p1's Town Events roll queued after them) until a
        decision is asked for."""
        ctx = REGISTRY.ctx(self.state)
        ctx.tasks = []
        ctx.push(*tasks, ("town_event", {"seat": "p1"}))
        ctx.run()
        for ev in ctx.finish():
            self.state = RULES.evolve(self.state, ev)
            self.events.append(ev)

    def run_then_roll(self, *tasks: tuple[str, dict[str, Any]]) -> None:
        """Run tasks (the queue set aside), answering chance until p1's Town Events roll
        queued after them is asked for."""
        self.run(*tasks)
        self.play(rolled("town events p1"), seats=False)

    def answer(self, seat: str, kind: str, **args: Any) -> None:
        """A seat's command."""
        evs, self.state = RULES.step(self.state, Command(seat, kind, args))
        self.events += evs


def rolled(purpose: str) -> Callable[[State], bool]:
    """Return a test for 'chance is asked to roll for this purpose'."""

    def test(s: State) -> bool:
        p = s.pending
        return p is not None and p["kind"] == "roll" and p["data"].get("purpose") == purpose

    return test


def new_game(n: int, until: Any, seed: str = "r3", **options: Any) -> Game:
    """Return a new game (options pinned as the runner pins them) played until `until`."""
    s = setup(n, **RULES.new_game_options(options))
    g = Game(RULES.initial_state(), Dealer(hashlib.sha256(seed.encode()).digest(), "g"))
    for ev in RULES.initial_events("g", s):
        g.state = RULES.evolve(g.state, ev)
        g.events.append(ev)
    g.play(until, seed)
    return g


def at_deed(n: int = 2, seed: str = "r3", **options: Any) -> Game:
    """Return a new game at p1's first deed decision (Party Exploits)."""
    return new_game(n, waiting("deed", "p1"), seed, **options)


def notes(events: list[Event], type_: str) -> list[dict[str, Any]]:
    """Return the data of every event of a type (without the flow riding on a fact)."""
    out = [dict(e.data) for e in events if e.type == type_]
    return [{k: v for k, v in d.items() if not k.startswith("_")} for d in out]
