"""The order of play as tasks: phases and sub-phases, Town Business, end of turn, victory."""

from __future__ import annotations

from services.rules.engine.state import State
from services.rules.land.abilities import usable
from services.rules.land.business import deal_counts, income, over_hand_limit, shared_income
from services.rules.land.data import RULES_3, card, economy
from services.rules.land.deeds import Weeks, new_turn
from services.rules.land.economy import adjust, lose_resource, production
from services.rules.land.flow import Args, Ctx, answer, options, sync_town, task
from services.rules.land.gods_hammer import hammer_on
from services.rules.land.hexmap import game_map
from services.rules.land.setup import is_solo, is_solo2
from services.rules.land.setup_flow import apply_simple
from services.rules.land.state import (
    faction_of,
    game_options,
    neutral_factions,
    neutral_id,
    opposing_factions,
    perks_of,
    players,
    rules_from,
    town,
)
from services.rules.land.town_events import roll_town_event
from services.rules.land.victory import Standing, check_end_of_phase, solo2_end, solo_end
from services.rules.land.zones import ends_phase, next_step, turn_order


def solo2_step(sub: str, tasks: list[tuple[str, Args]]) -> list[tuple[str, Args]]:
    """Add Solo Variant II's tasks to a sub-phase: the OFTEC rolls, waiting Red Dot cards."""
    if sub == "npcms":
        # PVP option 2: each PVP Party in play attacks after the NPCMs move and strike
        return [*tasks, ("pvp_parties_act", {})]
    if sub == "town_events":
        # "the player first rolls 1d10 on the standard Town Events Chart ... Then the player
        # rolls a 1d10 for each opposing Faction on the Opposing Faction Town Events Chart"
        return [*tasks, ("oftec", {"j": 0})]
    timing = {"resolve": "effects", "parties": "party_exploits"}.get(sub)
    if timing is None:
        return tasks
    return [("red_dot_timing", {"timing": timing}), *tasks]


def order(ctx: Ctx) -> list[str]:
    """Return this turn's seats in play order."""
    return turn_order(players(ctx.state), ctx.state.var("first"))


@task("turn_start")
def _turn_start(ctx: Ctx, a: Args) -> None:
    ctx.note("turn_started", turn=ctx.state.count("turn"), first=ctx.state.var("first"))
    for seat in players(ctx.state):
        w = new_turn(Weeks(0, ctx.state.count(f"deficit.{seat}")))
        ctx.set_to(f"weeks.{seat}", w.left, "new turn")
        ctx.set_to(f"deficit.{seat}", w.deficit, "new turn")
    ctx.push(("step", {"phase": "effects", "sub": "resolve"}))


@task("step")
def _step(ctx: Ctx, a: Args) -> None:
    phase, sub = a["phase"], a["sub"]
    ctx.setv("step", [phase, sub])
    ctx.note("phase_started", turn=ctx.state.count("turn"), phase=phase, subphase=sub)
    per_seat = {
        "resolve": "timed_plays",
        "deal": "deal",
        "production": "produce",
        "auction_house": "auction",
        "town_events": "town_event",
        "sell": "finance",
        "purchase": "finance",
        "hire": "finance",
        "parties": "exploits",
        "npcms": None,
        "turn_marker": None,
    }[sub]
    tasks: list[tuple[str, Args]] = []
    if sub == "auction_house" and is_solo(game_options(ctx.state)):
        per_seat = "solo_auction"
    if sub == "npcms":
        tasks.append(("npcms_act", {}))
    elif per_seat is not None:
        timing = {"resolve": "effects"}.get(sub, "")
        tasks += [(per_seat, {"seat": s, "sub": sub, "timing": timing}) for s in order(ctx)]
    if sub == "resolve" and hammer_on(ctx.state):
        tasks.insert(0, ("nuke", {}))  # "During each Effects Phase, a nuke detonates"
    if is_solo2(game_options(ctx.state)):
        tasks = solo2_step(sub, tasks)
    tasks.append(("after_step", {"phase": phase, "sub": sub}))
    ctx.push(*tasks)


@task("after_step")
def _after_step(ctx: Ctx, a: Args) -> None:
    phase, sub = a["phase"], a["sub"]
    last_of_turn = phase == "end_turn"
    if sub == "turn_marker":
        seats = players(ctx.state)
        first = ctx.state.var("first")
        ctx.setv("first", seats[(seats.index(first) + 1) % len(seats)])
    if ends_phase(phase, sub) and victory(ctx, last_of_turn):
        return
    nphase, nsub, new = next_step(phase, sub)
    if new:
        ctx.add("turn", 1, "turn marker")
        ctx.push(("turn_start", {}))
    else:
        ctx.push(("step", {"phase": nphase, "sub": nsub}))


def standings(ctx: Ctx) -> dict[str, Standing]:
    """Return each seat's victory tracks and resources."""
    out = {}
    for s in players(ctx.state):
        t = town(ctx.state, s)
        out[s] = Standing(t.prestige, t.town_health, len(t.resources))
    return out


def opposing_standings(ctx: Ctx) -> dict[str, Standing]:
    """Return each Solo II opposing faction's victory tracks and resources (`of<N>`)."""
    if not is_solo2(game_options(ctx.state)):
        return {}
    owners = dict(ctx.state.var("resources", {}) or {})
    out = {}
    for f in opposing_factions(ctx.state):
        of = f"of{f}"
        held = sum(1 for o in owners.values() if o == of)
        out[of] = Standing(ctx.state.count(f"prestige.{of}"), ctx.state.count(f"th.{of}"), held)
    return out


def victory(ctx: Ctx, last_phase: bool) -> bool:
    """Check victory at the end of a phase; end the game and return True when won."""
    st = standings(ctx)
    turn = ctx.state.count("turn")
    opts = game_options(ctx.state)
    if opts.get("max_turns") is None and rules_from(ctx.state, RULES_3):
        # every game ends: without max_turns, after the turn limit by the tie-break (4)
        opts["max_turns"] = int(economy()["turn_limit"])
    opposing = opposing_standings(ctx) if rules_from(ctx.state, RULES_3) else {}
    if opposing:  # Solo II: the opposing factions win by the same conditions
        v = solo2_end(st, opposing, opts, turn, last_phase)
    else:
        v = (solo_end if is_solo(opts) else check_end_of_phase)(st, opts, turn, last_phase)
    if v is None:
        return False
    scores = {
        s: {"prestige": x.prestige, "town_health": x.town_health, "resources": x.resources}
        for s, x in {**st, **opposing}.items()
    }
    result: dict[str, object] = {"winners": list(v.winners), "kind": v.kind, "scores": scores}
    if opposing:
        result["opposing_winners"] = list(v.opposing)
    if is_solo(opts):
        result["turns"] = turn  # "Record the number of Turns it took you" (solo variants)
    ctx.setv("result", result)
    ctx.emit("game_won", result)
    ctx.emit("game_over", {"winner": ",".join(v.winners), "reason": v.kind})
    return True


@task("deal")
def _deal(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    n = deal_counts(town(ctx.state, seat).techs)
    ctx.push(
        ("draw", {"seat": seat, "deck": "action", "n": n["action"], "zone": f"hand.{seat}"}),
        ("draw", {"seat": seat, "deck": "spoils", "n": n["spoils"], "zone": f"auction.{seat}"}),
        ("settle_auction_events", {"seat": seat}),
        ("hand_limit", {"seat": seat}),
    )


@task("settle_auction_events")
def _settle(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    for c in ctx.state.zone(f"auction.{seat}"):
        if "event" in card(c)["types"]:
            apply_simple(ctx, seat, card(c)["effects"], "event")
            ctx.move(c, f"auction.{seat}", "discard.spoils")


@task("hand_limit")
def _hand_limit(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    hand = ctx.state.zone(f"hand.{seat}")
    if over_hand_limit(len(hand), int(ctx.state.var("numbers")["hand_limit"])) == 0:
        return
    ctx.ask(seat, "discard", "discarded", "discard down to the hand limit", who=seat)


@options("discard")
def _discard_options(state: State, data: Args) -> list[tuple[str, Args]]:
    return [("discard", {"card": c}) for c in sorted(state.zone(f"hand.{data['who']}"))]


@answer("discarded")
def _discarded(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    ctx.move(args["card"], f"hand.{seat}", "discard.action")
    ctx.push(("hand_limit", {"seat": seat}))


@task("produce")
def _produce(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    m = game_map()
    t = town(ctx.state, seat)
    perks = perks_of(ctx.state, seat)
    gain = income(perks)
    draws: list[str] = []
    th = 0
    for r in t.resources:
        deltas, d = production(dict(m.resources[r].yields))
        gain += deltas.get("salvage", 0)
        th += deltas.get("town_health", 0)
        draws += d
        ctx.note("resource_produced", seat=seat, resource=r, yields=dict(m.resources[r].yields))
    sync_town(ctx, seat, adjust(t, salvage=gain, town_health=th), "production")
    shared = shared_income(perks)
    if shared and rules_from(ctx.state, RULES_3) and len(players(ctx.state)) > 1:
        # Cattle Drivers: "Each Town Business Phase chose another Faction. You each receive
        # 3 Salvage Coins." (solo: "The player's Faction still receives their Salvage Coins")
        opts = share_options(ctx.state, seat)
        prompt = "choose another faction: it receives Salvage Coins too"
        ctx.ask(seat, "share_income", "income_shared", prompt, opts, who=seat, n=shared)
    if usable(ctx.state, seat, ("resource_production",)):  # abilities (card data 2)
        ctx.push(("production_abilities", {"seat": seat}))
    for deck in draws:
        zone = f"hand.{seat}" if deck == "action" else f"auction.{seat}"
        ctx.push(("draw", {"seat": seat, "deck": deck, "n": 1, "zone": zone}))


def share_options(state: State, seat: str) -> list[tuple[str, Args]]:
    """Return the factions a shared income may go to: the other seats' factions (a wandering
    Ronin has none), then every Neutral Faction (`nf<N>`: a faction no one plays)."""
    others = [s for s in players(state) if s != seat and faction_of(state, s) is not None]
    targets = others + [neutral_id(f) for f in neutral_factions(state)]
    return [("share", {"target": t}) for t in targets]


@answer("income_shared")
def _income_shared(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat, target, n = data["who"], args["target"], int(data["n"])
    if target in players(ctx.state):
        sync_town(ctx, target, adjust(town(ctx.state, target), salvage=n), "shared income")
    ctx.note("income_shared", seat=seat, target=target, salvage=n)


@task("auction")
def _auction(ctx: Ctx, a: Args) -> None:
    seat = a["seat"]
    money = ctx.state.count(f"salvage.{seat}")
    opts: list[tuple[str, Args]] = [("pass", {})]
    for other in players(ctx.state):
        if other == seat:
            continue
        for c in ctx.state.zone(f"auction.{other}"):
            if int(card(c)["value"]) <= money:
                opts.append(("buy", {"card": c, "from": other}))
    if len(opts) == 1:
        return
    ctx.ask(
        seat, "auction_house", "auction_done", "buy one card from an Auction House", opts, who=seat
    )


@answer("auction_done")
def _auction_done(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    if kind == "pass":
        return
    seat, seller, c = data["who"], args["from"], args["card"]
    price = int(card(c)["value"])
    sync_town(ctx, seat, adjust(town(ctx.state, seat), salvage=-price), "auction house")
    sync_town(ctx, seller, adjust(town(ctx.state, seller), salvage=price), "auction house")
    ctx.move(c, f"auction.{seller}", f"auction.{seat}")
    ctx.note("auction_bought", buyer=seat, seller=seller, card=c, price=price)


@task("town_event")
def _town_event(ctx: Ctx, a: Args) -> None:
    ctx.roll(["d10"], f"town events {a['seat']}", "town_event_rolled", seat=a["seat"])


@task("town_event_rolled")
def _town_event_rolled(ctx: Ctx, a: Args) -> None:
    seat, roll = a["seat"], int(a["faces"][0])
    ev = roll_town_event(town(ctx.state, seat), roll)
    ctx.note("town_event_rolled", seat=seat, roll=roll)
    sync_town(ctx, seat, ev.town, f"town events {roll}")
    if ev.choose_card:
        opts = [("take", {"deck": d}) for d in ev.choose_card if ctx.state.count(f"deck.{d}")]
        if opts:
            ctx.ask(seat, "town_event_card", "event_card", "take a card", opts, who=seat)
    elif ev.lose_resource:
        opts = [("lose", {"resource": r}) for r in ev.town.resources]
        ctx.ask(seat, "lose_resource", "event_resource", "lose a resource", opts, who=seat)


@answer("event_card")
def _event_card(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat, deck = data["who"], args["deck"]
    zone = {"action": f"hand.{seat}", "spoils": f"auction.{seat}"}.get(deck, f"roster.{seat}")
    ctx.push(
        ("draw", {"seat": seat, "deck": deck, "n": 1, "zone": zone}),
        ("settle_auction_events", {"seat": seat}),
    )


@answer("event_resource")
def _event_resource(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    seat = data["who"]
    sync_town(ctx, seat, lose_resource(town(ctx.state, seat), args["resource"]), "town events")
    ctx.note("resource_lost", seat=seat, resource=args["resource"])


def weeks_per_turn() -> int:
    """Return the weeks a party has each turn."""
    return int(economy()["weeks_per_turn"])
