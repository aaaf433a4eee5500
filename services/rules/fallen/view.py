"""Per-seat views: everything a seat may see, nothing it may not."""

from __future__ import annotations

from typing import Any

from services.rules.fallen import derived as dv
from services.rules.fallen.cards import card
from services.rules.fallen.state import DL, SEATS, State, zone_seen_by
from services.rules.fallen.texts import served_cards


def _zones(state: State, seat: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for zone, cards in sorted(state.zones.items()):
        seen = zone_seen_by(zone)
        visible = seen == SEATS if seat is None else seat in seen
        out[zone] = list(cards) if visible else {"count": len(cards)}
    for key, n in state.counters.items():  # face-down decks held by the deck service
        if key.startswith("deck."):
            zone = key[len("deck.") :]
            held = out.get(zone)
            extra = len(held) if isinstance(held, list) else int((held or {}).get("count", 0))
            out[zone] = {"count": n + extra}
    return dict(sorted(out.items()))


def build_view(state: State, seat: str | None) -> dict[str, Any]:
    """Return the JSON-ready view of the game for a seat (None: spectator)."""
    p = state.pending_dict()
    view: dict[str, Any] = {
        "phase": state.phase,
        "winner": state.winner or None,
        "characters": {s: state.var(f"char.{s}") for s in SEATS},
        "counters": dict(sorted(state.counters.items())),
        "vars": {k: state.var(k) for k in sorted(state.vars)},
        "zones": _zones(state, seat),
        "exhausted": sorted(c for c in state.exhausted if _public_card(state, c)),
        "pending": None
        if p is None
        else {
            "seat": p["seat"],
            "kind": p["kind"],
            "prompt": p["prompt"],
            "window": (p.get("data") or {}).get("name"),
        },
    }
    if state.var("char.hero") and state.var("char.dungeon_lord"):
        view["light"] = dv.is_light(state)
    if seat == DL and state.zone("story.current"):
        view["story_card"] = card(state.zone("story.current")[0])
    view["cards"] = served_cards(view, seat)
    return view


def _public_card(state: State, cid: str) -> bool:
    zone = state.where(cid)
    return zone is not None and zone_seen_by(zone) == SEATS
