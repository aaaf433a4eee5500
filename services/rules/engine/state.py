"""The immutable game state every engine shares, and the evolve of the kernel's events.

Every card lives in exactly one zone (top first); counters hold small integers; vars
hold small public JSON values (kept parsed); exhausted holds turned cards; tasks and
pending hold the flow of the game (what runs next, who must answer what), also parsed.
The evolve here knows only game-agnostic events; a game may add its own.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final, Protocol

from services.rules.engine.api import Event
from services.rules.engine.state_types import (  # re-exported: import them from here
    Args,
    FrozenMap,
    State,
    Task,
    frozen,
    thaw,
)

__all__ = ["Args", "FrozenMap", "State", "Task", "frozen", "thaw"]


def dumps(obj: Any) -> str:
    """Return canonical JSON text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


class Reads(Protocol):
    """What pure readers of zones, counters and vars need: a State, or a decide's Ctx (which
    reads its working state without handing it out). The maps are never edited: a reader
    may keep one (or compare it by identity), never the object it read it from."""

    @property
    def zones(self) -> Mapping[str, tuple[str, ...]]:
        """Every zone's cards (top first)."""
        ...

    @property
    def vars(self) -> Mapping[str, Any]:
        """Every var's JSON value."""
        ...

    def zone(self, name: str) -> tuple[str, ...]:
        """Return the cards of a zone (top first)."""
        ...

    def count(self, key: str) -> int:
        """Return a counter's value (0 when unset)."""
        ...

    def peek(self, key: str, default: Any = None) -> Any:
        """Return a var's JSON value itself (shared: read it, never edit it), or default."""
        ...


def with_(state: State, **changes: Any) -> State:
    """Return a copy of the state with some fields changed (a fast dataclasses.replace)."""
    return copy_with(state, changes)


_new = object.__new__
_set_attr = object.__setattr__  # past a frozen dataclass's __setattr__


def copy_with(state: State, changes: Mapping[str, Any]) -> State:
    """Return a copy of the state with the fields of a changes dict set (with_'s core).

    The new object gets a copy of the old one's field dict (a dict copy is one block copy;
    filling the new object's own dict field by field cost about 2,000 instructions more)."""
    fields = state.__dict__.copy()
    fields.update(changes)
    new = _new(type(state))
    _set_attr(new, "__dict__", fields)
    return new


_set_item = dict.__setitem__  # FrozenMap refuses it: only put builds a changed copy
_pop_item = dict.pop


def put(mapping: Mapping[str, Any], key: str, value: Any) -> Mapping[str, Any]:
    """Return a mapping with key set to value (None removes it)."""
    new = FrozenMap(mapping)
    if value is None:
        _pop_item(new, key, None)
    else:
        _set_item(new, key, value)
    return new


Changes = dict[str, Any]  # the State fields an event sets: {field: new value}


def _move(state: State, card: str, src: str, dst: str, bottom: bool) -> Changes:
    cards = state.zones.get(src, ())
    if card not in cards:
        raise ValueError(f"card {card} is not in {src}")
    rest = tuple([c for c in cards if c != card])  # a list first: no generator to resume
    zones = dict(state.zones)
    if rest:
        zones[src] = rest
    else:
        zones.pop(src, None)
    target = tuple([c for c in zones.get(dst, ()) if c != card])
    zones[dst] = (*target, card) if bottom else (card, *target)
    return {"zones": FrozenMap(zones)}


def _card_moved(state: State, d: Mapping[str, Any]) -> Changes:
    return _move(state, d["card"], d["from"], d["to"], bool(d.get("bottom")))


def _zone_set(state: State, d: Mapping[str, Any]) -> Changes:
    return {"zones": put(state.zones, d["zone"], tuple(d["cards"]) or None)}


def _shuffled(state: State, d: Mapping[str, Any]) -> Changes:
    cards = state.zone(d["zone"])
    order = d["order"]
    return {"zones": put(state.zones, d["zone"], tuple(cards[i] for i in order) or None)}


def deck_key(deck: str) -> str:
    """Return the counter holding how many cards a face-down deck has in the deck service."""
    return f"deck.{deck}"


def _dealt(state: State, d: Mapping[str, Any]) -> Changes:
    """Cards the deck service dealt from a deck into a zone (top, or bottom if asked)."""
    cards, zone = tuple(d["cards"]), d["to"]
    old = state.zones.get(zone, ())
    new = (*old, *cards) if d.get("bottom") else (*cards, *old)
    key = deck_key(d["deck"])
    left = state.counters.get(key, 0) - len(cards)
    return {
        "zones": put(state.zones, zone, new or None),
        "counters": put(state.counters, key, left or None),
    }


def _deck_changed(state: State, d: Mapping[str, Any]) -> Changes:
    """A deck's count after the deck service formed, filled or reshuffled it; the cards it
    took face down leave their engine zone (`from`)."""
    zones = state.zones
    src = d.get("from")
    if src:
        gone = set(d.get("cards", ()))
        rest = tuple(c for c in state.zone(src) if c not in gone)
        zones = put(zones, src, rest or None)
    count = int(d["count"])
    return {"zones": zones, "counters": put(state.counters, deck_key(d["deck"]), count or None)}


def add_counter(counters: Mapping[str, int], key: str, delta: int) -> Mapping[str, int]:
    """Return counters with delta added to one of them (0 removes it)."""
    return put(counters, key, (counters.get(key, 0) + int(delta)) or None)


def _counter(state: State, d: Mapping[str, Any]) -> Changes:
    return {"counters": add_counter(state.counters, d["key"], d["delta"])}


def _zones_set(state: State, d: Mapping[str, Any]) -> Changes:
    """Several zones set out at once (a game's components at setup)."""
    zones = dict(state.zones)
    for zone, cards in d["zones"].items():
        if cards:
            zones[zone] = tuple(cards)
        else:
            zones.pop(zone, None)
    return {"zones": FrozenMap(zones)}


def _var(state: State, d: Mapping[str, Any]) -> Changes:
    # shared with the event: var() hands out copies, and a value is never edited after setv
    return {"vars": put(state.vars, d["key"], d.get("value"))}


def set_vars(vars_: Mapping[str, Any], values: Mapping[str, Any]) -> Mapping[str, Any]:
    """Return vars with several set at once, in order (None removes one)."""
    new = dict(vars_)
    for key, value in values.items():
        if value is None:
            new.pop(key, None)
        else:
            new[key] = value
    return FrozenMap(new)


def _vars(state: State, d: Mapping[str, Any]) -> Changes:
    """Several vars set at once (a compact engine's batch of setv), in order."""
    return {"vars": set_vars(state.vars, d["values"])}


def _vars_cleared(state: State, d: Mapping[str, Any]) -> Changes:
    prefix = d["prefix"]
    kept = {k: v for k, v in state.vars.items() if not k.startswith(prefix)}
    return {"vars": FrozenMap(kept)}


def _exhaust(state: State, d: Mapping[str, Any]) -> Changes:
    card = d["card"]
    ex = state.exhausted | {card} if d["exhausted"] else state.exhausted - {card}
    return {"exhausted": ex}


def parse_tasks(raw: Any) -> tuple[Task, ...]:
    """Return a task queue from its JSON form ([[name, args], ...]), sharing the args.

    Handlers get a shallow copy of their args and never mutate nested values, so the
    queue shares them with the event instead of copying on every fold.
    """
    return tuple(raw)


def same(a: Any, b: Any) -> bool:
    """Return True when two JSON values have the same canonical JSON (True is not 1)."""
    if a is b:
        return True
    ta, tb = type(a), type(b)
    if ta in (list, tuple) and tb in (list, tuple):
        if len(a) != len(b):
            return False
        for x, y in zip(a, b, strict=True):  # a loop, not all() over a generator
            if x is not y and not same(x, y):
                return False
        return True
    if ta is not tb:
        return False
    if ta is dict:
        if a.keys() != b.keys():
            return False
        for k, v in a.items():
            if not same(v, b[k]):
                return False
        return True
    return bool(a == b)


def _flow(state: State, d: Mapping[str, Any]) -> Changes:
    changes: Changes = {"tasks": parse_tasks(d["tasks"]), "pending": d.get("pending") or None}
    if d.get("vars"):
        changes["vars"] = set_vars(state.vars, d["vars"])
    return changes


def _game_over(state: State, d: Mapping[str, Any]) -> Changes:
    return {"phase": "over", "winner": d["winner"], "tasks": (), "pending": None}


def _game_created(state: State, d: Mapping[str, Any]) -> Changes:
    return {"game_id": d["game_id"], "phase": "setup"}


def _phase(state: State, d: Mapping[str, Any]) -> Changes:
    return {"phase": d["phase"]}


Fold = Callable[[State, Mapping[str, Any]], Changes]

# event type -> the fields its fold changes (read from the state before the event)
FOLDS: Final[dict[str, Fold]] = {
    "card_moved": _card_moved,
    "zone_set": _zone_set,
    "zones_set": _zones_set,
    "zone_shuffled": _shuffled,
    "deck_dealt": _dealt,
    "deck_changed": _deck_changed,
    "counter_changed": _counter,
    "var_set": _var,
    "vars_set": _vars,
    "vars_cleared": _vars_cleared,
    "card_exhausted": _exhaust,
    "flow": _flow,
    "phase_changed": _phase,
    "game_created": _game_created,
    "game_over": _game_over,
}


FLOW: Final = "_flow"  # the continuation a compact engine carries in a batch's last public fact
COUNTERS: Final = "_counters"  # [[key, delta, reason], ...] a facts engine's fact carries


def changes_of(state: State, type_: str, data: Mapping[str, Any]) -> Changes:
    """Return the fields a kernel event sets, its riders aside (a fresh dict; none for an
    informational event)."""
    fn = FOLDS.get(type_)
    return fn(state, data) if fn is not None else {}


def evolve(state: State, event: Event) -> State:
    """Return the state after one event (unknown informational events change nothing)."""
    data = event.data
    changes = changes_of(state, event.type, data)
    changes["events"] = state.events + 1
    new = copy_with(state, changes)
    apply_riders(new, data)
    return new


def apply_riders(new: State, data: Mapping[str, Any]) -> None:
    """Apply what a compact engine's fact carries besides itself to the state just folded
    from it (a fresh copy, changed in place): its counter changes, then the flow."""
    changes = data.get(COUNTERS)
    if changes:
        counters = new.counters
        for key, delta, _reason in changes:
            counters = add_counter(counters, key, delta)
        new.__dict__["counters"] = counters
    flow = data.get(FLOW)
    if flow is not None:
        if "tasks" in flow:
            new.__dict__.update(tasks=parse_tasks(flow["tasks"]), pending=flow.get("pending"))
        if flow.get("vars"):
            new.__dict__["vars"] = set_vars(new.vars, flow["vars"])


def to_json(state: State) -> dict[str, Any]:
    """Return the full state as JSON-ready data (for hashing and audits)."""
    return {
        "game_id": state.game_id,
        "phase": state.phase,
        "zones": {k: list(v) for k, v in state.zones.items()},
        "counters": dict(state.counters),
        "vars": {k: thaw(v) for k, v in state.vars.items()},
        "exhausted": sorted(state.exhausted),
        "tasks": [[n, thaw(a)] for n, a in state.tasks],
        "pending": state.pending_dict(),
        "winner": state.winner,
        "events": state.events,
    }
