"""Fallen Land seats and zones over the kernel state, and readers of a town, a party, the Bank."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from services.rules.engine.state import State
from services.rules.engine.zones import ZoneRules
from services.rules.land.damage import Member
from services.rules.land.data import DAMAGE_TYPES, card_data_of, economy, factions
from services.rules.land.economy import Bank, Town
from services.rules.land.party import CROWNS, Party
from services.rules.land.zones import seen_by

SEATS = ("p1", "p2", "p3", "p4", "p5", "p6")
ZONES = ZoneRules(SEATS, lambda zone: seen_by(zone, SEATS))
DECK_NAMES = (
    "characters",
    "spoils",
    "action",
    "encounter_plains",
    "encounter_mountain",
    "encounter_city_rad",
    "missions",
)


def players(state: State) -> list[str]:
    """Return the seats in this game (p1..pN)."""
    return list(state.var("players", []))


def town(state: State, seat: str) -> Town:
    """Return a seat's town read from the counters and vars."""
    techs = {t: state.count(f"tech.{seat}.{t}") for t in economy()["techs"]}
    owners = state.var("resources", {})
    owned = tuple(r for r, owner in owners.items() if owner == seat)
    return Town(
        salvage=state.count(f"salvage.{seat}"),
        prestige=state.count(f"prestige.{seat}"),
        town_health=state.count(f"th.{seat}"),
        techs=MappingProxyType({t: n for t, n in techs.items() if n}),
        defense=state.count(f"defense.{seat}"),
        resources=tuple(sorted(owned)),
        resource_defense=MappingProxyType({r: n for r in owned if (n := state.count(f"rdef.{r}"))}),
    )


def bank(state: State) -> Bank:
    """Return the Bank (limited in the Epic game and under A Harsh Reality)."""
    if not (state.var("epic") or game_options(state).get("harsh_reality")):
        return Bank(None, None)
    techs = {t: state.count(f"bank.tech.{t}") for t in economy()["techs"]}
    defense = state.count("bank.defense") if state.var("epic") else None
    return Bank(MappingProxyType(techs), defense)


def member(state: State, seat: str, crown: int) -> Member | None:
    """Return the Character on a crown with its gear and damage, or None."""
    cards = state.zone(f"crown.{seat}.{crown}")
    if not cards:
        return None
    damage = {t: state.count(f"dmg.{seat}.{crown}.{t}") for t in DAMAGE_TYPES}
    return Member(cards[0], state.zone(f"gear.{seat}.{crown}"), MappingProxyType(damage))


def party(state: State, seat: str) -> Party:
    """Return a seat's party (crowned Characters and the vehicle)."""
    crowns = {k: m for k in CROWNS if (m := member(state, seat, k)) is not None}
    vehicle = state.zone(f"vehicle.{seat}")
    load = state.zone(f"load.{seat}")
    return Party(MappingProxyType(crowns), vehicle[0] if vehicle else None, tuple(load))


def pos(state: State, seat: str) -> tuple[int, int]:
    """Return the hex of a seat's party."""
    x, y = state.var(f"pos.{seat}")
    return (int(x), int(y))


def rules_from(state: State, version: int) -> bool:
    """Return whether the game plays the rules of a card-data version or later (2.4)."""
    return card_data_of(game_options(state)) >= version


def game_options(state: State) -> dict[str, Any]:
    """Return the game's options."""
    return dict(state.var("options", {}))


NO_TOWN = (-1, -1)  # off the board: the own-town hex of a party without a Town Play Mat


def faction_of(state: State, seat: str) -> int | None:
    """Return a seat's faction (its 1d10 number), or None for a Ronin without a mat yet.

    Every rule that reads a seat's faction goes through here (Ronin: docs/games/land.md 1.5).
    """
    f = state.var(f"faction.{seat}")
    return None if f is None else int(f)


def perks_of(state: State, seat: str) -> list[dict[str, Any]]:
    """Return the perks of a seat's Town Play Mat (none without a mat or while destroyed).

    God's Hammer: a destroyed town's perks stop until the party joins a Neutral Faction
    ("Afterwards, they gain its Perks").
    """
    f = faction_of(state, seat)
    if f is None or state.var(f"homeless.{seat}"):
        return []
    return list(factions()[f]["perks"])


def starting_techs(state: State, seat: str) -> list[str]:
    """Return the starting Town Technologies printed on a seat's mat (none without a mat)."""
    f = faction_of(state, seat)
    return [] if f is None else list(factions()[f]["techs"])


def taken_factions(state: State) -> set[int]:
    """Return the factions played by a seat (the others are Neutral Factions)."""
    return {f for s in players(state) if (f := faction_of(state, s)) is not None}


def home(state: State, seat: str) -> tuple[int, int]:
    """Return where a seat's party regroups: its starting town, or a Ronin's starting hex."""
    x, y = state.var(f"home.{seat}")
    return (int(x), int(y))


def own_town(state: State, seat: str) -> tuple[int, int]:
    """Return the hex of a seat's own starting town, or NO_TOWN without a mat."""
    return NO_TOWN if faction_of(state, seat) is None else home(state, seat)


def wandering(state: State, seat: str) -> bool:
    """Return whether a Ronin party has not yet completed a City/Rad Encounter."""
    return state.var(f"ronin.{seat}") == "wandering"


def opposing_factions(state: State) -> list[int]:
    """Return Solo II's opposing factions (1d10 numbers) in the order they were rolled."""
    return [int(f) for f in state.var("opposing", []) or []]


def neutral_factions(state: State) -> list[int]:
    """Return the Neutral Factions: those no seat plays and no Solo II faction opposes with."""
    taken = taken_factions(state) | set(opposing_factions(state))
    return [f for f in sorted(factions()) if f not in taken]


def neutral_id(faction_roll: int) -> str:
    """Return the key naming a Neutral Faction as a target (`nf3` for faction 3)."""
    return f"nf{faction_roll}"


def neutral_of(key: str) -> int | None:
    """Return the faction of a Neutral Faction key (`nf3` -> 3), or None for any other key."""
    return int(key[2:]) if key.startswith("nf") and key[2:].isdigit() else None
