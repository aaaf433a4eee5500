"""Ronin: parties without a Town Play Mat start on a 2d10 hex and join a Neutral Faction later."""

from __future__ import annotations

from typing import Any

from services.rules.engine.state import State
from services.rules.land.data import factions
from services.rules.land.flow import Args, Ctx, task
from services.rules.land.hexmap import game_map
from services.rules.land.setup_flow import D100, percentile
from services.rules.land.state import game_options, players

CITY_RAD = "encounter_city_rad"


def ronin_on(state: State) -> bool:
    """Return whether the game plays the Ronin optional rule."""
    return bool(game_options(state).get("ronin"))


def settles(deck: str, success: bool) -> bool:
    """Return whether an Encounter ends a Ronin's wandering: a City/Rad card completed."""
    # "They cannot gain and lose Town Health or Prestige until they successfully complete a
    # City/Rad Encounter card."
    return success and deck == CITY_RAD


@task("ronin_place")
def _ronin_place(ctx: Ctx, a: Args) -> None:
    seats = players(ctx.state)
    i = int(a["i"])
    if i >= len(seats):
        ctx.push(("deal_start", {"i": 0}))
        return
    # "their Parties use a random Party Marker and begin the game at a random 2d10 location"
    ctx.roll(list(D100), f"starting hex of {seats[i]}", "ronin_placed", i=i)


@task("ronin_placed")
def _ronin_placed(ctx: Ctx, a: Args) -> None:
    seat = players(ctx.state)[int(a["i"])]
    roll = percentile(a["faces"])
    at = list(game_map().numbered[roll])
    ctx.setv(f"pos.{seat}", at)
    ctx.setv(f"home.{seat}", at)  # where the party regroups; it has no town (state.own_town)
    ctx.setv(f"ronin.{seat}", "wandering")
    ctx.note("ronin_placed", seat=seat, roll=roll, hex=at)
    ctx.push(("ronin_place", {"i": int(a["i"]) + 1}))


def settle(ctx: Ctx, seat: str) -> None:
    """A wandering Ronin completed a City/Rad Encounter: its tracks move from now on."""
    if ctx.state.var(f"ronin.{seat}") == "wandering":
        ctx.setv(f"ronin.{seat}", "seeking")
        ctx.note("ronin_settled", seat=seat)


def join(ctx: Ctx, seat: str, roll: int) -> None:
    """A Ronin arrives at a Neutral Faction's town: its marker, mat, TTs, perks, bonuses."""
    # "Upon arrival, they obtain its Party Marker, Town Play Mat, TTs and Perks. All bonus
    # Prestige and Town Health are then applied from Spoils, Action and Characters they possess."
    f: dict[str, Any] = factions()[roll]
    ctx.setv(f"faction.{seat}", roll)
    ctx.setv(f"home.{seat}", list(f["at"]))
    ctx.setv(f"ronin.{seat}", None)
    harsh = game_options(ctx.state).get("harsh_reality")
    for tech in f["techs"]:
        ctx.add(f"tech.{seat}.{tech}", 1, "joined a faction")
        if harsh and ctx.state.count(f"bank.tech.{tech}") > 0:
            ctx.add(f"bank.tech.{tech}", -1, "joined a faction")
    bonus = dict(ctx.state.var(f"ronin_bonus.{seat}", {}) or {})
    ctx.setv(f"ronin_bonus.{seat}", None)
    for track, key in (("prestige", "prestige"), ("town_health", "th")):
        n = int(bonus.get(track, 0))
        before = ctx.state.count(f"{key}.{seat}")
        top = 20 if track == "prestige" else 80
        ctx.add(f"{key}.{seat}", max(0, min(top, before + n)) - before, "ronin bonus")
    ctx.note("faction_joined", seat=seat, faction=roll, bonus=bonus)
