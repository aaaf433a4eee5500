"""Project God's Hammer: a nuke on a 2d10 hex every Effects Phase, and what it does."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from services.rules.engine.state import State
from services.rules.land.checks import die_successes, skill_value
from services.rules.land.data import DAMAGE_TYPES, RULES_3, factions
from services.rules.land.flow import Args, Ctx, task, wiped_draw
from services.rules.land.hexmap import GameMap, Hex, adjacent, game_map
from services.rules.land.party import CROWNS
from services.rules.land.setup_flow import D100, percentile
from services.rules.land.state import (
    game_options,
    home,
    member,
    own_town,
    players,
    pos,
    rules_from,
    starting_techs,
    taken_factions,
)

FALLOUT_SKILLS = ("survival", "medical")
FALLOUT_NEEDED = 1  # successes each individual check needs (the rule names none: land.md)


def blast(centre: Hex) -> frozenset[Hex]:
    """Return the blast radius: the numbered hex and every adjacent hex on the board."""
    board = game_map().terrain
    return frozenset(h for h in (centre, *adjacent(centre)) if h in board)


def fate(at: Hex, centre: Hex) -> str | None:
    """Return what the nuke does to a party: destroyed on the hex, checks when adjacent."""
    if at == centre:
        return "destroyed"
    return "checks" if at in blast(centre) else None


def push_out(m: GameMap, at: Hex) -> Hex:
    """Return the nearest passable hex outside the blocked hexes (ties: lowest (x, y))."""
    seen, frontier = {at}, deque([at])
    while frontier:
        ring = sorted(frontier)
        found = [h for h in ring if m.passable(h)]
        if found:
            return found[0]
        frontier = deque()
        for h in ring:
            for n in adjacent(h):
                if n in m.terrain and n not in seen:
                    seen.add(n)
                    frontier.append(n)
    return at


def board(state: State) -> GameMap:
    """Return the map with the radiated hexes impassable."""
    hot = state.var("radiated", [])
    m = game_map()
    return replace(m, blocked=frozenset((int(x), int(y)) for x, y in hot)) if hot else m


def radiated_numbers(state: State) -> list[int]:
    """Return the numbered hexes under Radiation Damage chips (no Mission goes there)."""
    m = game_map()
    return [n for x, y in state.var("radiated", []) if (n := m.number_of((x, y))) is not None]


def fallout_survives(character: str, gear: list[str], rolls: list[int]) -> bool:
    """Return whether a Character passes both individual checks (Survival, then Medical)."""
    return all(
        die_successes(skill_value(character, gear, s), r) >= FALLOUT_NEEDED
        for s, r in zip(FALLOUT_SKILLS, rolls, strict=True)
    )


def hammer_on(state: State) -> bool:
    """Return whether the game plays Project God's Hammer."""
    return bool(game_options(state).get("gods_hammer"))


@task("nuke")
def _nuke(ctx: Ctx, a: Args) -> None:
    ctx.roll(list(D100), "nuke location", "nuke_rolled")


@task("nuke_rolled")
def _nuke_rolled(ctx: Ctx, a: Args) -> None:
    roll = percentile(a["faces"])
    centre = game_map().numbered[roll]
    hit = blast(centre)
    hot = {tuple(h) for h in ctx.state.var("radiated", [])} | hit
    ctx.setv("radiated", [list(h) for h in sorted(hot)])
    ctx.note("nuke_detonated", roll=roll, hex=list(centre), blast=[list(h) for h in sorted(hit)])
    missions = ctx.state.var("missions", [])
    gone = [n for n in missions if game_map().numbered[n] in hit]
    if gone:
        ctx.setv("missions", [n for n in missions if n not in gone])
        for n in gone:
            ctx.note("mission_destroyed", at=n)
    tasks: list[tuple[str, Args]] = []
    for seat in players(ctx.state):
        if own_town(ctx.state, seat) in hit and not ctx.state.var(f"homeless.{seat}"):
            tasks.append(("town_nuked", {"seat": seat}))
        f = fate(pos(ctx.state, seat), centre)
        if f == "destroyed":
            tasks.append(("party_nuked", {"seat": seat}))
        elif f == "checks":
            tasks.append(("fallout", {"seat": seat}))
    ctx.push(*tasks)


@task("town_nuked")
def _town_nuked(ctx: Ctx, a: Args) -> None:
    ctx.roll(["d6"] * 4, f"town health lost by {a['seat']}", "town_nuked_rolled", seat=a["seat"])


@task("town_nuked_rolled")
def _town_nuked_rolled(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    lost = sum(int(f) for f in a["faces"])
    start = set(starting_techs(ctx.state, seat))
    kept: dict[str, int] = {}
    to_bank = limited_bank(ctx.state) and rules_from(ctx.state, RULES_3)
    for t in sorted(start | _techs(ctx.state, seat)):
        n = ctx.state.count(f"tech.{seat}.{t}")
        if n and t not in start:
            kept[t] = n
        ctx.add(f"tech.{seat}.{t}", -n, "town destroyed")
        if n and to_bank:  # "Destroyed TTs are returned to the Bank" (as a sold one returns)
            ctx.add(f"bank.tech.{t}", chips(ctx.state, n), "town destroyed")
    ctx.setv(f"saved_techs.{seat}", kept)
    ctx.setv(f"homeless.{seat}", True)
    before = ctx.state.count(f"th.{seat}")
    ctx.add(f"th.{seat}", -min(lost, before), "town destroyed")
    ctx.note("town_destroyed", seat=seat, roll=lost, town_health_lost=min(lost, before))


def _techs(state: State, seat: str) -> set[str]:
    from services.rules.land.data import economy

    return {t for t in economy()["techs"] if state.count(f"tech.{seat}.{t}")}


def _kill(ctx: Ctx, seat: str, crown: int, why: str) -> None:
    m = member(ctx.state, seat, crown)
    if m is None:
        return
    for g in m.gear:
        ctx.move(g, f"gear.{seat}.{crown}", f"auction.{seat}")
    ctx.move(m.character, f"crown.{seat}.{crown}", "discard.characters")
    for t in DAMAGE_TYPES:
        ctx.set_to(f"dmg.{seat}.{crown}.{t}", 0, why)
    ctx.note("character_died", seat=seat, crown=crown, card=m.character, equipment=list(m.gear))


def _regroup(ctx: Ctx, seat: str) -> None:
    """Send a party with nobody left home, or out of the blast when home is radiated."""
    m = board(ctx.state)
    if not any(member(ctx.state, seat, k) for k in CROWNS):
        ctx.setv(f"pos.{seat}", list(push_out(m, home(ctx.state, seat))))
        ctx.note("party_lost", seat=seat)
        wiped_draw(ctx, seat)
        return
    to = push_out(m, pos(ctx.state, seat))
    ctx.setv(f"pos.{seat}", list(to))
    ctx.note("party_pushed", seat=seat, to=list(to))


@task("party_nuked")
def _party_nuked(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    for k in CROWNS:
        _kill(ctx, seat, k, "nuked")
    for zone in (f"vehicle.{seat}", f"load.{seat}"):  # the vehicle and its load
        for v in ctx.state.zone(zone):
            ctx.move(v, zone, f"auction.{seat}")
    _regroup(ctx, seat)


@task("fallout")
def _fallout(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    crowns = [k for k in CROWNS if member(ctx.state, seat, k) is not None]
    if not crowns:  # nobody left to check: the party is only pushed out (no dice to roll)
        _regroup(ctx, seat)
        return
    dice = ["d10"] * (len(FALLOUT_SKILLS) * len(crowns))
    ctx.roll(dice, f"fallout checks of {seat}", "fallout_rolled", seat=seat, crowns=crowns)


@task("fallout_rolled")
def _fallout_rolled(ctx: Ctx, a: Args) -> None:
    seat, faces = a["seat"], [int(f) for f in a["faces"]]
    for i, k in enumerate(a["crowns"]):
        m = member(ctx.state, seat, k)
        if m is None:
            continue
        rolls = faces[2 * i : 2 * i + 2]
        ok = fallout_survives(m.character, list(m.gear), rolls)
        ctx.note("fallout_checked", seat=seat, crown=k, card=m.character, rolls=rolls, passed=ok)
        if not ok:
            _kill(ctx, seat, k, "fallout")
    _regroup(ctx, seat)


def neutral_town_at(state: State, at: Hex) -> int | None:
    """Return the faction roll of a neutral faction whose (unradiated) town is on this hex."""
    taken = taken_factions(state)
    for roll, h in game_map().towns.items():
        if h == at and roll not in taken and board(state).passable(h):
            return int(roll)
    return None


def relocate(ctx: Ctx, seat: str) -> None:
    """A homeless party on a neutral town joins it: its mat, perks, and the saved TTs."""
    if not ctx.state.var(f"homeless.{seat}"):
        return
    roll = neutral_town_at(ctx.state, pos(ctx.state, seat))
    if roll is None:
        return
    f: dict[str, Any] = factions()[roll]
    ctx.setv(f"faction.{seat}", roll)
    ctx.setv(f"home.{seat}", list(f["at"]))
    ctx.setv(f"homeless.{seat}", False)
    techs = dict(ctx.state.var(f"saved_techs.{seat}", {}))
    if rules_from(ctx.state, RULES_3):
        # "they gain its Perks and previous Non-Starting TTs": only those, and with a
        # limited Bank each comes from the Bank's stock (what it lacks is not regained)
        techs = _from_bank(ctx, techs) if limited_bank(ctx.state) else techs
    else:
        for t in f["techs"]:
            techs[t] = max(techs.get(t, 0), 1)
    for t, n in sorted(techs.items()):
        ctx.add(f"tech.{seat}.{t}", n, "joined a faction")
    ctx.note("faction_joined", seat=seat, faction=roll)


def limited_bank(state: State) -> bool:
    """Return whether the Bank's TT stock is limited (the Epic game, A Harsh Reality)."""
    return bool(state.var("epic") or game_options(state).get("harsh_reality"))


def chips(state: State, tiers: int) -> int:
    """Return the Bank chips a TT of some tiers is: one, or one per tier under Modifier 1."""
    return tiers if game_options(state).get("harsh_modifier_1") else 1


def _from_bank(ctx: Ctx, wanted: dict[str, int]) -> dict[str, int]:
    """Take the saved TTs from the Bank; return the tiers regained."""
    got: dict[str, int] = {}
    for t, n in sorted(wanted.items()):
        stock = ctx.state.count(f"bank.tech.{t}")
        tiers = n if chips(ctx.state, n) <= stock else min(n, stock)
        if tiers:
            got[t] = tiers
            ctx.add(f"bank.tech.{t}", -chips(ctx.state, tiers), "joined a faction")
    return got
