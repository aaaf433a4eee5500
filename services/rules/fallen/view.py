"""Per-seat views: everything a seat may see, nothing it may not."""

from __future__ import annotations

from typing import Any, Final

from services.rules.fallen import derived as dv
from services.rules.fallen.cards import card, data_version
from services.rules.fallen.state import DL, SEATS, State, zone_seen_by
from services.rules.fallen.texts import CardTexts, SharedPart, served_cards


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


_LAST: Final[list[tuple[Any, int, dict[str, Any]]]] = [(None, 0, {})]  # state, data version, parts


def _shared(state: State) -> dict[str, Any]:
    """Return the parts of a view that every seat sees alike, built once per state: the
    projections write a view per seat (and the spectator) of each state, and these parts
    (read-only, encoded once) are most of a view's work besides the zones and card texts."""
    version = data_version()
    last = _LAST[0]
    if last[0] is state and last[1] == version:
        return last[2]
    p = state.pending_dict()
    parts: dict[str, Any] = {
        "phase": state.phase,
        "winner": state.winner or None,
        "characters": SharedPart({s: state.var(f"char.{s}") for s in SEATS}),
        "counters": SharedPart(sorted(state.counters.items())),
        "vars": SharedPart({k: state.var(k) for k in sorted(state.vars)}),
        "exhausted": sorted(c for c in state.exhausted if _public_card(state, c)),
        "pending": None
        if p is None
        else SharedPart(
            {
                "seat": p["seat"],
                "kind": p["kind"],
                "prompt": p["prompt"],
                "window": (p.get("data") or {}).get("name"),
            }
        ),
    }
    if state.var("char.hero") and state.var("char.dungeon_lord"):
        parts["light"] = dv.is_light(state)
    _LAST[0] = (state, version, parts)  # one assignment: a reader sees an old or a new memo
    return parts


def build_view(state: State, seat: str | None) -> dict[str, Any]:
    """Return the JSON-ready view of the game for a seat (None: spectator).

    The parts every seat sees alike are shared between the seats' views of one state
    (read-only ``SharedPart``s: copy one before changing it)."""
    view = dict(_shared(state))
    view["exhausted"] = list(view["exhausted"])
    view["zones"] = _zones(state, seat)
    if seat == DL and state.zone("story.current"):
        view["story_card"] = card(state.zone("story.current")[0])
    view["cards"] = _cards(state, view, seat)
    return view


_CARDS: Final[dict[str | None, tuple[Any, tuple[Any, ...], int, CardTexts]]] = {}  # seat -> memo


def _cards(state: State, view: dict[str, Any], seat: str | None) -> CardTexts:
    """Return the card texts a seat's view serves, kept per seat while the state's zones
    are the same object (zones are never edited: most views follow events that move no
    card) and the characters and card data are the same."""
    zones, version = state.zones, data_version()
    chars = tuple(view["characters"].values())
    last = _CARDS.get(seat)
    if last is not None and last[0] is zones and last[1] == chars and last[2] == version:
        return last[3]
    texts = served_cards(view, seat)
    _CARDS[seat] = (zones, chars, version, texts)
    return texts


def _public_card(state: State, cid: str) -> bool:
    zone = state.where(cid)
    return zone is not None and zone_seen_by(zone) == SEATS
