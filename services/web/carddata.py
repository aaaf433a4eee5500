"""Card names and texts per game and card-data version, as the page shows them.

The page never turns an id into a name itself: it asks `/api/cards/<game>/<version>` once
and looks every id up in the answer. Only what a player may read at the table is served:
Fallen's Story cards give their title and introduction (never their branches), a Dungeon
Lord's Quest gives what is read aloud (title, introduction, choice names), and Final Battle
cards give their name and opening text (never their conclusions). Worlds and Land cards have
no printed text in their data, so a short text is written from their numbers.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml

from services.rules.fallen import cards as fallen_cards
from services.rules.land import data as land_data
from services.rules.land.hexmap import game_map
from services.rules.worlds import cards as worlds_cards
from services.rules.worlds import vocab as worlds_vocab

GAMES = ("fallen", "worlds", "land")
WORLDS_VERSIONS = tuple(worlds_cards.DATA_VERSIONS)  # its rules_version is not card data


class UnknownCardData(LookupError):
    """The game or its card-data version is not known."""


def words(key: str) -> str:
    """Return an id written as words ("deal_damage" -> "deal damage")."""
    return str(key).replace("_", " ")


def phrase(value: Any) -> str:
    """Return structured card data (effects, checks, mods) as a short phrase."""
    if isinstance(value, dict):
        return ", ".join(
            words(k) if v is True or v == {} else f"{words(k)} {phrase(v)}"
            for k, v in value.items()
        )
    if isinstance(value, list):
        return "; ".join(phrase(v) for v in value)
    return words(str(value))


def versions(game: str) -> tuple[int, ...]:
    """Return the card-data versions a game knows."""
    if game == "fallen":
        return tuple(fallen_cards.VERSIONS)
    if game == "land":
        return tuple(land_data.CARD_DATA_VERSIONS)
    if game == "worlds":
        return WORLDS_VERSIONS
    raise UnknownCardData(f"unknown game {game!r}; one of {', '.join(GAMES)}")


def card_data(game: str, version: int) -> dict[str, Any]:
    """Return {"game", "version", "cards": {id: {name, type, text}}, ...} for one release."""
    if version not in versions(game):
        known = ", ".join(map(str, versions(game)))
        raise UnknownCardData(f"{game} has no card-data version {version}; known: {known}")
    return _card_data(game, version)


@cache
def _card_data(game: str, version: int) -> dict[str, Any]:
    if game == "fallen":
        return {"game": game, "version": version, "cards": _fallen(version)}
    if game == "worlds":
        return {"game": game, "version": version, "cards": _worlds(version)}
    return {"game": game, "version": version, "cards": _land(version), **_land_board()}


def _fallen(version: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for cid, c in fallen_cards.catalog_of(version).cards.items():
        kind = c["type"]
        name = c.get("name") or c.get("title") or words(cid)
        text = str(c.get("text", ""))
        entry: dict[str, Any] = {"name": name, "type": kind}
        if kind == "story":
            text = str(c.get("intro", ""))
        elif kind in ("hero", "dungeon_lord"):
            ult = c.get("ultimate") or {}
            text = f"Ultimate, {ult.get('name', '')}: {ult.get('text', '')}" if ult else ""
            if "quest" in c:
                q = c["quest"]
                entry["quest"] = {
                    "title": q["title"],
                    "intro": q["intro"],
                    "choices": [ch["name"] for ch in q["choices"]],
                }
        elif kind == "creature":
            ab = c.get("ability") or {}
            bits = [f"Level {c.get('level')}", f"Armor {c.get('armor')}"]
            bits.append("dice " + " ".join(c.get("dice", [])))
            text = ", ".join(bits) + (f". {ab.get('name')}: {ab.get('text')}" if ab else ".")
        elif kind == "shadow":
            text = f"{c.get('side', '').title()} side, position {c.get('position')}"
        elif kind == "token":
            gives = " and ".join(words(g) for g in c.get("gives", []))
            entry["name"] = f"{gives} token".capitalize()
            text = f"A reward token: gives {gives}"
        elif kind == "final_battle":
            detail = [c.get("attribute"), c.get("difficulty")]
            text = " ".join(str(d) for d in detail if d) + (": " if any(detail) else "") + text
        entry["text"] = text.strip()
        out[cid] = entry
    return out


def _worlds(version: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for faction in worlds_vocab.FACTIONS:
        raw = yaml.safe_load(worlds_cards.data_file(version, faction).read_text())
        for c in raw["cards"]:
            out[c["id"]] = {
                "name": c["name"],
                "type": c["type"],
                "faction": faction,
                "text": _worlds_text(c),
            }
    return out


def _worlds_text(c: dict[str, Any]) -> str:
    bits = [f"Cost {c.get('res', 0)}"]
    if c["type"] in ("creature", "scenario"):
        bits.append(" ".join(f"{k.upper()} {c.get(k, 0)}" for k in ("atk", "def", "dmg", "hp")))
    if c.get("subtype"):
        bits.append(words(c["subtype"]))
    if c.get("special"):
        bits.append("Special")
    if c.get("keywords"):
        bits.append("Keywords: " + phrase(c["keywords"]))
    if c.get("mods"):
        bits.append("Bearer " + ", ".join(f"{k.upper()} +{v}" for k, v in c["mods"].items()))
    if c.get("aura"):
        bits.append("Aura: your creatures " + phrase(c["aura"]))
    for ab in c.get("abilities", []):
        bits.append(f"Ability (pay {ab.get('cost', 0)}): {phrase(ab.get('effects', []))}")
    if c.get("effects"):
        bits.append("Effect: " + phrase(c["effects"]))
    if c.get("on_upkeep"):
        bits.append("Each upkeep: " + phrase(c["on_upkeep"]))
    return ". ".join(bits) + "."


def _land(version: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for cid, c in land_data.catalog().cards.items():
        if land_data.since(c) > version:
            continue
        entry = {"name": c["name"], "type": c["deck"], "text": _land_text(c)}
        if c.get("subtitle"):
            entry["subtitle"] = c["subtitle"]
        out[cid] = entry
    return out


def _land_text(c: dict[str, Any]) -> str:
    bits: list[str] = []
    if c.get("types"):
        bits.append("/".join(words(t) for t in c["types"]))
    for key in ("health", "psych", "carry", "weight", "value", "hire", "capacity", "movement"):
        if key in c:
            bits.append(f"{words(key)} {c[key]}")
    for key in ("skills", "checks", "prevent"):
        if c.get(key):
            bits.append(f"{words(key)}: {phrase(c[key])}")
    if c.get("timing"):
        bits.append(f"play at {words(c['timing'])}")
    for key in ("effects", "success", "failure", "ability", "optional", "link"):
        if c.get(key):
            bits.append(f"{words(key)}: {phrase(c[key])}")
    return ". ".join(bits) + ("." if bits else "")


@cache
def _land_board() -> dict[str, Any]:
    """The map and the faction chart: public board data the Land page draws."""
    m = game_map()
    terrain = [[x, y, sorted(t)] for (x, y), t in sorted(m.terrain.items()) if "water" not in t]
    factions = {
        str(roll): {"id": f["id"], "name": f["name"], "town": f["town"], "at": f["at"]}
        for roll, f in land_data.factions().items()
    }
    techs = {k: v["name"] for k, v in land_data.economy()["techs"].items()}
    return {
        "map": {
            "width": m.width,
            "height": m.height,
            "terrain": terrain,
            "numbered": {str(n): list(h) for n, h in m.numbered.items()},
            "resources": {
                r.id: {"name": r.name, "at": list(r.at), "yields": dict(r.yields)}
                for r in m.resources.values()
            },
        },
        "factions": factions,
        "techs": techs,
    }
