"""Heuristic Fallen Land bots: act through the same legal commands and view as any client."""

from __future__ import annotations

from typing import Any

from services.bots.policies import Choice, Turn, stable_index
from services.rules.land.data import card
from services.rules.land.hexmap import distances, game_map

DEED_ORDER = ("mission", "resource", "healing", "encounter", "pvp")
TECH_ORDER = (
    "garrison",
    "water_and_supplies",
    "machinist_shop",
    "energy_production",
    "medical_center",
    "learning_center",
    "communication_center",
    "law_and_order",
    "marketplace",
)


def _find(legal: list[Choice], kind: str, **match: Any) -> int | None:
    for i, c in enumerate(legal):
        if c.kind == kind and all(c.args.get(k) == v for k, v in match.items()):
            return i
    return None


def _wandering(view: dict[str, Any], seat: str) -> bool:
    """Return whether the seat is a Ronin that has not yet completed a City/Rad Encounter."""
    return view["vars"].get(f"ronin.{seat}") == "wandering"


def _goals(view: dict[str, Any], seat: str) -> list[tuple[int, int]]:
    m = game_map()
    if _wandering(view, seat):
        # its tracks move only after a City/Rad Encounter succeeds: head for one
        return sorted(h for h, t in m.terrain.items() if t & {"city", "rad"})
    owners = view["vars"].get("resources") or {}
    goals = [r.at for r in m.resources.values() if owners.get(r.id) != seat]
    goals += [m.numbered[n] for n in view["vars"].get("missions") or []]
    if view["vars"].get(f"ronin.{seat}") == "seeking":
        # a Ronin that completed its City/Rad Encounter heads for a Neutral Faction's town
        taken = {view["vars"].get(f"faction.{s}") for s in view["players"]}
        return [h for roll, h in m.towns.items() if roll not in taken]
    return goals


def _move(turn: Turn, legal: list[Choice]) -> int:
    goals = _goals(turn.view, turn.seat)
    m = game_map()
    best, best_d = 0, 1 << 30
    for i, c in enumerate(legal):
        h = (c.args["x"], c.args["y"])
        d = min((distances(m, g, 2).get(h, 1 << 20) for g in goals), default=0)
        if d < best_d:
            best, best_d = i, d
    return best


def _deed(turn: Turn, legal: list[Choice]) -> int:
    if _wandering(turn.view, turn.seat):
        for kind, match in (
            ("deed", {"deck": "encounter_city_rad"}),
            ("deed", {"deed": "movement"}),
        ):
            i = _find(legal, kind, **match)
            if i is not None:
                return i
    counters = turn.view["counters"]
    weeks = counters.get(f"weeks.{turn.seat}", 0)
    for deed in DEED_ORDER:
        i = _find(legal, "deed", deed=deed)
        if i is None:
            continue
        if deed == "mission" and weeks < 3:
            continue
        if deed == "encounter":
            plains = _find(legal, "deed", deed="encounter", deck="encounter_plains")
            return plains if plains is not None else i
        if deed == "pvp" and stable_index(turn, "pvp") % 3:
            continue
        return i
    i = _find(legal, "deed", deed="movement")
    return i if i is not None else 0


def _useful_hire(legal: list[Choice]) -> int | None:
    """Return the first hire that can change something: on a seat, or Raiders sent against
    a Neutral Faction (Solo I) to claim an unowned Resource."""
    for i, c in enumerate(legal):
        if c.kind != "hire":
            continue
        if not str(c.args["target"]).startswith("nf"):
            return i
        if card(c.args["card"])["npcm"]["class"] == "raider":
            return i
    return None


def _finance(turn: Turn, legal: list[Choice]) -> int:
    for kind in ("crown", "equip"):
        i = _find(legal, kind)
        if i is not None:
            return i
    for tech in TECH_ORDER:
        for kind in ("buy_tech", "upgrade_tech"):
            i = _find(legal, kind, tech=tech)
            if i is not None:
                return i
    i = _find(legal, "perk_draw")
    if i is not None and len(turn.view["zones"].get(f"hand.{turn.seat}") or []) < 3:
        return i
    i = _useful_hire(legal)
    if i is not None and stable_index(turn, "hire") % 2 == 0:
        return i
    i = _find(legal, "sell")
    if i is not None and "ally" not in card(legal[i].args["card"])["types"]:
        return i
    for c_i, c in enumerate(legal):
        if c.kind == "play":
            return c_i
    return _find(legal, "done") or 0


def heuristic(turn: Turn) -> int:
    """Return a sensible legal command: progress toward resources and missions, grow the town."""
    legal = list(turn.legal)
    kinds = {c.kind for c in legal}
    if "use" in kinds:  # a card's special ability (card data 2): always worth using
        return _find(legal, "use") or 0
    if "deed" in kinds or "end" in kinds:
        return _deed(turn, legal)
    if "move" in kinds:
        return _move(turn, legal)
    if "done" in kinds:
        return _finance(turn, legal)
    if "assign" in kinds:
        crowns = [i for i, c in enumerate(legal) if c.args.get("to") not in ("auction",)]
        return crowns[0] if crowns else 0
    if "play" in kinds and "pass" in kinds:
        plays = [i for i, c in enumerate(legal) if c.kind == "play"]
        return plays[0] if stable_index(turn, "window") % 2 == 0 else _find(legal, "pass") or 0
    if "take" in kinds:
        return _find(legal, "take", deck="spoils") or 0
    return stable_index(turn) if "pass" not in kinds else (_find(legal, "pass") or 0)


POLICIES = {"heuristic": heuristic}
