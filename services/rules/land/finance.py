"""The Financial period (sell, purchase, hire) and timed Action card plays in Town Business."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from services.platform.errors import RuleViolation
from services.rules.engine.state import State
from services.rules.land.abilities import ignorer, use_options
from services.rules.land.abilities_flow import use_ability
from services.rules.land.damage import can_carry
from services.rules.land.data import card, economy
from services.rules.land.economy import (
    adjust,
    buy_defense,
    buy_tech,
    convert_defense,
    defense_price,
    place_defense,
    sell_defense,
    sell_tech,
    upgrade_from_bank,
    upgrade_tech,
)
from services.rules.land.flow import Args, Ctx, answer, options, sync_bank, sync_town, task
from services.rules.land.party import CROWNS, can_load
from services.rules.land.play import ignore_info, play_card, playable
from services.rules.land.setup import is_solo
from services.rules.land.state import (
    bank,
    game_options,
    home,
    neutral_factions,
    neutral_id,
    perks_of,
    players,
    town,
)

FACTS = {
    "sell_tech": "tech_sold",
    "buy_tech": "tech_bought",
    "sell_defense": "defense_sold",
    "buy_defense": "defense_bought",
    "convert_defense": "defense_converted",
}
TIMED = {"sell": ("town_business", "any"), "purchase": ("town_business", "any")}


def _mod1(state: State) -> bool:
    """Return whether tier 2 counts as two chips of the Bank (A Harsh Reality, Modifier 1)."""
    return bool(game_options(state).get("harsh_modifier_1"))


def perk_draw(state: State, seat: str) -> dict[str, Any] | None:
    """Return the seat's "pay n Salvage, draw 1 Action card" perk (Coalition), if it has one."""
    perks = perks_of(state, seat)  # none for a Ronin without a mat or a destroyed town
    return next((dict(p) for p in perks if p["kind"] == "draw_action_for_salvage"), None)


def _perk_draw_options(state: State, seat: str) -> list[tuple[str, Args]]:
    """Return the once-per-turn perk draw when the seat may use it now."""
    perk = perk_draw(state, seat)
    if perk is None or state.var(f"perk_draw.{seat}") == state.count("turn"):
        return []
    if state.count(f"salvage.{seat}") < int(perk["n"]):
        return []
    if not (state.count("deck.action") or state.zone("discard.action")):
        return []
    return [("perk_draw", {})]


def hire_targets(state: State, seat: str) -> list[str]:
    """Return whom an NPCM may be hired against: the other seats; in Solo I, a Neutral Faction.

    Solo I keeps "3rd. Hire NPCMs" with no other player; "All other Factions are Neutral
    Factions", and the Overview lets an ability "affect another Party or Faction" (its
    example: "the player can target any Neutral Faction"), so the player names one (`nf<N>`).
    """
    others = [o for o in players(state) if o != seat]
    if others or not is_solo(game_options(state)):
        return others
    return [neutral_id(f) for f in neutral_factions(state)]


def _load_options(state: State, seat: str) -> list[tuple[str, Args]]:
    """Return the Purchase sub-phase's moves between the Auction House and the vehicle's load."""
    vehicle = state.zone(f"vehicle.{seat}")
    if not vehicle:
        return []
    load = state.zone(f"load.{seat}")
    opts: list[tuple[str, Args]] = [
        ("load", {"card": c})
        for c in sorted(state.zone(f"auction.{seat}"))
        if can_load(vehicle[0], load, c)
    ]
    return opts + [("unload", {"card": c}) for c in sorted(load)]


def _finance_options(ctx: Ctx, seat: str, sub: str) -> list[tuple[str, Args]]:
    t, b = town(ctx.state, seat), bank(ctx.state)
    opts: list[tuple[str, Args]] = [("done", {})]
    if sub == "sell":
        opts += [("sell", {"card": c}) for c in sorted(ctx.state.zone(f"auction.{seat}"))]
        opts += [("sell_tech", {"tech": x}) for x in sorted(t.techs)]
        if t.defense:
            opts.append(("sell_defense", {}))
    elif sub == "purchase":
        eco = economy()
        for x in sorted(eco["techs"]):
            stock_ok = b.techs is None or b.techs[x] > 0
            if x not in t.techs and stock_ok and t.salvage >= int(eco["tech_price"]):
                opts.append(("buy_tech", {"tech": x}))
            up_ok = stock_ok or not _mod1(ctx.state)
            if t.techs.get(x) == 1 and up_ok and t.salvage >= int(eco["tech_upgrade_price"]):
                opts.append(("upgrade_tech", {"tech": x}))
        held = t.defense + sum(t.resource_defense.values())
        if held < int(eco["defense_max"]) and (b.defense is None or b.defense > 0):
            if t.salvage >= defense_price(held):
                opts.append(("buy_defense", {}))
        if t.defense:
            opts.append(("convert_defense", {}))
            opts += [("place_defense", {"resource": r}) for r in t.resources]
        empty = [k for k in CROWNS if not ctx.state.zone(f"crown.{seat}.{k}")]
        if empty:
            opts += [("crown", {"card": c}) for c in sorted(ctx.state.zone(f"roster.{seat}"))]
        for c in sorted(ctx.state.zone(f"auction.{seat}")):
            data = card(c)
            if "vehicle" in data["types"] or t.salvage < int(data.get("hire", 0)):
                continue
            for k in CROWNS:
                ch = ctx.state.zone(f"crown.{seat}.{k}")
                if ch and can_carry(ch[0], [*ctx.state.zone(f"gear.{seat}.{k}"), c]):
                    opts.append(("equip", {"card": c, "crown": k}))
        opts += _load_options(ctx.state, seat)
        opts += _perk_draw_options(ctx.state, seat)
    else:  # hire
        targets = hire_targets(ctx.state, seat)
        for c in sorted(ctx.state.zone(f"hand.{seat}")):
            npcm = card(c).get("npcm")
            if npcm and t.salvage >= int(npcm["hire"]):
                opts += [("hire", {"card": c, "target": o}) for o in targets]
    opts += playable(ctx, seat, TIMED.get(sub, ()))
    opts += use_options(ctx.state, seat, TIMED.get(sub, ()))  # abilities (card data 2)
    return opts


@task("finance")
def _finance(ctx: Ctx, a: Args) -> None:
    seat, sub = a["seat"], a["sub"]
    opts = _finance_options(ctx, seat, sub)
    if len(opts) == 1:
        return
    ctx.ask(seat, sub, "financed", f"Financial period: {sub}", who=seat, sub=sub)


def _dynamic(state: State, data: Args) -> list[tuple[str, Args]]:
    return _finance_options(SimpleNamespace(state=state), data["who"], data["sub"])  # type: ignore[arg-type]


for _kind in ("sell", "purchase", "hire"):
    options(_kind)(_dynamic)


@answer("financed")
def _financed(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat, sub = data["who"], data["sub"]
    if kind == "done":
        return
    ctx.push(("finance", {"seat": seat, "sub": sub}))  # card effects below run before it
    t, b = town(ctx.state, seat), bank(ctx.state)
    if kind == "sell":
        price = int(card(args["card"])["value"])
        ctx.move(args["card"], f"auction.{seat}", "discard.spoils")
        sync_town(ctx, seat, adjust(t, salvage=price), "sold")
        ctx.note("spoils_sold", seat=seat, card=args["card"], price=price)
    elif kind in ("sell_tech", "buy_tech", "sell_defense", "buy_defense", "convert_defense"):
        fn = {
            "sell_tech": lambda: sell_tech(t, b, args["tech"], _mod1(ctx.state)),
            "buy_tech": lambda: buy_tech(t, b, args["tech"]),
            "sell_defense": lambda: sell_defense(t, b),
            "buy_defense": lambda: buy_defense(t, b),
            "convert_defense": lambda: convert_defense(t, b),
        }[kind]
        try:
            nt, nb = fn()
        except RuleViolation:  # options are pre-checked; keep the game moving if not
            nt, nb = t, b
        sync_town(ctx, seat, nt, kind)
        sync_bank(ctx, nb)
        ctx.note(FACTS[kind], seat=seat, **args)
    elif kind == "place_defense":
        sync_town(ctx, seat, place_defense(t, args["resource"]), "defense placed")
        ctx.note("defense_placed", seat=seat, resource=args["resource"])
    elif kind == "upgrade_tech" and _mod1(ctx.state):
        nt, nb = upgrade_from_bank(t, b, args["tech"])
        sync_town(ctx, seat, nt, "upgraded")
        sync_bank(ctx, nb)
        ctx.note("tech_upgraded", seat=seat, **args)
    elif kind == "upgrade_tech":
        sync_town(ctx, seat, upgrade_tech(t, args["tech"]), "upgraded")
        ctx.note("tech_upgraded", seat=seat, **args)
    elif kind == "crown":
        k = next(k for k in CROWNS if not ctx.state.zone(f"crown.{seat}.{k}"))
        ctx.move(args["card"], f"roster.{seat}", f"crown.{seat}.{k}")
        ctx.note("character_crowned", seat=seat, crown=k, card=args["card"])
    elif kind == "equip":
        hire = int(card(args["card"]).get("hire", 0))
        if hire:
            sync_town(ctx, seat, adjust(t, salvage=-hire), "ally hired")
        ctx.move(args["card"], f"auction.{seat}", f"gear.{seat}.{args['crown']}")
    elif kind == "perk_draw":
        perk = perk_draw(ctx.state, seat)
        assert perk is not None
        paid = int(perk["n"])
        sync_town(ctx, seat, adjust(t, salvage=-paid), str(perk["name"]))
        ctx.setv(f"perk_draw.{seat}", ctx.state.count("turn"))
        ctx.note("perk_used", seat=seat, perk=perk["name"], paid=paid)
        ctx.push(("draw", {"deck": "action", "n": 1, "zone": f"hand.{seat}", "seat": seat}))
    elif kind == "load":
        ctx.move(args["card"], f"auction.{seat}", f"load.{seat}")
        ctx.note("spoils_loaded", seat=seat, card=args["card"])
    elif kind == "unload":
        ctx.move(args["card"], f"load.{seat}", f"auction.{seat}")
        ctx.note("spoils_unloaded", seat=seat, card=args["card"])
    elif kind == "hire":
        npcm = card(args["card"])["npcm"]
        sync_town(ctx, seat, adjust(t, salvage=-int(npcm["hire"])), "NPCM hired")
        target = args["target"]
        if target in players(ctx.state) and ignorer(ctx.state, target):
            # "ignore an Action card played on you, including NPCMs": the target may
            c = args["card"]
            ctx.move(c, f"hand.{seat}", f"play.{seat}")
            ctx.note("npcm_hired", seat=seat, card=c, target=target)
            then = ("npcm_enlist", {"seat": seat, "card": c, "target": target})
            ctx.push(("played_on_ask", ignore_info(seat, c, target, then)))
            return
        ctx.move(args["card"], f"hand.{seat}", f"npcm.{seat}")
        _enlist(ctx, seat, args["card"], target)
        ctx.note("npcm_hired", seat=seat, card=args["card"], target=target)
    elif kind == "play":
        play_card(ctx, seat, args["card"], args["target"])
    elif kind == "use":
        use_ability(ctx, seat, args["card"], args.get("target", ""))


def _enlist(ctx: Ctx, seat: str, c: str, target: str) -> None:
    """Put a hired NPCM in play: it starts in the hirer's starting town."""
    hired = ctx.state.var("npcms", [])
    entry = {"card": c, "hirer": seat, "target": target, "at": list(home(ctx.state, seat))}
    ctx.setv("npcms", [*hired, entry])


@task("npcm_enlist")
def _npcm_enlist(ctx: Ctx, a: Args) -> None:
    """A hired NPCM its target did not ignore enters play."""
    ctx.move(a["card"], f"play.{a['seat']}", f"npcm.{a['seat']}")
    _enlist(ctx, a["seat"], a["card"], a["target"])


@task("timed_plays")
def _timed(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    opts = playable(ctx, seat, (a["timing"],))
    if not opts:
        return
    prompt = f"play {a['timing']} cards"
    ctx.ask(seat, "play_or_pass", "timed_played", prompt, info=a)


@options("play_or_pass")
def _timed_options(state: State, data: Args) -> list[tuple[str, Args]]:
    info = data["info"]
    ns = SimpleNamespace(state=state)
    return [("pass", {}), *playable(ns, info["seat"], (info["timing"],))]  # type: ignore[arg-type]


@answer("timed_played")
def _timed_played(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "pass":
        return
    info = data["info"]
    ctx.push(("timed_plays", info))
    play_card(ctx, info["seat"], args["card"], args["target"])
