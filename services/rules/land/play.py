"""Card effects applied to towns and parties, damage and death, and Action card plays."""

from __future__ import annotations

from typing import Any

from services.rules.land.abilities import ignorer
from services.rules.land.damage import heal, is_dead, take_damage
from services.rules.land.data import DAMAGE_TYPES, RULES_3, card
from services.rules.land.deeds import Weeks, gain
from services.rules.land.economy import adjust
from services.rules.land.flow import ACTION_CARD, Args, Ctx, sync_town, task, wiped_draw
from services.rules.land.gods_hammer import board, push_out
from services.rules.land.party import CROWNS
from services.rules.land.state import home, member, party, players, rules_from, town


def playable(ctx: Ctx, seat: str, timings: tuple[str, ...]) -> list[tuple[str, Args]]:
    """Return play options for a seat's Action cards of the given timings (with targets)."""
    out: list[tuple[str, Args]] = []
    for c in sorted(ctx.state.zone(f"hand.{seat}")):
        data = card(c)
        if data["timing"] not in timings or "npcm" in data:
            continue
        if data.get("target") == "player":
            out += [("play", {"card": c, "target": o}) for o in players(ctx.state) if o != seat]
        else:
            out.append(("play", {"card": c, "target": seat}))
    return out


def play_card(ctx: Ctx, seat: str, c: str, target: str) -> None:
    """Play an Action card: to the discard pile, then its effects (outside skill checks).

    A card played on another seat that may ignore it (a special ability, card data 2) waits
    face up in `play.<seat>` while that seat chooses (abilities_flow.py, `played_on_ask`)."""
    if target != seat and target in players(ctx.state) and ignorer(ctx.state, target):
        ctx.move(c, f"hand.{seat}", f"play.{seat}")
        ctx.note("action_played", seat=seat, card=c, target=target, timing=card(c)["timing"])
        info = {"seat": seat, "card": c, "target": target}
        ctx.push(("played_on_ask", ignore_info(seat, c, target, ("play_resolve", info))))
        return
    ctx.move(c, f"hand.{seat}", "discard.action")
    ctx.note("action_played", seat=seat, card=c, target=target, timing=card(c)["timing"])
    apply_effects(ctx, seat, target, card(c)["effects"], action_reason(ctx))


def action_reason(ctx: Ctx) -> str:
    """Return the reason an Action card's track changes carry: from card data 3 its own, so
    a wandering Ronin holds the bonus (flow.sync_town); before, the one of every card."""
    return ACTION_CARD if rules_from(ctx.state, RULES_3) else "card"


def ignore_info(
    by: str, c: str, target: str, then: tuple[str, Args], after: tuple[str, Args] | None = None
) -> Args:
    """Return the args of `played_on_ask` (abilities_flow.py) for a card waiting in play."""
    info: Args = {"by": by, "card": c, "target": target, "zone": f"play.{by}", "then": list(then)}
    if after is not None:
        info["after"] = list(after)
    return info


def apply_effects(
    ctx: Ctx, seat: str, target: str, effects: list[dict[str, Any]], reason: str = "card"
) -> None:
    """Apply effects for `seat`; red-dot effects (steal, damage, losses) hit `target`."""
    for e in effects:
        ((op, arg),) = e.items()
        if op in ("salvage", "prestige", "town_health"):
            who = target if (target != seat and int(arg) < 0) else seat
            sync_town(ctx, who, adjust(town(ctx.state, who), **{op: int(arg)}), reason)
        elif op == "weeks":
            who = target if (target != seat and int(arg) < 0) else seat
            w = gain(
                Weeks(ctx.state.count(f"weeks.{who}"), ctx.state.count(f"deficit.{who}")), int(arg)
            )
            ctx.set_to(f"weeks.{who}", w.left, "card")
            ctx.set_to(f"deficit.{who}", w.deficit, "card")
        elif op == "steal" and arg["what"] == "salvage":
            n = min(int(arg["n"]), ctx.state.count(f"salvage.{target}"))
            sync_town(ctx, target, adjust(town(ctx.state, target), salvage=-n), "stolen")
            sync_town(ctx, seat, adjust(town(ctx.state, seat), salvage=n), "stolen")
        elif op == "steal" or op == "lose_spoils":
            victim = target if op == "steal" else seat
            ctx.push(("lose_random_spoils", {"seat": victim, "to": seat if op == "steal" else ""}))
        elif op == "damage":
            who = target if target != seat else seat
            ctx.push(
                ("damage", {"seat": who, "type": arg["type"], "n": arg["n"], "how": arg["target"]})
            )
        elif op == "heal":
            heal_party(ctx, seat, int(arg))
        elif op == "draw":
            zone = {"action": f"hand.{seat}", "spoils": f"auction.{seat}"}.get(
                arg["deck"], f"roster.{seat}"
            )
            ctx.push(
                ("draw", {"seat": seat, "deck": arg["deck"], "n": arg["n"], "zone": zone}),
                ("settle_auction_events", {"seat": seat}),
            )
        elif op == "move_party":
            ctx.push(("bonus_move", {"seat": seat, "points": int(arg)}))
        elif op == "prestige_to_left":
            seats = players(ctx.state)
            left = seats[(seats.index(seat) + 1) % len(seats)]
            if left != seat and town(ctx.state, seat).prestige > 0:
                sync_town(ctx, seat, adjust(town(ctx.state, seat), prestige=-int(arg)), "red dot")
                sync_town(ctx, left, adjust(town(ctx.state, left), prestige=int(arg)), "red dot")
        # successes / reroll / reroll_opponent act only inside a skill check (checks.py)


def heal_party(ctx: Ctx, seat: str, n: int | None) -> None:
    """Heal every crowned Character of a seat fully (None) or by n points each."""
    for k in CROWNS:
        m = member(ctx.state, seat, k)
        if m is None:
            continue
        h = heal(m, n)
        for t in DAMAGE_TYPES:
            ctx.add(f"dmg.{seat}.{k}.{t}", h.damage[t] - m.damage[t], "healed")


@task("damage")
def _damage(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    crowns = sorted(party(ctx.state, seat).crowns)
    if not crowns:
        return
    if a["how"] == "all":
        for k in crowns:
            hit(ctx, seat, k, a["type"], int(a["n"]))
        ctx.push(("bury", {"seat": seat}))
        return
    ctx.roll(["d6"], f"random character of {seat}", "damage_crown", **a)


@task("damage_crown")
def _damage_crown(ctx: Ctx, a: Args) -> None:
    seat, roll = a["seat"], int(a["faces"][0])
    if roll == 6 or not ctx.state.zone(f"crown.{seat}.{roll}"):
        ctx.push(("damage", {k: a[k] for k in ("seat", "type", "n", "how")}))
        return
    hit(ctx, seat, roll, a["type"], int(a["n"]))
    ctx.push(("bury", {"seat": seat}))


def hit(ctx: Ctx, seat: str, crown: int, damage_type: str, n: int) -> None:
    """Deal damage of a type to the Character on a crown (its Spoils may prevent some)."""
    m = member(ctx.state, seat, crown)
    if m is None:
        return
    after, prevented = take_damage(m, damage_type, n)
    ctx.add(f"dmg.{seat}.{crown}.{damage_type}", after.damage[damage_type] - m.damage[damage_type])
    ctx.note(
        "damage_taken",
        seat=seat,
        crown=crown,
        card=m.character,
        type=damage_type,
        amount=n - prevented,
        prevented=prevented,
    )


@task("bury")
def _bury(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    for k in CROWNS:
        m = member(ctx.state, seat, k)
        if m is None or not is_dead(m):
            continue
        for g in m.gear:
            ctx.move(g, f"gear.{seat}.{k}", f"auction.{seat}")
        ctx.move(m.character, f"crown.{seat}.{k}", "discard.characters")
        for t in DAMAGE_TYPES:
            ctx.set_to(f"dmg.{seat}.{k}.{t}", 0, "died")
        ctx.note("character_died", seat=seat, crown=k, card=m.character, equipment=list(m.gear))
    if not party(ctx.state, seat).crowns:
        back = push_out(board(ctx.state), home(ctx.state, seat))
        ctx.setv(f"pos.{seat}", list(back))
        ctx.note("party_lost", seat=seat)
        wiped_draw(ctx, seat)


@task("lose_random_spoils")
def _lose_random(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    gear = sorted(g for k in CROWNS for g in ctx.state.zone(f"gear.{seat}.{k}"))
    gear += sorted(ctx.state.zone(f"load.{seat}"))  # the vehicle's load can be looted too
    if not gear:
        return
    ctx.shuffle(len(gear), f"random spoils of {seat}", "lost_spoils", gear=gear, **a)


@task("lost_spoils")
def _lost_spoils(ctx: Ctx, a: Args) -> None:
    seat, c = a["seat"], a["gear"][a["order"][0]]
    zones = [f"gear.{seat}.{k}" for k in CROWNS] + [f"load.{seat}"]
    src = next(z for z in zones if c in ctx.state.zone(z))
    dst = f"auction.{a['to']}" if a.get("to") else "discard.spoils"
    ctx.move(c, src, dst)
    ctx.note("spoils_lost", seat=seat, card=c, to=a.get("to", ""))
