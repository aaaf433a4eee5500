"""NPCMs in Party Exploits: they move toward their goal first, then strike (docs 8.2)."""

from __future__ import annotations

from services.rules.land.data import card, economy, factions
from services.rules.land.economy import claim_resource, lose_resource, town_attack
from services.rules.land.flow import Args, Ctx, sync_town, task
from services.rules.land.hexmap import distances, game_map
from services.rules.land.pvp import npcm_goal, npcm_move, raider_assignment
from services.rules.land.state import home, neutral_of, pos, town

MOUNTAIN = int(economy()["mountain_move_cost"])


@task("npcms_act")
def _npcms(ctx: Ctx, a: Args) -> None:
    hired = ctx.state.var("npcms", [])
    i = int(a.get("i", 0))
    if i >= len(hired):
        return
    ctx.push(("npcm_turn", {"i": i}))


@task("npcm_turn")
def _npcm_turn(ctx: Ctx, a: Args) -> None:
    i = int(a["i"])
    n = ctx.state.var("npcms")[i]
    info = card(n["card"])["npcm"]
    if info["class"] == "raider" and "assignment" not in n:
        ctx.roll(["d6"], "raider assignment", "npcm_assigned", i=i)
        return
    target = n["target"]
    at = (n["at"][0], n["at"][1])
    if info["class"] in ("assassin", "hitman"):
        ctx.push(("npcm_strike", {"i": i}))
        return
    m = game_map()
    resource = _nearest_resource(ctx, target, at)
    nf = neutral_of(target)
    # a Neutral Faction (Solo I's target, register 30) has a town and no party
    town_at = _at(factions()[nf]["at"]) if nf is not None else home(ctx.state, target)
    party_at = town_at if nf is not None else pos(ctx.state, target)
    goal = npcm_goal(info["class"], n.get("assignment", ""), party_at, town_at, resource)
    end, arrived = npcm_move(m, at, goal, int(info["speed"]), MOUNTAIN)
    hired = ctx.state.var("npcms")
    hired[i] = dict(n, at=list(end))
    ctx.setv("npcms", hired)
    ctx.note("npcm_moved", card=n["card"], to=list(end))
    if arrived:
        ctx.push(("npcm_strike", {"i": i, "goal": list(goal)}))
    else:
        ctx.push(("npcms_act", {"i": i + 1}))


def _at(xy: list[int]) -> tuple[int, int]:
    return (int(xy[0]), int(xy[1]))


def _nearest_resource(ctx: Ctx, target: str, at: tuple[int, int]) -> tuple[int, int] | None:
    owned: tuple[str, ...] = town(ctx.state, target).resources
    if neutral_of(target) is not None:
        # Neutral Factions own no Resource here: their land is every Resource no one holds
        owners = ctx.state.var("resources", {}) or {}
        owned = tuple(sorted(r for r in game_map().resources if r not in owners))
    if not owned:
        return None
    d = distances(game_map(), at, MOUNTAIN)
    hexes = [game_map().resources[r].at for r in owned]
    return min(hexes, key=lambda h: (d.get(h, 1 << 30), h))


@task("npcm_assigned")
def _assigned(ctx: Ctx, a: Args) -> None:
    hired = ctx.state.var("npcms")
    i = int(a["i"])
    hired[i] = dict(hired[i], assignment=raider_assignment(int(a["faces"][0])))
    ctx.setv("npcms", hired)
    ctx.push(("npcm_turn", {"i": i}))


@task("npcm_strike")
def _strike(ctx: Ctx, a: Args) -> None:
    i = int(a["i"])
    hired = ctx.state.var("npcms")
    n = hired[i]
    info = card(n["card"])["npcm"]
    target, hirer = n["target"], n["hirer"]
    if neutral_of(target) is not None:
        _neutral_strike(ctx, n, info, a)
    elif info["class"] == "raider" and n.get("assignment") == "resource":
        r = game_map().resource_at(tuple(a["goal"]))
        if r is not None and r.id in town(ctx.state, target).resources:
            sync_town(ctx, target, lose_resource(town(ctx.state, target), r.id), "raided")
            if len(town(ctx.state, hirer).resources) < 5:
                sync_town(ctx, hirer, claim_resource(town(ctx.state, hirer), r.id), "raided")
    elif info["class"] == "raider":
        t, lost = town_attack(town(ctx.state, target), int(info["town_damage"]))
        sync_town(ctx, target, t, "raided")
        ctx.note("town_attacked", seat=target, by=n["card"], lost=lost)
    else:
        for dtype, k in sorted(info["damage"].items()):
            ctx.push(("damage", {"seat": target, "type": dtype, "n": int(k), "how": "random"}))
    ctx.note("npcm_struck", card=n["card"], target=target)
    pile = "discard.red_dot" if str(hirer).startswith("of") else "discard.action"
    ctx.move(n["card"], f"npcm.{hirer}", pile)
    ctx.setv("npcms", [x for j, x in enumerate(hired) if j != i])
    ctx.push(("npcms_act", {"i": i}))


def _neutral_strike(ctx: Ctx, n: Args, info: Args, a: Args) -> None:
    """An NPCM hired against a Neutral Faction (Solo I) arrives: Raiders sent for a Resource
    claim it for the hirer if no one holds it and the hirer has room; the town has no Town
    Health track and the faction no party, so every other strike changes nothing."""
    if info["class"] != "raider" or n.get("assignment") != "resource" or "goal" not in a:
        return
    r = game_map().resource_at(_at(a["goal"]))
    owners = ctx.state.var("resources", {}) or {}
    hirer = n["hirer"]
    if r is None or r.id in owners or len(town(ctx.state, hirer).resources) >= 5:
        return
    sync_town(ctx, hirer, claim_resource(town(ctx.state, hirer), r.id), "raided")
    ctx.note("resource_claimed", seat=hirer, resource=r.id)
