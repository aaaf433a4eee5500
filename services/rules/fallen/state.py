"""The immutable game state of Fallen and the low-level evolve of its events.

Every card (and every reward token) lives in exactly one zone; counters hold
Fortune, Experience, Charges, Wounds and the Shadow Track; vars hold small public
JSON values (story progress, the current challenge); tasks and pending hold the
flow of the game (what runs next, who must answer what).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from services.rules.common.api import NOBODY, PUBLIC, Event

HERO = "hero"
DL = "dungeon_lord"
SEATS = (HERO, DL)

_EMPTY: Mapping[str, Any] = MappingProxyType({})


def other(seat: str) -> str:
    """Return the opposing seat."""
    return DL if seat == HERO else HERO


def dumps(obj: Any) -> str:
    """Return canonical JSON text."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class State:
    """The whole game state; fold events into it with evolve."""

    game_id: str = ""
    phase: str = "new"
    zones: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: _EMPTY)
    counters: Mapping[str, int] = field(default_factory=lambda: _EMPTY)
    vars: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    exhausted: frozenset[str] = frozenset()
    tasks: str = "[]"
    pending: str = ""
    winner: str = ""
    events: int = 0

    # --- readers -------------------------------------------------------
    def zone(self, name: str) -> tuple[str, ...]:
        """Return the cards of a zone (top first)."""
        return self.zones.get(name, ())

    def count(self, key: str) -> int:
        """Return a counter's value (0 when unset)."""
        return self.counters.get(key, 0)

    def var(self, key: str, default: Any = None) -> Any:
        """Return a var's JSON value, or default."""
        raw = self.vars.get(key)
        return default if raw is None else json.loads(raw)

    def where(self, card: str) -> str | None:
        """Return the zone holding a card, or None."""
        for name, cards in self.zones.items():
            if card in cards:
                return name
        return None

    def pending_dict(self) -> dict[str, Any] | None:
        """Return the pending decision as a dict, or None."""
        return json.loads(self.pending) if self.pending else None


# --- zone visibility -------------------------------------------------------
_OWNER_ZONES = {
    "hero.hand": (HERO,),
    "dungeon_lord.hand": (DL,),
    "story.current": (DL,),
    "story.used": (DL,),
    "reward.hero_looks": (HERO,),
    "reward.dl_looks": (DL,),
    "hero.new_treasure": (HERO,),
}


def zone_seen_by(zone: str) -> tuple[str, ...]:
    """Return the seats that may see the identity of cards in a zone."""
    if zone in _OWNER_ZONES:
        return _OWNER_ZONES[zone]
    if zone.endswith(".deck") or zone in ("reward.face_down", "power_box", "story.deck"):
        return ()
    return SEATS


def zone_public(zone: str) -> bool:
    """Return True if everybody (spectators too) may see a zone's cards."""
    return zone_seen_by(zone) == SEATS


def move_visibility(src: str, dst: str) -> str | tuple[str, ...]:
    """Return who may see a card moving from src to dst."""
    if zone_public(src) or zone_public(dst):
        return PUBLIC
    seen = set(zone_seen_by(src)) | set(zone_seen_by(dst))
    if not seen:
        return NOBODY
    return tuple(s for s in SEATS if s in seen)


# --- evolve ------------------------------------------------------------------
def _with(state: State, **changes: Any) -> State:
    """Return a copy of the state with some fields changed (a fast dataclasses.replace)."""
    new = object.__new__(State)
    new.__dict__.update(state.__dict__)
    new.__dict__.update(changes)
    return new


def _put(mapping: Mapping[str, Any], key: str, value: Any) -> Mapping[str, Any]:
    new = dict(mapping)
    if value is None:
        new.pop(key, None)
    else:
        new[key] = value
    return MappingProxyType(new)


def _move(state: State, card: str, src: str, dst: str, bottom: bool) -> State:
    cards = state.zone(src)
    if card not in cards:
        raise ValueError(f"card {card} is not in {src}")
    rest = tuple(c for c in cards if c != card)
    zones = _put(state.zones, src, rest or None)
    target = tuple(c for c in zones.get(dst, ()) if c != card)
    target = (*target, card) if bottom else (card, *target)
    return _with(state, zones=_put(zones, dst, target))


def _evolve_zone_set(state: State, d: Mapping[str, Any]) -> State:
    return _with(state, zones=_put(state.zones, d["zone"], tuple(d["cards"]) or None))


def _evolve_shuffled(state: State, d: Mapping[str, Any]) -> State:
    cards = state.zone(d["zone"])
    order = d["order"]
    return _with(state, zones=_put(state.zones, d["zone"], tuple(cards[i] for i in order) or None))


def _evolve_counter(state: State, d: Mapping[str, Any]) -> State:
    value = state.count(d["key"]) + int(d["delta"])
    return _with(state, counters=_put(state.counters, d["key"], value or None))


def _evolve_var(state: State, d: Mapping[str, Any]) -> State:
    value = d.get("value")
    return _with(state, vars=_put(state.vars, d["key"], None if value is None else dumps(value)))


def _evolve_vars_cleared(state: State, d: Mapping[str, Any]) -> State:
    prefix = d["prefix"]
    kept = {k: v for k, v in state.vars.items() if not k.startswith(prefix)}
    return _with(state, vars=MappingProxyType(kept))


def _evolve_exhaust(state: State, d: Mapping[str, Any]) -> State:
    card = d["card"]
    ex = state.exhausted | {card} if d["exhausted"] else state.exhausted - {card}
    return _with(state, exhausted=ex)


def _evolve_flow(state: State, d: Mapping[str, Any]) -> State:
    pending = d.get("pending")
    return _with(state, tasks=dumps(d["tasks"]), pending=dumps(pending) if pending else "")


def evolve(state: State, event: Event) -> State:
    """Return the state after one event (unknown informational events change nothing)."""
    new = _apply(state, event.type, event.data)
    new.__dict__["events"] = state.events + 1
    return new


def _apply(state: State, t: str, d: Mapping[str, Any]) -> State:
    if t == "card_moved":
        return _move(state, d["card"], d["from"], d["to"], bool(d.get("bottom")))
    if t == "zone_set":
        return _evolve_zone_set(state, d)
    if t == "zone_shuffled":
        return _evolve_shuffled(state, d)
    if t == "counter_changed":
        return _evolve_counter(state, d)
    if t == "var_set":
        return _evolve_var(state, d)
    if t == "vars_cleared":
        return _evolve_vars_cleared(state, d)
    if t == "card_exhausted":
        return _evolve_exhaust(state, d)
    if t == "flow":
        return _evolve_flow(state, d)
    if t == "phase_changed":
        return _with(state, phase=d["phase"])
    if t == "game_created":
        return _with(state, game_id=d["game_id"], phase="setup")
    if t == "game_over":
        return _with(state, phase="over", winner=d["winner"], tasks="[]", pending="")
    return _with(state)


def to_json(state: State) -> dict[str, Any]:
    """Return the full state as JSON-ready data (for hashing and audits)."""
    return {
        "game_id": state.game_id,
        "phase": state.phase,
        "zones": {k: list(v) for k, v in state.zones.items()},
        "counters": dict(state.counters),
        "vars": {k: json.loads(v) for k, v in state.vars.items()},
        "exhausted": sorted(state.exhausted),
        "tasks": json.loads(state.tasks),
        "pending": state.pending_dict(),
        "winner": state.winner,
        "events": state.events,
    }
