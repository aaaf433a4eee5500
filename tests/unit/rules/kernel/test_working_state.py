"""The Ctx's working state: changed in place while private, never once handed out."""

from __future__ import annotations

from services.rules.kernel.api import Event
from services.rules.kernel.flow import Registry
from services.rules.kernel.state import FrozenMap, State, evolve
from services.rules.kernel.zones import ZoneRules

ZONES = ZoneRules(("a", "b"), lambda z: ("a", "b"))
START = State(game_id="g", phase="play", zones=FrozenMap({"a.hand": ("c1", "c2")}))


def _fold(state: State, events: list[Event]) -> State:
    for event in events:
        state = evolve(state, event)
    return state


def test_given_a_read_state_when_the_ctx_changes_more_then_the_read_state_is_unchanged() -> None:
    # given a decide that reads its working state after a first change
    ctx = Registry("g", ZONES).ctx(START)
    ctx.move("c1", "a.hand", "b.hand")
    seen = ctx.state
    seen_zones, seen_events = seen.zones, seen.events
    # when it changes more (a move, a counter, an informational fact)
    ctx.move("c2", "a.hand", "b.hand")
    ctx.add("gold.a", 2)
    ctx.note("looked")
    # then the state read earlier is exactly as it was, and the start state too
    assert seen.zones is seen_zones and seen.events == seen_events
    assert seen.zone("b.hand") == ("c1",) and seen.count("gold.a") == 0
    assert START.zone("a.hand") == ("c1", "c2") and START.events == 0
    # and the working state is the fold of the events
    assert ctx.state == _fold(START, ctx.events)
    assert ctx.state.zone("b.hand") == ("c2", "c1") and ctx.state.count("gold.a") == 2


def test_given_unread_changes_when_folded_in_place_then_the_state_equals_evolve() -> None:
    # given a decide that never reads its state between changes
    ctx = Registry("g", ZONES, compact=lambda s: True).ctx(START)
    # when it moves, counts, sets vars and exhausts
    ctx.move("c1", "a.hand", "b.hand")
    ctx.setv("x", [1])
    ctx.add("gold.b", 3)
    ctx.exhaust("c2")
    ctx.pending = {"seat": "a", "kind": "k", "prompt": "p", "data": {"resume": "r"}}
    events = ctx.finish()
    # then the state it built is the fold of its events, with fresh maps where they changed
    folded = _fold(START, events)
    assert ctx.state == folded and ctx.state.pending == folded.pending
    assert ctx.state.zones is not START.zones and ctx.state.vars is not START.vars
