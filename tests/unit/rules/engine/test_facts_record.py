"""Record format 2 of the kernel: counter changes ride on their facts, answers are facts.

A decide in a facts engine records no `counter_changed`, `flow` or `var_set` event, yet
folding its events gives exactly the state the decide built.
"""

from __future__ import annotations

from services.rules.engine.api import PUBLIC, Command, Event
from services.rules.engine.engine import KernelRules
from services.rules.engine.flow import Args, Ctx, Registry
from services.rules.engine.state import COUNTERS, FLOW, State, evolve, to_json, with_
from services.rules.engine.zones import ZoneRules

SEEN = {"hand.a": ("a",), "hand.b": ("b",), "deck": ()}  # other zones: public
ZONES = ZoneRules(("a", "b"), lambda z: SEEN.get(z, ("a", "b")))


def _registry(facts: bool) -> Registry:
    reg = Registry("t", ZONES, compact=lambda s: True, facts=lambda s: facts)

    @reg.task("turn")
    def _turn(ctx: Ctx, a: Args) -> None:
        ctx.ask(a["seat"], "act", "acted", "act", [("pass", {}), ("gain", {}), ("draw", {})])

    @reg.answer("acted")
    def _acted(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
        if kind == "gain":
            ctx.add("gold.a", 2, "income")  # before any fact: waits for the next one
            ctx.note("gold_found", seat="a")
            ctx.add("gold.b", -1, "tax")  # just after a public fact: rides on it
        if kind == "draw":
            ctx.move("c1", "deck", "hand.a")  # seen by a only, with a public count note
            ctx.add("cards.a", 1, "drew")
        ctx.setv("turns", int(ctx.state.vars.get("turns", 0)) + 1)
        ctx.push(("turn", {"seat": "b" if data.get("seat", "a") == "a" else "a"}))

    return reg


class _Rules(KernelRules):
    game = "t"
    seats = ("a", "b")
    schemas = {"pass": {}, "gain": {}, "draw": {}}

    def __init__(self, facts: bool) -> None:
        super().__init__()
        self.registry = _registry(facts)


def _start() -> State:
    state = State(game_id="g", phase="play", zones={"deck": ("c1",)})
    return with_(
        state,
        tasks=(),
        pending={
            "seat": "a",
            "kind": "act",
            "prompt": "act",
            "data": {
                "resume": "acted",
                "seat": "a",
                "options": [["pass", {}], ["gain", {}], ["draw", {}]],
            },
        },
    )


def _refold(start: State, events: list[Event]) -> State:
    state = start
    for event in events:
        state = evolve(state, event)
    return state


def test_given_a_facts_engine_when_counters_change_then_they_ride_on_the_public_fact() -> None:
    # given a facts engine; when a seat's answer changes counters around a fact
    rules = _Rules(facts=True)
    events, live = rules.step(_start(), Command("a", "gain", {}))
    # then the only event is the fact, carrying both changes in order and the continuation
    assert [e.type for e in events] == ["gold_found"]
    assert events[0].data[COUNTERS] == [["gold.a", 2, "income"], ["gold.b", -1, "tax"]]
    assert FLOW in events[0].data and events[0].data[FLOW]["vars"] == {"turns": 1}
    # and folding the events gives exactly the live state
    assert to_json(_refold(_start(), events)) == to_json(live)
    assert live.count("gold.a") == 2 and live.count("gold.b") == -1


def test_given_a_facts_engine_when_an_answer_has_no_fact_then_the_answer_is_recorded() -> None:
    # when a seat passes (nothing else happens)
    rules = _Rules(facts=True)
    events, live = rules.step(_start(), Command("a", "pass", {}))
    # then one `answered` fact says who answered what, and no `flow` bookkeeping event
    assert [e.type for e in events] == ["answered"]
    data = events[0].data
    assert {k: data[k] for k in ("seat", "decision", "kind", "args")} == {
        "seat": "a",
        "decision": "act",
        "kind": "pass",
        "args": {},
    }
    assert events[0].visibility == PUBLIC
    assert to_json(_refold(_start(), events)) == to_json(live)
    # and it carries the continuation and the vars the decide set; the start is untouched
    assert data[FLOW]["vars"] == {"turns": 1} and data[FLOW]["pending"]["seat"] == "b"
    assert live.pending == data[FLOW]["pending"] and live.vars == {"turns": 1}
    start = _start()
    rules.step(start, Command("a", "pass", {}))
    assert to_json(start) == to_json(_start())


def test_given_a_hidden_move_when_a_counter_follows_then_it_rides_on_the_public_note() -> None:
    # when a seat draws a card only it sees, then a counter changes
    rules = _Rules(facts=True)
    events, live = rules.step(_start(), Command("a", "draw", {}))
    # then the hidden move stays visible to its seat alone and the change rides on the public
    # count note, never on the hidden event
    assert [e.type for e in events] == ["card_moved", "hidden_card_moved"]
    assert events[0].visibility == ("a",) and COUNTERS not in events[0].data
    assert events[1].data[COUNTERS] == [["cards.a", 1, "drew"]]
    assert to_json(_refold(_start(), events)) == to_json(live)


def test_given_an_older_engine_when_counters_change_then_each_is_its_own_event() -> None:
    # given an engine without facts (games recorded before record format 2)
    rules = _Rules(facts=False)
    events, live = rules.step(_start(), Command("a", "gain", {}))
    # then the vocabulary is unchanged: counter_changed events around the fact
    assert [e.type for e in events] == ["counter_changed", "gold_found", "counter_changed"]
    assert all(COUNTERS not in e.data for e in events)
    assert to_json(_refold(_start(), events)) == to_json(live)
