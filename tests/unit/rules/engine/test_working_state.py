"""The Ctx's working state: changed in place while private, never once handed out."""

from __future__ import annotations

from services.rules.engine.api import Event
from services.rules.engine.flow import Args, Ctx, Registry
from services.rules.engine.state import FrozenMap, State, evolve, with_
from services.rules.engine.zones import ZoneRules

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


def test_given_a_queued_task_when_its_handler_edits_its_args_then_the_state_keeps_them() -> None:
    # given a state whose queue holds a task (its args shared with the record) and a handler
    # that edits the args it receives, then queues a task of its own and runs it too
    registry = Registry("g", ZONES)
    seen: list[dict[str, object]] = []

    @registry.task("edit")
    def _edit(ctx: Ctx, a: Args) -> None:
        a["n"] = int(a["n"]) + 1
        seen.append(a)
        if a["n"] < 3:
            ctx.push(("edit", a))
        else:
            ctx.pending = {"seat": "a", "kind": "k", "prompt": "p", "data": {"resume": "r"}}

    queued = {"n": 0}
    state = with_(START, tasks=(("edit", queued),))
    # when a decide runs the queue
    ctx = registry.ctx(state)
    ctx.run()
    # then each handler got its own args, and the state's queued args are unchanged
    assert [a["n"] for a in seen] == [1, 2, 3] and queued == {"n": 0}
    assert state.tasks == (("edit", {"n": 0}),)


def test_given_reads_through_the_ctx_when_it_changes_more_then_they_follow_its_state() -> None:
    # given a decide that reads zones, counters and vars through the Ctx, not its state
    ctx = Registry("g", ZONES, compact=lambda s: True).ctx(START)
    ctx.move("c1", "a.hand", "b.hand")
    assert ctx.zone("b.hand") == ("c1",) and ctx.zones["a.hand"] == ("c2",)
    ctx.add("gold.a", 2)
    ctx.setv("x", [1])
    assert ctx.count("gold.a") == 2 and ctx.peek("x") == [1] and ctx.vars["x"] == [1]
    # when it hands out its state, then changes more
    seen = ctx.state
    ctx.setv("x", None)
    # then the reads give the new values and the state handed out keeps the old ones
    assert ctx.peek("x", "unset") == "unset" and ctx.count("nothing") == 0
    assert seen.peek("x") == [1] and ctx.state.peek("x") is None
    assert START.vars == {} and START.zone("a.hand") == ("c1", "c2")


def test_given_vars_cleared_by_prefix_then_each_is_recorded_once_in_order_the_rest_kept() -> None:
    # given a compact decide over vars with and without a prefix, one of them just set
    start = with_(START, vars=FrozenMap({"ch.a": 1, "keep": 2, "ch.b": [3]}))
    ctx = Registry("g", ZONES, compact=lambda s: True).ctx(start)
    ctx.setv("ch.a", 5)
    seen = ctx.state
    # when it clears the prefix
    ctx.note("vars_cleared", prefix="ch.")
    ctx.pending = {"seat": "a", "kind": "k", "prompt": "p", "data": {"resume": "r"}}
    events = ctx.finish()
    # then the other vars are kept, the record names every cleared var once, in the order
    # setv would have, and the fold of the record is the working state
    assert ctx.state.vars == {"keep": 2} and seen.vars == {"ch.a": 5, "keep": 2, "ch.b": [3]}
    assert list(events[-1].data["vars"].items()) == [("ch.a", None), ("ch.b", None)]
    assert _fold(start, events) == ctx.state and start.peek("ch.a") == 1
