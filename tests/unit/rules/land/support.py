"""Drive a real Fallen Land game to a decision, and set up a position through events."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from services.rules.engine.api import CHANCE, Command, Setup
from services.rules.engine.dealer import Dealer
from services.rules.engine.flow import Ctx
from services.rules.engine.state import State
from services.rules.land import RULES
from services.rules.land.data import card
from services.rules.land.flow import REGISTRY
from services.rules.playout import pick


def setup(n: int, **options: Any) -> Setup:
    """Return a setup for seats p1..pn with options."""
    return Setup({f"p{k}": f"u{k}" for k in range(1, n + 1)}, options)


def drive(s: Setup, until: Callable[[State], bool], seed: str = "t") -> State:
    """Play random legal commands (chance from the fair scheme) until `until(state)` holds."""
    dealer = Dealer(hashlib.sha256(seed.encode()).digest(), "g")
    state = RULES.initial_state()
    for ev in RULES.initial_events("g", s):
        state = RULES.evolve(state, ev)
    for step in range(20_000):
        if until(state):
            return state
        p = RULES.pending(state)
        assert p is not None, "the game ended before the wanted decision"
        if p.seat == CHANCE:
            assert p.chance is not None
            cmd = dealer.answer(p.chance)
        else:
            cmd = pick(RULES.legal_commands(state, p.seat), seed, step)
        _, state = RULES.step(state, cmd)
    raise AssertionError("the wanted decision never came")


def resume(state: State, until: Callable[[State], bool], seed: str = "r") -> State:
    """Answer chance's dice (fresh fair draws) until `until(state)`; seats must not be asked."""
    dealer = Dealer(hashlib.sha256(seed.encode()).digest(), "g")
    for _ in range(1_000):
        if until(state):
            return state
        p = RULES.pending(state)
        assert p is not None and p.seat == CHANCE and p.chance is not None, p
        _, state = RULES.step(state, dealer.answer(p.chance))
    raise AssertionError("the wanted decision never came")


def waiting(kind: str, seat: str | None = None) -> Callable[[State], bool]:
    """Return a test for 'a decision of this kind is pending (for this seat)'."""

    def test(state: State) -> bool:
        p = state.pending
        return p is not None and p["kind"] == kind and (seat is None or p["seat"] == seat)

    return test


def edit(state: State, fn: Callable[[Ctx], None]) -> State:
    """Return the state after fn changed it through events (the pending decision stays)."""
    ctx = REGISTRY.ctx(state)
    fn(ctx)
    return ctx.state


def run_task(state: State, name: str, args: dict[str, Any]) -> tuple[State, list[str]]:
    """Return the state after one task ran by itself, and the types of the events it made."""
    ctx = REGISTRY.ctx(state)
    REGISTRY.tasks[name](ctx, args)
    return ctx.state, [e.type for e in ctx.events]


def legal(state: State, seat: str) -> list[tuple[str, dict[str, Any]]]:
    """Return a seat's legal commands as (kind, args)."""
    return [(c.kind, dict(c.args)) for c in RULES.legal_commands(state, seat)]


def act(state: State, seat: str, kind: str, **args: Any) -> tuple[State, list[Any]]:
    """Return the state after a seat's command and the events it caused."""
    events, new = RULES.step(state, Command(seat, kind, args))
    return new, events


def run_tasks(ctx: Ctx, *tasks: tuple[str, dict[str, Any]]) -> list[str]:
    """Run tasks until they are all done or one asks for a decision (kept in ctx.pending);
    return the types of the events they recorded."""
    start = len(ctx.events)
    ctx.push(*tasks)
    while ctx.tasks and ctx.pending is None:
        name, args = ctx.tasks.pop(0)
        REGISTRY.tasks[name](ctx, dict(args))
    return [e.type for e in ctx.events[start:]]


def ctx_notes(ctx: Ctx, type_: str) -> list[dict[str, Any]]:
    """Return the data of every event of a type recorded in ctx."""
    return [e.data for e in ctx.events if e.type == type_]


def place_card(ctx: Ctx, c: str, zone: str) -> None:
    """Put a card into a zone: moved from where it lies, or taken from its face-down deck."""
    src = next((z for z, cs in ctx.state.zones.items() if c in cs), None)
    if src is not None:
        ctx.move(c, src, zone)
        return
    ctx.add(f"deck.{card(c)['deck']}", -1)
    ctx.emit("zone_set", {"zone": zone, "cards": [*ctx.state.zone(zone), c]})
