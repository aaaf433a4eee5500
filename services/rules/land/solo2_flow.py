"""Solo Variant II as tasks: opposing factions, OFTEC rolls, Secondary Effects, Red Dot cards."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from services.rules.engine.api import ChanceRequest
from services.rules.engine.state import State
from services.rules.land.abilities import ignorer
from services.rules.land.data import RULES_3, economy
from services.rules.land.economy import adjust, lose_resource
from services.rules.land.flow import Args, Ctx, answer, sync_town, task
from services.rules.land.hexmap import distances, game_map
from services.rules.land.oftec import (
    Challenge,
    challenge,
    farthest,
    last_tech,
    opposing_id,
    opposing_tracks,
    priciest,
    pvp_cap,
    pvp_option_1_pick,
    roller,
    row,
    se_of,
    solo2,
)
from services.rules.land.pvp_party_flow import PARTIES as PVP_PARTIES
from services.rules.land.red_dot_flow import RED_DISCARD, enter
from services.rules.land.setup import is_solo2
from services.rules.land.solo_decks import RED_DOT_DECK, solo_deck
from services.rules.land.state import (
    faction_of,
    game_options,
    opposing_factions,
    pos,
    rules_from,
    starting_techs,
    town,
)

PLAYER = "p1"  # Solo Variant II has one seat
MOUNTAIN = int(economy()["mountain_move_cost"])


def solo2_on(state: State) -> bool:
    """Return whether the game is Solo Variant II."""
    return is_solo2(game_options(state))


def level(state: State) -> Challenge:
    """Return the game's challenge level."""
    return challenge(int(game_options(state)["challenge"]))


def opposing(state: State) -> list[int]:
    """Return the opposing factions' 1d10 numbers in the order they were rolled."""
    return opposing_factions(state)


# --- set up ---------------------------------------------------------------------------


@task("red_dot_form")
def _red_dot_form(ctx: Ctx, a: Args) -> None:
    cards = solo_deck(RED_DOT_DECK, game_options(ctx.state))
    req = ChanceRequest("deck_form", "form red_dot", deck=f"deck.{RED_DOT_DECK}", cards=cards)
    ctx.deal(req, "red_dot_formed")


@task("red_dot_formed")
def _red_dot_formed(ctx: Ctx, a: Args) -> None:
    ctx.set_to(f"deck.{RED_DOT_DECK}", int(a["size"]), "formed")
    ctx.push(("mission_roll", {}))


@task("opp_roll")
def _opp_roll(ctx: Ctx, a: Args) -> None:
    # "Then randomly roll or select your Opposing Factions."
    if len(opposing(ctx.state)) >= level(ctx.state).factions:
        ctx.push(("deal_start", {"i": 0}))
        return
    chosen = game_options(ctx.state).get("opposing_factions")
    if chosen is not None:
        # "Then randomly roll or select your Opposing Factions." (the option)
        f = int(chosen[len(opposing(ctx.state))])
        ctx.note("opposing_faction_selected", faction=f)
        _oppose(ctx, f)
        ctx.push(("opp_roll", {}))
        return
    ctx.roll(["d10"], "opposing faction", "opp_rolled")


def _oppose(ctx: Ctx, roll: int) -> None:
    of = opposing_id(roll)
    ctx.setv("opposing", [*opposing(ctx.state), roll])
    # "retrieve two Faction Marker chips from each Opposing Faction and place them on the
    # "Begin" on both victory tracks."
    ctx.add(f"th.{of}", int(economy()["start_town_health"]), "setup")
    ctx.add(f"prestige.{of}", int(economy()["start_prestige"]), "setup")


@task("opp_rolled")
def _opp_rolled(ctx: Ctx, a: Args) -> None:
    roll = int(a["faces"][0])
    taken = [faction_of(ctx.state, PLAYER), *opposing(ctx.state)]
    ctx.note("opposing_faction_rolled", roll=roll, rerolled=roll in taken)
    if roll not in taken:
        _oppose(ctx, roll)
    ctx.push(("opp_roll", {}))


# --- Town Events: the OFTEC -------------------------------------------------------------


@task("oftec")
def _oftec(ctx: Ctx, a: Args) -> None:
    c, j = level(ctx.state), int(a["j"])
    if j == 0:
        ctx.set_to("se_left", c.se_cap, "secondary effects this turn")
    if rules_from(ctx.state, RULES_3):
        # "Then the player rolls a 1d10 for each opposing Faction on the Opposing Faction
        # Town Events Chart": four rolls at the Ultimate challenge too (register 35)
        if j >= c.factions:
            return
        f = opposing(ctx.state)[j]
    elif j >= c.rolls:
        return
    else:
        f = opposing(ctx.state)[roller(c, ctx.state.count("turn"), j)]
    lost = [int(x) for x in ctx.state.var("oftec_lost", [])]
    if f in lost:
        # "This Faction loses their roll next Town Events roll."
        ctx.setv("oftec_lost", [x for x in lost if x != f])
        ctx.note("oftec_roll_lost", faction=f)
        ctx.push(("oftec", {"j": j + 1}))
        return
    ctx.roll(["d10"], f"OFTEC of faction {f}", "oftec_rolled", j=j, faction=f)


@task("oftec_rolled")
def _oftec_rolled(ctx: Ctx, a: Args) -> None:
    j, f, roll = int(a["j"]), int(a["faction"]), int(a["faces"][0])
    r = row(roll)
    of = opposing_id(f)
    th, pr = ctx.state.count(f"th.{of}"), ctx.state.count(f"prestige.{of}")
    th2, pr2 = opposing_tracks(th, pr, r)
    ctx.add(f"th.{of}", th2 - th, f"OFTEC {roll}")
    ctx.add(f"prestige.{of}", pr2 - pr, f"OFTEC {roll}")
    ctx.note("oftec_rolled", faction=f, roll=roll, town_health=th2, prestige=pr2)
    if r.lose_next_roll:
        ctx.setv("oftec_lost", [*ctx.state.var("oftec_lost", []), f])
    nxt = ("oftec", {"j": j + 1})
    if r.se is None:
        ctx.push(nxt)
        return
    if ctx.state.count("se_left") <= 0:
        # the challenge level caps the Secondary Effects each turn
        ctx.note("secondary_effect_ignored", faction=f, roll=roll)
        ctx.push(nxt)
        return
    ctx.add("se_left", -1, "secondary effect")
    if isinstance(r.se, str):
        ctx.push(("se", {"kind": r.se, "faction": f, "roll": roll, "d6": None}), nxt)
        return
    ctx.push(nxt)
    ctx.roll(["d6"], f"secondary effect of faction {f}", "se_d6", faction=f, roll=roll)


@task("se_d6")
def _se_d6(ctx: Ctx, a: Args) -> None:
    d6 = int(a["faces"][0])
    kind = se_of(row(int(a["roll"])), d6)
    ctx.push(("se", {"kind": kind, "faction": a["faction"], "roll": a["roll"], "d6": d6}))


@task("se")
def _se(ctx: Ctx, a: Args) -> None:
    kind, f = a["kind"], int(a["faction"])
    ctx.note("secondary_effect", faction=f, roll=a["roll"], d6=a["d6"], effect=kind)
    t = town(ctx.state, PLAYER)
    if kind == "lose_salvage_1d6":
        ctx.roll(["d6"], "salvage lost", "se_salvage")
    elif kind in ("red_dot_1", "red_dot_2"):
        n = 1 if kind == "red_dot_1" else 2
        ctx.push(("red_dot_draw", {"faction": f, "n": n}))
    elif kind in ("choose_resource", "farthest_resource"):
        if not t.resources:
            loss = solo2()["no_resource_loss"]
            new = adjust(t, town_health=-int(loss["town_health"]), prestige=-int(loss["prestige"]))
            sync_town(ctx, PLAYER, new, "secondary effect: no resources")
            return
        pick = list(t.resources) if kind == "choose_resource" else _farthest(ctx)
        _lose_resource(ctx, pick)
    elif kind == "discard_roster":
        roster = sorted(ctx.state.zone(f"roster.{PLAYER}"))
        if roster:
            ctx.shuffle(len(roster), "random roster character", "se_roster", cards=roster)
    elif kind == "discard_priciest_spoils":
        pick = priciest(ctx.state.zone(f"auction.{PLAYER}"))
        if len(pick) == 1:
            _discard_spoils(ctx, pick[0])
        elif pick:
            opts = [("discard", {"card": c}) for c in pick]
            prompt = "discard the most expensive Spoils card in your Auction House"
            ctx.ask(PLAYER, "se_spoils", "se_spoils_chosen", prompt, opts, who=PLAYER)
    elif kind == "lose_last_tech":
        _lose_last_tech(ctx)
    elif kind == "pvp":
        ctx.push(("se_pvp", {"faction": f}))


def _farthest(ctx: Ctx) -> list[str]:
    d = distances(game_map(), pos(ctx.state, PLAYER), MOUNTAIN)
    owned = town(ctx.state, PLAYER).resources
    return farthest({r: d.get(game_map().resources[r].at, 1 << 30) for r in owned})


def _lose_resource(ctx: Ctx, choices: list[str]) -> None:
    if len(choices) == 1:
        _resource_gone(ctx, choices[0])
        return
    # "you choose an Owned Resource to lose" / "If tied, you choose."
    opts = [("lose", {"resource": r}) for r in sorted(choices)]
    ctx.ask(PLAYER, "lose_resource", "se_resource", "lose an owned resource", opts, who=PLAYER)


def _resource_gone(ctx: Ctx, resource: str) -> None:
    sync_town(ctx, PLAYER, lose_resource(town(ctx.state, PLAYER), resource), "secondary effect")
    ctx.note("resource_lost", seat=PLAYER, resource=resource)


@answer("se_resource")
def _se_resource(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    _resource_gone(ctx, args["resource"])


@task("se_salvage")
def _se_salvage(ctx: Ctx, a: Args) -> None:
    t = town(ctx.state, PLAYER)
    lost = min(int(a["faces"][0]), t.salvage)
    sync_town(ctx, PLAYER, adjust(t, salvage=-lost), "secondary effect")
    ctx.note("salvage_lost", seat=PLAYER, amount=lost)


@task("se_roster")
def _se_roster(ctx: Ctx, a: Args) -> None:
    c = a["cards"][a["order"][0]]
    ctx.move(c, f"roster.{PLAYER}", "discard.characters")
    ctx.note("roster_discarded", seat=PLAYER, card=c)


def _discard_spoils(ctx: Ctx, c: str) -> None:
    ctx.move(c, f"auction.{PLAYER}", "discard.spoils")


@answer("se_spoils_chosen")
def _se_spoils(ctx: Ctx, data: Args, kind: str, args: Args) -> None:
    _discard_spoils(ctx, args["card"])


def _lose_last_tech(ctx: Ctx) -> None:
    t = town(ctx.state, PLAYER)
    start = starting_techs(ctx.state, PLAYER)
    tech = last_tech([*start, *ctx.state.var(f"equipped.{PLAYER}", [])], dict(t.techs))
    if tech is None:
        return
    # "you lose the last Town Technology you equipped and all effects apply": the chip goes
    # with every tier, and the Town Health its tiers gave.
    tiers = t.techs[tech]
    techs = {k: v for k, v in t.techs.items() if k != tech}
    new = replace(t, techs=MappingProxyType(techs))
    new = adjust(new, town_health=-tiers * int(economy()["tech_town_health"]))
    sync_town(ctx, PLAYER, new, "secondary effect")
    ctx.note("tech_lost", seat=PLAYER, tech=tech, tiers=tiers)


# --- PVP (the cap, option 1; option 2 is pvp_party_flow.py) ------------------------


def opposing_in_play(state: State) -> int:
    """Return the NPCMs and PVP Parties the opposing factions have in play."""
    npcms = sum(1 for n in state.var("npcms", []) if str(n["hirer"]).startswith("of"))
    return npcms + len(state.var(PVP_PARTIES, []))


@task("se_pvp")
def _se_pvp(ctx: Ctx, a: Args) -> None:
    f = int(a["faction"])
    if opposing_in_play(ctx.state) >= pvp_cap(level(ctx.state)):
        # "ignore this effect and discard 1d10 Salvage Coins instead. If you have none, you
        # lose 2 Prestige."
        t = town(ctx.state, PLAYER)
        if t.salvage > 0:
            ctx.roll(["d10"], "salvage discarded", "se_salvage")
        else:
            p = int(solo2()["pvp_fallback"]["prestige"])
            sync_town(ctx, PLAYER, adjust(t, prestige=-p), "secondary effect: pvp")
        return
    if int(game_options(ctx.state).get("pvp_option", 1)) == 2:
        ctx.push(("pvp2_form", {"faction": f}))  # "Option 2: Create a PVP Party."
        return
    ctx.push(("pvp1_draw", {"faction": f}))


@task("pvp1_draw")
def _pvp1_draw(ctx: Ctx, a: Args) -> None:
    # Option 1: "Draw the first NPCM Bounty Hunter, Assassin or Hitman card, discarding all
    # others. Reshuffle if necessary."
    of = opposing_id(int(a["faction"]))
    drawn = ctx.state.zone(f"play.{of}")
    i = pvp_option_1_pick(drawn)
    if i is not None:
        n = drawn[i]
        for c in drawn:
            if c != n:
                ctx.move(c, f"play.{of}", RED_DISCARD)
        at = list(pos(ctx.state, PLAYER))  # "enters play at the player's Party location"
        strike = rules_from(ctx.state, RULES_3)  # "and utilizes their First Strike"
        if ignorer(ctx.state, PLAYER):  # the player may ignore it (a special ability)
            info = {"of": of, "card": n, "at": at, "first_strike": strike}
            ctx.push(("red_dot_enter", info))
            return
        enter(ctx, n, of, at, strike)
        return
    for c in drawn:
        ctx.move(c, f"play.{of}", RED_DISCARD)
    if ctx.state.count(f"deck.{RED_DOT_DECK}") == 0 and not ctx.state.zone(RED_DISCARD):
        ctx.note("deck_empty", deck=RED_DOT_DECK)
        return
    ctx.push(
        ("draw", {"seat": "", "deck": RED_DOT_DECK, "n": 1, "zone": f"play.{of}"}),
        ("pvp1_draw", a),
    )
